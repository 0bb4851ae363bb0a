"""`evalkit eval -` (and `evalkit diff -`) reads standard input, through the console script with a real
pipe: JSON Lines (each line's source `<stdin>:N`) or one JSON document (source `<stdin>`), with --jobs,
beside files, and the usage errors (`-` twice, a closed stdin, --ray)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED_SAMPLE = ROOT / "samples" / "sample_submission.json"
EVALKIT = str(Path(sys.executable).with_name("evalkit"))
OAI_EVAL = str(Path(sys.executable).with_name("oai-eval"))
EVAL = (EVALKIT, "eval")
DIFF = (EVALKIT, "diff")


def piped(
    stdin: bytes, *args: str, command: tuple[str, ...] = EVAL, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """The console script with `stdin` written to its standard input through a pipe."""
    with subprocess.Popen(
        [*command, *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        out, err = process.communicate(stdin, timeout=120)
    done = subprocess.CompletedProcess(process.args, process.returncode, out.decode(), err.decode())
    assert "Traceback" not in done.stderr, done.stderr
    return done


def seed() -> dict[str, Any]:
    return json.loads(SEED_SAMPLE.read_text(encoding="utf-8"))


def jsonl(*lines: str) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


@pytest.fixture(scope="module")
def of_file() -> Callable[[Path], subprocess.CompletedProcess[str]]:
    """of_file(path): `evalkit eval PATH`, the file named, run once per path for the module's tests (a
    single file's result has no source: the same from any folder)."""
    runs: dict[Path, subprocess.CompletedProcess[str]] = {}

    def run(path: Path) -> subprocess.CompletedProcess[str]:
        if path not in runs:
            runs[path] = piped(b"", str(path))
        return runs[path]

    return run


def test_a_pretty_printed_document_on_stdin_gives_the_result_a_file_gives(of_file: Any) -> None:
    from_file = of_file(SEED_SAMPLE)
    from_stdin = piped(SEED_SAMPLE.read_bytes(), "-")
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout
    assert json.loads(from_stdin.stdout)["label"]


def test_json_lines_on_stdin_are_a_batch_with_stdin_line_sources_and_a_bad_line_at_its_column() -> None:
    line = json.dumps(seed())
    done = piped(jsonl(line, "", '{"prompt": ', line), "-")
    assert done.returncode == 1
    rows = [json.loads(row) for row in done.stdout.splitlines()]
    assert [row["source"] for row in rows] == ["<stdin>:1", "<stdin>:3", "<stdin>:4"]
    assert rows[1]["error"]["message"] == "invalid JSON at column 12: Expecting value"
    assert done.stderr == "<stdin>:3: error: invalid JSON at column 12: Expecting value\n"
    assert rows[0]["label"] == rows[2]["label"]


def test_a_wrong_first_line_is_a_bad_line_of_json_lines_and_the_rest_is_read() -> None:
    done = piped(jsonl("{oops}", json.dumps(seed())), "-")
    rows = [json.loads(row) for row in done.stdout.splitlines()]
    assert [row["source"] for row in rows] == ["<stdin>:1", "<stdin>:2"]
    assert "invalid JSON at column 2" in rows[0]["error"]["message"]
    assert "error" not in rows[1]


def test_one_line_on_stdin_is_one_submission() -> None:
    done = piped(jsonl(json.dumps(seed())), "-")
    assert done.returncode == 0
    assert "source" not in json.loads(done.stdout)  # the result object, pretty, as for one file


def test_a_broken_document_on_stdin_is_named_at_its_line_and_column_counting_blank_lines() -> None:
    done = piped(b'\n\n{\n  "prompt": 1,\n}\n', "-")
    assert done.returncode == 1
    assert done.stderr == (
        "<stdin>: error: invalid JSON at line 5:1: Expecting property name enclosed in double quotes\n"
    )


def test_stdin_among_files_keeps_input_order(tmp_path: Path) -> None:
    line = json.dumps(seed())
    done = piped(jsonl(line, line), str(SEED_SAMPLE), "-", str(SEED_SAMPLE), "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "o").read_text(encoding="utf-8").splitlines()
    sources = [json.loads(row)["source"] for row in rows]
    assert sources == [str(SEED_SAMPLE), "<stdin>:1", "<stdin>:2", str(SEED_SAMPLE)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stdin_with_jobs_gives_the_same_bytes_as_the_file(tmp_path: Path, jobs: str) -> None:
    lines = [json.dumps({**seed(), "prompt": f"prompt number {n}"}) for n in range(300)]
    lines[7] = '{"prompt": 3}'
    (tmp_path / "batch.jsonl").write_bytes(jsonl(*lines))
    from_file = piped(b"", "batch.jsonl", "--jobs", jobs, cwd=tmp_path)
    from_stdin = piped(jsonl(*lines), "-", "--jobs", jobs, cwd=tmp_path)
    assert from_stdin.returncode == from_file.returncode == 1
    assert from_stdin.stdout == from_file.stdout.replace('"batch.jsonl:', '"<stdin>:')
    assert from_stdin.stderr == from_file.stderr.replace("batch.jsonl:", "<stdin>:")


def test_oai_eval_reads_stdin_too() -> None:
    done = piped(
        SEED_SAMPLE.read_bytes(), "-", "--config-dir", str(ROOT / "config_samples"), command=(OAI_EVAL,)
    )
    assert done.returncode == 0, done.stderr
    assert "corrected_ratings" in json.loads(done.stdout)


@pytest.mark.parametrize(
    ("stdin", "args", "message"),
    [
        (b"", ["-"], "evalkit eval: no submissions found in <stdin>\n"),
        (b"\n \n", ["-"], "evalkit eval: no submissions found in <stdin>\n"),
        (b"{}", ["-", "-"], "evalkit eval: - (standard input) is named 2 times; it can be read once\n"),
        (None, ["-"], None),
        (b"{}", ["-", "--ray", "auto"], None),
    ],
    ids=["empty", "blank", "twice", "closed", "ray"],
)
def test_stdin_that_cannot_be_read_is_refused_in_one_line(
    stdin: bytes | None, args: list[str], message: str | None
) -> None:
    if stdin is None:  # closed, not empty: `evalkit eval - <&-`
        done = subprocess.run(
            f"exec '{EVALKIT}' eval - <&-", shell=True, capture_output=True, text=True, timeout=120
        )
        message = "evalkit eval: - names standard input, which is closed\n"
    else:
        done = piped(stdin, *args)
    assert done.returncode == 2
    assert done.stdout == ""
    if message is None:
        assert done.stderr.startswith("evalkit eval: --ray reads files, not standard input (-)")
    else:
        assert done.stderr == message


def test_stdin_in_another_encoding_is_named() -> None:
    done = piped("\ufeff".encode("utf-16-le") + b"{}", "-")
    assert done.returncode == 1
    assert done.stderr == "<stdin>: error: line 1:1: the file is UTF-16 text; save it as UTF-8\n"


def test_a_jsonl_file_line_cut_short_is_named_at_its_end_not_at_the_next_line(tmp_path: Path) -> None:
    (tmp_path / "cut.jsonl").write_text('{"prompt": \n', encoding="utf-8")
    done = piped(b"", "cut.jsonl", cwd=tmp_path)
    assert done.stderr == "cut.jsonl:1: error: invalid JSON at column 12: Expecting value\n"


def test_diff_reads_stdin_too(tmp_path: Path) -> None:
    head = tmp_path / "head"
    shutil.copytree(ROOT / "config_samples", head, ignore=shutil.ignore_patterns("tests", "__*"))
    rules = head / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace("weak: -1", "weak: -2"), encoding="utf-8")
    lines = [json.dumps({**seed(), "prompt": f"prompt {n}"}) for n in range(3)]
    (tmp_path / "corpus.jsonl").write_bytes(jsonl(*lines))
    args = ["--base", str(ROOT / "config_samples"), "--config-dir", str(head), "--format", "json"]
    from_file = piped(b"", *args, "corpus.jsonl", command=DIFF, cwd=tmp_path)
    from_stdin = piped(jsonl(*lines), *args, "-", command=DIFF, cwd=tmp_path)
    assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout.replace('"corpus.jsonl:', '"<stdin>:')
    twice = piped(b"", *args, "-", "-", command=DIFF, cwd=tmp_path)
    assert twice.returncode == 2
    assert twice.stderr == "evalkit diff: - (standard input) is named 2 times; it can be read once\n"


@pytest.mark.parametrize("head", ["", "# exported by hand\n", "---\n"], ids=["key", "comment", "marker"])
def test_a_yaml_document_on_stdin_gives_the_result_the_yaml_file_gives(head: str, of_file: Any) -> None:
    yaml_file = ROOT / "samples" / "06_data_pandas_missing.yaml"
    from_file = of_file(yaml_file)
    from_stdin = piped(head.encode() + yaml_file.read_bytes(), "-")
    assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout


def test_a_broken_yaml_document_on_stdin_is_named_at_its_line_and_column() -> None:
    done = piped(b"prompt: [\n", "-")
    assert done.returncode == 1
    assert done.stderr.startswith("<stdin>: error: line 1:9: the flow sequence '[' is not closed")


def test_out_dash_is_standard_output_not_a_file_named_dash(tmp_path: Path, of_file: Any) -> None:
    default = of_file(SEED_SAMPLE)
    dashed = piped(b"", str(SEED_SAMPLE), "--out", "-", cwd=tmp_path)
    assert dashed.returncode == 0 and dashed.stdout == default.stdout
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("flag", ["--explain-json", "--report-md", "--log-file"])
def test_another_output_named_dash_is_refused(tmp_path: Path, flag: str) -> None:
    done = piped(b"", str(SEED_SAMPLE), flag, "-", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"evalkit eval: {flag} -: name a file (standard output holds the results)\n"
    assert not (tmp_path / "-").exists()
