"""Reading text files: UTF-8, with or without a byte order mark, or the reason why not and where."""

from __future__ import annotations

import codecs
import re

_OTHER_ENCODINGS = (  # UTF-32's little-endian mark begins with UTF-16's: it is looked for first
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)


class NotText(ValueError):
    """Bytes that are not UTF-8 text; `line` and `column` (1-based) say where."""

    def __init__(self, reason: str, line: int = 1, column: int = 1) -> None:
        super().__init__(f"line {line}:{column}: {reason}")
        self.reason, self.line, self.column = reason, line, column


def check_not_other_encoding(head: bytes) -> None:
    """Raises NotText when a file's first bytes are another encoding's byte order mark."""
    for mark, encoding in _OTHER_ENCODINGS:
        if head.startswith(mark):
            raise NotText(f"the file is {encoding} text; save it as UTF-8")


def decode_utf8(raw: bytes) -> str:
    """The text of `raw`, a leading UTF-8 byte order mark dropped; raises NotText."""
    check_not_other_encoding(raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start:exc.start].decode("utf-8", "replace")) + 1
        raise NotText(f"the file is not UTF-8 text (byte {exc.start}: 0x{raw[exc.start]:02x})",
                      raw.count(b"\n", 0, exc.start) + 1, column) from None


def lone_surrogate(character: str) -> str:
    """What to say of a lone surrogate written as an escape."""
    return (f"\\u{ord(character):04x} is a lone surrogate (half of a UTF-16 pair), not a character: "
            "no UTF-8 output can hold it")


SURROGATES = re.compile("[\ud800-\udfff]")


def shown(name: str) -> str:
    """A file name as every output shows it: valid UTF-8, whatever bytes it holds. A byte that is not
    UTF-8 (which Python keeps as a surrogate, U+DC80 to U+DCFF) becomes `\\xNN`, as `ls -b` shows it."""
    if name.isascii() or not SURROGATES.search(name):
        return name
    return SURROGATES.sub(_escaped, name)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
