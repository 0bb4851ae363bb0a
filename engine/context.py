"""What conditions and actions see: the signals of one submission, and the state the rules change."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.engine.submission import Submission


def lower(text: Any) -> str:
    """`text.lower()` as CPython does it. Compiled by mypyc for Python < 3.13, `str.lower` on a value typed
    `str` lowers one character at a time and so misses the final sigma ('ΑΣ' -> 'ας'); through `Any` it is
    the ordinary method call."""
    return text.lower()


@dataclass(slots=True)
class Signals:
    """Computed once per submission, before any rule runs."""

    text_space: str
    text_lower: str
    rewrite: str
    rewrite_lower: str
    rewrite_bytes: bytes
    length_total: int
    response_count: int
    ratings: dict[str, float]

    @classmethod
    def of(cls, submission: Submission) -> Signals:
        rewrite = submission.rewrite_preferred
        rewrite_lower = lower(rewrite)
        texts = [r.text for r in submission.responses]
        text_space = "\n".join(texts) + "\n" + rewrite
        # lowering each part is lowering the whole: "\n" is neither cased nor case-ignorable, so no case
        # rule (the final sigma's) looks across it; the rewrite is lowered once for both
        text_lower = "\n".join([lower(t) for t in texts]) + "\n" + rewrite_lower
        return cls(text_space, text_lower, rewrite, rewrite_lower, rewrite.encode("utf-8", "surrogatepass"),
                   len(text_space), len(texts), submission.ratings)

    def public(self) -> dict[str, int]:
        return {"length_total": self.length_total, "response_count": self.response_count}


@dataclass(slots=True)
class RuleState:
    """What the rules accumulate for one submission."""

    corrected: dict[str, float]
    scale: tuple[float, float]
    round_digits: int | None
    dedupe_comments: bool
    comments: list[str] = field(default_factory=list)
    flags: dict[str, bool] = field(default_factory=dict)
    score: float | None = None
    label: str | None = None
    moved_by: dict[str, list[str]] = field(default_factory=dict)

    def add_comment(self, text: str) -> None:
        if self.dedupe_comments and text in self.comments:
            return
        self.comments.append(text)

    def settle(self, value: float) -> float:
        """Clamp to the scale and round (float noise always; to `round` digits when configured)."""
        low, high = self.scale
        return rounded(min(max(value, low), high), self.round_digits if self.round_digits is not None else 10)


_BINARY_PLACES = tuple(float(2**digits) for digits in range(11))


def rounded(value: float, digits: int) -> float:
    """`round(value, digits)` for 0 <= digits <= 10, without its cost where the answer is `value`.

    round() goes through decimal strings (a third of a microsecond). A multiple of 2**-digits has at most
    `digits` decimals, so it rounds to itself, and most ratings, deltas and scores are such (4.5, -0.5, 2).
    """
    if (value * _BINARY_PLACES[digits]).is_integer():
        return value
    return round(value, digits)


Detail = dict[str, Any]
