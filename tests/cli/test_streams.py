"""Every command through the installed entry points when the world around it fails: a reader that goes
away (`| head -1`), a full disk under stdout, a folder it may not read, a progress bar on a terminal
sharing stderr with error lines. Never a traceback, never a misleading message, the documented exit code."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVALKIT = str(Path(sys.executable).with_name("evalkit"))
OAI_EVAL = str(Path(sys.executable).with_name("oai-eval"))
SEED_SAMPLE = ROOT / "samples" / "sample_submission.json"
CONFIG = ROOT / "config_samples"
SCORE_ROW = {"data_source": "typos", "extra_info": {"label": "a"}, "model_output": "<solution>a</solution>"}


def buffered_env() -> dict[str, str]:
    """The environment without PYTHONUNBUFFERED: stdout buffers as it does for most users, so a failed
    write can surface only at the final flush."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}


def run(args: list[str], cwd: Path, stdout: Any, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env=buffered_env(),
        **options,
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copy(SEED_SAMPLE, tmp_path / "one.json")
    (tmp_path / "batch").mkdir()
    for index in range(40):
        shutil.copy(SEED_SAMPLE, tmp_path / "batch" / f"{index:02}.json")
    (tmp_path / "rows.jsonl").write_text(json.dumps(SCORE_ROW) + "\n", encoding="utf-8")
    return tmp_path


COMMANDS = {
    "eval batch": [EVALKIT, "eval", "batch"],
    "eval one": [EVALKIT, "eval", "one.json"],
    "oai-eval": [OAI_EVAL, "one.json"],
    "schema": [EVALKIT, "schema", "rules"],
    "check": [EVALKIT, "check", str(CONFIG), "--format", "sarif"],
    "test": [EVALKIT, "test", str(CONFIG)],
    "score": [EVALKIT, "score", "rows.jsonl"],
    "score summary": [EVALKIT, "score", "rows.jsonl", "--out", "scored.jsonl"],
    "help": [EVALKIT, "eval", "--help"],
}


@pytest.fixture
def closed_pipe() -> Iterator[int]:
    """The writing end of a pipe whose reader has already gone."""
    reader, writer = os.pipe()
    os.close(reader)
    yield writer
    os.close(writer)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_reader_that_went_away_ends_the_command_quietly(workdir: Path, closed_pipe: int, name: str) -> None:
    done = run(COMMANDS[name], workdir, closed_pipe)
    assert done.stderr == ""
    assert done.returncode == 0


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("name", [name for name in COMMANDS if name != "help"])
def test_a_full_disk_under_stdout_exits_2_saying_so(workdir: Path, name: str) -> None:
    with open("/dev/full", "w") as full:
        done = run(COMMANDS[name], workdir, full)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert done.stderr.count("No space left on device") == 1, done.stderr
    assert "None" not in done.stderr


def _without_permission_override() -> None:
    """In the child, before exec: drop root's power to ignore file permissions (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH leave the bounding set), so a mode 000 folder is unreadable to it too."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for capability in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


@pytest.fixture
def unreadable_folder(tmp_path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A folder holding a sample and a config that the command may not read, and how to run it so: as
    root, permissions do not apply until it gives up the capabilities that override them."""
    as_user: dict[str, Any] = {"preexec_fn": _without_permission_override} if os.geteuid() == 0 else {}
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(SEED_SAMPLE, locked / "sample.json")
    for config_file in CONFIG.glob("*.yaml"):
        shutil.copy(config_file, locked / config_file.name)
    locked.chmod(0)
    try:
        yield tmp_path, as_user
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["eval", "locked"], r"^evalkit eval: locked\S*: Permission denied$"),
        (
            ["eval", str(SEED_SAMPLE), "--config-dir", "locked"],
            r"^locked:1:1: error\[unreadable\] cannot read the folder: Permission denied$",
        ),
        (["check", "locked/rules.yaml"], r"^evalkit check: locked\S*: Permission denied$"),
    ],
)
def test_a_folder_that_cannot_be_read_is_named_and_exits_2(
    unreadable_folder: tuple[Path, dict[str, Any]], args: list[str], says: str
) -> None:
    base, as_user = unreadable_folder
    done = run([EVALKIT, *args], base, subprocess.PIPE, **as_user)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert re.search(says, done.stderr, re.M), done.stderr


def test_the_progress_bar_is_erased_before_an_error_line(
    tmp_path: Path, read_terminal: Callable[[int], str]
) -> None:
    good = json.dumps(json.loads(SEED_SAMPLE.read_text(encoding="utf-8")))
    (tmp_path / "batch.jsonl").write_text(
        "\n".join([good, "{bad", *[good] * 200, "{bad"]) + "\n", encoding="utf-8"
    )
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [EVALKIT, "eval", "batch.jsonl", "--out", "results.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    assert process.wait(timeout=120) == 1
    shown = read_terminal(controller)
    assert "203/203" in shown
    errors = re.findall(r"[^\n]*batch\.jsonl:\d+: error", shown)
    assert len(errors) == 2
    for line in errors:  # what is left on the screen: the text after the last carriage return or erase
        assert re.split(r"\r(?:\x1b\[K)?", line)[-1].startswith("batch.jsonl:"), repr(line)


def test_the_progress_bar_ends_at_what_was_evaluated_when_blank_lines_were_counted_ahead(
    tmp_path: Path, read_terminal: Callable[[int], str]
) -> None:
    good = json.dumps(json.loads(SEED_SAMPLE.read_text(encoding="utf-8")))
    (tmp_path / "batch.jsonl").write_text("\n\n".join([good] * 150) + "\n\n", encoding="utf-8")
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [EVALKIT, "eval", "batch.jsonl", "--out", "results.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    assert process.wait(timeout=120) == 0
    shown = read_terminal(controller)
    assert shown.endswith("] 150/150\r\n"), repr(shown[-80:])


def test_oai_eval_names_itself_in_usage_and_errors(tmp_path: Path) -> None:
    done = run([OAI_EVAL, "--jobs", "x", "s.json"], tmp_path, subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: oai-eval ")
    assert "oai-eval: error: argument --jobs" in done.stderr


@pytest.mark.parametrize(
    "name", ["rules", "rules.yaml", "rules.yml", "configs/main/rules.yml", "rules.schema.json"]
)
def test_schema_takes_a_config_file_name_as_check_does(tmp_path: Path, name: str) -> None:
    done = run([EVALKIT, "schema", name], tmp_path, subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["$id"].endswith("/rules.schema.json")


def test_schema_help_names_every_schema() -> None:
    done = run([EVALKIT, "schema", "--help"], ROOT, subprocess.PIPE)
    names = run([EVALKIT, "schema"], ROOT, subprocess.PIPE).stdout.split()
    assert "ruletest" in names
    assert all(name in " ".join(done.stdout.split()) for name in names)
