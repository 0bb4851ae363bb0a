"""engine/positions.py: lines end at LF, CRLF and CR only, and offsets map to the lines so counted."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from evalkit.engine.positions import LineMap, lines_with_ends, split_lines

TEXT = st.lists(st.sampled_from(["a", "é", "😀", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1e", "\x85",
                                 "\u2028", "\u2029"]), max_size=30).map("".join)


@given(TEXT)
def test_lines_are_cut_at_line_ends_only(text: str) -> None:
    expected = re.split(r"\r\n|\r|\n", text)
    with_ends = lines_with_ends(text)
    assert "".join(with_ends) == text
    assert [line.removesuffix("\n").removesuffix("\r") for line in with_ends] == split_lines(text)
    assert split_lines(text) == (expected[:-1] if expected[-1] == "" else expected)


@given(TEXT, st.data())
def test_an_offset_is_at_its_line_and_column(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    line, column = LineMap(text).position(offset)
    before = re.split(r"\r\n|\r|\n", text[:offset])
    if text[offset - 1:offset + 1] == "\r\n":  # between the two characters of one line end
        before = re.split(r"\r\n|\r|\n", text[:offset - 1])
        before[-1] += "\r"
    assert (line, column) == (len(before), len(before[-1]) + 1)
