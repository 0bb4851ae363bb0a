"""Untrusted text as the reviewer's terminal shows it: every control character visible, none obeyed.

Submissions, file names and journals can hold escape sequences: a window title (OSC 0/2), a clipboard
write (OSC 52), leaving the alternate screen, clearing, colours, 8-bit CSI (U+009B). Written raw, the
terminal obeys them. `visible` turns each control character into an escape the reviewer can read
(`\\x1b`, `\\x9b`, `\\u202e`), as every other output does (engine/untrusted_text.py decides how, for
all of them); every widget that shows text from a submission, a file name or a journal goes through it.
`ControlFilter` is the net under it: a line filter on every line Textual draws, it drops whatever control
character a widget let through (an editor, the command palette, a notification), so none ever reaches the
terminal.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from evalkit.engine.untrusted_text import UNSEEN, shown_as

_ANY_CONTROL = re.compile(f"[\n\t{UNSEEN}]")


def visible(text: str, *, lines: bool = True) -> str:
    """`text` with every control character written as an escape: engine/untrusted_text.py's `screen` form.
    With `lines` (multi-line text: a prompt, a response, a note) newlines and tabs stay and CRLF is a
    newline; without (a name, an id, a one-line field: `screen-line`) they are escapes too, so one value
    stays on one line."""
    return shown_as(text, "screen" if lines else "screen-line")


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
