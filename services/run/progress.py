"""The progress bar of `evalkit eval` and `evalkit score`: one line on stderr, only on a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

WIDTH = 30
INTERVAL_S = 0.1
"""At most this often a bar is drawn: a terminal is slow, and a bar nobody can read is no use."""


class Progress:
    """`LABEL [#########.....................] CAPTION`, redrawn as work is done: the bar fills by `done`
    out of `total` (items, bytes: the caller's unit), the caption (`caption(done, total)`) says the rest.

    Drawn only when `enabled` and the stream is a terminal. `clear` erases it so that a message printed next
    starts at the left edge; `finish` draws it once more and ends its line (at what was really done when
    the total was a guess made ahead)."""

    def __init__(
        self,
        total: int,
        caption: Callable[[int, int], str],
        label: str = "",
        enabled: bool = True,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.total, self.done, self.caption = total, 0, caption
        self.label = f"{label} " if label else ""
        self.enabled = enabled and total > 0 and self.stream.isatty()
        self._drawn_at = 0.0
        self._open = False  # a bar is on the line

    def advance(self, count: int) -> None:
        self.update(self.done + count)

    def update(self, done: int) -> None:
        self.done = done
        self.total = max(self.total, done)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._drawn_at >= INTERVAL_S:
            self._drawn_at = now
            self._draw()

    def finish(self) -> None:
        """Draw the bar at what was done, the total made that, and end its line."""
        if self.enabled and self.done:
            self.total = self.done
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
            self._open = False

    def clear(self) -> None:
        """Erase the bar's line, so that a message printed next starts at the left edge."""
        if self._open:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._open = False

    def _draw(self) -> None:
        filled = WIDTH * self.done // self.total if self.total else 0
        bar = "#" * filled + "." * (WIDTH - filled)
        self.stream.write(f"\r{self.label}[{bar}] {self.caption(self.done, self.total)}")
        self.stream.flush()
        self._open = True


def counted(done: int, total: int) -> str:
    """The caption of a bar counting items: `120/400`."""
    return f"{done}/{total}"
