"""A user's bad input through the commands, each found by trying it: the message names what was given and
starts with the command's name, and the exit code is DESIGN.md's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_json_line_broken_inside_a_string_says_what_without_a_dangling_at(tmp_path: Path) -> None:
    # json's own messages end on " at" before the position it would add; the position is said once, first
    (tmp_path / "data.jsonl").write_text('{"prompt": "a\tb"}\n{"prompt": "open', encoding="utf-8")
    evaluated = evalkit("eval", "data.jsonl", cwd=tmp_path)
    scored = evalkit("score", "data.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert evaluated.returncode == 1
    assert evaluated.stderr.splitlines() == [
        "data.jsonl:1: error: invalid JSON at column 14: Invalid control character",
        "data.jsonl:2: error: invalid JSON at column 12: Unterminated string",
    ]
    assert "data.jsonl:1: invalid JSON: Invalid control character (column 14)" in scored.stderr
    assert "data.jsonl:2: invalid JSON: Unterminated string (column 12)" in scored.stderr


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


CLOSED_STDOUT = {
    "eval": ["eval", str(SAMPLE)],
    "eval batch": ["eval", str(SAMPLE), str(SAMPLE), "--jobs", "2"],
    "check": ["check", str(REPO / "config_samples")],
    "test": ["test", str(REPO / "config_samples")],
    "diff": ["diff", str(SAMPLE), "--base", str(REPO / "config_samples")],
    "schema": ["schema", "rules"],
    "help": ["--help"],
}


@pytest.mark.parametrize("argv", CLOSED_STDOUT.values(), ids=CLOSED_STDOUT.keys())
def test_a_closed_stdout_is_an_output_that_cannot_be_written(tmp_path: Path, argv: list[str]) -> None:
    """`>&-`: Python has no sys.stdout then, and every command ended in a traceback."""
    done = closed("1", argv, tmp_path)
    assert done.returncode == 2
    command = "evalkit" if argv[0].startswith("-") else f"evalkit {argv[0]}"
    assert done.stderr.startswith(f"{command}: cannot write")
    assert done.stderr.endswith("stdout: Bad file descriptor\n")


def test_a_closed_stdout_does_not_stop_a_run_that_writes_elsewhere(tmp_path: Path) -> None:
    done = closed("1", ["eval", str(SAMPLE), "--out", "result.json"], tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))["label"]


def test_a_closed_stderr_leaves_the_results_on_stdout_and_the_exit_code(tmp_path: Path) -> None:
    """`2>&-`: the batch ended in a traceback nobody saw, with nothing written (exit 1)."""
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    done = closed("2", ["eval", str(SAMPLE), "bad.json"], tmp_path)
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["source"] for line in lines] == [str(SAMPLE), "bad.json"]
    assert "error" in lines[1]


def closed(descriptor: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command run with stdout (1) or stderr (2) closed, as a shell's `>&-` or `2>&-` leaves it."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" "$@" {descriptor}>&-', str(BIN / "evalkit"), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


BAD_NAME = os.fsdecode(b"b\xffad.json")
NAMED_IN_MESSAGES = {
    "review": (["review", BAD_NAME], "evalkit review: b\\xffad.json: no such file or folder"),
    "review --export": (
        ["review", str(SAMPLE), "--export", BAD_NAME],
        "b\\xffad.json: 1 result, 0 reviewed",
    ),
    "stats": (["stats", BAD_NAME], "evalkit stats: b\\xffad.json: no such journal"),
    "stats --input": (
        ["stats", "j.jsonl", "--input", BAD_NAME],
        "evalkit stats: --input b\\xffad.json: no such file or folder",
    ),
    "diff": (
        ["diff", BAD_NAME, "--base", str(REPO / "config_samples")],
        "evalkit diff: b\\xffad.json: no such file or folder",
    ),
    "schema": (
        ["schema", BAD_NAME],
        "evalkit schema: unknown schema 'b\\xffad.json'; choose one of: dimensions, ranking, prompt, "
        "rewrite, rules, submission, ruletest",
    ),
}


@pytest.mark.parametrize("argv, message", NAMED_IN_MESSAGES.values(), ids=NAMED_IN_MESSAGES.keys())
def test_a_name_whose_bytes_are_not_utf8_is_shown_as_every_output_shows_it(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    """`\\xNN`, as `ls -b` (README), where these messages wrote Python's `\\udcff`."""
    done = subprocess.run(
        [str(BIN / "evalkit"), *argv],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.stderr.decode("utf-8").splitlines()[-1] == message


def test_review_export_and_stats_out_refuse_a_folder_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "ana.decisions.jsonl").write_text("not json\n", encoding="utf-8")
    exported = evalkit("review", str(SAMPLE), "--export", "out", cwd=tmp_path)
    counted = evalkit("stats", "ana.decisions.jsonl", "--out", "out", cwd=tmp_path)
    assert (exported.returncode, counted.returncode) == (2, 2)
    assert exported.stderr == "evalkit review: out: cannot write: it is a folder\n"
    assert counted.stderr == "evalkit stats: out: cannot write: it is a folder\n"


def test_a_json_line_that_ends_inside_a_string_is_an_unterminated_string(tmp_path: Path) -> None:
    # the newline ends the line; json alone would call it a control character inside the string
    (tmp_path / "data.jsonl").write_bytes(b'{"prompt": "open\n{"prompt": "crlf\r\n{"prompt": "a\tb"}\n')
    evaluated = evalkit("eval", "data.jsonl", cwd=tmp_path)
    scored = evalkit("score", "data.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert evaluated.stderr.splitlines() == [
        "data.jsonl:1: error: invalid JSON at column 12: Unterminated string",
        "data.jsonl:2: error: invalid JSON at column 12: Unterminated string",
        "data.jsonl:3: error: invalid JSON at column 14: Invalid control character",
    ]
    assert "data.jsonl:1: invalid JSON: Unterminated string (column 12)" in scored.stderr
    assert "data.jsonl:2: invalid JSON: Unterminated string (column 12)" in scored.stderr
    assert "data.jsonl:3: invalid JSON: Invalid control character (column 14)" in scored.stderr
