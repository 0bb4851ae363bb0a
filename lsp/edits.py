"""An editor's incremental change applied to a document's text exactly as the reference text-document
model of the LSP (`vscode-languageserver-textdocument`, which VS Code's servers use) applies it.

pygls took a range as given: a reversed range (end before start), a character past a line's end or one
between a CRLF's `\\r` and `\\n` made its text differ from the editor's. The reference orders the range,
clamps each position to its line's content (a position past the end of a line stands before the line
break, so a CRLF is never split) and a line past the end to the end of the text. Positions count the
negotiated encoding's code units: UTF-16 (the default) may split a surrogate pair, as the reference's
JavaScript strings do, leaving lone surrogates; UTF-8 positions inside a character go back to its start.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import NamedTuple

from lsprotocol import types

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Units(NamedTuple):
    """How a position encoding counts a line: the codec and the bytes of one code unit."""

    codec: str
    size: int


UTF16 = Units("utf-16-le", 2)
UNITS: dict[str, Units] = {
    types.PositionEncodingKind.Utf8: Units("utf-8", 1),
    types.PositionEncodingKind.Utf16: UTF16,
    types.PositionEncodingKind.Utf32: Units("utf-32-le", 4),
}


def apply_change(
    text: str, where: types.Range, new_text: str, encoding: types.PositionEncodingKind | str | None = None
) -> str:
    """`text` with `where` replaced by `new_text`."""
    units = UNITS.get(encoding or "", UTF16)
    start, end = _ordered(where.start, where.end)
    # where lines start, as far as the edit reaches (one more tells whether the end line is the last)
    starts = [0, *islice((m.end() for m in _LINE_BREAK.finditer(text)), end.line + 1)]
    first = min(start.line, len(starts) - 1)  # the region holds the last line for an edit past the end,
    head = starts[first]  # so that the text re-joins a surrogate pair as the reference's string does
    tail = starts[end.line + 1] if end.line + 1 < len(starts) else len(text)
    region = _encode(text[head:tail], units)
    breaks = _region_line_starts(text, starts, first, end.line, units)
    begin = _offset(region, breaks, start, units)
    finish = _offset(region, breaks, end, units)
    edited = region[:begin] + _encode(new_text, units) + region[finish:]
    return text[:head] + edited.decode(units.codec, "surrogatepass") + text[tail:]


def _ordered(start: types.Position, end: types.Position) -> tuple[types.Position, types.Position]:
    if (start.line, start.character) > (end.line, end.character):
        return end, start
    return start, end


def _encode(text: str, units: Units) -> bytes:
    return text.encode(units.codec, "surrogatepass")


def _region_line_starts(
    text: str, starts: list[int], first: int, last: int, units: Units
) -> dict[int, tuple[int, int]]:
    """For each line from `first` to `last` that the text has: where it starts and where the next one
    starts, in bytes from the start of line `first`."""
    spans: dict[int, tuple[int, int]] = {}
    at = 0
    for line in range(first, min(last, len(starts) - 1) + 1):
        following = starts[line + 1] if line + 1 < len(starts) else len(text)
        size = len(_encode(text[starts[line] : following], units))
        spans[line] = (at, at + size)
        at += size
    return spans


def _offset(region: bytes, spans: dict[int, tuple[int, int]], position: types.Position, units: Units) -> int:
    """The reference's `offsetAt`, in bytes of the region."""
    span = spans.get(position.line)
    if span is None:  # a line past the end of the text
        return len(region)
    line_start, next_line = span
    offset = min(line_start + position.character * units.size, next_line)
    while offset > line_start and region[offset - units.size : offset] in (
        _encode("\r", units),
        _encode("\n", units),
    ):
        offset -= units.size  # never after, nor inside, the line's break
    if units.size == 1:
        while line_start < offset < len(region) and region[offset] & 0xC0 == 0x80:
            offset -= 1  # not inside a character's UTF-8 bytes
    return offset
