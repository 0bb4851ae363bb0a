"""Positions as the editor counts them: a line ends at LF, CRLF or CR only. U+2028, U+2029 and U+0085 may
stand in a YAML string; PyYAML's marks and `str.splitlines` end a line there too, which put every later
position a line too low. Each test reads the file back split as the protocol splits it and checks that
each reported line:col is where the problem is, in every output format of `evalkit check`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.config import analyze
from evalkit.engine.yamlsource import parse_yaml

EVALKIT = Path(sys.executable).parent / "evalkit"
REPO = Path(__file__).parents[2]
SEPARATORS = "\u2028\u0085\u2029"

RULES = (
    "version: 2\n"
    "rating_rules:\n"
    "  - id: a\n"
    f'    description: "one{SEPARATORS[0]}two{SEPARATORS[1]}three{SEPARATORS[2]}four"\n'
    "    when: {min_total_length: 3}\n"
    "    actions:\n"
    "      set_flg: x\n"
    "      add_comment_template: |\n"
    "        fine\n"
    "        {{ oops( }}\n"
    "  - id: b\n"
    "    when: {response_contains_any: ['\u2028']}\n"
    "    actions: {adjust_dimension: {delta: 1}}\n"
)
EXPECTED = [  # line, column, what the text there begins with, code
    (7, 7, "set_flg", "unknown-key"),
    (10, 9, "{{ oops( }}", "bad-template"),
    (13, 15, "adjust_dimension: {delta: 1}", "missing-key"),
]


def protocol_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "check", *args, "."],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
        check=False,
    )


LINE_ENDS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}


class Checked(NamedTuple):
    """`evalkit check` in each format, run once from `root` over a folder for each kind of line end (its
    name in LINE_ENDS) holding RULES written with it."""

    root: Path
    runs: dict[str, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    root = tmp_path_factory.mktemp("line-ends")
    for name, line_end in LINE_ENDS.items():
        (root / name).mkdir()
        (root / name / "rules.yaml").write_bytes(RULES.replace("\n", line_end).encode())
    runs = {}
    for output in ("text", "json", "sarif", "github"):
        runs[output] = subprocess.run(
            [str(EVALKIT), "check", "--format", output, *LINE_ENDS],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=root,
            check=False,
        )
    return Checked(root, runs)


@pytest.fixture(params=LINE_ENDS)
def folder(request: pytest.FixtureRequest) -> str:
    """The name of the folder, under `checked.root`, whose rules.yaml has these line ends."""
    return str(request.param)


def at(folder: Path, line: int, column: int) -> str:
    return protocol_lines((folder / "rules.yaml").read_bytes().decode())[line - 1][column - 1 :]


ONE_WORKER = pytest.mark.xdist_group("check-line-ends")
"""The tests that read `checked` run on one xdist worker, which runs it once."""


@ONE_WORKER
def test_text_output_points_at_each_problem(checked: Checked, folder: str) -> None:
    done = checked.runs["text"]
    assert done.returncode == 1, done.stderr
    found = [
        re.match(r"rules\.yaml:(\d+):(\d+): error\[([a-z-]+)\]", line.removeprefix(f"{folder}/"))
        for line in done.stdout.splitlines()[:-1]
        if line.startswith(f"{folder}/")
    ]
    assert [(int(m[1]), int(m[2]), m[3]) for m in found if m] == [
        (ln, col, code) for ln, col, _, code in EXPECTED
    ]
    for line, column, text, _ in EXPECTED:
        assert at(checked.root / folder, line, column).startswith(text)


@ONE_WORKER
def test_json_sarif_and_github_outputs_agree(checked: Checked, folder: str) -> None:
    expected = [(line, column) for line, column, _, _ in EXPECTED]
    listed = json.loads(checked.runs["json"].stdout)
    own = [d for d in listed["diagnostics"] if d["path"] == f"{folder}/rules.yaml"]
    assert [(d["line"], d["column"]) for d in own] == expected
    sarif = json.loads(checked.runs["sarif"].stdout)
    results = [
        r
        for r in sarif["runs"][0]["results"]
        if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == f"{folder}/rules.yaml"
    ]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert [(r["startLine"], r["startColumn"]) for r in regions] == expected
    fixes = [
        r["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
        for r in results
        if "fixes" in r
    ]
    assert [(r["startLine"], r["startColumn"]) for r in fixes] == [
        (7, 7),
        (13, 34),
    ]  # the key; inside `{delta`
    github = re.findall(rf"file={folder}/rules\.yaml,line=(\d+),col=(\d+)", checked.runs["github"].stdout)
    assert [(int(line), int(column)) for line, column in github] == expected


def test_a_character_yaml_refuses_is_found_after_wide_characters_and_cr_line_ends(tmp_path: Path) -> None:
    # libyaml gives the position in bytes: 😀 and é before the NUL moved it right
    (tmp_path / "rules.yaml").write_bytes("version: 2\r# é😀\u2028\rrating_rules: [é😀\x00]\r".encode())
    done = check(tmp_path)
    assert done.stdout.startswith("rules.yaml:3:18: error[yaml-syntax] the character U+0000 is not allowed")


def test_an_error_at_the_end_of_a_file_without_a_final_line_end_is_on_its_last_line(tmp_path: Path) -> None:
    # libyaml puts the end of the stream on a line after the last one, where an editor has none
    (tmp_path / "rules.yaml").write_text("version: 2\noptions", encoding="utf-8")
    assert check(tmp_path).stdout.startswith("rules.yaml:2:8: error[yaml-syntax] could not find expected ':'")


def test_bytes_that_are_not_utf8_are_found_on_cr_lines(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_bytes(b"version: 2\r# \xc3\xa9\rrating_rules: [\xff]\r")
    done = check(tmp_path)
    assert done.stdout.startswith(
        "rules.yaml:3:16: error[not-utf8] the file is not UTF-8 text (byte 31: 0xff)"
    )


def test_rule_test_files_are_checked_at_the_editor_s_lines(tmp_path: Path) -> None:
    shutil.copytree(REPO / "tests" / "ruletests" / "fixtures" / "broken_tests", tmp_path / "suite")
    test_file = tmp_path / "suite" / "tests" / "unknown_ids.yaml"
    text = test_file.read_text(encoding="utf-8")
    test_file.write_text(
        text.replace("name: misspelt rule ids", f'name: "misspelt{SEPARATORS}rule ids"'), encoding="utf-8"
    )
    done = subprocess.run(
        [str(EVALKIT), "test", "suite"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert (
        "suite/tests/unknown_ids.yaml:5:19: error[unknown-rule] unknown rule id 'mentions_heep'; "
        "did you mean 'mentions_heap'?"
    ) in done.stdout


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_submission_that_is_not_json_is_placed_on_the_editor_s_line(tmp_path: Path, line_end: str) -> None:
    # json counts lines at "\n" only: a file with CR line ends was one long line to it
    (tmp_path / "sub.json").write_bytes(
        line_end.join(["{", '  "prompt": "x",', '  "responses": [1,]', "}", ""]).encode()
    )
    done = subprocess.run(
        [str(EVALKIT), "eval", "sub.json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert json.loads(done.stdout)["error"]["message"] == "invalid JSON at line 3:19: Expecting value"


QUOTED = re.compile(r'"[^"\n]*"')
SAMPLE = (REPO / "config_samples" / "rules.yaml").read_text(encoding="utf-8")
INSIDE_QUOTES = [
    m.start() + 1 + i
    for m in QUOTED.finditer(SAMPLE)
    for i in range(len(m.group()) - 1)
    if "#" not in SAMPLE[SAMPLE.rfind("\n", 0, m.start()) : m.start()]
]  # in a comment, YAML ends a line
KEYS = [m.start(1) for m in re.finditer(r"^ +(description):", SAMPLE, re.MULTILINE)]


@settings(max_examples=60, deadline=None)
@given(
    inserted=st.lists(
        st.tuples(st.sampled_from(INSIDE_QUOTES), st.sampled_from([*SEPARATORS, "\t", "é😀"])), max_size=12
    ),
    misspelt=st.sampled_from(KEYS),
    line_end=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_every_position_points_into_the_text_as_the_protocol_splits_it(
    tmp_path_factory: pytest.TempPathFactory, inserted: list[tuple[int, str]], misspelt: int, line_end: str
) -> None:
    text = SAMPLE[:misspelt] + "descripton" + SAMPLE[misspelt + len("description") :]
    shift = len("descripton") - len("description")
    for offset, characters in sorted(inserted, reverse=True):
        offset += shift if offset > misspelt else 0
        text = text[:offset] + characters + text[offset:]
    text = text.replace("\n", line_end)
    folder = tmp_path_factory.mktemp("config")
    path = folder / "rules.yaml"
    config = analyze(folder, {str(path): text})
    lines = protocol_lines(text)
    for found in config.diagnostics:
        span = found.span
        assert 1 <= span.line <= span.end_line <= len(lines)
        assert 1 <= span.column <= len(lines[span.line - 1]) + 1
        assert 1 <= span.end_column <= len(lines[span.end_line - 1]) + 1
    [unknown] = [d for d in config.diagnostics if d.code == "unknown-key"]
    assert lines[unknown.line - 1][unknown.column - 1 : unknown.span.end_column - 1] == "descripton"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"ab:-[]{}&*!|>'\"#\n\t ,?", "\r", "\r\n", "\n  ", "&x ", "*x", "é😀", *SEPARATORS]),
        max_size=50,
    )
)
def test_every_yaml_diagnostic_is_a_range_inside_the_text_as_the_protocol_splits_it(
    tokens: list[str],
) -> None:
    text = "".join(tokens)
    _, diagnostics = parse_yaml(text, "f.yaml")
    lines = protocol_lines(text)
    for found in diagnostics:
        span = found.span
        assert (1, 1) <= (span.line, span.column) <= (span.end_line, span.end_column)
        assert span.end_line <= len(lines)
        assert span.column <= len(lines[span.line - 1]) + 1
        assert span.end_column <= len(lines[span.end_line - 1]) + 1
