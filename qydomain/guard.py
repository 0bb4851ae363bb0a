"""The one rule every scorer shares: a malformed pair scores 0 instead of raising.

Reward functions run unattended over millions of rows in RL and evaluation pipelines, where one exception
stops the whole run. A pair is malformed when either side is not a string or the ground truth is blank
(an empty ground truth would otherwise be "found" in every answer).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

ScoreT = TypeVar("ScoreT", int, float)
PairScorer = Callable[[str, str], ScoreT]
GuardedScorer = Callable[[object, object], ScoreT]


def _blank(text: str) -> bool:
    return not text or text.isspace()


def malformed(ground_truth: str) -> bool:
    """Whether a ground truth makes its pair malformed (blank), the other side being a string."""
    return _blank(ground_truth)


def malformed_scores_zero(zero: ScoreT) -> Callable[[PairScorer[ScoreT]], GuardedScorer[ScoreT]]:
    """Wrap a `(ground_truth, llm_answer)` scorer so that a malformed pair returns `zero`."""

    def decorate(score_pair: PairScorer[ScoreT]) -> GuardedScorer[ScoreT]:
        @functools.wraps(score_pair)
        def guarded(ground_truth: object, llm_answer: object) -> ScoreT:
            if isinstance(ground_truth, str) and isinstance(llm_answer, str) and not _blank(ground_truth):
                return score_pair(ground_truth, llm_answer)
            return zero

        return guarded

    return decorate
