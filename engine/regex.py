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

    The pattern is compiled from its UTF-8 bytes, so that google-re2 searches the bytes as they are: given a
    `str`, its `search` re-encodes the text and maps every offset back to characters on each call, which
    costs more than the match itself. Rules need only "is there a match" and the matched text."""

    __slots__ = ("_regex",)

    def __init__(self, regex: Any) -> None:
        self._regex = regex

    def found(self, data: bytes) -> bool:
        return self.search(data) is not None

    def first(self, data: bytes) -> str | None:
        """The text of the first match, or None."""
        return self.text_of(self.search(data))

    def search(self, data: bytes) -> Any:
        """The first match (google-re2's match object), or None."""
        return self._regex.search(data)

    @staticmethod
    def text_of(match: Any) -> str | None:
        """The text of a match `search` returned, or None for no match."""
        return None if match is None else bytes(match.group()).decode("utf-8", "replace")


def _options() -> Any:
    """RE2's options for rules' patterns: errors raised, not logged; programs within the limit."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = limits.MAX_REGEX_PROGRAM * 80
    return options


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Pattern:
    """Compiled once per distinct pattern (checking and compiling a config share the work)."""
    import re2

    options = _options()
    try:
        return Pattern(re2.compile(pattern.encode("utf-8", "surrogatepass"), options))
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None
