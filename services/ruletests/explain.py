"""Why a rule fired or not, in one line, for a failed rule test: the conditions it saw, or the first that
failed and what it observed."""

from __future__ import annotations

from typing import Any

from evalkit.engine.result import Result


def explain_rule(result: Result, rule_id: str) -> str:
    """Why `rule_id` fired or not: the conditions it saw, or the first that failed and what it observed."""
    for rule in result.fired_rules:
        if rule.id == rule_id:
            actions = ", ".join(_action_text(action) for action in rule.actions) or "none"
            return f"rule '{rule_id}' fired: {_conditions_text(rule.detail)}; actions: {actions}"
    for skipped in result.skipped_rules:
        if skipped.id == rule_id:
            failed = skipped.failed
            observed = _observed_text(skipped.detail.get(failed)) if failed else ""
            return f"rule '{rule_id}' did not fire: {skipped.reason}{f' ({observed})' if observed else ''}"
    return f"rule '{rule_id}' did not fire: its conditions did not hold"


def _conditions_text(detail: dict[str, Any]) -> str:
    if not detail:
        return "it has no conditions"
    return "; ".join(f"{name} held ({_observed_text(seen)})" for name, seen in detail.items())


def _observed_text(seen: Any) -> str:
    if not isinstance(seen, dict):
        return _short(seen)
    return ", ".join(f"{key}: {_short(value)}" for key, value in seen.items() if key != "held")


def _action_text(action: dict[str, Any]) -> str:
    ((name, value),) = action.items()
    return f"{name} {_short(value)}"


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
