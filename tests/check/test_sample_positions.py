"""`evalkit check --samples`: a sample that cannot be read or is invalid is reported at the line and
column of its problem (a syntax error's, bytes that are not UTF-8, or the field the submission's check
refuses), in .json, .yaml and each line of a .jsonl; at the sample's start only when there is no telling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.positions import split_lines
from evalkit.services.check.samples import field_path, problem_position
from evalkit.services.inputs.read import read_inputs

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
SEED = json.loads((REPO / "samples" / "sample_submission.json").read_text(encoding="utf-8"))


def check_samples(samples: Path) -> list[str]:
    done = subprocess.run(
        [str(EVALKIT), "check", "config_samples", "--samples", str(samples)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 1 and done.stderr == ""
    prefix = f"{samples}{os.sep}"
    return [line.removeprefix(prefix) for line in done.stdout.splitlines() if "invalid-sample" in line]


def seed_with(**changes: object) -> dict[str, object]:
    return {**SEED, **changes}


def test_each_problem_is_reported_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "seed.json").write_text(json.dumps(SEED), encoding="utf-8")
    (tmp_path / "a_syntax.json").write_text('{\n  "prompt": "x",\n  "responses": [,]\n}\n', encoding="utf-8")
    ratings = {**SEED["ratings"], "accuracy": "high"}  # type: ignore[dict-item]
    (tmp_path / "b_field.json").write_text(json.dumps(seed_with(ratings=ratings), indent=2), encoding="utf-8")
    responses = [{"id": "a", "text": "fine"}, {"id": "b", "text": None}]
    lines = [json.dumps(SEED), json.dumps(seed_with(responses=responses))]
    (tmp_path / "c_lines.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "d_yaml.yaml").write_text(
        "prompt: x\nresponses:\n  - id: a\n    text: [oops\n", encoding="utf-8"
    )
    missing = "prompt: x\nresponses: [{id: a, text: t}]\nranking: [a]\nratings:\n  accuracy: 3\n"
    (tmp_path / "e_missing.yaml").write_text(missing, encoding="utf-8")
    (tmp_path / "f_latin1.json").write_bytes(b'{\n  "prompt": "caf\xe9"}\n')
    field_lines = json.dumps(seed_with(ratings=ratings), indent=2).splitlines()
    ratings_line = next(n for n, text in enumerate(field_lines, 1) if '"high"' in text)
    null_column = lines[1].index("null") + 1
    assert check_samples(tmp_path) == [
        "a_syntax.json:3:17: error[invalid-sample] invalid JSON at line 3:17: Expecting value",
        f"b_field.json:{ratings_line}:17: error[invalid-sample] invalid submission: ratings.accuracy: "
        "expected a number, found a string",
        f"c_lines.jsonl:2:{null_column}: error[invalid-sample] invalid submission: responses[1].text: "
        "expected a string, found null",
        "d_yaml.yaml:4:11: error[invalid-sample] the flow sequence '[' is not closed "
        "(did not find expected ',' or ']' at line 5:1)",
        "e_missing.yaml:5:3: error[invalid-sample] invalid submission: ratings: missing required key "
        "'instructions'",
        "f_latin1.json:2:17: error[invalid-sample] the file is not UTF-8 text (byte 18: 0xe9)",
    ]


def test_a_problem_with_no_position_is_at_the_samples_start(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_text("  \n", encoding="utf-8")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n", encoding="utf-8")  # not a mapping: the whole file
    assert check_samples(tmp_path) == [
        "empty.json:1:1: error[invalid-sample] the input is empty: no submission in it",
        "list.yaml:1:1: error[invalid-sample] invalid submission: expected a mapping (a JSON object), "
        "found a list",
    ]


NAMES = st.text(st.characters(blacklist_characters=".[]"), min_size=1, max_size=8)


@given(st.lists(st.one_of(NAMES, st.integers(0, 999)), max_size=6))
def test_a_field_path_reads_back_as_the_submission_check_writes_it(path: list[str | int]) -> None:
    written = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")
    assert field_path(written) == tuple(path)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([".json", ".yaml", ".jsonl"]))
def test_any_bytes_get_a_position_inside_the_file(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes, suffix: str
) -> None:
    path = tmp_path_factory.mktemp("any") / f"sample{suffix}"
    path.write_bytes(raw)
    # as an editor counts lines, and the end of the file after a final line end
    lines = len(split_lines(raw.decode("utf-8", "replace"))) + 1
    for sample in read_inputs([path]):
        if sample.error is not None:
            where, span = problem_position(sample)
            assert where == str(path) and 1 <= span.line <= lines and span.column >= 1
