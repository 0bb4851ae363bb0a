"""The actions of a fired rule: one table, applied in the seed's fixed order whatever the YAML order.

Each entry compiles its YAML value once into an `Apply`, which changes the RuleState and returns the
record shown in `fired_rules` (a one-key object such as `{"set_flag": "low_accuracy"}`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from evalkit.engine.context import Detail, RuleState, Signals, rounded
from evalkit.engine.templates import compile_template

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic
    from evalkit.engine.yamlsource import YamlDocument

Apply = Callable[[RuleState, Signals, Detail | None, str], dict[str, Any]]


def _adjust_dimension(value: dict[str, Any]) -> Apply:
    dimension, delta = value["dimension"], float(value["delta"])

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        before = state.corrected[dimension]
        after = state.settle(before + delta)
        state.corrected[dimension] = after
        state.moved_by.setdefault(dimension, []).append(rule_id)
        return {"adjust_dimension": {"dimension": dimension, "from": before, "to": after, "delta": delta}}

    return apply


def _add_comment(text: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.add_comment(text)
        return {"add_comment": text}

    return apply


def _add_comment_template(source: str) -> Apply:
    template = compile_template(source)
    render, reads_corrected = template.render, "corrected" in template.names

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        corrected = dict(state.corrected) if reads_corrected else {}  # a copy: later rules change it
        text = render({"signals": signals.public(), "detail": detail, "corrected": corrected})
        state.add_comment(text)
        return {"add_comment_template": text}

    return apply


def template_problems(doc: YamlDocument) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.semantic import _mapping, rule_entries, scalar_line_span
    from evalkit.engine.templates import TemplateProblem

    out = []
    for at, rule in rule_entries(doc.data):
        source = _mapping(rule.get("actions")).get("add_comment_template")
        if not isinstance(source, str):
            continue
        try:
            compile_template(source)
        except TemplateProblem as exc:
            span = scalar_line_span(doc, (*at, "actions", "add_comment_template"), exc.line)
            out.append(error(doc.path, span, "bad-template", str(exc)))
    return out


def _set_flag(name: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.flags[name] = True
        return {"set_flag": name}

    return apply


def _increment_score(amount: float) -> Apply:
    amount = float(amount)

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.score = rounded((state.score or 0.0) + amount, 10)
        return {"increment_score": amount}

    return apply


def _assign_label(label: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.label = label
        return {"assign_label": label}

    return apply


ACTIONS: dict[str, Callable[[Any], Apply]] = {
    "adjust_dimension": _adjust_dimension,
    "add_comment": _add_comment,
    "add_comment_template": _add_comment_template,
    "set_flag": _set_flag,
    "increment_score": _increment_score,
    "assign_label": _assign_label,
}
"""In the order they are applied."""


def compile_actions(actions: dict[str, Any]) -> list[Apply]:
    return [ACTIONS[name](actions[name]) for name in ACTIONS if name in actions]
