"""Untrusted text as the reviewer's terminal shows it: every control character visible, none obeyed.

Submissions, file names and journals can hold escape sequences: a window title (OSC 0/2), a clipboard
write (OSC 52), leaving the alternate screen, clearing, colours, 8-bit CSI (U+009B). Written raw, the
terminal obeys them. `visible` turns each control character into an escape the reviewer can read
(`\\x1b`, `\\x9b`, `\\u202e`), as `shown` does for bytes that are not UTF-8; every widget that shows text
from a submission, a file name or a journal goes through it. `ControlFilter` is the net under it: a line
filter on every line Textual draws, it drops whatever control character a widget let through (an editor,
the command palette, a notification), so none ever reaches the terminal.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from evalkit.engine.text import shown

# C0 but newline and tab, DEL, C1, and the bidirectional overrides and isolates (they reorder what is shown)
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"\r\n|[{_CONTROLS}]")
_LINE_CONTROL = re.compile(f"\r\n|[\n\t{_CONTROLS}]")
_ANY_CONTROL = re.compile(f"[\n\t{_CONTROLS}]")


def visible(text: str, *, lines: bool = True) -> str:
    """`text` with every control character written as an escape. With `lines` (multi-line text: a prompt, a
    response, a note) newlines and tabs stay and CRLF is a newline; without (a name, an id, a one-line
    field) they are escapes too, so one value stays on one line."""
    found = _CONTROL if lines else _LINE_CONTROL
    text = shown(text)
    if not found.search(text):
        return text
    return found.sub(_escape_multiline if lines else _escape, text)


def _escape(match: re.Match[str]) -> str:
    return "".join(_escaped(character) for character in match.group())


def _escape_multiline(match: re.Match[str]) -> str:
    return "\n" if match.group() == "\r\n" else _escaped(match.group())


def _escaped(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


class ControlFilter(LineFilter):
    """Drops control characters from every drawn line: the last guard, after `visible` made them readable
    wherever the app builds text. A line's width in cells is unchanged (controls take none)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(_ANY_CONTROL.search(segment.text) for segment in segments if not segment.control):
            return segments
        return [
            segment
            if segment.control
            else Segment(_ANY_CONTROL.sub("", segment.text), segment.style, segment.control)
            for segment in segments
        ]
