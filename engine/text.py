"""Reading text files: UTF-8, with or without a byte order mark, or the reason why not and where; and
reading bytes with a cap, so that a device that never ends (`/dev/zero`) or a line longer than the cap
costs the cap and no more."""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from evalkit.engine.positions import LineMap

_OTHER_ENCODINGS = (  # UTF-32's little-endian mark begins with UTF-16's: it is looked for first
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class NotText(ValueError):
    """Bytes that are not UTF-8 text; `line` and `column` (1-based) say where."""

    def __init__(self, reason: str, line: int = 1, column: int = 1) -> None:
        super().__init__(f"line {line}:{column}: {reason}")
        self.reason, self.line, self.column = reason, line, column


PARQUET_MAGIC = b"PAR1"
NOT_TEXT_PARQUET = "the file is Parquet, not text: eval and score read Parquet with --ray (Ray Data)"


def check_not_other_encoding(head: bytes) -> None:
    """Raises NotText when a file's first bytes are another encoding's byte order mark, or Parquet's."""
    for mark, encoding in _OTHER_ENCODINGS:
        if head.startswith(mark):
            raise NotText(f"the file is {encoding} text; save it as UTF-8")
    if head.startswith(PARQUET_MAGIC):
        raise NotText(NOT_TEXT_PARQUET)


def decode_utf8(raw: bytes) -> str:
    """The text of `raw`, a leading UTF-8 byte order mark dropped; raises NotText."""
    check_not_other_encoding(raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8-sig", "replace")
        raise NotText(
            f"the file is not UTF-8 text (byte {exc.start}: 0x{raw[exc.start]:02x})",
            *LineMap(before).position(len(before)),
        ) from None


class TooLarge(ValueError):
    """More bytes than the cap: a file, or one line of a file."""


def read_capped(path: Path | str, limit: int) -> bytes:
    """The bytes of a file (or a pipe, or a device) of at most `limit` bytes; raises OSError, or TooLarge
    once `limit` is passed: the size on disk is not trusted (a device says 0)."""
    with open(path, "rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise TooLarge(f"the file is larger than {limit:,} bytes")
    return raw


def capped_lines(handle: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(bytes consumed, line) for each line of `handle`, ending at b"\\n" (kept); None for a line longer
    than `limit` bytes, whose rest is skipped a chunk at a time rather than held. A pipe or a device may
    never end (`/dev/zero` has no newline): reading stops at its first line that is too long."""
    regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    while raw := handle.readline(limit + 1):
        if len(raw) <= limit:
            yield len(raw), raw
            continue
        consumed = len(raw)
        while regular and not raw.endswith(b"\n") and (raw := handle.readline(1 << 20)):
            consumed += len(raw)
        yield consumed, None
        if not regular:
            return


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_regular_file(path: Path | str) -> str | None:
    """What `path` is when it is not a regular file (a named pipe would block on open, a device never
    end), or None for a regular file or one that cannot be looked at (opening it says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def lone_surrogate(character: str) -> str:
    """What to say of a lone surrogate written as an escape."""
    return (
        f"\\u{ord(character):04x} is a lone surrogate (half of a UTF-16 pair), not a character: "
        "no UTF-8 output can hold it"
    )


SURROGATES = re.compile("[\ud800-\udfff]")


def counted(count: int, word: str) -> str:
    """`1 result`, `2 results`: how every summary line counts things."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def shown(name: str) -> str:
    """A file name as every output shows it: valid UTF-8, whatever bytes it holds. A byte that is not
    UTF-8 (which Python keeps as a surrogate, U+DC80 to U+DCFF) becomes `\\xNN`, as `ls -b` shows it."""
    if name.isascii() or not SURROGATES.search(name):
        return name
    return SURROGATES.sub(_escaped, name)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
