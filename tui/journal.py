"""The decisions journal's writer (services/review/journal.py reads it): JSON Lines, appended, flushed and
fsynced before a decision counts.

Each line is one entry (`ts`, `source`, `target`, `action`, `value`, `note`, `step`; see `decisions`). The
file is created on the first decision, so opening and quitting leaves nothing behind; `check_writable`
says at the start whether appends would fail, without creating or changing it. A kill can tear the last
line: that entry's append never returned, so the decision was never applied or shown. Reading skips it,
and the next append cuts it off, so the journal stays valid JSON Lines. A last line that is a whole entry
without its newline (another tool wrote the file) counts: the next append ends it first. An append that
fails (a full disk, a failed sync) is cut off at once: the reviewer was told it was not saved, so it must
not come back on the next start. Nothing else is ever rewritten.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Any

from evalkit.engine.text import not_a_regular_file
from evalkit.services.review.chain import chained_lines
from evalkit.services.review.journal import (
    JournalContents,
    JournalError,
    is_entry,
    parse_journal,
    read_journal,
)

__all__ = ["Journal", "JournalContents", "JournalError", "parse_journal"]


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[bytes] | None = None
        self._last: bytes | None = None  # the last line written, which the next entry links to

    def read(self) -> JournalContents:
        """Every entry in the file (an absent file is an empty journal)."""
        return read_journal(self.path)

    def check_writable(self) -> None:
        """Raise `JournalError` if an append would fail now; the file is neither created nor changed."""
        self._refuse_non_regular()
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND))  # no O_CREAT: an absent file stays so
        except FileNotFoundError:
            folder = self.path.parent
            if not os.access(folder, os.W_OK | os.X_OK):
                raise JournalError(
                    f"{self.path}: cannot create the journal: the folder {folder} is not writable"
                ) from None
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc.strerror or exc}") from None

    def _refuse_non_regular(self) -> None:
        """A named pipe would block on open, a device never end (`--decisions /dev/zero`)."""
        kind = not_a_regular_file(self.path)
        if kind is not None:
            raise JournalError(f"{self.path}: cannot use it as the journal: it is {kind}")

    def append(self, entries: list[dict[str, Any]]) -> None:
        """Write the entries as one block and force them to disk before returning."""
        try:
            handle = self._open()
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc.strerror or exc}") from None
        data, last = chained_lines(entries, self._last)
        start = handle.tell()
        try:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as exc:
            self._cut(start)
            raise JournalError(f"{self.path}: cannot write the journal: {exc.strerror or exc}") from None
        self._last = last

    def _open(self) -> IO[bytes]:
        if self._file is None:
            self._refuse_non_regular()
            handle = open(self.path, "a+b")  # noqa: SIM115 - kept open between appends, closed by close()
            self._last = None
            if handle.tell() > 0:
                _end_last_line(handle)
                self._last = _last_complete_line(handle.fileno(), handle.tell())
            self._file = handle
        return self._file

    def _cut(self, length: int) -> None:
        """Take back a failed append, whatever part of it reached the file; the next append reopens."""
        handle, self._file = self._file, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.close()  # may flush what the failed write left buffered: the cut below removes it
        with contextlib.suppress(OSError):  # else the next append's reopen still cuts a torn last line
            os.truncate(self.path, length)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _end_last_line(handle: IO[bytes]) -> None:
    """Make the next append start a line of its own. A last line without its newline is either an entry
    (a tool wrote the journal without a final newline: the reader shows it, so it is kept and ended) or
    torn (a kill cut the write short: it never counted, and is cut off)."""
    fd, end = handle.fileno(), handle.tell()
    if os.pread(fd, 1, end - 1) == b"\n":
        return
    start = _last_line_start(fd, end)
    if is_entry(os.pread(fd, end - start, start)):
        handle.write(b"\n")
        handle.flush()
    else:
        os.ftruncate(fd, start)
        handle.seek(0, os.SEEK_END)


def _last_complete_line(fd: int, end: int) -> bytes | None:
    """The last non-blank line before `end` (which follows a newline), the one a new entry links to (its
    hash chain: services/review/chain.py); None in a journal of blank lines. Read from the end, not
    whole."""
    while end > 0:
        start = _last_line_start(fd, end - 1)
        line = os.pread(fd, end - 1 - start, start)
        if line.strip():
            return line
        end = start
    return None


def _last_line_start(fd: int, end: int) -> int:
    """Just after the last newline before `end`, or 0: read backwards a block at a time, not whole."""
    position = end
    while position > 0:
        block = max(position - _BLOCK, 0)
        found = os.pread(fd, position - block, block).rfind(b"\n")
        if found >= 0:
            return block + found + 1
        position = block
    return 0


_BLOCK = 1 << 16
