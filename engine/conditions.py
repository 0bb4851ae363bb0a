"""The conditions of a rule's `when`: one table, each entry compiles its YAML value once into a check.

A check takes the submission's Signals and returns whether it holds and what it observed, which becomes
the rule's explanation (`detail`). Adding a condition means one entry here plus its schema in
`schemas/rules.schema.json`.
"""

from __future__ import annotations

from typing import Any, Callable

from evalkit.engine.context import Detail, Signals
from evalkit.engine.regex import compile_pattern

Check = Callable[[Signals], tuple[bool, Detail]]


def _contains_any(needles: list[str]) -> Check:
    lowered = [n.lower() for n in needles]

    def check(s: Signals) -> tuple[bool, Detail]:
        found = [n for n, low in zip(needles, lowered) if low in s.text_lower]
        return bool(found), {"held": bool(found), "found": found}

    return check


def _not_contains_any(needles: list[str]) -> Check:
    lowered = [n.lower() for n in needles]

    def check(s: Signals) -> tuple[bool, Detail]:
        found = [n for n, low in zip(needles, lowered) if low in s.text_lower]
        return not found, {"held": not found, "found": found}

    return check


def _rewrite_missing(needles: list[str]) -> Check:
    lowered = [n.lower() for n in needles]

    def check(s: Signals) -> tuple[bool, Detail]:
        present = [n for n, low in zip(needles, lowered) if low in s.rewrite_lower]
        return not present, {"held": not present, "present": present}

    return check


def _regex_any(patterns: list[str]) -> Check:
    compiled = [(p, compile_pattern(p)) for p in patterns]

    def check(s: Signals) -> tuple[bool, Detail]:
        for pattern, regex in compiled:
            match = regex.search(s.rewrite)
            if match is not None:
                return True, {"held": True, "pattern": pattern, "match": match.group(0)[:200]}
        return False, {"held": False, "pattern": None}

    return check


def _min_length(minimum: int) -> Check:
    def check(s: Signals) -> tuple[bool, Detail]:
        held = s.length_total >= minimum
        return held, {"held": held, "length_total": s.length_total, "min": minimum}

    return check


def _max_length(maximum: int) -> Check:
    def check(s: Signals) -> tuple[bool, Detail]:
        held = s.length_total <= maximum
        return held, {"held": held, "length_total": s.length_total, "max": maximum}

    return check


def _dimension_compare(thresholds: dict[str, float], greater: bool) -> Check:
    items = list(thresholds.items())

    def check(s: Signals) -> tuple[bool, Detail]:
        values = {dim: s.ratings[dim] for dim, _ in items}
        if greater:
            held = all(values[dim] > limit for dim, limit in items)
        else:
            held = all(values[dim] < limit for dim, limit in items)
        return held, {"held": held, "values": values, "thresholds": thresholds}

    return check


def _any_of(blocks: list[dict[str, Any]]) -> Check:
    compiled = [compile_when(block, exhaustive=True) for block in blocks]

    def check(s: Signals) -> tuple[bool, Detail]:
        results = [block(s) for block in compiled]
        held = any(ok for ok, _ in results)
        return held, {"held": held, "blocks": [detail for _, detail in results]}

    return check


CONDITIONS: dict[str, Callable[[Any], Check]] = {
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


def compile_when(when: dict[str, Any] | None, exhaustive: bool = False) -> Check:
    """All conditions of a block must hold. The rule's own `when` stops at the first failure; an `any_of`
    block is `exhaustive` so its explanation shows every condition."""
    checks = [(name, CONDITIONS[name](value)) for name, value in (when or {}).items()]

    def check(s: Signals) -> tuple[bool, Detail]:
        detail: Detail = {}
        held = True
        for name, condition in checks:
            ok, observed = condition(s)
            detail[name] = observed
            if not ok:
                held = False
                if not exhaustive:
                    break
        return held, detail

    return check
