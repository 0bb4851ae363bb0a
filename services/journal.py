"""Reading a review journal (`evalkit review`'s decisions, JSON Lines) without the TUI: `evalkit stats`,
`evalkit check --journals` and the language server read journals through here, the TUI's writer too.

A line that is not JSON is a problem ("line N: why") and reading goes on; a last line cut short (the app
was killed while writing it) is `torn`, not a problem: that decision never counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.engine.text import not_a_regular_file


class JournalError(Exception):
    """The journal cannot be read or written; the message names the file and the reason."""


@dataclass
class JournalContents:
    entries: list[Any] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the line of each entry (1-based), for messages
    problems: list[str] = field(default_factory=list)  # "line N: why", for lines that are not JSON
    problem_lines: list[int] = field(default_factory=list)  # N of each problem
    problem_columns: list[int] = field(default_factory=list)  # where in its line JSON stopped (1-based)
    torn: bool = False  # the last line was cut short (the app was killed while writing it)


def read_journal(path: Path) -> JournalContents:
    """Every entry in the file (an absent file is an empty journal); raises JournalError."""
    kind = not_a_regular_file(path)  # a named pipe would block on open, a device never end
    if kind is not None:
        raise JournalError(f"{path}: cannot use it as the journal: it is {kind}")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JournalContents()
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None
    return parse_journal(raw)


def parse_journal(raw: bytes) -> JournalContents:
    contents = JournalContents()
    lines = raw.split(b"\n")
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            contents.entries.append(json.loads(line))
            contents.lines.append(number)
        except (ValueError, RecursionError) as exc:
            if number == last:  # no newline after it: the write was cut short
                contents.torn = True
            else:
                column, why = _where_and_why(exc)
                contents.problems.append(f"line {number}: not a JSON entry ({why})")
                contents.problem_lines.append(number)
                contents.problem_columns.append(column)
    return contents


def is_entry(line: bytes) -> bool:
    """Whether a line reads as an entry, as `parse_journal` reads it (the writer keeps such a last line)."""
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _where_and_why(exc: ValueError | RecursionError) -> tuple[int, str]:
    """The column where a line stopped being JSON (1 when the error has none) and why."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.colno, exc.msg
    if isinstance(exc, UnicodeDecodeError):
        before = exc.object[: exc.start].decode("utf-8", "replace")
        return len(before) + 1, f"byte 0x{exc.object[exc.start]:02x} is not UTF-8"
    return 1, str(exc)
