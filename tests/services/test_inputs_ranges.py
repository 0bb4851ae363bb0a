"""The ranges of a JSONL file that `eval --jobs` hands its workers (inputs/read.py's line_ranges, cut to
inputs.guided_size's lengths by services/run/pool.py's file_ranges): they cover the file exactly, each ends
after a newline (or at the end), each knows the number of its first line, and near the end they shrink so
that the workers finish together."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.services.inputs.read import GROWN, SMALLEST, guided_size, line_ranges
from evalkit.services.run.pool import file_ranges

LINE = st.binary(max_size=40).map(lambda raw: raw.replace(b"\n", b""))


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(LINE, max_size=60),
    end_with_newline=st.booleans(),
    size=st.integers(1, 300),
    skip=st.integers(0, 80),
    guided=st.booleans(),
)
def test_ranges_cover_the_file_exactly_and_number_their_first_lines(
    lines: list[bytes], end_with_newline: bool, size: int, skip: int, guided: bool
) -> None:
    data = b"\n".join(lines) + (b"\n" if end_with_newline and lines else b"")
    start = data.find(b"\n", 0, skip) + 1 if skip < len(data) else len(data)  # where a line starts
    handle = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]
    handle.seek(start)
    ranges = list(line_ranges(handle, size, len(data) if guided else None))
    assert all(one[1] == next_one[0] for one, next_one in itertools.pairwise(ranges))  # no gap, no overlap
    assert ranges == [] if start == len(data) else ranges[0][0] == start and ranges[-1][1] == len(data)
    for range_start, end, first in ranges:
        assert range_start < end
        assert data[end - 1 : end] == b"\n" or end == len(data)
        assert first == 1 + data.count(b"\n", start, range_start)  # numbered from where reading began


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 1 << 22), left=st.integers(0, 1 << 32), more=st.integers(0, 1 << 32))
def test_a_guided_range_is_never_longer_with_less_left_and_stays_within_its_bounds(
    size: int, left: int, more: int
) -> None:
    assert guided_size(size, left) <= guided_size(size, left + more)
    assert max(1, size // SMALLEST) <= guided_size(size, left) <= max(1, GROWN * size)


def test_a_file_is_cut_into_large_ranges_then_smaller_and_smaller_ones_at_its_end(tmp_path: Path) -> None:
    """A 20 MB file of 1 kB lines, `size` 256 kB: ranges of three times that while much is left, then an
    eighth of what is left, down to 32 kB at the end; the lines are numbered across them."""
    line = b'{"prompt": "' + b"x" * 1009 + b'"}\n'  # 1,024 bytes
    path = tmp_path / "big.jsonl"
    path.write_bytes(line * 20_000)
    with open(path, "rb") as handle:
        ranges = list(file_ranges(handle, str(path), "big.jsonl", 256 * 1024))
    lengths = [part.end - part.start for part in ranges]
    assert [part.first for part in ranges] == [1 + part.start // len(line) for part in ranges]
    assert lengths[0] == 768 * 1024
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[-2] == 32 * 1024 and lengths[-1] <= 32 * 1024
    assert sum(lengths) == path.stat().st_size
