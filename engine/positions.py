"""Lines and columns, counted one way by every face: `evalkit check`, the language server, the TUI.

A line ends at "\\n", "\\r\\n" or "\\r", and nowhere else: so the Language Server Protocol counts, and so
do editors. PyYAML's marks also end a line at U+0085, U+2028 and U+2029, and `str.splitlines` at those
and at \\x0b, \\x0c and \\x1c-\\x1e; all of them may stand in a YAML string, where a position taken from
either would put everything after them a line too low (and a quick fix would edit the wrong line).
Positions are therefore computed from character offsets (a PyYAML mark's `index`) with `LineMap`, which
reads a mark's own line and column only where they are the same numbers, and texts are split into lines
with `split_lines`.

Lines and columns count from 1, columns in code points (the language server converts them to the
client's units).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import pairwise
from typing import Any

_LINE_END = re.compile(r"\r\n?|\n")
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""What `str.splitlines` ends a line at besides the protocol's line ends."""
_YAML_ONLY_BREAKS = re.compile("[\x85\u2028\u2029]")
"""What PyYAML's marks end a line at besides the protocol's line ends."""


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their ends, as `str.splitlines` gives them (no empty last line after a
    final line end) but cut only where a line ends."""
    if _OTHER_BREAKS.search(text) is None:
        return text.splitlines()  # the same lines, faster
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_end(text: str) -> str:
    """The line end `text` uses (its first), for text inserted into it: "\\n" when it has none."""
    found = _LINE_END.search(text)
    return found.group() if found is not None else "\n"


def lines_with_ends(text: str) -> list[str]:
    """The lines of `text`, each with its line end (the last one may have none)."""
    if _OTHER_BREAKS.search(text) is None:
        return text.splitlines(keepends=True)
    if not text:
        return []
    ends = [match.end() for match in _LINE_END.finditer(text)]
    if not ends or ends[-1] < len(text):
        ends.append(len(text))
    return [text[start:end] for start, end in pairwise([0, *ends])]


class LineMap:
    """Character offsets in one text -> (line, column), both from 1."""

    __slots__ = ("_starts", "marks_exact_below")

    def __init__(self, text: str) -> None:
        self._starts = [0, *(match.end() for match in _LINE_END.finditer(text))]
        self.marks_exact_below = 0 if _YAML_ONLY_BREAKS.search(text) else len(text)
        """A PyYAML mark at an offset below this has the right line and column of its own (they cost
        nothing to read): unless the text has a break that only YAML counts (then none has), or the mark
        is at the end of the text (libyaml puts the end of a text without a final line end on a line
        after it)."""

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def mark(self, mark: Any) -> tuple[int, int]:
        """The position of a PyYAML mark."""
        if mark.index < self.marks_exact_below:
            return mark.line + 1, mark.column + 1
        return self.position(mark.index)
