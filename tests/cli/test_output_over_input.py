"""An output that names one of the command's inputs is refused before anything is read or written (exit
2): the results replaced the submissions they came from (eval, review --export), a log or a journal was
appended to them (eval --log-file, review --decisions), a report replaced a journal (stats). `evalkit
score --out` may name its input: its output is the input's rows with their scores (scored in place)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
SAMPLE = REPO / "samples" / "sample_submission.json"


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    shutil.copy(SAMPLE, tmp_path / "in.json")
    (tmp_path / "batch").mkdir()
    shutil.copy(SAMPLE, tmp_path / "batch" / "a.json")
    (tmp_path / "link.json").symlink_to("in.json")
    (tmp_path / "ana.decisions.jsonl").write_text("", encoding="utf-8")
    return tmp_path


REFUSED = {
    "eval --out": (
        ["evalkit", "eval", "in.json", "--out", "in.json"],
        "evalkit eval: --out in.json is also an input; give each output its own file",
    ),
    "eval --explain-json in a folder": (
        ["evalkit", "eval", "batch", "--explain-json", "batch/a.json"],
        "evalkit eval: --explain-json batch/a.json is also an input; give each output its own file",
    ),
    "eval --log-file through a link": (
        ["evalkit", "eval", "link.json", "--log-file", "./in.json"],
        "evalkit eval: --log-file ./in.json is also an input (link.json); give each output its own file",
    ),
    "oai-eval --report-md": (
        ["oai-eval", "in.json", "batch", "--report-md", "batch/a.json", "--jobs", "2"],
        "oai-eval: --report-md batch/a.json is also an input; give each output its own file",
    ),
    "review --decisions": (
        ["evalkit", "review", "in.json", "--decisions", "in.json", "--export", "out.jsonl"],
        "evalkit review: --decisions in.json is also an input; give the journal its own file",
    ),
    "review --export over an input": (
        ["evalkit", "review", "batch", "--export", "batch/a.json"],
        "evalkit review: --export batch/a.json is also an input or the journal; give it its own file",
    ),
    "review --export over the journal": (
        [
            "evalkit",
            "review",
            "in.json",
            "--decisions",
            "ana.decisions.jsonl",
            "--export",
            "ana.decisions.jsonl",
        ],
        "evalkit review: --export ana.decisions.jsonl is also an input or the journal; give it its own file",
    ),
    "stats --out over a journal": (
        ["evalkit", "stats", "ana.decisions.jsonl", "--out", "ana.decisions.jsonl"],
        "evalkit stats: --out ana.decisions.jsonl is also a journal or an input; give it its own file",
    ),
    "stats --out over an input": (
        ["evalkit", "stats", "ana.decisions.jsonl", "--input", "batch", "--out", "batch/a.json"],
        "evalkit stats: --out batch/a.json is also a journal or an input; give it its own file",
    ),
}


@pytest.mark.parametrize("argv, message", REFUSED.values(), ids=REFUSED.keys())
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(
    inputs: Path, argv: list[str], message: str
) -> None:
    before = {path: path.read_bytes() for path in inputs.rglob("*") if path.is_file()}
    done = run(argv, inputs)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    assert {path: path.read_bytes() for path in inputs.rglob("*") if path.is_file()} == before


def test_a_device_named_as_output_and_input_is_no_clash(inputs: Path) -> None:
    done = run(["evalkit", "eval", "in.json", "--out", "/dev/null", "--log-file", "/dev/null"], inputs)
    assert done.returncode == 0, done.stderr
