"""The same mistake gets the same message in every command (issue 30, point 17): a misspelt --config-dir
(or check's and test's PATH) with the closest existing folder suggested, a folder of configs in another
format named, a Parquet file without --ray said as such, and `--ray FILE` read as an input.

Usage errors that stop a command before any work, run in the test's process (`in_process`); the same paths
through the console script: tests/cli/test_untrusted_in_outputs.py runs each command that way."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from evalkit.commands._ray_run import file_after_ray

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "sample_submission.json"
InProcess = Callable[..., subprocess.CompletedProcess[str]]
MISSPELT = "no such folder; did you mean config_samples?"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "config_samples", tmp_path / "config_samples")
    shutil.copy(SAMPLE, tmp_path / "s.json")
    (tmp_path / "config_sample.txt").write_text("a file, never suggested for a folder")
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "s.json"],
        ["diff", "s.json", "--base", "config_samples"],
        ["review", "s.json", "--export", "out.jsonl"],
        ["stats", "j.decisions.jsonl"],
    ],
    ids=lambda command: command[0],
)
def test_a_misspelt_config_dir_is_one_message_with_the_closest_folder(
    workspace: Path, in_process: InProcess, command: list[str]
) -> None:
    done = in_process(*command, "--config-dir", "config_sample", cwd=workspace)
    assert done.returncode == 2
    assert done.stderr == f"evalkit {command[0]}: --config-dir config_sample: {MISSPELT}\n"


@pytest.mark.parametrize("command", ["check", "test"])
def test_check_and_test_say_a_misspelt_path_alike(
    workspace: Path, in_process: InProcess, command: str
) -> None:
    done = in_process(command, "config_sample", cwd=workspace)
    message = f"evalkit {command}: config_sample: no such file or folder; did you mean config_samples?\n"
    assert (done.returncode, done.stderr) == (2, message)


def test_nothing_close_is_suggested_when_nothing_is_close(workspace: Path, in_process: InProcess) -> None:
    done = in_process("eval", "s.json", "--config-dir", "zzzzzz", cwd=workspace)
    assert done.stderr == "evalkit eval: --config-dir zzzzzz: no such folder\n"


def test_a_file_as_config_dir_is_not_a_folder(workspace: Path, in_process: InProcess) -> None:
    done = in_process("stats", "j.decisions.jsonl", "--config-dir", "s.json", cwd=workspace)
    assert (
        done.stderr
        == "evalkit stats: --config-dir s.json: not a folder (a config is a folder of YAML files)\n"
    )


@pytest.mark.parametrize("command", [["eval", "s.json", "--config-dir", "configs"], ["check", "configs"]])
def test_a_folder_of_json_configs_names_them(
    workspace: Path, in_process: InProcess, command: list[str]
) -> None:
    (workspace / "configs").mkdir()
    for name in ("rules.json", "dimensions.json", "notes.json"):
        (workspace / "configs" / name).write_text("{}")
    done = in_process(*command, cwd=workspace)
    assert done.returncode == 2
    assert done.stderr.rstrip().endswith(
        "; found dimensions.json, rules.json: config files are YAML (.yaml or .yml)"
    ), done.stderr


PARQUET = b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1"
"""The first and last bytes of a Parquet file (its magic number at both ends)."""


def test_a_parquet_file_without_ray_says_so(workspace: Path, in_process: InProcess) -> None:
    (workspace / "rows.parquet").write_bytes(PARQUET)
    scored = in_process("score", "rows.parquet", cwd=workspace)
    assert scored.returncode == 2
    assert scored.stderr == (
        "evalkit score: rows.parquet: the file is Parquet, not text: eval and score read Parquet with --ray "
        "(Ray Data)\n"
    )
    evaluated = in_process("eval", "rows.parquet", cwd=workspace)
    assert evaluated.returncode == 1
    assert "rows.parquet: error: line 1:1: the file is Parquet, not text" in evaluated.stderr


def test_a_file_after_ray_is_an_input_not_the_address(workspace: Path, in_process: InProcess) -> None:
    # --jobs is refused with --ray before Ray is imported: s.json reached the run as an input
    done = in_process("eval", "--ray", "s.json", "--jobs", "2", cwd=workspace)
    assert (done.returncode, done.stderr) == (
        2,
        "evalkit eval: --jobs does not go with --ray: Ray runs one evaluator per CPU of the cluster\n",
    )


def test_only_an_existing_path_after_ray_is_taken_for_an_input(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    assert file_after_ray(["--ray", "s.json", "t.json"]) == ["--ray=local", "s.json", "t.json"]
    assert file_after_ray(["--ray", "auto", "s.json"]) == ["--ray", "auto", "s.json"]
    assert file_after_ray(["--ray", "127.0.0.1:6379", "s.json"]) == ["--ray", "127.0.0.1:6379", "s.json"]
    assert file_after_ray(["--", "--ray", "s.json"]) == ["--", "--ray", "s.json"]
