"""`evalkit eval` decodes a JSONL line into typed msgspec Structs (services/run/typed_lines.py) and builds its
Submission from them (`from_typed`); a line they refuse is decoded as a dict and parsed as before. The two
ways must give the same Submission, value for value and of the same types, for any line the typed way
accepts, and the typed way must accept the common submission."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import astuple

from evalkit.engine import DIMENSIONS, Evaluator, load_config
from evalkit.engine.submission import OPTIONAL_TEXT, from_typed, parse_submission
from evalkit.services.run.typed_lines import typed_decoder

DECODE_TYPED = typed_decoder()
BIG = int(1.7976931348623157e308)
NUMBERS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(-(2**64), 2**64)
    | st.sampled_from([0, -0.0, 4, 2**53 + 1, 2**1100, -(2**1100), BIG, BIG + 2**969, -BIG - 1, 1e-05])
)
WRONG = (
    st.none() | st.booleans() | st.integers(-2, 2) | st.text(max_size=3) | st.builds(list) | st.builds(dict)
)
TEXT = st.text(max_size=6)
IDS = st.sampled_from(["a", "b"]) | st.integers(0, 2) | st.just(1.0)


def usually(good: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`good` nineteen times in twenty, else `other` (one_of would draw each of other's branches as often)."""
    return st.integers(0, 19).flatmap(lambda n: other if n == 0 else good)


def maybe(draw: st.DrawFn, value: st.SearchStrategy[Any], present: float) -> Any:
    return draw(value) if draw(st.integers(0, 99)) < present * 100 else ...


RESPONSE = st.fixed_dictionaries(
    {"id": usually(st.sampled_from(["a", "b"]), IDS), "text": usually(TEXT, WRONG)},
    optional={"meta": usually(st.none() | st.just({"k": 1}), WRONG)},
)
RESPONSE = usually(RESPONSE, RESPONSE.map(lambda r: {**r, "extra": 1}))
RATINGS = st.fixed_dictionaries(
    dict.fromkeys(DIMENSIONS, st.floats(0, 5) | st.integers(0, 5)),
    optional={"justification": usually(st.none() | TEXT, WRONG)},
)
FIELDS: dict[str, tuple[st.SearchStrategy[Any], float]] = {
    "prompt": (usually(TEXT, WRONG), 0.97),
    "responses": (usually(st.lists(RESPONSE, min_size=1, max_size=3), WRONG), 0.97),
    "ranking": (usually(st.lists(usually(st.sampled_from(["a", "b"]), IDS), max_size=3), WRONG), 0.97),
    "ratings": (usually(RATINGS, RATINGS.map(lambda r: {**r, "note": 1}) | WRONG), 0.97),
    **{key: (usually(st.none() | TEXT, WRONG), 0.4) for key in OPTIONAL_TEXT},
    "evidence": (usually(st.none() | TEXT | st.just([1, "x"]) | st.just({"a": [1]}), WRONG), 0.3),
    "justification": (TEXT, 0.1),
    "extra": (st.just({"a": 1}), 0.1),
    "x-note": (WRONG, 0.1),
}
"""Each key of a submission line, its values and how often it is there (built once: a strategy built inside
`lines` was built again for every example, most of the property's time)."""


@st.composite
def lines(draw: st.DrawFn) -> str:
    """Submissions' JSON text, mostly well typed, with every way a line may stray: wrong types, integer ids
    and ratings, ratings beyond a float, null optionals, no responses, keys the Structs do not know."""
    data: dict[str, Any] = {}
    for key, (strategy, present) in FIELDS.items():
        value = maybe(draw, strategy, present)
        if value is not ...:
            data[key] = value
    if isinstance(data.get("ratings"), dict) and draw(st.integers(0, 4)) == 0:
        strange = draw(st.sampled_from(DIMENSIONS))
        data["ratings"] = dict(data["ratings"])
        if draw(st.booleans()):
            data["ratings"].pop(strange, None)
        else:
            data["ratings"][strange] = draw(NUMBERS | WRONG)
    return json.dumps(data, ensure_ascii=draw(st.booleans()))


def typed(text: str) -> Any:
    try:
        return from_typed(DECODE_TYPED(text), astuple)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def a_line_the_structs_take_makes_the_submission_its_dict_makes(text: str) -> None:
    submission = typed(text)
    if submission is None:
        return
    expected = parse_submission(msgspec.json.decode(text))
    assert repr(submission) == repr(expected)  # repr: 4 and 4.0, 0.0 and -0.0 apart
    assert submission == expected


def the_structs_take_every_well_typed_line_without_extra_keys(text: str) -> None:
    """Not only a few: a line with string ids, numbers within a float's range and only the known keys (of
    the submission, its responses and its ratings) is the common submission, and the typed way is for it."""
    data = json.loads(text)
    try:
        expected = parse_submission(data)
    except ValueError:
        return
    known = {"prompt", "responses", "ranking", "ratings", "evidence", *OPTIONAL_TEXT}
    ratings = [data["ratings"][name] for name in DIMENSIONS]
    if (
        set(data) <= known
        and all(type(r["id"]) is str and set(r) <= {"id", "text", "meta"} for r in data["responses"])
        and all(type(rid) is str for rid in data["ranking"])
        and set(data["ratings"]) <= {*DIMENSIONS, "justification"}
        and all(-BIG <= value <= BIG for value in ratings)
    ):
        assert repr(typed(text)) == repr(expected)


@settings(max_examples=400, deadline=None)
@given(lines())
def test_the_structs_take_every_common_line_and_make_of_it_the_submission_its_dict_makes(text: str) -> None:
    """The two laws above on the same 400 lines (drawing a line is most of the cost)."""
    a_line_the_structs_take_makes_the_submission_its_dict_makes(text)
    the_structs_take_every_well_typed_line_without_extra_keys(text)


def test_duplicate_keys_count_the_last_as_the_dict_does() -> None:
    seed = json.loads(Path("samples/sample_submission.json").read_text(encoding="utf-8"))
    text = json.dumps(seed)
    for twice in ('{"prompt": "first", ', '{"prompt": 5, ', '{"ratings": {"accuracy": 1}, '):
        line = twice + text[1:]
        submission = typed(line)
        assert submission is None or repr(submission) == repr(parse_submission(msgspec.json.decode(line)))
    assert typed('{"prompt": "first", ' + text[1:]) is not None


def test_the_shipped_samples_take_the_typed_way() -> None:
    taken = 0
    for path in sorted(Path("samples").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        submission = typed(text)
        if submission is not None:
            taken += 1
            assert repr(submission) == repr(parse_submission(json.loads(text)))
    assert taken >= 25


def test_a_batch_of_lines_either_way_evaluates_each_as_its_dict(tmp_path: Path) -> None:
    """Through `evalkit eval`: lines the Structs take and lines they refuse (integer ids and ratings, a key
    beyond the known ones, a rating beyond a float, no responses, a wrong type), in one batch."""
    seed = json.loads(Path("samples/sample_submission.json").read_text(encoding="utf-8"))
    variants: list[dict[str, Any]] = [
        seed,
        {**seed, "ratings": {**seed["ratings"], "accuracy": 5, "optimality": 2**1100}},
        {**seed, "x-reviewer": "ana", "evidence": ["a"]},
        {**seed, "responses": [{"id": 1, "text": "uno"}], "ranking": [1]},
        {**seed, "responses": []},
        {**seed, "prompt": 3},
        {**seed, "category": None, "rewrite_preferred": None},
    ]
    batch = tmp_path / "b.jsonl"
    batch.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in variants), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(batch), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr  # two lines are invalid
    written = out.read_text(encoding="utf-8").splitlines()
    evaluator = Evaluator(load_config())
    for number, (line, variant) in enumerate(zip(written, variants, strict=True), 1):
        source = f"{batch}:{number}"
        if number in (5, 6):
            assert json.loads(line)["error"]["message"], line
            continue
        expected = {"source": source, **evaluator.evaluate(variant).to_dict()}
        assert line == json.dumps(expected, ensure_ascii=False)


def test_a_line_not_utf8_in_a_key_the_structs_skip_is_refused_as_a_line_read_alone_is(tmp_path: Path) -> None:
    """msgspec checks the UTF-8 of what it decodes, not of a value it skips (a ratings key it does not
    know): the range is checked whole, and the line's error is the one reading it alone gives."""
    seed = json.loads(Path("samples/sample_submission.json").read_text(encoding="utf-8"))
    good = json.dumps(seed).encode()
    bad = good.replace(b'"ratings": {', b'"ratings": {"note": "\xff", ', 1)
    assert bad != good
    batch = tmp_path / "b.jsonl"
    batch.write_bytes(good + b"\n" + bad + b"\n")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(batch), "--out", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    column = bad.index(b"\xff") + 1  # the line is ASCII but for the byte
    assert f"{batch}:2: error: column {column}: the line is not UTF-8 text (byte 0xff)" in done.stderr
