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
    costs more than the match itself. Rules need only "is there a match" and the matched text.

    Even on bytes, google-re2's `search` is Python (a generator and a match object around one call of its
    compiled RE2's `Match`), which costs more than searching a rewrite: where the binding has that object
    (`_regexp`, with `Match(anchor, text, pos, endpos)` returning the spans), it is called directly; else,
    through `search` (tests/engine/test_regex.py holds the two together)."""

    __slots__ = ("_match", "_regex", "_unanchored")

    def __init__(self, regex: Any, direct: bool = True) -> None:
        """`regex`: google-re2's compiled pattern; `direct` false: searched through its `search` alone."""
        self._regex = regex
        self._match: Any = None
        self._unanchored: Any = None
        binding: Any = getattr(regex, "_regexp", None)
        anchor = getattr(getattr(type(binding), "Anchor", None), "UNANCHORED", None)
        if direct and anchor is not None and callable(getattr(binding, "Match", None)):
            self._match, self._unanchored = binding.Match, anchor

    def found(self, data: bytes) -> bool:
        match = self._match
        if match is None:
            return self._regex.search(data) is not None
        start: int = match(self._unanchored, data, 0, len(data))[0][0]
        return start >= 0

    def first(self, data: bytes) -> str | None:
        """The text of the first match, or None."""
        match = self._match
        if match is None:
            found = self._regex.search(data)
            return None if found is None else bytes(found.group()).decode("utf-8", "replace")
        start: int
        end: int
        start, end = match(self._unanchored, data, 0, len(data))[0]
        return None if start < 0 else data[start:end].decode("utf-8", "replace")


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Pattern:
    """Compiled once per distinct pattern (checking and compiling a config share the work)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = limits.MAX_REGEX_PROGRAM * 80
    try:
        return Pattern(re2.compile(pattern.encode("utf-8", "surrogatepass"), options))
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None
