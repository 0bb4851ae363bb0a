"""`evalkit eval` reads and writes JSON with msgspec (fast) and must read and write exactly what json.loads
and
json.dumps(ensure_ascii=False) do: the same values in, the same bytes out."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine import Evaluator, load_config
from evalkit.engine.result import plain_json
from evalkit.services.inputs.read import parse_json, read_inputs
from evalkit.services.run.batch import _FastEncoder, dumps_line

FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [1e16, -1e16, 1e-5, 3e-05, -9.99e-05, 1e-4, 0.0001234, 1.5e300, 5e-324, -0.0, 123456789012345.6]
)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | FLOATS | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def dumps_line_writes_the_bytes_json_dumps_writes(value: object) -> None:
    assert dumps_line(value) == json.dumps(value, ensure_ascii=False)


def what_plain_json_vouches_for_msgspec_writes_as_json_dumps_does(value: object) -> None:
    """The fast encoder's gate (a walk of the value, in place of a search of its encoded bytes): where it
    says yes, msgspec's bytes respaced are json.dumps's, and where a float would differ it says no."""
    expected = json.dumps(value, ensure_ascii=False)
    try:
        written = msgspec.json.format(msgspec.json.encode(value), indent=0).decode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the encoder hands the value to json.dumps
        return
    if plain_json(value):
        assert written == expected
    elif written != expected:
        assert any(pattern in expected for pattern in ("e-", "e+", "NaN", "Infinity")), expected


def parse_json_reads_what_json_loads_reads(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        assert json.dumps(parse_json(text)) == json.dumps(json.loads(text))


@settings(max_examples=600, deadline=None)
@given(value=VALUES)
def test_any_value_is_written_and_read_as_the_json_module_writes_and_reads_it(value: object) -> None:
    """The three laws above, each on the same 600 values: drawing a value (up to 20 leaves) is most of the
    cost, so they share one property rather than draw 600 each."""
    dumps_line_writes_the_bytes_json_dumps_writes(value)
    what_plain_json_vouches_for_msgspec_writes_as_json_dumps_does(value)
    parse_json_reads_what_json_loads_reads(value)


def test_plain_json_refuses_what_msgspec_writes_otherwise() -> None:
    for value in (1e-5, -3e-05, 1e16, -1.5e300, float("nan"), float("inf"), {1.5: 1}, {True: 1}, {None: 1}):
        assert not plain_json(value)
        assert not plain_json({"a": [value]})
    for value in (0.0, -0.0, 1e-4, 9999999999999998.0, 2**70, True, None, "1e-05", (1, "a"), {"a": 1}):
        assert plain_json([value, {"k": value}])
    deep: object = 1.0
    for _ in range(100):
        deep = [deep]
    assert not plain_json(deep)  # left to json.dumps, which says how deep is too deep


def test_the_shipped_samples_results_take_the_fast_path() -> None:
    evaluator = Evaluator(load_config())
    results = [evaluator.evaluate(s.submission) for s in read_inputs([Path("samples")]) if s.submission]
    assert len(results) > 20
    for result in results:
        assert plain_json({"source": "x", **result.to_dict()})
        assert plain_json(result.explain())


def test_what_the_fast_reader_refuses_is_read_as_json_loads_reads_it() -> None:
    assert math.isinf(parse_json('{"a": 1e400}')["a"])
    assert math.isnan(parse_json("[NaN]")[0])
    assert parse_json('{"a": 1, "a": 2}') == {"a": 2}
    assert parse_json("1" * 300) == int("1" * 300)


def test_a_batch_with_floats_python_writes_in_exponent_form_comes_out_as_json_dumps_writes_them(
    tmp_path: Path,
) -> None:
    seed = json.loads(Path("samples/sample_submission.json").read_text(encoding="utf-8"))
    lines = []
    for rating in (3e-05, 1e-05, 4.00001, 0.0001):
        for dim, old in seed["ratings"].items():
            if isinstance(old, (int, float)):
                seed["ratings"][dim] = rating
        lines.append(json.dumps(seed, ensure_ascii=False))
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(batch), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    written = out.read_text(encoding="utf-8").splitlines()
    assert len(written) == 4
    for line in written:
        assert line == json.dumps(json.loads(line), ensure_ascii=False)
    assert "3e-05" in written[0] and "1e-05" in written[1]


SEED = json.loads(Path("samples/sample_submission.json").read_text(encoding="utf-8"))
RATINGS = st.sampled_from([0.0, -0.0, 1e-05, 4.5, 5.0, 2.0, 1e300, -3.0, 4.25]) | st.floats(
    allow_nan=False, allow_infinity=False
)
WORDS = st.sampled_from(["priority queue", "pesos negativos", "ejemplo", "O(n log n)", '"', "\\", "\n", "é"])
TEXTS = st.lists(WORDS | st.text(max_size=8), max_size=6).map(" ".join)
_ENCODER = _FastEncoder()
_EVALUATOR = Evaluator(load_config())


@settings(max_examples=400, deadline=None)
@given(
    ratings=st.fixed_dictionaries({name: RATINGS for name in SEED["ratings"] if name != "justification"}),
    text=TEXTS,
    rewrite=TEXTS,
    source=st.text(max_size=8),
)
def test_a_result_line_is_the_line_of_its_dict(
    ratings: dict[str, float], text: str, rewrite: str, source: str
) -> None:
    """`result_line` writes `corrected_ratings` from what it is made of, its members kept from line to line
    (one encoder for every example: a member written for one rating must never be another's, 0.0 and -0.0
    included); the line is the one json.dumps writes of the result's dict, lone surrogates escaped."""
    data = {
        **SEED,
        "ratings": {**SEED["ratings"], **ratings},
        "responses": [{"id": "a", "text": text}],
        "rewrite_preferred": rewrite,
    }
    for _ in range(2):  # the second time, every member is looked up
        result = _EVALUATOR.evaluate(data)
        assert result.unbuilt_ratings is not None
        written = _ENCODER.result_line(source, result)
        expected = json.dumps({"source": source, **result.to_dict()}, ensure_ascii=False)
        assert written == expected.encode("utf-8", "backslashreplace")
