"""A user's bad input through the commands, each found by trying it: the message names what was given and
starts with the command's name, and the exit code is DESIGN.md's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
SAMPLE = REPO / "samples" / "sample_submission.json"


def evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(BIN / "evalkit"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr
    return done


def test_eval_and_diff_name_the_inputs_that_hold_no_submission(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "blank.jsonl").write_text("\n\n", encoding="utf-8")
    evaluated = evalkit("eval", "empty", "blank.jsonl", cwd=tmp_path)
    compared = evalkit("diff", "empty", "blank.jsonl", "--base", str(REPO / "config_samples"), cwd=tmp_path)
    assert (evaluated.returncode, compared.returncode) == (2, 2)
    assert evaluated.stderr == "evalkit eval: no submissions found in empty, blank.jsonl\n"
    assert compared.stderr == "evalkit diff: no submissions found in empty, blank.jsonl\n"


def test_score_says_its_name_before_what_it_cannot_do(tmp_path: Path) -> None:
    done = evalkit("score", "missing.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "evalkit score: missing.jsonl: cannot read: No such file or directory\n"


def test_review_export_says_each_submission_it_cannot_read_and_exits_1(tmp_path: Path) -> None:
    shutil.copy(SAMPLE, tmp_path / "good.json")
    (tmp_path / "bad.json").write_bytes(b'{"prompt": "\xff"}')
    done = evalkit("review", "good.json", "bad.json", "--export", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "bad.json: error: line 1:13: the file is not UTF-8 text (byte 12: 0xff)",
        "out.jsonl: 2 results, 0 reviewed",
    ]
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8").count("\n") == 2


def test_a_report_that_cannot_be_written_stops_eval_before_any_result(tmp_path: Path) -> None:
    """The report is opened with the other outputs: its folder missing, nothing is evaluated or written,
    rather than results on stdout and then exit 2."""
    for inputs in ([str(SAMPLE)], [str(SAMPLE), str(SAMPLE), "--jobs", "2"]):
        done = evalkit("eval", *inputs, "--report-md", "gone/report.md", cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == "evalkit eval: cannot write gone/report.md: No such file or directory\n"
