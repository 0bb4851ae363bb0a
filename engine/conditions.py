"""The conditions of a rule's `when`: one table, each entry compiles its YAML value once.

A compiled condition has two faces: `test(signals) -> bool`, the fast path every evaluation takes, and
`explain(signals) -> detail`, what it observed, computed only for rules that fired or when an explanation
is asked for. Adding a condition means one entry in CONDITIONS plus its schema in
`schemas/rules.schema.json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from evalkit.engine.context import Detail, Signals
from evalkit.engine.regex import compile_pattern

Test = Callable[[Signals], bool]
Explain = Callable[[Signals], Detail]


@dataclass(frozen=True, slots=True)
class Condition:
    name: str
    test: Test
    explain: Explain


def _found(needles: list[str], lowered: list[str], haystack: str) -> list[str]:
    return [n for n, low in zip(needles, lowered) if low in haystack]


def _contains_any(needles: list[str]) -> tuple[Test, Explain]:
    lowered = [n.lower() for n in needles]

    def explain(s: Signals) -> Detail:
        found = _found(needles, lowered, s.text_lower)
        return {"held": bool(found), "found": found}

    return (lambda s: any(low in s.text_lower for low in lowered)), explain


def _not_contains_any(needles: list[str]) -> tuple[Test, Explain]:
    lowered = [n.lower() for n in needles]

    def explain(s: Signals) -> Detail:
        found = _found(needles, lowered, s.text_lower)
        return {"held": not found, "found": found}

    return (lambda s: not any(low in s.text_lower for low in lowered)), explain


def _rewrite_missing(needles: list[str]) -> tuple[Test, Explain]:
    lowered = [n.lower() for n in needles]

    def explain(s: Signals) -> Detail:
        present = _found(needles, lowered, s.rewrite_lower)
        return {"held": not present, "present": present}

    return (lambda s: not any(low in s.rewrite_lower for low in lowered)), explain


def _regex_any(patterns: list[str]) -> tuple[Test, Explain]:
    compiled = [(p, compile_pattern(p)) for p in patterns]

    def explain(s: Signals) -> Detail:
        for pattern, regex in compiled:
            match = regex.first(s.rewrite_bytes)
            if match is not None:
                return {"held": True, "pattern": pattern, "match": match[:200]}
        return {"held": False, "pattern": None}

    return (lambda s: any(regex.found(s.rewrite_bytes) for _, regex in compiled)), explain


def _min_length(minimum: int) -> tuple[Test, Explain]:
    def explain(s: Signals) -> Detail:
        return {"held": s.length_total >= minimum, "length_total": s.length_total, "min": minimum}

    return (lambda s: s.length_total >= minimum), explain


def _max_length(maximum: int) -> tuple[Test, Explain]:
    def explain(s: Signals) -> Detail:
        return {"held": s.length_total <= maximum, "length_total": s.length_total, "max": maximum}

    return (lambda s: s.length_total <= maximum), explain


def _dimension_compare(thresholds: dict[str, float], greater: bool) -> tuple[Test, Explain]:
    items = list(thresholds.items())

    def test(s: Signals) -> bool:
        if greater:
            return all(s.ratings[dim] > limit for dim, limit in items)
        return all(s.ratings[dim] < limit for dim, limit in items)

    def explain(s: Signals) -> Detail:
        return {"held": test(s), "values": {dim: s.ratings[dim] for dim, _ in items}, "thresholds": thresholds}

    return test, explain


def _any_of(blocks: list[dict[str, Any]]) -> tuple[Test, Explain]:
    compiled = [compile_when(block) for block in blocks]

    def explain(s: Signals) -> Detail:
        details = [block.explain(s, exhaustive=True) for block in compiled]
        return {"held": any(block.test(s) for block in compiled), "blocks": details}

    return (lambda s: any(block.test(s) for block in compiled)), explain


CONDITIONS: dict[str, Callable[[Any], tuple[Test, Explain]]] = {
    "response_contains_any": _contains_any,
    "not_contains_any": _not_contains_any,
    "preferred_rewrite_missing_substring": _rewrite_missing,
    "rewrite_regex_any": _regex_any,
    "min_total_length": _min_length,
    "max_total_length": _max_length,
    "any_of": _any_of,
    "dimension_gt": lambda value: _dimension_compare(value, greater=True),
    "dimension_lt": lambda value: _dimension_compare(value, greater=False),
}


@dataclass(frozen=True, slots=True)
class Block:
    """Conditions that must all hold (a rule's `when`, or one block of `any_of`)."""

    conditions: tuple[Condition, ...]

    def test(self, s: Signals) -> bool:
        for condition in self.conditions:
            if not condition.test(s):
                return False
        return True

    def explain(self, s: Signals, exhaustive: bool = False) -> Detail:
        """What each condition observed; stops at the first failure unless `exhaustive`."""
        detail: Detail = {}
        for condition in self.conditions:
            observed = condition.explain(s)
            detail[condition.name] = observed
            if not observed["held"] and not exhaustive:
                break
        return detail


def compile_when(when: dict[str, Any] | None) -> Block:
    return Block(tuple(Condition(name, *CONDITIONS[name](value)) for name, value in (when or {}).items()))
