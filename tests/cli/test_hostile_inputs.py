"""Hostile inputs through the real commands: templates that would multiply or nest without end, and files
that never end (`/dev/zero`), are huge, or would block (a named pipe). Each ends in its one-line error and
its exit code, within a memory limit set on the process (RLIMIT_AS) and a timeout, never a traceback."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
SAMPLE = REPO / "samples" / "sample_submission.json"
MEMORY_LIMIT = 400 * 1024 * 1024
"""Address space for one command: evalkit needs under 150 MB; the inputs below asked for gigabytes."""
HUGE_LINE = 150_000_000
"""The line of the huge-line tests: three times a submission's limit (50 MB), and more than a command can
hold within HUGE_LINE_MEMORY_LIMIT (reading it whole with `readline()` runs out of memory even at 250 MB
beside evalkit's own 70 MB: measured), while refusing it takes 160 MB."""
HUGE_LINE_MEMORY_LIMIT = 250 * 1024 * 1024


def _limit_memory(limit: int = MEMORY_LIMIT) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def evalkit(*args: str, cwd: Path = REPO, memory: int = MEMORY_LIMIT) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(EVALKIT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: _limit_memory(memory),
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    return done


def rules_with_template(lines: list[str]) -> str:
    """A rules.yaml whose template (a block scalar) starts on line 6 with "first line"; template line N is
    file line N + 5, at column 9."""
    body = "".join(f"        {line}\n" for line in ["first line", *lines])
    return (
        "rating_rules:\n  - id: t\n    when: { min_total_length: 0 }\n    actions:\n"
        f"      add_comment_template: |\n{body}"
    )


HOSTILE_TEMPLATES = {
    # each: the template's lines after "first line", and the template line the diagnostic points at
    "set doubling a string": (["{% set a = 'x' %}", *["{% set a = a ~ a %}"] * 17, "{{ a|length }}"], 2),
    "set squaring an integer": (["{% set a = 10 %}", *["{% set a = a * a %}"] * 14, "{{ a }}"], 2),
    "set doubling a list": (["{% set a = ['x'] %}", *["{% set a = [a, a] %}"] * 20, "{{ a|tojson }}"], 2),
    "with doubling a string": (
        ["{% with a = 'x' %}{% with b = a ~ a %}{{ b }}{% endwith %}{% endwith %}"],
        2,
    ),
    "300 terms": (["{{ " + "+".join(["1"] * 300) + " }}"], 2),
    "90 nested parentheses": (["{{ " + "(" * 90 + "1" + ")" * 90 + " }}"], 2),
    "500 nested ifs": ([*["{% if 1 %}"] * 500, "x", *["{% endif %}"] * 500], 2 + 32),
    "a 4,000-long filter chain": (["{{ 1" + "|abs" * 4000 + " }}"], 2),
    "2,000 nots": (["{{ " + "not " * 2000 + "1 }}"], 2),
    "2,000 signs": (["{{ " + "- " * 2000 + "1 }}"], 2),
}


class HostileRun(NamedTuple):
    """`evalkit check` and `evalkit eval` run once over a rules.yaml holding every hostile template, one rule
    each: a template's diagnostic is at its own line, so each test finds its own among the findings."""

    rules: Path
    first_lines: dict[str, int]  # the file line of each template's "first line"
    checked: subprocess.CompletedProcess[str]
    evaluated: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> HostileRun:
    folder = tmp_path_factory.mktemp("hostile")
    text, first_lines = "rating_rules:\n", {}
    for number, (name, (lines, _)) in enumerate(HOSTILE_TEMPLATES.items()):
        rule = (
            rules_with_template(lines).replace("rating_rules:\n", "").replace("id: t\n", f"id: t{number}\n")
        )
        first_lines[name] = text.count("\n") + 5  # the rule's line + 4, as in rules_with_template
        text += rule
    (folder / "rules.yaml").write_text(text)
    checked = evalkit("check", str(folder))
    evaluated = evalkit("eval", str(SAMPLE), "--config-dir", str(folder))
    return HostileRun(folder / "rules.yaml", first_lines, checked, evaluated)


@pytest.mark.xdist_group("hostile-templates")  # on one worker: hostile_run runs once
@pytest.mark.parametrize("name", HOSTILE_TEMPLATES)
def test_a_hostile_template_is_bad_template_at_its_line_in_check_and_eval(
    hostile_run: HostileRun, name: str
) -> None:
    line = HOSTILE_TEMPLATES[name][1]
    start = hostile_run.first_lines[name]
    end = start + len(HOSTILE_TEMPLATES[name][0]) + 1  # the first line of the next rule's
    where = f"{hostile_run.rules}:{start + line - 1}:9: "
    assert hostile_run.checked.returncode == 1
    *findings, summary = hostile_run.checked.stdout.splitlines()
    assert summary.endswith(f": {len(HOSTILE_TEMPLATES)} errors")  # one for each template
    own = [f for f in findings if start <= int(f.removeprefix(f"{hostile_run.rules}:").split(":")[0]) < end]
    (finding,) = own
    assert finding.startswith(where) and "error[bad-template]" in finding
    evaluated = hostile_run.evaluated
    assert evaluated.returncode == 2 and evaluated.stdout == ""
    assert evaluated.stderr.splitlines()[: len(findings)] == findings


def test_a_template_that_builds_too_much_renders_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    # no variables: a list literal naming a capped value many times, printed
    (tmp_path / "rules.yaml").write_text(
        rules_with_template(["{{ [" + ", ".join(["'y' * 9000"] * 40) + "] }}"])
    )
    done = evalkit("eval", str(SAMPLE), "--config-dir", str(tmp_path))
    assert done.returncode == 0
    (comment,) = json.loads(done.stdout)["fired_rules"][0]["actions"]
    assert comment["add_comment_template"] == (
        "[template error: the template builds more than 200,000 characters in all]"
    )


def test_eval_of_a_device_that_never_ends_is_an_error_entry() -> None:
    done = evalkit("eval", "/dev/zero")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "source": "/dev/zero",
        "error": {"message": "cannot read the file: the file is larger than 50,000,000 bytes"},
    }


NOT_REGULAR = "cannot read the file: it is {}, not a regular file"


def test_a_link_to_a_device_in_a_folder_is_named_not_read(tmp_path: Path) -> None:
    (tmp_path / "a.json").symlink_to("/dev/zero")
    (tmp_path / "b.json").write_bytes(SAMPLE.read_bytes())
    done = evalkit("eval", str(tmp_path))
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0] == {
        "source": str(tmp_path / "a.json"),
        "error": {"message": NOT_REGULAR.format("a device")},
    }
    assert lines[1]["source"] == str(tmp_path / "b.json") and "error" not in lines[1]


@pytest.fixture
def folder_with_pipes(tmp_path: Path) -> Path:
    """A folder with a submission between two named pipes (one .json, one .jsonl) that nothing writes to:
    opening either would block for good."""
    folder = tmp_path / "batch"
    folder.mkdir()
    os.mkfifo(folder / "a.json")
    (folder / "b.json").write_bytes(SAMPLE.read_bytes())
    os.mkfifo(folder / "c.jsonl")
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_eval_names_each_pipe_in_a_folder_without_opening_it_and_goes_on(
    folder_with_pipes: Path, tmp_path: Path, jobs: str
) -> None:
    out = tmp_path / "r.jsonl"
    done = evalkit("eval", str(folder_with_pipes), "--out", str(out), "--jobs", jobs)
    assert done.returncode == 1
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    pipe = NOT_REGULAR.format("a named pipe")
    assert [line.get("error") for line in lines] == [{"message": pipe}, None, {"message": pipe}]
    assert done.stderr.splitlines() == [
        f"{folder_with_pipes / 'a.json'}: error: {pipe}",
        f"{folder_with_pipes / 'c.jsonl'}: error: {pipe}",
    ]


def test_eval_still_reads_a_pipe_named_as_an_input(tmp_path: Path) -> None:
    pipe = tmp_path / "in.json"
    os.mkfifo(pipe)
    with subprocess.Popen([str(EVALKIT), "eval", str(pipe)], stdout=subprocess.PIPE, text=True) as running:
        pipe.write_bytes(SAMPLE.read_bytes())
        out, _ = running.communicate(timeout=120)
    assert running.returncode == 0
    assert "label" in json.loads(out)


def test_diff_names_each_pipe_in_a_folder(folder_with_pipes: Path) -> None:
    done = evalkit(
        "diff", str(folder_with_pipes), "--base", "config_samples", "--config-dir", "config_samples"
    )
    assert done.returncode == 1
    pipe = NOT_REGULAR.format("a named pipe")
    assert f"{folder_with_pipes / 'a.json'}: error: {pipe}" in done.stderr.splitlines()
    assert f"{folder_with_pipes / 'c.jsonl'}: error: {pipe}" in done.stderr.splitlines()


def test_review_export_names_each_pipe_in_a_folder(folder_with_pipes: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    done = evalkit("review", str(folder_with_pipes), "--export", str(out))
    assert done.returncode == 1, done.stderr
    pipe = NOT_REGULAR.format("a named pipe")
    assert done.stderr.splitlines() == [
        f"{folder_with_pipes / 'a.json'}: error: {pipe}",
        f"{folder_with_pipes / 'c.jsonl'}: error: {pipe}",
        f"{out}: 3 results, 0 reviewed",
    ]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    sources = {record["source"]: record for record in records}
    assert set(sources) == {str(folder_with_pipes / name) for name in ("a.json", "b.json", "c.jsonl")}
    assert NOT_REGULAR.format("a named pipe") in json.dumps(sources[str(folder_with_pipes / "a.json")])


@pytest.fixture
def huge_line(tmp_path: Path) -> Callable[[str], Path]:
    """A JSONL file whose line 2 is HUGE_LINE bytes of NULs (a sparse file: no disk spent), between two
    good lines; `row` is the text of the good lines."""

    def write(row: str) -> Path:
        path = tmp_path / "huge.jsonl"
        with open(path, "wb") as handle:
            handle.write(row.encode() + b"\n")
            handle.seek(HUGE_LINE, os.SEEK_CUR)
            handle.write(b"\n" + row.encode() + b"\n")
        return path

    return write


def test_eval_refuses_a_150_mb_line_without_holding_it(huge_line: Callable[[str], Path]) -> None:
    path = huge_line(json.dumps(json.loads(SAMPLE.read_text())))
    done = evalkit("eval", str(path), memory=HUGE_LINE_MEMORY_LIMIT)
    assert done.returncode == 1
    first, second, third = (json.loads(line) for line in done.stdout.splitlines())
    assert "error" not in first and "error" not in third
    assert second == {"source": f"{path}:2", "error": {"message": "the line is longer than 50,000,000 bytes"}}


SCORE_ROW = json.dumps(
    {"data_source": "typos", "model_output": "<solution>x</solution>", "extra_info": {"label": "x"}}
)


def test_score_refuses_a_150_mb_line_without_holding_it_and_goes_on(
    huge_line: Callable[[str], Path], tmp_path: Path
) -> None:
    path = huge_line(SCORE_ROW)
    out = tmp_path / "scored.jsonl"
    done = evalkit("score", str(path), "--out", str(out), memory=HUGE_LINE_MEMORY_LIMIT)
    assert done.returncode == 1
    first, second, third = (json.loads(line) for line in out.read_text().splitlines())
    assert "score" in first and "score" in third
    assert second == {
        "source": f"{path}:2",
        "error": {"code": "line-too-long", "message": "the line is longer than 50,000,000 bytes"},
    }


def test_score_of_a_device_that_never_ends_stops_at_its_first_line() -> None:
    done = evalkit("score", "/dev/zero")
    assert done.returncode == 1
    assert "/dev/zero:1: the line is longer than 50,000,000 bytes" in done.stderr


@pytest.mark.parametrize("kind", ["device", "named pipe"])
def test_a_rules_yaml_that_is_a_device_or_a_pipe_is_an_error_not_a_hang(tmp_path: Path, kind: str) -> None:
    rules = tmp_path / "rules.yaml"
    if kind == "device":
        rules.symlink_to("/dev/zero")
    else:
        os.mkfifo(rules)
    done = evalkit("eval", str(SAMPLE), "--config-dir", str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == (
        f"{rules}:1:1: error[unreadable] cannot read the file: it is a {kind}"
    )


def test_a_rule_test_whose_submission_is_a_device_fails_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "rating_rules:\n  - id: r\n    when: { min_total_length: 0 }\n    actions: { set_flag: seen }\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "cases.yaml").write_text(
        "cases:\n  - name: zero\n    submission: /dev/zero\n    expect: { fired: [r] }\n"
    )
    done = evalkit("test", str(tmp_path))
    assert done.returncode == 1
    assert "/dev/zero: cannot read the file: it is a device" in done.stdout + done.stderr


def test_review_refuses_a_journal_that_is_a_pipe(tmp_path: Path) -> None:
    journal = tmp_path / "decisions.jsonl"
    os.mkfifo(journal)
    done = evalkit("review", str(SAMPLE), "--decisions", str(journal))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"evalkit review: {journal}: cannot use it as the journal: it is a named pipe"
    )


def test_check_of_a_rules_yaml_that_is_a_pipe_names_it_without_opening_it(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    os.mkfifo(rules)
    done = evalkit("check", str(rules))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        f"{rules}:1:1: error[unreadable] cannot read the file: it is a named pipe"
    )


def test_a_samples_folder_with_a_pipe_and_a_device_names_them_and_reads_its_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.json")
    (tmp_path / "b.json").symlink_to("/dev/zero")
    (tmp_path / "c.json").write_bytes(SAMPLE.read_bytes())
    done = evalkit("check", "config_samples", "--samples", str(tmp_path))
    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if "error[" in line]
    assert errors == [
        f"{tmp_path / 'a.json'}:1:1: error[invalid-sample] {NOT_REGULAR.format('a named pipe')}",
        f"{tmp_path / 'b.json'}:1:1: error[invalid-sample] {NOT_REGULAR.format('a device')}",
    ]
    assert done.stdout.splitlines()[-1].startswith("1 config folder, 5 files, 3 samples: 2 errors")
