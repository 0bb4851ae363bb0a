"""Evaluate without raising: one submission's `Result`, or an `EvaluationFailure` saying why there is none.

Every face that evaluates many submissions (`check --samples`, rule tests, the language server's dry run,
the reviewer app, `diff`, `stats`) must survive one the engine refuses or fails on, and report it in its
own words. This is the one place that catches it; the faces render the failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalkit.engine.result import Result
from evalkit.engine.submission import SubmissionError

Evaluate = Callable[[Any], Result]
"""`Evaluator(config).evaluate`, or anything that evaluates a submission as it does."""


@dataclass(frozen=True, slots=True)
class EvaluationFailure:
    """Why an evaluation produced no result: the exception's type and message. `invalid_submission`:
    the submission's fault (the engine refused it; the message names the field), not the rules' or the
    engine's."""

    error_type: str
    message: str
    invalid_submission: bool = False

    def __str__(self) -> str:
        return f"{self.error_type}: {self.message}"

    @classmethod
    def of(cls, exc: Exception) -> EvaluationFailure:
        return cls(type(exc).__name__, str(exc), invalid_submission=isinstance(exc, SubmissionError))


def evaluate_safely(evaluate: Evaluate, submission: object) -> Result | EvaluationFailure:
    """`evaluate(submission)`'s result, or what failed: any exception is a finding about this submission
    (or the rules), never the end of the run that evaluates the others."""
    try:
        return evaluate(submission)
    except Exception as exc:  # the one place: every face renders the failure its own way
        return EvaluationFailure.of(exc)
