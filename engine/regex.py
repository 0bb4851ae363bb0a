"""Linear-time regular expressions for rules: RE2, compiled once at load.

RE2 differs from Python's `re`: `\\w`, `\\d`, `\\s` are ASCII-only, `$` without `(?m)` matches only at the
very end, and lookaround and backreferences are refused (a config error at the pattern's position).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evalkit.engine import limits


class PatternError(ValueError):
    """RE2 cannot compile the pattern; the message is RE2's reason."""


class Pattern:
    """A compiled RE2 pattern searched on UTF-8 bytes (the text is encoded once per submission).

    google-re2's `search(str)` re-encodes the text and maps offsets back to characters in Python on every
    call, which costs more than the match itself; rules need only "is there a match" and the matched text,
    so they search bytes through the extension's `Match` when it is there, else through the public API."""

    __slots__ = ("_match", "_regex")

    def __init__(self, regex: Any) -> None:
        import re2

        self._regex = regex
        native = getattr(regex, "_regexp", None)
        anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
        if native is not None and anchor is not None:
            match = native.Match
            self._match = lambda data: match(anchor, data, 0, len(data))[0]
        else:  # pragma: no cover - another google-re2 layout
            self._match = self._public_match

    def _public_match(self, data: bytes) -> tuple[int, int]:
        found = self._regex.search(data.decode("utf-8"))
        if found is None:
            return (-1, -1)
        start, end = found.span()
        text = data.decode("utf-8")
        return len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8"))

    def found(self, data: bytes) -> bool:
        return self._match(data)[0] >= 0

    def first(self, data: bytes) -> str | None:
        """The text of the first match, or None."""
        start, end = self._match(data)
        return None if start < 0 else data[start:end].decode("utf-8", "replace")


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Pattern:
    """Compiled once per distinct pattern (checking and compiling a config share the work)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = limits.MAX_REGEX_PROGRAM * 80
    try:
        return Pattern(re2.compile(pattern, options))
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None
