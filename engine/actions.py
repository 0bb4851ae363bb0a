"""The actions of a fired rule: one record each (`ActionKind`), all in ACTIONS, applied in the seed's fixed
order whatever the YAML order.

A record compiles its YAML value once into an `Apply`, which changes the RuleState and returns the record
shown in `fired_rules` (a one-key object such as `{"set_flag": "low_accuracy"}`); it holds its cross-value
check with the codes it reports, and the hypothesis strategy of its values (engine/conditions.py says how
these are used). Adding an action: its record here, at its place in the order, its key in
`schemas/rules.schema.json` (`$defs.actions`, whose description names the order), its tests, a line in
CHANGELOG.md; then `python3 docs/generate.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from evalkit.engine.conditions import Check, Strategy
from evalkit.engine.context import Detail, RuleState, Signals, rounded
from evalkit.engine.submission import DIMENSIONS
from evalkit.engine.templates import compile_template

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic
    from evalkit.engine.yamlsource import JsonPath, YamlDocument

Apply = Callable[[RuleState, Signals, Detail | None, str], dict[str, Any]]


class ActionKind:
    """One action: its name (its key in `actions`), `compile_value` (its YAML value compiled once), `values`
    (the hypothesis strategy of its values), and its cross-value check on the rule's actions with the
    diagnostic codes it reports and their meanings."""

    __slots__ = ("check", "compile_value", "name", "problems", "values")

    def __init__(
        self,
        name: str,
        compile_value: Callable[[Any], Apply],
        *,
        values: Strategy,
        check: Check | None = None,
        problems: dict[str, str] | None = None,
    ) -> None:
        self.name, self.compile_value, self.values, self.check = name, compile_value, values, check
        self.problems: dict[str, str] = problems or {}


def _names(st: Any, when: Any) -> Any:
    return st.text(alphabet="ab_", min_size=1, max_size=3)


def _amounts(st: Any, when: Any) -> Any:
    return st.floats(min_value=-3, max_value=3, allow_nan=False)


def _adjust_dimension(value: dict[str, Any]) -> Apply:
    dimension, delta = value["dimension"], float(value["delta"])

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        before = state.corrected[dimension]
        after = state.settle(before + delta)
        state.corrected[dimension] = after
        state.moved_by.setdefault(dimension, []).append(rule_id)
        return {"adjust_dimension": {"dimension": dimension, "from": before, "to": after, "delta": delta}}

    return apply


ADJUST_DIMENSION = ActionKind(
    "adjust_dimension",
    _adjust_dimension,
    values=lambda st, when: st.fixed_dictionaries(
        {"dimension": st.sampled_from(DIMENSIONS), "delta": _amounts(st, when)}
    ),
)


def _add_comment(text: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.add_comment(text)
        return {"add_comment": text}

    return apply


ADD_COMMENT = ActionKind("add_comment", _add_comment, values=lambda st, when: st.text(max_size=5))


def _add_comment_template(source: str) -> Apply:
    template = compile_template(source)
    render, reads_corrected = template.render, "corrected" in template.names

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        corrected = dict(state.corrected) if reads_corrected else {}  # a copy: later rules change it
        text = render({"signals": signals.public(), "detail": detail, "corrected": corrected})
        state.add_comment(text)
        return {"add_comment_template": text}

    return apply


def _bad_template(doc: YamlDocument, at: JsonPath, actions: dict[str, Any]) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.semantic import scalar_line_span
    from evalkit.engine.templates import TemplateProblem

    source = actions["add_comment_template"]
    if not isinstance(source, str):
        return []
    try:
        compile_template(source)
    except TemplateProblem as exc:
        span = scalar_line_span(doc, (*at, "add_comment_template"), exc.line)
        return [error(doc.path, span, "bad-template", str(exc))]
    return []


ADD_COMMENT_TEMPLATE = ActionKind(
    "add_comment_template",
    _add_comment_template,
    values=lambda st, when: st.sampled_from(
        ["", "n={{ signals.length_total }}", "{{ corrected.accuracy }}", "{{ detail | tojson }}"]
    ),
    check=_bad_template,
    problems={
        "bad-template": "A comment template that does not parse, uses names its context lacks, uses what "
        "the sandbox refuses (loops, macros, variables), or nests or runs longer than its limits."
    },
)


def _set_flag(name: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.flags[name] = True
        return {"set_flag": name}

    return apply


SET_FLAG = ActionKind("set_flag", _set_flag, values=_names)


def _increment_score(amount: float) -> Apply:
    amount = float(amount)

    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.score = rounded((state.score or 0.0) + amount, 10)
        return {"increment_score": amount}

    return apply


INCREMENT_SCORE = ActionKind("increment_score", _increment_score, values=_amounts)


def _assign_label(label: str) -> Apply:
    def apply(state: RuleState, signals: Signals, detail: Detail | None, rule_id: str) -> dict[str, Any]:
        state.label = label
        return {"assign_label": label}

    return apply


ASSIGN_LABEL = ActionKind("assign_label", _assign_label, values=_names)

ACTIONS: dict[str, ActionKind] = {
    kind.name: kind
    for kind in (ADJUST_DIMENSION, ADD_COMMENT, ADD_COMMENT_TEMPLATE, SET_FLAG, INCREMENT_SCORE, ASSIGN_LABEL)
}
"""In the order they are applied, which is also the order of schemas/rules.schema.json's `$defs.actions`."""


def compile_actions(actions: dict[str, Any]) -> list[Apply]:
    return [kind.compile_value(actions[name]) for name, kind in ACTIONS.items() if name in actions]
