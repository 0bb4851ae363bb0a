"""The review journal's hash chain: each entry written since the chain began holds, under `prev`, the
SHA-256 of the line before it (`null` on the journal's first line), so an edited, removed, inserted or
reordered decision breaks the link of the line after it. Journals written before the chain have no `prev`:
they load as before and are reported unchained; a journal continued after the chain began is chained from
its first entry with a link.

Removing lines from the end breaks no link: a signed checkpoint (`evalkit review --sign KEY`) records the
journal's digest, its line count and its last line's digest when the session ends.

Pure functions over bytes, kept apart from the writer (`tui/journal.py`) and the reader (`journal.py`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

LINK = "prev"


def line_digest(line: bytes) -> str:
    return "sha256:" + hashlib.sha256(line).hexdigest()


def chained_lines(entries: Iterable[dict[str, Any]], previous: bytes | None) -> tuple[bytes, bytes | None]:
    """The entries as JSON Lines, each linked to the line before it (`previous`: the file's last line, or
    None for an empty journal); also the last line written (without its newline), to link the next."""
    block = bytearray()
    for entry in entries:
        linked = {**entry, LINK: None if previous is None else line_digest(previous)}
        line = json.dumps(linked, ensure_ascii=False).encode("utf-8")
        block += line + b"\n"
        previous = line
    return bytes(block), previous


def last_line(raw: bytes) -> bytes | None:
    """The last complete, non-blank line of a journal's bytes (what a new entry links to), or None."""
    complete = raw[: raw.rfind(b"\n") + 1]
    for line in reversed(complete.split(b"\n")):
        if line.strip():
            return line
    return None


@dataclass
class ChainReport:
    lines: int  # non-blank lines read
    chained_from: int | None  # the first line with a link; None: an unchained journal
    broken_line: int | None  # the first line whose link does not hold
    reason: str  # why it is broken, or what holds
    last_digest: str | None  # the last line's digest, to compare with a signed checkpoint

    @property
    def ok(self) -> bool:
        return self.broken_line is None


def check_chain(raw: bytes) -> ChainReport:
    previous: tuple[int, bytes] | None = None
    chained_from: int | None = None
    count = 0
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        count += 1
        broken = _broken_link(line, number, previous, chained_from is not None)
        if broken is not None:
            return ChainReport(count, chained_from, number, broken, None)
        if chained_from is None and _link_of(line) is not _ABSENT:
            chained_from = number
        previous = (number, line)
    last = None if previous is None else line_digest(previous[1])
    reason = _holding(count, chained_from)
    return ChainReport(count, chained_from, None, reason, last)


_ABSENT = object()


def _link_of(line: bytes) -> Any:
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return _ABSENT
    return entry.get(LINK, _ABSENT) if isinstance(entry, dict) else _ABSENT


def _broken_link(line: bytes, number: int, previous: tuple[int, bytes] | None, chained: bool) -> str | None:
    """Why line `number` breaks the chain, or None when it holds (or the chain has not begun)."""
    link = _link_of(line)
    if link is _ABSENT:
        return f"line {number} has no link to the line before it (inserted or edited)" if chained else None
    expected = None if previous is None else line_digest(previous[1])
    if link == expected:
        return None
    if previous is None:
        return f"line {number} links to a line before it, but it is the first: lines were removed"
    return (
        f"line {number}'s link does not match line {previous[0]}: line {previous[0]} was edited, "
        "or lines before it were removed, inserted or reordered"
    )


def _holding(count: int, chained_from: int | None) -> str:
    if count == 0:
        return "an empty journal"
    if chained_from is None:
        return f"{count} lines, unchained (written before the journal's hash chain)"
    if chained_from == 1:
        return f"{count} lines, every link holds"
    return (
        f"{count} lines, chained from line {chained_from} (lines before it are unchained); every link holds"
    )
