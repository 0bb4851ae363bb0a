"""`evalkit eval` reads and writes JSON with msgspec (fast) and must read and write exactly what json.loads
and
json.dumps(ensure_ascii=False) do: the same values in, the same bytes out."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.services.batch import dumps_line
from evalkit.services.inputs import parse_json

FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [1e16, -1e16, 1e-5, 3e-05, -9.99e-05, 1e-4, 0.0001234, 1.5e300, 5e-324, -0.0, 123456789012345.6]
)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | FLOATS | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(value=VALUES)
def test_dumps_line_writes_the_bytes_json_dumps_writes(value: object) -> None:
    assert dumps_line(value) == json.dumps(value, ensure_ascii=False)


@settings(max_examples=600, deadline=None)
@given(value=VALUES)
def test_parse_json_reads_what_json_loads_reads(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        assert json.dumps(parse_json(text)) == json.dumps(json.loads(text))


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
