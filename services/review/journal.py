"""Reading a review journal (`evalkit review`'s decisions, JSON Lines) without the TUI: `evalkit stats`,
`evalkit check --journals` and the language server read journals through here, the TUI's writer too.

A line that is not JSON is a problem ("line N: why") and reading goes on; a last line cut short (the app
was killed while writing it) is `torn`, not a problem: that decision never counted. `journal_lines` reads a
line at a time (stats and `check --journals` replay a journal of any size in bounded memory); a line longer
than MAX_LINE_BYTES (a 3 GB sparse file is one line of NUL bytes) is a problem, never held whole.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from evalkit.engine.limits import MAX_SUBMISSION_BYTES
from evalkit.engine.text import capped_lines, not_a_regular_file

MAX_LINE_BYTES = MAX_SUBMISSION_BYTES
"""A journal line holds one decision (an edited rewrite at most): one longer is no entry."""


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


class JournalLine(NamedTuple):
    """One non-blank line of a journal: its entry, or why it is none (`problem`, at `column`), or `torn`: the
    last line, without its newline, that is not JSON (the app was killed while writing it)."""

    number: int
    entry: Any = None
    problem: str | None = None
    column: int = 1
    torn: bool = False


def journal_lines(path: Path) -> Iterator[JournalLine]:
    """The journal's lines, read one at a time (a journal of any length in constant memory; a line longer
    than MAX_LINE_BYTES is a problem, skipped a chunk at a time, never held); an absent file has none.
    Raises JournalError, before the first line, for a file that cannot be read."""
    kind = not_a_regular_file(path)  # a named pipe would block on open, a device never end
    if kind is not None:
        raise JournalError(f"{path}: cannot use it as the journal: it is {kind}")
    try:
        handle = open(path, "rb")  # noqa: SIM115  (closed by the generator below)
    except FileNotFoundError:
        return iter(())
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None
    return _lines(handle, path)


def _lines(handle: BinaryIO, path: Path) -> Iterator[JournalLine]:
    with handle:
        try:
            yield from parsed_lines(line for _, line in capped_lines(handle, MAX_LINE_BYTES))
        except OSError as exc:
            raise JournalError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None


def parsed_lines(lines: Iterable[bytes | None]) -> Iterator[JournalLine]:
    """Each non-blank line of a journal's lines (each with its b"\\n", the last maybe without; None for one
    too long to hold), parsed."""
    for number, line in enumerate(lines, start=1):
        if line is None:
            yield JournalLine(number, problem=f"the line is longer than {MAX_LINE_BYTES:,} bytes")
            continue
        if not line.strip():
            continue
        try:
            yield JournalLine(number, json.loads(line))
        except (ValueError, RecursionError) as exc:
            if not line.endswith(b"\n"):  # no newline after it: the write was cut short
                yield JournalLine(number, torn=True)
            else:
                column, why = _where_and_why(exc)
                yield JournalLine(number, problem=f"not a JSON entry ({why})", column=column)


def read_journal(path: Path) -> JournalContents:
    """Every entry in the file (an absent file is an empty journal); raises JournalError."""
    return _contents(journal_lines(path))


def parse_journal(raw: bytes) -> JournalContents:
    return _contents(parsed_lines(io.BytesIO(raw)))  # lines end at b"\n" only, as in the file


def _contents(lines: Iterable[JournalLine]) -> JournalContents:
    contents = JournalContents()
    for line in lines:
        if line.torn:
            contents.torn = True
        elif line.problem is not None:
            contents.problems.append(f"line {line.number}: {line.problem}")
            contents.problem_lines.append(line.number)
            contents.problem_columns.append(line.column)
        else:
            contents.entries.append(line.entry)
            contents.lines.append(line.number)
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
