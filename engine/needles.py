"""Case-insensitive substring search for rules: which of a rule set's needles occur in a submission's text,
each lower-cased, in one pass over the text however many needles there are.

A condition holds when `needle.lower() in text.lower()`. Lower-casing a long non-ASCII text costs more than
everything else an evaluation does (100,000 characters of Spanish: 0.2 ms), and testing each needle with
`in` is a pass per needle. So the text is never lower-cased for an ASCII needle. Instead each part becomes
bytes in which an ASCII needle occurs exactly where it occurs in the part's lower case (`ascii_folded`), and
one Aho-Corasick automaton (ahocorasick-rs, the Rust `aho-corasick` crate's binding) finds every ASCII
needle in one pass. Only a needle that is not ASCII once lower-cased needs the lower-cased text, and only
when the text is not ASCII itself (the lower case of ASCII text is ASCII and cannot hold it).
"""

from __future__ import annotations

from collections.abc import Container
from functools import lru_cache
from typing import Any, Final


def lower(text: Any) -> str:
    """`text.lower()` as CPython does it. Compiled by mypyc for Python < 3.13, `str.lower` on a value typed
    `str` lowers one character at a time and so misses the final sigma ('ΑΣ' -> 'ας'); through `Any` it is
    the ordinary method call."""
    return text.lower()


FOLDS_TO_ASCII: Final = ("\u0130", "\u212a")
"""The only characters outside ASCII whose lower case holds an ASCII letter: 'İ' -> 'i̇' and the Kelvin
sign 'K' -> 'k' (the test suite checks every code point)."""

WINDOW: Final = 4096
"""Bytes searched at a time. A search reports every match, and a report costs more than scanning a window
without one: a needle found in one window is left out of the search of the next, so a needle on every line
is reported a window's worth of times, not the whole text's."""


def ascii_folded(text: str) -> bytes:
    """Bytes in which an ASCII needle, lower-cased, occurs exactly where it occurs in `text.lower()`: ASCII
    letters lower-cased, every other character one or more bytes of 0x80 or above, as its lower case holds
    no ASCII (but for FOLDS_TO_ASCII, lower-cased first where they occur)."""
    if text.isascii():
        return text.encode("ascii").lower()
    try:
        return text.encode("latin-1").lower()  # a byte a character, copied; Latin-1 has no FOLDS_TO_ASCII
    except UnicodeEncodeError:
        pass
    if FOLDS_TO_ASCII[0] in text or FOLDS_TO_ASCII[1] in text:
        text = lower(text)
    return text.encode("utf-8", "surrogatepass").lower()


@lru_cache(maxsize=1024)
def _automaton(needles: tuple[str, ...]) -> Any:
    """Compiled once for each set of ASCII needles searched together."""
    from ahocorasick_rs import BytesAhoCorasick, MatchKind

    return BytesAhoCorasick([needle.encode("ascii") for needle in needles], MatchKind.LeftmostFirst)


def found_ascii(data: bytes, needles: tuple[str, ...]) -> set[str]:
    """The ASCII needles (lower case) that occur in `data` (`ascii_folded` bytes).

    The search reports matches that do not overlap (faster than reporting every one), so a needle may hide
    behind another's match: a window with matches is searched again for the needles not yet found, until
    a search reports none, which says that none of them is there."""
    found: set[str] = set()
    overlap = max([len(needle) for needle in needles]) - 1
    view = memoryview(data)
    for start in range(0, len(data), WINDOW):
        window = view[start : start + WINDOW + overlap]
        hits = _automaton(needles).find_matches_as_indexes(window)
        while hits:
            found.update([needles[hit[0]] for hit in hits])
            needles = tuple([needle for needle in needles if needle not in found])
            if not needles:
                return found
            hits = _automaton(needles).find_matches_as_indexes(window)
    return found


class Needles:
    """Lower-cased needles compiled for searching: those ASCII apart from the rest."""

    __slots__ = ("all", "ascii", "lowered", "other")

    def __init__(self, lowered: list[str]) -> None:
        self.lowered = lowered
        unique = list(dict.fromkeys(lowered))
        self.all = frozenset(unique)
        # "" is in every text, and no automaton takes it
        self.ascii = tuple([needle for needle in unique if needle.isascii() and needle])
        self.other = tuple([needle for needle in unique if not needle.isascii()])

    @classmethod
    def of(cls, needles: list[str]) -> Needles:
        """A rule's needles as written; `lowered[i]` is `needles[i]` lower-cased."""
        return cls([lower(needle) for needle in needles])


_NOTHING: Final[set[str]] = set()
"""Where nothing was searched yet: one empty set shared, never added to, so that a short text (most of
them) makes none of its own."""


class TextPart:
    """One part of a text (a response, the rewrite), folded and lower-cased when first needed. The rewrite
    is a part of two texts (the responses and rewrite, and the rewrite alone): what one search found in it
    is kept for the other."""

    __slots__ = ("_folded", "_found", "_lowered", "_searched", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded: bytes | None = None
        self._lowered: str | None = None
        self._searched: set[str] = _NOTHING
        self._found: set[str] = _NOTHING

    def found_ascii(self, needles: tuple[str, ...]) -> set[str]:
        """The ASCII needles found in this part so far, those of `needles` searched for."""
        if self._searched is _NOTHING:
            self._searched, self._found = set(), set()
        searched = self._searched
        missing = tuple([needle for needle in needles if needle not in searched])
        if missing:
            self._found.update(found_ascii(self.folded(), missing))
            searched.update(missing)
        return self._found

    def folded(self) -> bytes:
        if self._folded is None:
            self._folded = ascii_folded(self.text)
        return self._folded

    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = lower(self.text)
        return self._lowered


SHORT_TEXT: Final = 2048
"""Below this many characters, lower-casing the text and testing each needle with `in` costs less than
folding the text and starting a search."""


class SearchedText:
    """Parts of one text joined by newlines, searched for needles as rules ask: each needle once.

    Lower-casing the joined text is lower-casing each part ("\\n" is neither cased nor case-ignorable, so no
    case rule, the final sigma's included, looks across it), and so it is for `ascii_folded`."""

    __slots__ = ("_found", "_lowered", "_parts", "_searched", "_short")

    def __init__(self, parts: list[TextPart], lowered: str | None = None) -> None:
        """`lowered`: the text's lower case, where the caller made it already (a short text: no parts)."""
        self._parts = parts
        self._lowered = lowered
        self._searched: set[str] = _NOTHING
        self._found: set[str] = _NOTHING
        self._short = lowered is not None or sum([len(part.text) for part in parts]) < SHORT_TEXT

    def found(self, needles: Needles) -> Container[str]:
        """What holds each of `needles.lowered` that occurs in the text, and none that does not: test
        membership only (a short text's lower case itself, else the needles found so far)."""
        if self._short:
            if self._lowered is None:
                self._lowered = "\n".join([part.lowered() for part in self._parts])
            return self._lowered
        if not needles.all <= self._searched:
            searched = self._searched
            missing = (
                Needles([needle for needle in needles.lowered if needle not in searched])
                if searched
                else needles
            )
            if searched is _NOTHING:
                self._searched, self._found = set(), set()
            self._found.update(found_by_folding(self._parts, missing))
            self._searched.update(missing.all)
        return self._found


def found_by_lowering(parts: list[TextPart], needles: Needles) -> set[str]:
    """The needles found in the parts' lower case, each by `in`."""
    lowered = "\n".join([part.lowered() for part in parts])
    return {needle for needle in needles.all if needle in lowered}


def found_by_folding(parts: list[TextPart], needles: Needles) -> set[str]:
    """The needles found in the parts' lower case, the ASCII ones in one pass over `ascii_folded` bytes."""
    found = {""} if "" in needles.all else set()
    if any(["\n" in needle for needle in needles.ascii]):  # may span parts: searched where they are joined
        found.update(found_ascii(b"\n".join([part.folded() for part in parts]), needles.ascii))
    elif needles.ascii:
        remaining = needles.ascii
        for part in parts[::-1]:  # the rewrite first: the rewrite's own search may have found them there
            found.update(part.found_ascii(remaining))
            remaining = tuple([needle for needle in remaining if needle not in found])
            if not remaining:
                break
    if needles.other and not all([part.text.isascii() for part in parts]):
        found.update(found_by_lowering(parts, Needles(list(needles.other))))
    return found
