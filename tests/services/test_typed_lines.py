"""`evalkit eval` decodes a JSONL line into typed msgspec Structs (services/typed_lines.py) and builds its
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
from evalkit.services.typed_lines import typed_decoder

DECODE_TYPED = typed_decoder()
BIG = int(1.7976931348623157e308)
NUMBERS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(-(2**64), 2**64)
    | st.sampled_from([0, -0.0, 4, 2**53 + 1, 2**1100, -(2**1100), BIG, BIG + 2**969, -BIG - 1, 1e-05])
)
WRONG = st.none() | st.booleans() | st.integers(-2, 2) | st.text(max_size=3) | st.just([]) | st.just({})
TEXT = st.text(max_size=6)
IDS = st.sampled_from(["a", "b"]) | st.integers(0, 2) | st.just(1.0)


def maybe(draw: st.DrawFn, value: st.SearchStrategy[Any], present: float = 0.8) -> Any:
    return draw(value) if draw(st.floats(0, 1)) < present else ...


@st.composite
def lines(draw: st.DrawFn) -> str:
    """Submissions' JSON text, mostly well typed, with every way a line may stray: wrong types, integer ids
    and ratings, ratings beyond a float, null optionals, no responses, keys the Structs do not know."""
    data: dict[str, Any] = {}
    fields: dict[str, st.SearchStrategy[Any]] = {
        "prompt": TEXT | WRONG,
        "responses": st.lists(
            st.fixed_dictionaries(
                {"id": IDS, "text": TEXT},
                optional={"meta": st.none() | st.just({"k": 1}) | WRONG, "extra": WRONG},
            ),
            max_size=3,
        )
        | WRONG,
        "ranking": st.lists(IDS, max_size=3) | WRONG,
        "ratings": st.fixed_dictionaries(
            dict.fromkeys(DIMENSIONS, NUMBERS),
            optional={"justification": st.none() | TEXT | WRONG, "note": WRONG},
        )
        | WRONG,
        **{key: st.none() | TEXT | WRONG for key in OPTIONAL_TEXT},
        "evidence": st.none() | TEXT | st.just([1, "x"]) | st.just({"a": [1]}) | WRONG,
        "justification": TEXT,
        "extra": st.just({"a": 1}),
        "x-note": WRONG,
    }
    for key, strategy in fields.items():
        often = 0.95 if key in ("prompt", "responses", "ranking", "ratings") else 0.4
        value = maybe(draw, strategy, 0.15 if key in ("justification", "extra", "x-note") else often)
        if value is not ...:
            data[key] = value
    if isinstance(data.get("ratings"), dict) and draw(st.booleans()):
        data["ratings"].pop(draw(st.sampled_from(DIMENSIONS)), None)
    return json.dumps(data, ensure_ascii=draw(st.booleans()))


def typed(text: str) -> Any:
    try:
        return from_typed(DECODE_TYPED(text), astuple)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


@settings(max_examples=1000, deadline=None)
@given(lines())
def test_a_line_the_structs_take_makes_the_submission_its_dict_makes(text: str) -> None:
    submission = typed(text)
    if submission is None:
        return
    expected = parse_submission(msgspec.json.decode(text))
    assert repr(submission) == repr(expected)  # repr: 4 and 4.0, 0.0 and -0.0 apart
    assert submission == expected


@settings(max_examples=300, deadline=None)
@given(lines())
def test_the_structs_take_every_well_typed_line_without_extra_keys(text: str) -> None:
    """Not only a few: a line with string ids, numbers within a float's range and only the known keys is
    the common submission, and the typed way is for it."""
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
        and all(-BIG <= value <= BIG for value in ratings)
    ):
        assert repr(typed(text)) == repr(expected)


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
