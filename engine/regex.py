"""Linear-time regular expressions for rules: RE2, compiled once at load.

RE2 differs from Python's `re`: `\\w`, `\\d`, `\\s` are ASCII-only, `$` without `(?m)` matches only at the
very end, and lookaround and backreferences are refused (a config error at the pattern's position).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from evalkit.engine import limits


class PatternError(ValueError):
    """RE2 cannot compile the pattern; the message is RE2's reason."""


class Pattern:
    """A compiled RE2 pattern searched on UTF-8 bytes (the text is encoded once per submission).

    The pattern is compiled from its UTF-8 bytes, so that google-re2 searches the bytes as they are: given a
    `str`, its `search` re-encodes the text and maps every offset back to characters on each call, which
    costs more than the match itself. Rules need only "is there a match" and the matched text.

    `required`: text every match holds (`required_text`), if the pattern says so plainly: a text without
    it has no match, which `bytes in` finds out without going through google-re2's `search` (a call of
    about 11,000 instructions on a JSONL line's rewrite, against a few hundred)."""

    __slots__ = ("_regex", "_required")

    def __init__(self, regex: Any, required: bytes = b"") -> None:
        self._regex = regex
        self._required = required

    def found(self, data: bytes) -> bool:
        return self.search(data) is not None

    def first(self, data: bytes) -> str | None:
        """The text of the first match, or None."""
        return self.text_of(self.search(data))

    def search(self, data: bytes) -> Any:
        """The first match (google-re2's match object), or None."""
        if self._required not in data:
            return None
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
        return Pattern(re2.compile(pattern.encode("utf-8", "surrogatepass"), options), required_text(pattern))
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None


_SPECIAL: Final = frozenset("\\^$.|?*+()[]{}")
"""Characters that are not themselves outside a class (`]` and `}` are, alone, but are left out too)."""
_REPEATS: Final = frozenset("*+?{")
_CLASS_ESCAPES: Final = frozenset("dDsSwWbBAz")
"""Escapes of a class or a position, one letter long: not literal text, but nothing to read past."""
_PUNCTUATION: Final = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def required_text(pattern: str) -> bytes:
    """UTF-8 text that every match of `pattern` holds, found by reading the pattern plainly: the longest run
    of literal characters outside any group or class, where the pattern is a sequence (no `|` outside a
    group). b"" (held by every text) where that reading does not apply: flags (`(?`), `\\Q`, POSIX classes,
    escapes other than punctuation and one-letter classes, anything unbalanced. Only an answer that
    holds is given; a shorter one than RE2 could find is fine (tests/engine/test_regex.py, against RE2)."""
    if "(?" in pattern or "\\Q" in pattern or "[:" in pattern:
        return b""
    best = run = ""
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        if char == "\\":
            if index + 1 >= end:
                return b""
            escaped = pattern[index + 1]
            index += 2
            if escaped in _PUNCTUATION:
                run += escaped
            elif escaped in _CLASS_ESCAPES:
                best, run = _longer(best, run), ""
            else:
                return b""
            continue
        if char in _REPEATS:  # the repeated character may be absent: the run ends before it
            best, run = _longer(best, run[:-1]), ""
            if char == "{":
                close = pattern.find("}", index)
                if close < 0:
                    return b""
                index = close + 1
            else:
                index += 1
            continue
        if char == "|":
            return b""
        if char == "(":
            index = _past_group(pattern, index)
        elif char == "[":
            index = _past_class(pattern, index)
        elif char not in _SPECIAL:
            run += char
            index += 1
            continue
        else:  # . ^ $ ) ] }
            index += 1
        if index < 0:
            return b""
        best, run = _longer(best, run), ""
    return _longer(best, run).encode("utf-8", "surrogatepass")


def _longer(best: str, run: str) -> str:
    """The longer in UTF-8 bytes (a letter beyond ASCII counts its bytes), `best` where they tie."""
    longer = len(run.encode("utf-8", "surrogatepass")) > len(best.encode("utf-8", "surrogatepass"))
    return run if longer else best


def _past_class(pattern: str, index: int) -> int:
    """The index just past the class that opens at `index` (`[`), or -1."""
    index += 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):  # a `]` first is a member
        index += 1
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "]":
            return index + 1
        index += 1
    return -1


def _past_group(pattern: str, index: int) -> int:
    """The index just past the group that opens at `index` (`(`), or -1."""
    depth = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _past_class(pattern, index)
            if index < 0:
                return -1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return -1
