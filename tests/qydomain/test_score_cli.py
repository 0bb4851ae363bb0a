"""`evalkit score` driven through the installed entry point, as users and pipelines run it."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

EVALKIT = str(Path(sys.executable).with_name("evalkit"))


def row(data_source: str, label: str, output: str, field: str = "model_output") -> dict[str, object]:
    return {"data_source": data_source, "extra_info": {"label": label}, field: output}


ROWS = [
    row("typos", "extraordinary", "<solution>extraordinary</solution>"),
    row("typos", "extraordinary", "<solution>extraordinry</solution>", field="response"),
    row(
        "connections",
        "Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow",
        "<think>hmm</think><solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>",
        field="response",
    ),
    row(
        "unscrambling",
        "The hero wakes up. He fights the dragon. He wins the gold.",
        "<PLOT_SUMMARY>The hero wakes up. He wins the gold. He fights the dragon.</PLOT_SUMMARY>",
    ),
]
SCORES = [1.0, 0.0, 0.5, 0.3333333333333333]


def evalkit_score(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EVALKIT, "score", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def jsonl(rows: list[dict[str, object]]) -> list[str]:
    return [json.dumps(row) for row in rows]


def test_scored_rows_go_to_stdout_in_order_and_the_summary_to_stderr(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    result = evalkit_score("data.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    scored = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row.pop("score") for row in scored] == SCORES
    assert scored == ROWS
    assert "data.jsonl: 4 rows scored, 0 bad lines" in result.stderr
    assert "typos                2   0.500   0.500   0.000" in result.stderr
    assert "\r" not in result.stderr  # no progress bar when stderr is not a terminal


def test_out_writes_the_file_and_prints_the_summary_on_stdout(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    (tmp_path / "scored.jsonl").write_text("old content\n")
    result = evalkit_score("data.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["score"] for line in lines] == SCORES
    assert "4 rows scored" in result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.jsonl", "scored.jsonl"]


def test_out_may_replace_the_input_itself(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    assert evalkit_score("data.jsonl", "--out", "data.jsonl", cwd=tmp_path).returncode == 0
    lines = (tmp_path / "data.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["score"] for line in lines] == SCORES


def test_bad_lines_get_error_entries_and_the_run_goes_on(tmp_path: Path) -> None:
    lines = [
        "not json",
        jsonl(ROWS[:1])[0],
        "",
        '{"data_source": "typo", "extra_info": {"label": "x"}, "model_output": "x"}',
        '{"data_source": "typos", "extra_info": {"label": "x"}, "model_output": null}',
        '{"data_source": "typos", "extra_info": {}, "model_output": "x"}',
        "[1, 2]",
    ]
    write_jsonl(tmp_path / "data.jsonl", lines)
    result = evalkit_score("data.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    entries = [json.loads(line) for line in result.stdout.splitlines()]
    assert [entry.get("source") for entry in entries] == [
        "data.jsonl:1", None, "data.jsonl:4", "data.jsonl:5", "data.jsonl:6", "data.jsonl:7"
    ]  # fmt: skip
    codes = [entry["error"]["code"] for entry in entries if "error" in entry]
    assert codes == ["invalid-json", "unknown-data-source", "wrong-type", "missing-field", "not-an-object"]
    assert entries[1]["score"] == 1.0
    assert "data.jsonl:1: invalid JSON: Expecting value (column 1)" in result.stderr
    assert 'data.jsonl:5: "model_output" must be a string, found null' in result.stderr
    assert "1 rows scored, 5 bad lines" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_line_that_is_not_utf8_is_a_bad_line(tmp_path: Path) -> None:
    data = json.dumps(ROWS[0]).encode() + b"\n" + b'{"x": "\xff"}\n'
    (tmp_path / "data.jsonl").write_bytes(data)
    result = evalkit_score("data.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    assert json.loads(result.stdout.splitlines()[1])["error"]["code"] == "invalid-utf8"


def test_jobs_keep_input_order_across_chunks(tmp_path: Path) -> None:
    rows = [dict(ROWS[index % len(ROWS)], id=index) for index in range(2500)]
    write_jsonl(tmp_path / "data.jsonl", jsonl(rows))
    serial = evalkit_score("data.jsonl", "--out", "serial.jsonl", cwd=tmp_path)
    parallel = evalkit_score("data.jsonl", "--out", "parallel.jsonl", "--jobs", "3", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 0
    serial_text = (tmp_path / "serial.jsonl").read_text(encoding="utf-8")
    assert serial_text == (tmp_path / "parallel.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["id"] for line in serial_text.splitlines()] == list(range(2500))
    assert serial.stdout == parallel.stdout


def test_parallel_output_matches_serial_with_bad_lines_and_rows_already_scored(tmp_path: Path) -> None:
    # workers send back only scores and the parent splices them into its own copy of each line, except
    # for rows that had a "score" already, which come back re-encoded
    lines = []
    for index in range(2500):
        row = dict(ROWS[index % len(ROWS)], id=index)
        if index % 3 == 1:
            row["score"] = -1
        lines.append("not json" if index % 7 == 3 else json.dumps(row, ensure_ascii=False))
    (tmp_path / "data.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    serial = evalkit_score("data.jsonl", "--out", "serial.jsonl", cwd=tmp_path)
    parallel = evalkit_score("data.jsonl", "--out", "parallel.jsonl", "--jobs", "2", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert (tmp_path / "serial.jsonl").read_bytes() == (tmp_path / "parallel.jsonl").read_bytes()
    output = (tmp_path / "parallel.jsonl").read_text(encoding="utf-8")
    scored = [json.loads(line) for line in output.splitlines()]
    assert all("error" in row or 0.0 <= row["score"] <= 1.0 for row in scored)
    assert sum("error" in row for row in scored) == len([i for i in range(2500) if i % 7 == 3])


def test_json_summary_gives_count_mean_and_spread_per_data_source(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    result = evalkit_score("data.jsonl", "--out", "scored.jsonl", "--format", "json", cwd=tmp_path)
    summary = json.loads(result.stdout)
    assert summary["scored"] == 4 and summary["bad_lines"] == 0
    typos = summary["data_sources"]["typos"]
    assert [typos[key] for key in ("count", "mean", "std", "min", "max")] == [2, 0.5, 0.5, 0.0, 1.0]
    assert typos["histogram"] == [1, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert sorted(summary["data_sources"]) == ["connections", "typos", "unscrambling"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl"], "missing.jsonl: cannot read: No such file or directory"),
        (["."], ".: cannot read: it is a folder"),
        (["data.jsonl", "--out", "no/such/folder/out.jsonl"], "no/such/folder/out.jsonl: cannot write"),
        (["data.jsonl", "--jobs", "0"], "expected a whole number of at least 1"),
        (["data.jsonl", "--format", "xml"], "invalid choice: 'xml'"),
        ([], "the following arguments are required: INPUT.jsonl"),
    ],
)
def test_nothing_can_be_done_exits_2_without_a_traceback(
    tmp_path: Path, args: list[str], message: str
) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    result = evalkit_score(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_failed_run_leaves_an_existing_output_untouched(tmp_path: Path) -> None:
    (tmp_path / "scored.jsonl").write_text("keep me\n")
    result = evalkit_score("missing.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert result.returncode == 2
    assert (tmp_path / "scored.jsonl").read_text() == "keep me\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["scored.jsonl"]


def test_python_dash_m_runs_the_same_command(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", jsonl(ROWS))
    result = subprocess.run(
        [sys.executable, "-m", "evalkit", "score", "data.jsonl"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0
    assert [json.loads(line)["score"] for line in result.stdout.splitlines()] == SCORES


@pytest.mark.parametrize(("rows", "bar_shown"), [(4000, True), (40, False)])
def test_a_terminal_gets_a_progress_bar_only_for_a_large_file(
    tmp_path: Path, rows: int, bar_shown: bool, read_terminal: Callable[[int], str]
) -> None:
    padded = [dict(ROWS[index % len(ROWS)], padding="x" * 400) for index in range(rows)]  # 4000 rows: 2 MB
    write_jsonl(tmp_path / "data.jsonl", jsonl(padded))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [EVALKIT, "score", "data.jsonl", "--out", "scored.jsonl"], cwd=tmp_path, stderr=terminal,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(terminal)
    assert process.wait(timeout=120) == 0
    shown = read_terminal(controller)
    assert ("data.jsonl [" in shown and "%" in shown and "\r" in shown) is bar_shown


def test_an_unscrambling_row_too_large_to_match_is_an_error_entry_and_the_run_goes_on(tmp_path: Path) -> None:
    truth = [f"Sentence {i} of the plot" for i in range(20_000)]
    huge = row(
        "unscrambling",
        ". ".join(truth) + ".",
        "<PLOT_SUMMARY>" + ". ".join(s + " again" for s in reversed(truth)) + ".</PLOT_SUMMARY>",
    )
    write_jsonl(tmp_path / "data.jsonl", jsonl([ROWS[3], huge, ROWS[3]]))
    result = evalkit_score("data.jsonl", "--out", "scored.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = [
        json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [line.get("score") for line in lines] == [SCORES[3], None, SCORES[3]]
    assert lines[1]["source"] == "data.jsonl:2"
    assert lines[1]["error"]["code"] == "too-large"
    assert lines[1]["error"]["message"].startswith(
        "too large to score: 20,000 plot sentences against 20,000 "
    )


def test_jobs_2_workers_reading_their_own_ranges_of_a_large_file_give_jobs_1s_output(tmp_path: Path) -> None:
    """With --jobs on a file, workers read ranges of about 1 MB of whole lines themselves: line numbers,
    blank lines, a byte order mark, bad lines, a line with no newline at the end and lines longer than a
    range all come out as in one process (output, stderr, summary)."""
    padding = "x" * 3000
    lines = [b"\xef\xbb\xbf" + json.dumps(dict(ROWS[0], pad=padding)).encode()]
    for index in range(1, 1500):
        if index % 211 == 5:
            lines.append(b"not json")
        elif index % 97 == 3:
            lines.append(b"   ")
        elif index == 700:
            lines.append(json.dumps(dict(ROWS[1], pad="y" * 1_500_000)).encode())  # longer than a range
        else:
            lines.append(json.dumps(dict(ROWS[index % len(ROWS)], id=index, pad=padding)).encode())
    (tmp_path / "data.jsonl").write_bytes(b"\n".join(lines))  # the last line has no newline
    assert (tmp_path / "data.jsonl").stat().st_size > 5_000_000
    serial = evalkit_score("data.jsonl", "--out", "serial.jsonl", cwd=tmp_path)
    parallel = evalkit_score("data.jsonl", "--out", "parallel.jsonl", "--jobs", "2", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert (serial.stdout, serial.stderr) == (parallel.stdout, parallel.stderr)
    assert (tmp_path / "serial.jsonl").read_bytes() == (tmp_path / "parallel.jsonl").read_bytes()
    errors = [line for line in serial.stderr.splitlines() if line.startswith("data.jsonl:")]
    assert errors == [
        f"data.jsonl:{index + 1}: invalid JSON: Expecting value (column 1)"
        for index in range(1500)
        if index % 211 == 5
    ]
    output = (tmp_path / "parallel.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line).get("id") for line in output]
    blank = [index for index in range(1500) if index % 97 == 3 and index % 211 != 5]
    assert ids[-1] == 1499 and len(output) == 1500 - len(blank)


def test_a_file_a_pipe_and_jobs_2_read_lines_alike(tmp_path: Path) -> None:
    """One process reads a file a range at a time, split at newlines, a pipe line by line, and workers their
    own ranges: blank lines and lines of spaces are skipped, CRLF lines scored, and a line of JSON that ends
    too early is said to end at its own end, with or without a newline (not at column 1 of the next line)."""
    lines = [
        json.dumps(ROWS[0]) + "\r",
        "",
        " \t\r",
        '{"a": ',
        json.dumps(ROWS[3]),
        '{"a": ',  # the last line, without a newline
    ]
    (tmp_path / "data.jsonl").write_bytes("\n".join(lines).encode())
    from_file = evalkit_score("data.jsonl", cwd=tmp_path)
    from_jobs = evalkit_score("data.jsonl", "--jobs", "2", cwd=tmp_path)
    from_pipe = subprocess.run(
        [EVALKIT, "score", "/dev/stdin"], input=(tmp_path / "data.jsonl").read_text(), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert from_file.returncode == from_jobs.returncode == from_pipe.returncode == 1
    assert from_file.stdout == from_jobs.stdout == from_pipe.stdout.replace("/dev/stdin", "data.jsonl")
    scored = [json.loads(line) for line in from_file.stdout.splitlines()]
    assert [entry.get("score", entry.get("source")) for entry in scored] == [
        1.0, "data.jsonl:4", SCORES[3], "data.jsonl:6"
    ]  # fmt: skip
    assert from_file.stderr.splitlines()[:3] == [
        "data.jsonl:4: invalid JSON: Expecting value (column 7)",
        "data.jsonl:6: invalid JSON: Expecting value (column 7)",
        "data.jsonl: 2 rows scored, 2 bad lines",
    ]
    assert from_jobs.stderr == from_file.stderr
    assert from_pipe.stderr == from_file.stderr.replace("data.jsonl", "/dev/stdin")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_out_file_that_cannot_grow_is_named_also_when_workers_write_it(tmp_path: Path, jobs: str) -> None:
    """With --jobs and --out the workers write their chunks of output into --out's temporary file
    themselves: a write that fails there (here RLIMIT_FSIZE, as a full disk) is said by the parent, naming
    --out, and no file is left; within the limit the file is byte for byte one process's."""
    import resource

    rows = [dict(ROWS[index % len(ROWS)], id=index, pad="x" * 1000) for index in range(3000)]
    write_jsonl(tmp_path / "rows.jsonl", jsonl(rows))  # 3.6 MB: ranges of 1 MB, chunks a worker holds

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, resource.RLIM_INFINITY))

    done = subprocess.run(
        [EVALKIT, "score", "rows.jsonl", "--out", "scored.jsonl", "--jobs", jobs],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    assert (done.returncode, done.stderr) == (
        2,
        "evalkit score: scored.jsonl: cannot write: File too large\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]
    assert evalkit_score("rows.jsonl", "--out", f"{jobs}.jsonl", "--jobs", jobs, cwd=tmp_path).returncode == 0
    if jobs == "2":
        serial = evalkit_score("rows.jsonl", "--out", "1.jsonl", cwd=tmp_path)
        assert serial.returncode == 0
        assert (tmp_path / "2.jsonl").read_bytes() == (tmp_path / "1.jsonl").read_bytes()


# The `evalkit` script's own call, then what this process wrote itself: its main thread's wchar (write() and
# sendfile()), its own, where /proc/self/io adds what the workers it waited for wrote.
WRITTEN_BY_THE_PARENT = """
import os, sys
from evalkit.cli import main
code = main(sys.argv[1:])
io = open(f"/proc/self/task/{os.getpid()}/io").read()
counts = dict(line.split(": ") for line in io.splitlines())
print("wchar", counts["wchar"], file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("mode", ["w", "a"])
def test_stdout_redirected_to_a_file_gets_one_process_bytes_written_by_the_workers(
    tmp_path: Path, mode: str
) -> None:
    """`> file` (mode w): with --jobs the workers write their chunks into stdout's file themselves, at the
    offsets the parent gives, after what the file held (the parent writes next to none of it); `>> file`
    (mode a, where every write goes to the end): they spool them and the parent copies them on. Either way
    the bytes are one process's."""
    rows = [dict(ROWS[index % len(ROWS)], id=index, pad="x" * 1000) for index in range(3000)]
    write_jsonl(tmp_path / "rows.jsonl", jsonl(rows))  # 3.6 MB: ranges of 1 MB, chunks a worker holds
    outputs, written = [], []
    for jobs in ("1", "2"):
        with open(tmp_path / f"stdout-{jobs}.jsonl", mode, encoding="utf-8") as stdout:
            stdout.write("a line before\n")
            stdout.flush()
            done = subprocess.run(
                [sys.executable, "-c", WRITTEN_BY_THE_PARENT, "score", "rows.jsonl", "--jobs", jobs],
                cwd=tmp_path,
                stdout=stdout,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
            stdout.write("a line after\n")
        summary, wchar = done.stderr.splitlines()[0], done.stderr.splitlines()[-1]
        assert (done.returncode, summary) == (0, "rows.jsonl: 3000 rows scored, 0 bad lines")
        outputs.append((tmp_path / f"stdout-{jobs}.jsonl").read_bytes())
        written.append(int(wchar.removeprefix("wchar ")))
    assert outputs[1] == outputs[0]
    assert outputs[0].startswith(b"a line before\n{") and outputs[0].endswith(b"}\na line after\n")
    scored = outputs[0].splitlines()[1:-1]
    assert [json.loads(line)["score"] for line in scored] == [SCORES[i % len(SCORES)] for i in range(3000)]
    assert written[0] > len(outputs[0]) - 100  # one process writes every byte itself
    if mode == "w":
        assert written[1] < len(outputs[0]) / 10  # the workers wrote the chunks, not the parent
    else:
        assert written[1] > len(outputs[0]) - 100


def test_stdout_redirected_to_a_file_that_cannot_grow_says_stdout(tmp_path: Path) -> None:
    """A write into stdout's file that fails, the parent's or a worker's (here RLIMIT_FSIZE, as a full
    disk), is said in one line naming stdout, exit 2, no traceback."""
    import resource

    rows = [dict(ROWS[index % len(ROWS)], id=index, pad="x" * 1000) for index in range(3000)]
    write_jsonl(tmp_path / "rows.jsonl", jsonl(rows))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, resource.RLIM_INFINITY))

    for jobs in ("1", "2"):
        with open(tmp_path / "scored.jsonl", "w") as stdout:
            done = subprocess.run(
                [EVALKIT, "score", "rows.jsonl", "--jobs", jobs],
                cwd=tmp_path,
                stdout=stdout,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
                preexec_fn=limit,
            )
        assert (done.returncode, done.stderr) == (2, "evalkit score: stdout: cannot write: File too large\n")
