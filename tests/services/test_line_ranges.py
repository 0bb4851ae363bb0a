"""A JSONL file's ranges of lines, read by `evalkit eval --jobs` a range at a time, give every line that
reading the whole file gives: numbers, blank lines, a byte order mark, "\\r", text that is not UTF-8, a last
line without its newline."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evalkit.engine.text import NotText, check_not_other_encoding
from evalkit.services.inputs.read import byte_ranges, jsonl_lines, range_lines
from evalkit.services.run.pool import file_ranges

PIECES = st.sampled_from(
    [b'{"a": 1}', b"", b" ", b"\t\r", b"\r", b"\xef\xbb\xbf", b"\xff", b"caf\xc3\xa9", b"\xc2\xa0", b"x" * 40]
)
LINES = st.lists(st.lists(PIECES, max_size=3).map(b"".join), max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines=LINES, end_with_newline=st.booleans(), size=st.integers(1, 200))
def test_a_files_ranges_read_one_after_another_give_the_files_lines(
    lines: list[bytes], end_with_newline: bool, size: int
) -> None:
    data = b"\n".join(lines) + (b"\n" if end_with_newline and lines else b"")
    try:
        check_not_other_encoding(data[:4])
    except NotText:
        assume(False)  # refused whole before any range is made (services/run/batch.py's _line_ranges)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.jsonl"
        path.write_bytes(data)
        with open(path, "rb") as handle:
            ranges = list(file_ranges(handle, str(path), str(path), size))
        assert ranges == [] if not data else ranges[0].start == 0 and ranges[-1].end == len(data)
        by_range = [
            line
            for part in ranges
            for line in range_lines(path, part.source, part.start, part.end, part.first)
        ]
        assert by_range == list(jsonl_lines(path))


@settings(max_examples=300, deadline=None)
@given(lines=LINES, end_with_newline=st.booleans(), size=st.integers(1, 200), skip=st.integers(0, 50))
def test_ranges_found_by_seeking_cut_the_file_after_newlines_and_leave_nothing_out(
    lines: list[bytes], end_with_newline: bool, size: int, skip: int
) -> None:
    data = b"\n".join(lines) + (b"\n" if end_with_newline and lines else b"")
    start = min(skip, len(data))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.jsonl"
        path.write_bytes(data)
        with open(path, "rb") as handle:
            handle.seek(start)
            ranges = list(byte_ranges(handle, size))
    assert all(one[1] == next_one[0] for one, next_one in itertools.pairwise(ranges))  # no gap, no overlap
    assert ranges == [] if start == len(data) else ranges[0][0] == start and ranges[-1][1] == len(data)
    for range_start, end in ranges:
        assert end - range_start >= size or end == len(data)
        assert data[end - 1 : end] == b"\n" or end == len(data)
        assert data[range_start + size - 1 : end - 1].find(b"\n") == -1  # the first newline at or past size
