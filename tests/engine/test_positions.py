"""engine/positions.py: lines end at LF, CRLF and CR only, and offsets map to the lines so counted."""

from __future__ import annotations

import re
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.positions import LineMap, lines_with_ends, split_lines

TEXT = st.lists(
    st.sampled_from(
        ["a", "é", "😀", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1e", "\x85", "\u2028", "\u2029"]
    ),
    max_size=30,
).map("".join)


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
    if text[offset - 1 : offset + 1] == "\r\n":  # between the two characters of one line end
        before = re.split(r"\r\n|\r|\n", text[: offset - 1])
        before[-1] += "\r"
    assert (line, column) == (len(before), len(before[-1]) + 1)


def _marks(text: str) -> list[Any]:
    try:
        stack = [yaml.compose(text, Loader=yaml.CSafeLoader)]
    except yaml.MarkedYAMLError as exc:
        return [mark for mark in (exc.problem_mark, exc.context_mark) if mark is not None]
    except yaml.YAMLError:  # a character YAML refuses: no mark
        return []
    found = []
    while stack:
        node = stack.pop()
        if node is None:
            continue
        found += [node.start_mark, node.end_mark]
        if isinstance(node, yaml.MappingNode):
            stack += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return found


@settings(max_examples=500)
@given(
    st.lists(
        st.sampled_from([*"ab:-[]{}|>'\"#\t ,?", "\n", "\r", "\r\n", "\n  ", "é😀", "\u2028"]), max_size=40
    ).map("".join)
)
def test_a_mark_read_where_its_own_line_and_column_are_exact_is_at_its_offset(text: str) -> None:
    # LineMap reads a mark's own line and column where no break only YAML counts precedes the end
    lines = LineMap(text)
    for mark in _marks(text):
        assert lines.mark(mark) == lines.position(mark.index)
