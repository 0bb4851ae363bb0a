"""Running rule tests: every case through the one Evaluator, its result compared with what the case
expects, and the rules no case fires (coverage)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from evalkit.engine.config import Config, analyze
from evalkit.engine.diagnostics import Diagnostic, info
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.services.check.runner import rule_positions
from evalkit.services.ruletests.load import DEFAULT_TOLERANCE, Case, RuleTestFile, load_test_file
from evalkit.services.run.evaluation import EvaluationFailure, evaluate_safely


@dataclass(frozen=True, slots=True)
class Mismatch:
    key: str
    expected: Any
    actual: Any
    rules: tuple[str, ...]
    """The rules whose explanation shows why."""


@dataclass(slots=True)
class CaseOutcome:
    case: Case
    result: Result | None
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches


@dataclass(slots=True)
class Suite:
    """The tests of one config folder, run a file at a time and a case at a time (`test_files`, `run`), so
    that a suite of any size runs in the memory of one test file: only the ids of the rules that fired are
    kept, for coverage. `outcomes` is filled by `run_suite` alone."""

    config: Config
    paths: list[Path]
    fired: set[str] = field(default_factory=set)
    outcomes: list[CaseOutcome] = field(default_factory=list)
    _evaluator: Evaluator | None = None

    def test_files(self) -> Iterator[RuleTestFile]:
        """Each test file, loaded when its turn comes; none with an invalid config."""
        if self.config.plan is None:
            return
        ids = {entry[0] for entry in rule_positions(self.config)}
        for path in self.paths:
            yield load_test_file(path, ids)

    def run(self, test_file: RuleTestFile) -> Iterator[CaseOutcome]:
        """Each case of the file run, as it is run; the rules it fired are noted for coverage."""
        if self._evaluator is None:
            self._evaluator = Evaluator(self.config)
        for case in test_file.cases:
            outcome = run_case(self._evaluator, case)
            if outcome.result is not None:
                self.fired.update(rule.id for rule in outcome.result.fired_rules)
            yield outcome

    def rule_count(self) -> int:
        return sum(1 for _ in rule_positions(self.config))

    def uncovered(self) -> list[Diagnostic]:
        """The rules that no case run so far fired (whether or not the case passed), at their ids."""
        return [
            info(str(path), span, "uncovered-rule", f"rule '{rule_id}' is fired by no test")
            for rule_id, path, span in rule_positions(self.config)
            if rule_id not in self.fired
        ]


def open_suite(folder: Path, files: list[Path]) -> Suite:
    """The suite of `folder`'s config (loaded and checked now) and these test files (loaded as they run)."""
    return Suite(analyze(folder), files)


def run_suite(folder: Path, files: list[Path]) -> Suite:
    """Every case run, its outcome kept in `outcomes`: for callers that hold a small suite whole."""
    suite = open_suite(folder, files)
    suite.outcomes = [outcome for test_file in suite.test_files() for outcome in suite.run(test_file)]
    return suite


def run_case(evaluator: Evaluator, case: Case) -> CaseOutcome:
    if case.problem is not None:
        return CaseOutcome(case, None, error=case.problem)
    result = evaluate_safely(evaluator.evaluate, case.submission)
    if isinstance(result, EvaluationFailure):  # a broken rule fails its case, not the whole run
        if result.invalid_submission:
            return CaseOutcome(case, None, error=f"invalid submission: {result.message}")
        return CaseOutcome(case, None, error=f"evaluation failed: {result}")
    if not expects_anything(case):
        return CaseOutcome(
            case,
            result,
            error="the case has no expectations; add `expect:` or record the "
            "actual outcome with `evalkit test --update`",
        )
    return CaseOutcome(case, result, compare(case.expect, result))


def expects_anything(case: Case) -> bool:
    """Whether the case states an outcome (`tolerance` alone states none)."""
    return any(key in COMPARISONS for key in case.expect)


def compare(expect: dict[str, Any], result: Result) -> list[Mismatch]:
    tolerance = expect.get("tolerance", DEFAULT_TOLERANCE)
    found = [
        COMPARISONS[key](expected, result, tolerance)
        for key, expected in expect.items()
        if key in COMPARISONS
    ]
    return [mismatch for mismatch in found if mismatch is not None]


def fired_ids(result: Result) -> list[str]:
    return [rule.id for rule in result.fired_rules]


def _acting(result: Result, *actions: str) -> tuple[str, ...]:
    """The fired rules that took any of `actions`: those that explain a label, score or flags."""
    return tuple(
        rule.id
        for rule in result.fired_rules
        if any(name in action for action in rule.actions for name in actions)
    )


def _fired(expected: list[str], result: Result, _: float) -> Mismatch | None:
    actual = fired_ids(result)
    if actual == expected:
        return None
    involved = [i for i in expected if i not in actual] + [i for i in actual if i not in expected]
    return Mismatch("fired", expected, actual, tuple(involved or actual))


def _must_fire(expected: list[str], result: Result, _: float) -> Mismatch | None:
    missing = tuple(i for i in expected if i not in fired_ids(result))
    return Mismatch("must_fire", expected, fired_ids(result), missing) if missing else None


def _must_not_fire(expected: list[str], result: Result, _: float) -> Mismatch | None:
    present = tuple(i for i in expected if i in fired_ids(result))
    return Mismatch("must_not_fire", expected, fired_ids(result), present) if present else None


def _label(expected: str | None, result: Result, _: float) -> Mismatch | None:
    if result.label == expected:
        return None
    return Mismatch("label", expected, result.label, _acting(result, "assign_label", "increment_score"))


def _score(expected: float | None, result: Result, tolerance: float) -> Mismatch | None:
    if _close(expected, result.score, tolerance):
        return None
    return Mismatch("score", expected, result.score, _acting(result, "increment_score"))


def _flags(expected: list[str], result: Result, _: float) -> Mismatch | None:
    actual = sorted(name for name, on in result.flags.items() if on)
    if sorted(set(expected)) == actual:
        return None
    return Mismatch("flags", expected, actual, _acting(result, "set_flag"))


def _ratings(expected: dict[str, float], result: Result, tolerance: float) -> Mismatch | None:
    actual = {dim: result.corrected_ratings.get(dim, {}).get("updated") for dim in expected}
    wrong = [dim for dim in expected if not _close(expected[dim], actual[dim], tolerance)]
    if not wrong:
        return None
    return Mismatch("corrected_ratings", expected, actual, _acting(result, "adjust_dimension"))


def _ranking(expected: list[Any], result: Result, _: float) -> Mismatch | None:
    actual = list(result.corrected_ranking)
    return None if actual == expected else Mismatch("ranking", expected, actual, ())


def _rewrite(expected: str, result: Result, _: float) -> Mismatch | None:
    if result.rewrite_final == expected:
        return None
    return Mismatch(
        "rewrite_final",
        expected,
        result.rewrite_final,
        tuple(rule.id for rule in result.fired_rules if rule.type == "rewrite"),
    )


def _close(expected: float | None, actual: float | None, tolerance: float) -> bool:
    """|expected - actual| <= tolerance, exactly: an integer beyond a float's range (`score: 2**1100`) is
    compared as the integer it is, not converted (which raised OverflowError)."""
    if expected is None or actual is None:
        return expected is actual
    if all(isinstance(value, int) or math.isfinite(value) for value in (expected, actual, tolerance)):
        return abs(Fraction(expected) - Fraction(actual)) <= Fraction(tolerance)
    try:
        return math.isclose(expected, actual, rel_tol=0.0, abs_tol=tolerance)  # an infinity or a NaN
    except OverflowError:  # a huge integer against an infinity: only an infinite tolerance spans them
        return math.isinf(tolerance)


COMPARISONS: dict[str, Callable[[Any, Result, float], Mismatch | None]] = {
    "fired": _fired,
    "must_fire": _must_fire,
    "must_not_fire": _must_not_fire,
    "label": _label,
    "score": _score,
    "flags": _flags,
    "corrected_ratings": _ratings,
    "ranking": _ranking,
    "rewrite_final": _rewrite,
}
