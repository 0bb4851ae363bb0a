"""Reading submissions: a `.json` or `.yaml` file, a `.jsonl` of submissions, or a folder of them.

Every submission comes back as a `LoadedSubmission` with its `source` (the path, or `path:line` for
JSONL); one that cannot be read or is invalid carries an `error` instead, and reading goes on.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from evalkit.engine import limits
from evalkit.engine.positions import LineMap, split_lines
from evalkit.engine.submission import Submission, SubmissionError, parse_submission
from evalkit.engine.text import (
    NotText,
    capped_lines,
    check_not_other_encoding,
    decode_utf8,
    lone_surrogate,
    not_a_regular_file,
    read_capped,
    shown,
)
from evalkit.services.review.files import REVIEW_OUTPUTS

if TYPE_CHECKING:
    from io import BufferedIOBase

SUBMISSION_SUFFIXES = (".json", ".yaml", ".yml", ".jsonl")


class LoadedSubmission(NamedTuple):
    source: str
    submission: Submission | None = None
    data: Any = None
    error: str | None = None

    def error_entry(self) -> dict[str, Any]:
        return {"source": self.source, "error": {"message": self.error}}


TOOL_OUTPUTS = REVIEW_OUTPUTS
"""What `evalkit review` writes beside its inputs; a folder's listing skips them."""


if TYPE_CHECKING:
    _ConcretePath = Path
else:
    _ConcretePath = type(Path())


class NotRegular(_ConcretePath):
    """A folder's entry named as a submission that is not a regular file (a named pipe, a socket, a device):
    listed so that reading it names it and says why it is not read, where opening it could block (a pipe
    nothing writes to) or never end (a device). A pipe named as an INPUT is a stream, and is read."""


def _listed(path: Path) -> Path | None:
    """A folder's entry to read: a regular file named as a submission; a link so named that leads nowhere
    (dangling, or a loop), which the read then names as an error rather than the listing passing it over;
    or, marked NotRegular, anything else so named."""
    if path.suffix not in SUBMISSION_SUFFIXES or path.name.endswith(TOOL_OUTPUTS):
        return None
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path if path.is_symlink() else None
    if stat.S_ISREG(mode):
        return path
    return None if stat.S_ISDIR(mode) else NotRegular(path)


def _refuse_not_regular(path: Path) -> None:
    """Raise OSError for a folder's entry that is not a regular file (NotRegular), before it is opened."""
    kind = not_a_regular_file(path) if isinstance(path, NotRegular) else None
    if kind is not None:
        raise OSError(f"it is {kind}, not a regular file")


def expand_inputs(paths: Iterable[Path | str]) -> tuple[list[Path], list[str]]:
    """Files to read, in order (a folder's submission files sorted by name, without the review journals
    and exports kept beside them; a named pipe or device named as an INPUT, such as a shell's `<(...)`, is
    read as given, one in a folder is listed as NotRegular, for the read to say so), and the paths not
    found."""
    files: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(filter(None, map(_listed, path.iterdir()))))
        elif path.exists():
            files.append(path)
        else:
            missing.append(shown(str(raw)))
    return files, missing


def no_submissions(inputs: Iterable[str]) -> str:
    """What to say when the inputs hold no submission at all (empty files and folders): naming them."""
    names = (STDIN_SOURCE if name == STDIN else shown(name) for name in inputs)
    return f"no submissions found in {', '.join(names)}"


def _parsed(source: str, data: Any) -> LoadedSubmission:
    try:
        return LoadedSubmission(source, parse_submission(data), data)
    except SubmissionError as exc:
        return LoadedSubmission(source, None, data, f"invalid submission: {exc}")


def read_text(path: Path) -> str:
    """A submission file's text; raises OSError, or ValueError saying why evalkit does not read it."""
    _refuse_not_regular(path)
    return decode_utf8(read_capped(path, limits.MAX_SUBMISSION_BYTES))


def read_problem(exc: OSError | ValueError) -> str:
    """What to say of a file that read_text refused."""
    if isinstance(exc, NotText):
        return str(exc)  # line:col: the reason
    return f"cannot read the file: {getattr(exc, 'strerror', None) or exc}"


_fast_decode: Callable[[str], Any] | None = None
_documents = 0


def parse_json(text: str) -> Any:
    """`text`'s JSON value, as json.loads reads it. From the second document on, msgspec (C, about twice as
    fast) reads the common case: every document it accepts it reads to the same value (it refuses NaN,
    Infinity, numbers beyond float range, integers beyond 4,300 digits and lone surrogates, which json.loads
    reads, then refused here with json.loads' own messages). One file's run never imports it (10 ms)."""
    global _fast_decode, _documents
    if _fast_decode is None:
        _documents += 1
        if _documents > 1:
            from msgspec.json import decode as _fast_decode
    if _fast_decode is not None:
        try:
            return _fast_decode(text)
        except Exception:
            pass
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer of more digits than Python converts (4,300: int_max_str_digits)
        found = _LONG_NUMBER.search(text)
        at = found.start() if found else 0
        digits = f"{len(found.group()):,}" if found else "too many"
        raise json.JSONDecodeError(
            f"a number of {digits} digits; the limit is {_MAX_DIGITS:,}", text, at
        ) from None
    if _MAYBE_SURROGATE.search(text):
        _refuse_lone_surrogate(text)
    return data


_MAX_DIGITS = sys.get_int_max_str_digits()
_LONG_NUMBER = re.compile(rf"\d{{{_MAX_DIGITS + 1},}}")
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_JSON_ESCAPE = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
"""An escaped backslash, a surrogate pair (one character) or a lone surrogate, each as it is written."""


def _refuse_lone_surrogate(text: str) -> None:
    """Raise JSONDecodeError at a `\\ud800` escape not paired: a lone surrogate is no character, and no
    UTF-8 output can hold it. `text` is valid JSON, so every backslash starts an escape."""
    for found in _JSON_ESCAPE.finditer(text):
        if len(found.group()) == 6:
            character = chr(int(found.group()[2:], 16))
            raise json.JSONDecodeError(lone_surrogate(character), text, found.start())


def _load_yaml(text: str, source: str) -> Any:
    from evalkit.engine.yamlsource import parse_yaml

    document, diagnostics = parse_yaml(text, source)
    problems = [d for d in diagnostics if d.severity == 1]
    if document is None or problems:
        first = problems[0]
        raise ValueError(f"line {first.line}:{first.column}: {first.message}")
    return document.data


def json_reason(error: json.JSONDecodeError) -> str:
    """What `json` says is wrong, without the position its message ends on (`Invalid control character at`,
    `Unterminated string starting at`): the caller says where."""
    return error.msg.removesuffix(" at").removesuffix(" starting")


def error_without_line_end(text: str, error: json.JSONDecodeError) -> json.JSONDecodeError:
    """The error of `text` read without its line end, where `error` is at that end: a line that ends inside
    a string is an unterminated string, not a string holding a newline (json calls the newline an invalid
    control character). qydomain/records.py reads a scored row the same way."""
    body = text.rstrip("\r\n")
    if body == text or error.pos < len(body):
        return error
    try:
        json.loads(body)
    except json.JSONDecodeError as bare:
        return bare
    return error


def parse_text(text: str, source: str, suffix: str) -> LoadedSubmission:
    """One submission from its text (`suffix` says the format: .json, .yaml or .yml)."""
    if not text.strip():
        return LoadedSubmission(source, error="the input is empty: no submission in it")
    try:
        data = _load_yaml(text, source) if suffix in (".yaml", ".yml") else parse_json(text)
    except json.JSONDecodeError as exc:  # its line and column count "\n" only; an editor also counts "\r"
        body = text.rstrip("\r\n")
        one_line = len(split_lines(body)) <= 1  # a JSONL line ended early: at its end, not the next line's
        if one_line:
            exc = error_without_line_end(text, exc)
        line, column = LineMap(text).position(min(exc.pos, len(body)) if one_line else exc.pos)
        where = f"column {column}" if one_line else f"line {line}:{column}"
        return LoadedSubmission(source, error=f"invalid JSON at {where}: {json_reason(exc)}")
    except ValueError as exc:
        return LoadedSubmission(source, error=str(exc))
    return _parsed(source, data)


def jsonl_lines(path: Path) -> Iterator[tuple[str, str | None, str | None]]:
    """(`path:line`, text, None) for each non-blank line of a JSONL file, or (where, None, why) for a line
    or a file that cannot be read; reading goes on after a bad line. The file is streamed, so its size has
    no limit; a line has a submission's. Lines end at b"\\n" only (a "\\r" before it is JSON whitespace):
    `str.splitlines` would also cut at U+2028 or U+0085, which JSON allows raw in a string."""
    source = shown(str(path))
    try:
        _refuse_not_regular(path)
        handle = open(path, "rb")  # noqa: SIM115 - closed below, also when the caller stops early
    except OSError as exc:
        yield source, None, read_problem(exc)
        return
    with handle:
        try:
            check_not_other_encoding(handle.peek(4)[:4])
            for number, (_, raw) in enumerate(capped_lines(handle, limits.MAX_SUBMISSION_BYTES), start=1):
                if raw is None:
                    yield f"{source}:{number}", None, _TOO_LONG.format(limits.MAX_SUBMISSION_BYTES)
                    continue
                if number == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                if raw.strip():
                    yield (f"{source}:{number}", *_line_text(raw))
        except (OSError, NotText) as exc:
            yield source, None, read_problem(exc)


_TOO_LONG = "the line is longer than {:,} bytes"


def line_ranges(
    handle: BufferedIOBase, size: int, file_size: int | None = None
) -> Iterator[tuple[int, int, int]]:
    """(start, end, number of the first line) of ranges of `handle` of about `size` bytes of whole lines (a
    range ends after a newline, or at the end), read from where it is: a parent's share of `--jobs` work,
    whose workers read the ranges themselves. Given the `file_size`, a range is `guided_size` bytes: larger
    while much is left, smaller near the end. Reads into one buffer and counts newlines in C; raises
    OSError."""
    start = offset = handle.tell()
    first = 1
    newlines = 0  # between start and offset
    buffer = bytearray()
    while True:
        target = size if file_size is None else guided_size(size, file_size - start)
        want = target - (offset - start)
        if want < _MIN_READ:  # the range is as long as it should be, but for the end of its last line
            want = max(target, _MIN_READ)
        if len(buffer) < want:
            buffer = bytearray(want)
        read = handle.readinto(memoryview(buffer)[:want])
        if not read:
            break
        cut = buffer.rfind(b"\n", 0, read)
        if cut < 0 or offset + cut + 1 - start < target // 2:
            newlines += buffer.count(b"\n", 0, read)
            offset += read
            continue
        newlines += buffer.count(b"\n", 0, cut + 1)
        yield start, offset + cut + 1, first
        start, first = offset + cut + 1, first + newlines
        newlines = buffer.count(b"\n", cut + 1, read)
        offset += read
    if offset > start:
        yield start, offset, first


GROWN = 3
"""A range is at most this many times `size` (services/run/batch.py reads one of up to 4 times whole)."""
TAPER = 8
"""Near the end a range is this fraction of what is left: with 2 workers each takes a few more, smaller and
smaller, and both end within a range of the smallest size of each other."""
SMALLEST = 8
"""A range is at least `size` divided by this (a few dozen lines of a kilobyte: a millisecond of work)."""
_MIN_READ = 4096


def guided_size(size: int, left: int) -> int:
    """How long a range to cut (guided scheduling) with `left` bytes left of the file: up to GROWN times
    `size` while much is left (fewer ranges: less work a line for the parent and the workers), a TAPER'th
    of what is left near the end, at least `size` // SMALLEST."""
    return max(size // SMALLEST, min(GROWN * size, left // TAPER), 1)


def byte_ranges(handle: BinaryIO, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of ranges of about `size` bytes of whole lines of the open regular file `handle`, from
    where it is: each ends after the first newline at or past `size` bytes, found by seeking there, so
    next to nothing of the file is read (unlike line_ranges, the lines are not numbered). Raises OSError."""
    start = handle.tell()
    while True:
        handle.seek(start + size - 1)
        end = _after_newline(handle)
        if end <= start:
            return
        yield start, end
        start = end


def _after_newline(handle: BinaryIO) -> int:
    """Where the line at the position of `handle` ends: after its newline, or at the end of the file."""
    while block := handle.read(_SEEK_BLOCK):
        newline = block.find(b"\n")
        if newline != -1:
            return handle.tell() - len(block) + newline + 1
    return handle.seek(0, os.SEEK_END)  # (the position sought may lie beyond it)


_SEEK_BLOCK = 1 << 16


def range_lines(
    path: Path, source: str, start: int, end: int, first: int
) -> Iterator[tuple[str, str | None, str | None]]:
    """jsonl_lines' triples for the lines of `path` from byte `start` to `end` (line_ranges), `first` the
    number of the first: a worker's share of `eval --jobs`."""
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            offset = start
            for number, (consumed, raw) in enumerate(
                capped_lines(handle, limits.MAX_SUBMISSION_BYTES), first
            ):
                offset += consumed
                if raw is None:
                    yield f"{source}:{number}", None, _TOO_LONG.format(limits.MAX_SUBMISSION_BYTES)
                else:
                    if number == 1 and raw.startswith(codecs.BOM_UTF8):
                        raw = raw[len(codecs.BOM_UTF8) :]
                    if raw.strip():
                        yield (f"{source}:{number}", *_line_text(raw))
                if offset >= end:
                    return
    except OSError as exc:
        yield source, None, read_problem(exc)


def _line_text(raw: bytes) -> tuple[str | None, str | None]:
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        column = len(raw[: exc.start].decode("utf-8", "replace")) + 1
        return None, f"column {column}: the line is not UTF-8 text (byte 0x{raw[exc.start]:02x})"


def read_file(path: Path) -> Iterator[LoadedSubmission]:
    """Every submission in one file, each parsed or carrying its error."""
    source = shown(str(path))
    if path.suffix == ".jsonl":
        for where, line, problem in jsonl_lines(path):
            if line is None:
                yield LoadedSubmission(where, error=problem)
            else:
                yield parse_text(line, where, ".json")
        return
    try:
        text = read_text(path)
    except (OSError, ValueError) as exc:
        yield LoadedSubmission(source, error=read_problem(exc))
        return
    yield parse_text(text, source, path.suffix)


def read_inputs(paths: Iterable[Path | str]) -> Iterator[LoadedSubmission]:
    """Every submission under `paths`, in input order; a path that does not exist yields an error entry."""
    files, missing = expand_inputs(paths)
    for name in missing:
        yield LoadedSubmission(name, error="no such file or folder")
    for path in files:
        yield from read_file(path)


STDIN = "-"
"""The INPUT that names standard input."""
STDIN_SOURCE = "<stdin>"
"""Standard input's name in results and messages (`<stdin>:3` for its third line)."""


class StdinItem(NamedTuple):
    """jsonl_lines' triple for a piece of standard input, and the format its text is in."""

    source: str
    text: str | None
    problem: str | None
    suffix: str = ".json"


def stdin_items(stream: BinaryIO) -> Iterator[StdinItem]:
    """Standard input's submissions: JSON Lines, streamed a line at a time, or one document, read whole up
    to a submission's size: JSON (pretty-printed over several lines) when its first non-blank line begins
    a JSON value that has not ended (`{`), YAML when that line is a YAML key (`prompt: ...`), a comment or
    `---`, which no JSON line is. A line that is wrong rather than unfinished is JSON Lines' bad line, and
    the lines after it are read."""
    try:
        check_not_other_encoding(stream.peek(4)[:4] if hasattr(stream, "peek") else b"")
        lines = enumerate(capped_lines(stream, limits.MAX_SUBMISSION_BYTES), start=1)
        blank = b""  # kept for a document, so that its positions count the lines before it
        for number, (_, raw) in lines:
            if raw is None:
                yield StdinItem(
                    f"{STDIN_SOURCE}:{number}", None, _TOO_LONG.format(limits.MAX_SUBMISSION_BYTES)
                )
                continue
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            if not raw.strip():
                blank += raw if len(blank) <= limits.MAX_SUBMISSION_BYTES else b""
                continue
            suffix = ".yaml" if _YAML_START.match(raw) else ".json" if _unfinished(raw) else None
            if suffix is not None:
                yield _stdin_document(blank + raw, stream, suffix)
                return
            yield StdinItem(f"{STDIN_SOURCE}:{number}", *_line_text(raw))
            break
        for number, (_, raw) in lines:
            if raw is None:
                yield StdinItem(
                    f"{STDIN_SOURCE}:{number}", None, _TOO_LONG.format(limits.MAX_SUBMISSION_BYTES)
                )
            elif raw.strip():
                yield StdinItem(f"{STDIN_SOURCE}:{number}", *_line_text(raw))
    except (OSError, NotText) as exc:
        yield StdinItem(STDIN_SOURCE, None, read_problem(exc))


_YAML_START = re.compile(rb"\s*(?:#|---(?:\s|$)|[A-Za-z_][\w-]*[ \t]*:(?:\s|$))")
"""A first line that only YAML begins with: a comment, a document marker, or a plain key."""


def _unfinished(raw: bytes) -> bool:
    """Whether `raw`, a line, begins a JSON value that goes on past the line's end."""
    try:
        json.loads(raw)
    except json.JSONDecodeError as exc:
        return exc.pos >= len(exc.doc.rstrip())
    except ValueError:
        return False
    return False


def _stdin_document(first: bytes, stream: BinaryIO, suffix: str) -> StdinItem:
    """Standard input as one document in the format `suffix` says, from its first non-blank line on."""
    rest = stream.read(limits.MAX_SUBMISSION_BYTES - len(first) + 1)
    if len(first) + len(rest) > limits.MAX_SUBMISSION_BYTES:
        return StdinItem(
            STDIN_SOURCE, None, f"the input is larger than {limits.MAX_SUBMISSION_BYTES:,} bytes"
        )
    try:
        return StdinItem(STDIN_SOURCE, decode_utf8(first + rest), None, suffix)
    except NotText as exc:
        return StdinItem(STDIN_SOURCE, None, str(exc))
