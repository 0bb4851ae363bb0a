"""Outputs that cannot be written and config folders that are not what they seem, through the real CLI:
every failure names the file it is about, in one line, never a traceback."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "sample_submission.json"
SEED_LINE = json.dumps(json.loads(SEED.read_text(encoding="utf-8")))


def evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    (tmp_path / "batch.jsonl").write_text((SEED_LINE + "\n") * 600, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("flag", "name"),
    [
        ("--out", "/dev/full"),
        ("--explain-json", "/dev/full"),
        ("--report-md", "/dev/full"),
        ("--log-file", "the log /dev/full"),
    ],
)
def test_a_full_disk_names_the_output_that_failed(batch: Path, jobs: str, flag: str, name: str) -> None:
    others = [] if flag == "--out" else ["--out", "results.jsonl"]
    done = evalkit("eval", "batch.jsonl", "--jobs", jobs, flag, "/dev/full", *others, cwd=batch)
    assert done.returncode == 2
    assert done.stderr == f"evalkit eval: cannot write {name}: No space left on device\n"
    assert not (batch / "results.jsonl").exists()
    assert [p.name for p in batch.iterdir() if p.name.endswith(".tmp")] == []


def test_a_full_disk_under_stdout_with_workers_says_stdout(batch: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "evalkit", "eval", "batch.jsonl", "--jobs", "2"],
            cwd=batch,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr == "evalkit eval: cannot write stdout: No space left on device\n"


def test_eval_refuses_an_empty_config_folder_as_check_does(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    evaluated = evalkit("eval", str(SEED), "--config-dir", "empty", cwd=tmp_path)
    checked = evalkit("check", "empty", cwd=tmp_path)
    assert (evaluated.returncode, checked.returncode) == (2, 2)
    assert evaluated.stdout == ""
    assert evaluated.stderr == (
        "evalkit eval: empty: no config files found here (looked for dimensions.yaml, "
        "ranking.yaml, prompt.yaml, rewrite.yaml, rules.yaml)\n"
    )


def test_review_refuses_an_empty_config_folder_too(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = evalkit("review", str(SEED), "--config-dir", "empty", cwd=tmp_path)
    assert done.returncode == 2
    assert "empty: no config files found here" in done.stderr


def _folder(config: Path) -> None:
    (config / "rules.yaml").mkdir()


def _loop(config: Path) -> None:
    os.symlink("rules.yaml", config / "rules.yaml")


def _dangling(config: Path) -> None:
    os.symlink("nowhere.yaml", config / "rules.yaml")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_folder, "it is a folder"),
        (_loop, "Too many levels of symbolic links"),
        (_dangling, "No such file or directory"),
    ],
)
def test_a_rules_yaml_that_cannot_be_read_is_an_error_not_skipped(
    tmp_path: Path, make: object, reason: str
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "dimensions.yaml").write_text("dimensions: {}\n", encoding="utf-8")
    make(config)  # type: ignore[operator]
    expected = f"config/rules.yaml:1:1: error[unreadable] cannot read the file: {reason}\n"
    checked = evalkit("check", "config", cwd=tmp_path)
    assert checked.returncode == 1
    assert checked.stdout.startswith(expected)
    evaluated = evalkit("eval", str(SEED), "--config-dir", "config", cwd=tmp_path)
    assert evaluated.returncode == 2
    assert evaluated.stderr.startswith(expected)


@pytest.mark.parametrize("flag", ["--out", "--explain-json", "--report-md", "--log-file"])
def test_an_output_that_is_a_folder_is_refused_before_anything_is_evaluated(
    tmp_path: Path, flag: str
) -> None:
    (tmp_path / "folder").mkdir()
    done = evalkit("eval", str(SEED), flag, "folder", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "evalkit eval: cannot write folder: it is a folder\n"


def _file_size_limit(size: int) -> Callable[[], None]:
    """Files the command writes may not grow past `size` bytes (RLIMIT_FSIZE): a write past it fails with
    EFBIG, "File too large" (Python ignores SIGXFSZ), as a full disk would fail a regular file."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


BOTH = ["--out", "results.jsonl", "--explain-json", "explain.jsonl"]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("sample", "limit", "flags", "name"),
    [
        # 600 lines of the seed's sample: 2.2 MB of results, 1.7 MB of explanations
        ("sample_submission.json", 1_000_000, ["--out", "results.jsonl"], "results.jsonl"),
        ("sample_submission.json", 2_000_000, BOTH, "results.jsonl"),
        # 600 lines of a markup sample: 0.8 MB of results, 1.8 MB of explanations
        ("13_markup_1.json", 1_000_000, BOTH, "explain.jsonl"),
    ],
)
def test_an_output_file_that_cannot_grow_is_named_also_when_workers_write_it(
    tmp_path: Path, jobs: str, sample: str, limit: int, flags: list[str], name: str
) -> None:
    # with --jobs the workers write their chunks into the output files themselves: a write that fails
    # there is said by the parent, naming the output
    line = json.dumps(json.loads((ROOT / "samples" / sample).read_text(encoding="utf-8")))
    (tmp_path / "batch.jsonl").write_text((line + "\n") * 600, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", "batch.jsonl", "--jobs", jobs, *flags],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_file_size_limit(limit),
    )
    assert (done.returncode, done.stderr) == (2, f"evalkit eval: cannot write {name}: File too large\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["batch.jsonl"]


def test_stdout_redirected_to_a_file_that_cannot_grow_says_stdout(tmp_path: Path) -> None:
    (tmp_path / "batch.jsonl").write_text((SEED_LINE + "\n") * 600, encoding="utf-8")
    with open(tmp_path / "results.jsonl", "w") as stdout:  # written into by the workers themselves
        done = subprocess.run(
            [sys.executable, "-m", "evalkit", "eval", "batch.jsonl", "--jobs", "2"],
            cwd=tmp_path,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            preexec_fn=_file_size_limit(1_000_000),
        )
    assert (done.returncode, done.stderr) == (2, "evalkit eval: cannot write stdout: File too large\n")
