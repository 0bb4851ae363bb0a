"""What no UTF-8 output can hold, through the real CLI: a lone surrogate escaped in a submission, file names
with bytes that are not UTF-8, integers of more digits than Python converts. Every output stays valid UTF-8,
the one bad line gets its error entry, and the run goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = json.loads((ROOT / "samples" / "sample_submission.json").read_text(encoding="utf-8"))
GOOD = json.dumps(SEED)
LONE = GOOD.replace('"rewrite_preferred": "', '"rewrite_preferred": "\\ud800x', 1)
BAD_NAME = os.fsdecode(b"bad\xff")  # a file name whose byte 0xff is not UTF-8


def evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The command's raw bytes: every stream must decode as UTF-8."""
    done = subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd, capture_output=True, timeout=120)
    done.stdout.decode("utf-8")
    assert "Traceback" not in done.stderr.decode("utf-8"), done.stderr
    return done


def utf8_lines(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8").splitlines()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_lone_surrogate_is_an_error_entry_at_its_column_and_the_run_goes_on(
    tmp_path: Path, jobs: str
) -> None:
    (tmp_path / "mixed.jsonl").write_text(f"{GOOD}\n{LONE}\n{GOOD}\n", encoding="utf-8")
    done = evalkit(
        "eval",
        "mixed.jsonl",
        "--jobs",
        jobs,
        "--out",
        "out.jsonl",
        "--explain-json",
        "explain.jsonl",
        "--report-md",
        "report.md",
        cwd=tmp_path,
    )
    assert done.returncode == 1
    lines = [json.loads(line) for line in utf8_lines(tmp_path / "out.jsonl")]
    assert [line["source"] for line in lines] == ["mixed.jsonl:1", "mixed.jsonl:2", "mixed.jsonl:3"]
    column = LONE.index("\\ud800") + 1
    message = (
        f"invalid JSON at column {column}: \\ud800 is a lone surrogate (half of a UTF-16 pair), "
        "not a character: no UTF-8 output can hold it"
    )
    assert lines[1] == {"source": "mixed.jsonl:2", "error": {"message": message}}
    assert "label" in lines[0] and "label" in lines[2]
    assert len(utf8_lines(tmp_path / "explain.jsonl")) == 3
    assert "## mixed.jsonl:2" in (tmp_path / "report.md").read_bytes().decode("utf-8")
    assert done.stderr.decode("utf-8") == f"mixed.jsonl:2: error: {message}\n"


@pytest.mark.parametrize("text", ["\\\\ud800 is an escaped backslash", "\\ud83d\\ude00 is a pair"])
def test_what_only_looks_like_a_lone_surrogate_is_evaluated(tmp_path: Path, text: str) -> None:
    line = GOOD.replace('"rewrite_preferred": "', f'"rewrite_preferred": "{text} ', 1)
    (tmp_path / "one.jsonl").write_text(line + "\n", encoding="utf-8")
    done = evalkit("eval", "one.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rewrite_final"].startswith(json.loads(f'"{text}"'))


def test_a_yaml_submission_with_a_lone_surrogate_is_an_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text('prompt: "a\\ud800b"\n', encoding="utf-8")
    done = evalkit("eval", "one.yaml", "--out", "out.json", cwd=tmp_path)
    assert done.returncode == 1
    assert json.loads((tmp_path / "out.json").read_bytes())["error"]["message"].startswith("line 1:13: ")


def test_file_names_that_are_not_utf8_are_shown_escaped_in_every_eval_output(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / f"{BAD_NAME}.json").write_text(GOOD, encoding="utf-8")
    (folder / f"{BAD_NAME}.jsonl").write_text(f"{GOOD}\n{LONE}\n", encoding="utf-8")
    done = evalkit(
        "eval",
        "in",
        "--out",
        "out.jsonl",
        "--explain-json",
        "explain.jsonl",
        "--report-md",
        "report.md",
        "--log-file",
        "run.log",
        cwd=tmp_path,
    )
    assert done.returncode == 1
    sources = [json.loads(line)["source"] for line in utf8_lines(tmp_path / "out.jsonl")]
    assert sources == ["in/bad\\xff.json", "in/bad\\xff.jsonl:1", "in/bad\\xff.jsonl:2"]
    assert [json.loads(line)["source"] for line in utf8_lines(tmp_path / "explain.jsonl")] == sources
    report = (tmp_path / "report.md").read_bytes().decode("utf-8")
    assert "## in/bad\\\\xff.jsonl:1" in report  # the `\\` escaped as Markdown punctuation
    assert "in/bad\\xff.jsonl:2" in (tmp_path / "run.log").read_bytes().decode("utf-8")
    assert done.stderr.decode("utf-8").startswith("in/bad\\xff.jsonl:2: error: ")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_check_shows_a_folder_name_that_is_not_utf8_escaped_in_every_format(tmp_path: Path, fmt: str) -> None:
    config = tmp_path / BAD_NAME
    config.mkdir()
    (config / "rules.yaml").write_text("rating_rules:\n  - id: x\n    bogus: 1\n", encoding="utf-8")
    done = evalkit("check", BAD_NAME, "--format", fmt, cwd=tmp_path)
    assert done.returncode == 1
    output = done.stdout.decode("utf-8")
    if fmt == "sarif":
        uri = json.loads(output)["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
            "artifactLocation"
        ]
        assert uri["uri"] == "bad%FF/rules.yaml"  # the file's bytes, percent-encoded as URIs want them
    elif fmt == "json":
        assert json.loads(output)["diagnostics"][0]["path"] == "bad\\xff/rules.yaml"
    else:
        assert "bad\\xff/rules.yaml" in output


def test_score_shows_a_file_name_that_is_not_utf8_escaped(tmp_path: Path) -> None:
    (tmp_path / f"{BAD_NAME}.jsonl").write_text('{"data_source": "typos"}\n', encoding="utf-8")
    done = evalkit("score", f"{BAD_NAME}.jsonl", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1
    assert json.loads(done.stdout)["source"] == "bad\\xff.jsonl:1"
    assert json.loads(done.stderr.decode("utf-8").splitlines()[-1])["input"] == "bad\\xff.jsonl"


def test_score_gives_a_row_with_a_5000_digit_integer_its_error_entry(tmp_path: Path) -> None:
    row = '{"data_source": "typos", "extra_info": {"label": "hi"}, "model_output": "hi"'
    (tmp_path / "rows.jsonl").write_text(f'{row}}}\n{row}, "n": {"9" * 5000}}}\n{row}}}\n', encoding="utf-8")
    done = evalkit("score", "rows.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    lines = [json.loads(line) for line in utf8_lines(tmp_path / "scored.jsonl")]
    assert [line.get("score") for line in lines] == [1.0, None, 1.0]
    assert lines[1]["error"]["code"] == "number-too-large"


def test_eval_gives_a_submission_with_a_5000_digit_integer_its_error_entry(tmp_path: Path) -> None:
    huge = GOOD.replace('"ratings": {', f'"ratings": {{"extra": {"9" * 5000}, ', 1)
    (tmp_path / "in.jsonl").write_text(f"{GOOD}\n{huge}\n", encoding="utf-8")
    done = evalkit("eval", "in.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    second = json.loads(done.stdout.decode("utf-8").splitlines()[1])
    column = huge.index("9" * 5000) + 1
    assert (
        second["error"]["message"]
        == f"invalid JSON at column {column}: a number of 5,000 digits; the limit is 4,300"
    )


def _suite(tmp_path: Path, expect: str) -> Path:
    (tmp_path / "rules.yaml").write_text(
        "rating_rules:\n  - id: always\n    when: {min_total_length: 1}\n    actions: {increment_score: 1}\n",
        encoding="utf-8",
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "score.yaml").write_text(
        f"cases:\n  - name: huge\n    submission: ../submission.json\n    expect: {expect}\n",
        encoding="utf-8",
    )
    (tmp_path / "submission.json").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_a_rule_test_expecting_a_score_beyond_a_float_fails_as_a_mismatch(tmp_path: Path) -> None:
    done = evalkit("test", str(_suite(tmp_path, f"{{score: {2**1100}}}")), cwd=tmp_path)
    output = done.stdout.decode("utf-8")
    assert done.returncode == 1, output
    assert f"score: expected {2**1100}, got 1.0" in output


def test_a_rule_test_with_a_5000_digit_integer_is_refused_at_its_position(tmp_path: Path) -> None:
    done = evalkit("test", str(_suite(tmp_path, f"{{score: {'9' * 5000}}}")), cwd=tmp_path)
    output = done.stdout.decode("utf-8") + done.stderr.decode("utf-8")
    assert done.returncode != 0
    assert "tests/score.yaml:4:21: error[number-too-large] expected a number within a float's range" in output


def test_rule_test_output_shows_a_folder_name_that_is_not_utf8_escaped(tmp_path: Path) -> None:
    import shutil

    suite = tmp_path / BAD_NAME
    shutil.copytree(ROOT / "tests" / "ruletests" / "fixtures" / "suite", suite)
    done = evalkit("test", BAD_NAME, "--coverage", cwd=tmp_path)
    output = done.stdout.decode("utf-8")
    assert done.returncode == 1
    assert "FAIL bad\\xff/tests/failing.yaml:34 a submission file that does not exist" in output
    assert "bad\\xff/submissions/missing.json: cannot read the file" in output
