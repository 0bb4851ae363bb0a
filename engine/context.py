"""What conditions and actions see: the signals of one submission, and the state the rules change."""

from __future__ import annotations

from typing import Any, Final

from evalkit.engine.needles import SHORT_TEXT, SearchedText, TextPart, lower
from evalkit.engine.regex import Pattern
from evalkit.engine.submission import Submission


class Signals:
    """Computed once per submission, before any rule runs; the text is lower-cased and encoded only as far
    as the rules read it (engine/needles.py)."""

    def __init__(
        self,
        text: SearchedText,
        rewrite: SearchedText,
        rewrite_preferred: str,
        length_total: int,
        response_count: int,
        ratings: dict[str, float],
    ) -> None:
        self.text = text
        """The responses and the rewrite, joined by newlines (which conditions read what: their records'
        `reads`, engine/conditions.py)."""
        self.rewrite = rewrite
        """The rewrite alone."""
        self.rewrite_preferred, self.length_total = rewrite_preferred, length_total
        self.response_count, self.ratings = response_count, ratings
        self._rewrite_bytes: bytes | None = None
        self._matches: dict[str, Any] | None = None

    @classmethod
    def of(cls, submission: Submission) -> Signals:
        rewrite = submission.rewrite_preferred
        texts = [r.text for r in submission.responses]
        length = sum([len(t) for t in texts]) + max(len(texts), 1) + len(rewrite)  # texts and rewrite, joined
        if length < SHORT_TEXT:  # lowered as it is written, the rewrite once for both
            rewrite_lower = lower(rewrite)
            # one copy of the text, not three; no response is an empty one (as the parts below say)
            text_lower = "\n".join(
                [*[lower(t) for t in texts], rewrite_lower] if texts else ["", rewrite_lower]
            )
            return cls(
                SearchedText([], text_lower),
                SearchedText([], rewrite_lower),
                rewrite,
                length,
                len(texts),
                submission.ratings,
            )
        parts = [TextPart(t) for t in texts] if texts else [TextPart("")]
        rewrite_part = TextPart(rewrite)
        parts.append(rewrite_part)
        return cls(
            SearchedText(parts), SearchedText([rewrite_part]), rewrite, length, len(texts), submission.ratings
        )

    def rewrite_bytes(self) -> bytes:
        """The rewrite's UTF-8 bytes, which regexes search: encoded at the first call (most configs have no
        regex), kept for the next pattern."""
        if self._rewrite_bytes is None:
            self._rewrite_bytes = self.rewrite_preferred.encode("utf-8", "surrogatepass")
        return self._rewrite_bytes

    def match(self, pattern: str, regex: Pattern) -> Any:
        """The first match of `regex` (compiled from `pattern`) in the rewrite, or None: searched at the
        first call for each pattern, kept for the next (the rule's test searches, and when the rule fires
        its explanation shows the match: one search, not two)."""
        matches = self._matches
        if matches is None:
            matches = self._matches = {}
        elif pattern in matches:
            return matches[pattern]
        found = matches[pattern] = regex.search(self.rewrite_bytes())
        return found

    def public(self) -> dict[str, int]:
        return {"length_total": self.length_total, "response_count": self.response_count}


class RuleState:
    """What the rules accumulate for one submission."""

    def __init__(
        self,
        corrected: dict[str, float],
        scale: tuple[float, float],
        round_digits: int | None,
        dedupe_comments: bool,
    ) -> None:
        self.corrected, self.scale = corrected, scale
        self.round_digits, self.dedupe_comments = round_digits, dedupe_comments
        self.comments: list[str] = []
        self.flags: dict[str, bool] = {}
        self.score: float | None = None
        self.label: str | None = None
        self.moved_by: dict[str, list[str]] = {}

    def add_comment(self, text: str) -> None:
        if self.dedupe_comments and text in self.comments:
            return
        self.comments.append(text)

    def settle(self, value: float) -> float:
        """Clamp to the scale and round (float noise always; to `round` digits when configured)."""
        low, high = self.scale
        return rounded(min(max(value, low), high), self.round_digits if self.round_digits is not None else 10)


_BINARY_PLACES: Final = tuple(float(2**digits) for digits in range(11))


def rounded(value: float, digits: int) -> float:
    """`round(value, digits)` for 0 <= digits <= 10, without its cost where the answer is `value`.

    round() goes through decimal strings (a third of a microsecond). A multiple of 2**-digits has at most
    `digits` decimals, so it rounds to itself, and most ratings, deltas and scores are such (4.5, -0.5, 2).
    """
    if (value * _BINARY_PLACES[digits]) % 1.0 == 0.0:  # is_integer(), compiled to arithmetic, not a call
        return value
    return round(value, digits)


Detail = dict[str, Any]
