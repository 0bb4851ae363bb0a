"""The base protocol's frames: `Content-Length` headers, a blank line, a body; read from a byte stream
that a careless or hostile client may break.

A frame that cannot be read never makes the server deaf: the reader says what it skipped and starts
again at the next `Content-Length` header. Header names are matched without regard to case and header
lines may end with LF alone (both are common mistakes of hand-written clients). A body is cut short
where the next header begins when the declared length ran past it: such a header line (digits, then a
raw line break) cannot occur inside JSON, whose strings hold no raw line breaks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BODY_BYTES = 64 * 1024 * 1024
"""A larger body is skipped: a 5 MB document is an editor's; 64 MB of JSON is nobody's."""
MAX_HEADER_BYTES = 8 * 1024
"""Header lines without their blank line beyond this are junk, skipped up to the next header."""

_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_NEXT_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*[^\r\n]*\r?\n", re.IGNORECASE)
_LONGEST_HEADER_LINE = 64
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_LENGTH = re.compile(rb"[0-9]{1,19}")


@dataclass(frozen=True, slots=True)
class Body:
    """A frame's body, as sent (not yet decoded)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Skipped:
    """Bytes that were not a readable frame, and why; the body they held, if any, cannot be answered."""

    reason: str
    size: int


Frame = Body | Skipped


class FrameReader:
    """Splits the bytes fed to it into frames, resynchronising on the next header after a bad one."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._length: int | None = None  # the body awaited, once its headers are read
        self._searched = 0  # how far the awaited body was searched for a next header

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        while True:
            frame = self._body() if self._length is not None else self._headers()
            if frame is None:
                return frames
            frames.append(frame)

    def _headers(self) -> Frame | None:
        end = _HEADER_END.search(self._buffer)
        if end is None:
            if len(self._buffer) > MAX_HEADER_BYTES or self._junk_before_header():
                return self._skip_to_next_header("header lines without a blank line after them")
            return None
        block = bytes(self._buffer[: end.start()])
        header = _HEADER_START.search(block)
        if header is not None and header.start() > 0 and block[header.start() - 1 : header.start()] != b"\n":
            del self._buffer[: header.start()]  # bytes glued to the front of a header: not a header line
            return Skipped("bytes before a header, on its line", header.start())
        fields, problem = _fields(block)
        if problem is not None:
            return self._skip_to_next_header(problem)
        length, problem = _content_length(fields)
        if problem is not None:
            del self._buffer[: end.end()]
            return self._skip_to_next_header(problem, already=end.end())
        del self._buffer[: end.end()]
        self._length = length
        return None if not self._buffer and length else self._body()

    def _junk_before_header(self) -> bool:
        """Bytes that cannot start a header block (the rest of a body sent too long) are there already."""
        line_end = self._buffer.find(b"\n")
        first = bytes(self._buffer if line_end < 0 else self._buffer[:line_end])
        name = first.split(b":", 1)[0]
        return (b":" in first or line_end >= 0) and _TOKEN.fullmatch(name) is None

    def _body(self) -> Frame | None:
        assert self._length is not None
        start = max(0, self._searched - _LONGEST_HEADER_LINE)
        cut = _NEXT_HEADER.search(self._buffer, start, self._length + _LONGEST_HEADER_LINE)
        self._searched = len(self._buffer)
        if cut is not None and cut.start() < self._length:
            return self._take(cut.start())  # the declared length ran into the next frame
        if len(self._buffer) < self._length:
            return None
        return self._take(self._length)

    def _take(self, size: int) -> Body:
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        self._length, self._searched = None, 0
        return Body(data)

    def _skip_to_next_header(self, reason: str, already: int = 0) -> Frame | None:
        """Drop bytes up to the next header; `already` bytes of a bad header block are gone (then a
        header at the very start is the next frame's, not this one's)."""
        found = _HEADER_START.search(self._buffer, 0 if already else 1)
        size = found.start() if found is not None else _keep_partial_header(self._buffer)
        del self._buffer[:size]
        return Skipped(reason, already + size) if already + size else None


def _keep_partial_header(buffer: bytearray) -> int:
    """How much of the buffer to drop when no header starts in it: all but a tail that may be the first
    bytes of one."""
    keep = len(b"content-length")
    return max(0, len(buffer) - keep)


def _fields(block: bytes) -> tuple[dict[bytes, bytes], str | None]:
    fields: dict[bytes, bytes] = {}
    for line in block.split(b"\n"):
        name, colon, value = line.rstrip(b"\r").partition(b":")
        if not colon or _TOKEN.fullmatch(name) is None:
            shown = line[:40].decode("ascii", "backslashreplace")
            return fields, f"a header line that is not `Name: value`: {shown!r}"
        fields[name.lower()] = value.strip()
    return fields, None


def _content_length(fields: dict[bytes, bytes]) -> tuple[int, str | None]:
    value = fields.get(b"content-length")
    if value is None:
        return 0, "headers without a Content-Length"
    if _LENGTH.fullmatch(value) is None:
        shown = value[:40].decode("ascii", "backslashreplace")
        return 0, f"a Content-Length that is not a non-negative number: {shown!r}"
    length = int(value)
    if length > MAX_BODY_BYTES:
        return 0, f"a Content-Length of {length:,} bytes; the limit is {MAX_BODY_BYTES:,}"
    return length, None
