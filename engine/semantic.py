"""Checks the schema cannot express: duplicate rule ids, each condition's and each action's own checks (their
records in engine/conditions.py and engine/actions.py: regexes RE2 refuses, impossible length bounds,
templates the sandbox refuses), feedback placeholders that cannot be filled, numbers that are not finite or
beyond a float's range, ideals outside the scale, rules without actions and rules that can never be
reached.

Each check takes one parsed document and returns positioned diagnostics. The checks guard every type
they read, so they also run on a document that failed schema validation: one run reports every problem.
"""

from __future__ import annotations

import math
import string
import sys
from collections.abc import Iterator
from typing import Any, TypeGuard

from evalkit.engine.diagnostics import Diagnostic, Span, closest, error, warning
from evalkit.engine.yamlsource import JsonPath, YamlDocument

RULE_LISTS = ("rating_rules", "ranking_rules", "rewrite_rules")
PROMPT_PLACEHOLDERS = {"ok": (), "missing_field": ("missing",), "invalid_label": ("field", "value")}
"""The names each prompt.yaml feedback text may use, as engine/phases.py fills them."""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def rule_entries(data: Any, lists: tuple[str, ...] = RULE_LISTS) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Every rule (a mapping) in the rules file's `lists`, with its path: ("rating_rules", 0), ..."""
    for key in lists:
        for index, rule in enumerate(_list(_mapping(data).get(key))):
            if isinstance(rule, dict):
                yield (key, index), rule


def _condition_blocks(when: Any, at: JsonPath) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    if not isinstance(when, dict):
        return
    yield at, when
    for index, block in enumerate(_list(when.get("any_of"))):
        yield from _condition_blocks(block, (*at, "any_of", index))


def duplicate_rule_ids(doc: YamlDocument) -> list[Diagnostic]:
    """An id is unique within its list (an error, README "evalkit check"); one shared by two lists is
    allowed but warned about, since `fired_rules` would show two rules under one id. One rule that aliases
    bring twice is at its anchor both times: the message says so rather than point at itself."""
    seen: dict[str, tuple[str, Span]] = {}
    out = []
    for at, rule in rule_entries(doc.data):
        rule_id = rule.get("id")
        if not isinstance(rule_id, str):
            continue
        span = doc.value_span((*at, "id"))
        if rule_id not in seen:
            seen[rule_id] = (str(at[0]), span)
            continue
        first_list, first = seen[rule_id]
        aliased = first == span
        if first_list == at[0]:
            where = (
                f"aliases bring this rule into {first_list} twice"
                if aliased
                else f"first defined at line {first.line}"
            )
            out.append(error(doc.path, span, "duplicate-rule-id", f"duplicate rule id '{rule_id}' ({where})"))
        else:
            where = "aliases bring this rule into both" if aliased else f"line {first.line}"
            out.append(
                warning(
                    doc.path,
                    span,
                    "duplicate-rule-id",
                    f"rule id '{rule_id}' is also used in {first_list} ({where}); "
                    "results would name two rules alike",
                )
            )
    return list(dict.fromkeys(out))  # a rule aliases bring three times is one problem


def condition_problems(doc: YamlDocument) -> list[Diagnostic]:
    """Each condition's cross-value check (its record's `check`), on each block of conditions holding it."""
    from evalkit.engine.conditions import CONDITIONS

    out = []
    for at, rule in rule_entries(doc.data):
        for block_at, block in _condition_blocks(rule.get("when"), (*at, "when")):
            for name in block:
                kind = CONDITIONS.get(name) if isinstance(name, str) else None
                if kind is not None and kind.check is not None:
                    out += kind.check(doc, block_at, block)
    return out


def action_problems(doc: YamlDocument) -> list[Diagnostic]:
    """Each action's cross-value check (its record's `check`), on every rule's actions that hold it."""
    from evalkit.engine.actions import ACTIONS

    out = []
    for at, rule in rule_entries(doc.data):
        actions = _mapping(rule.get("actions"))
        for name in actions:
            kind = ACTIONS.get(name) if isinstance(name, str) else None
            if kind is not None and kind.check is not None:
                out += kind.check(doc, (*at, "actions"), actions)
    return out


def scalar_line_span(doc: YamlDocument, at: JsonPath, line: int) -> Span:
    """The span of line `line` (1-based) of the string at `at`. A block scalar (`|` or `>`) starts on the
    line after its indicator; for the first line of any other scalar, the whole value is the best place."""
    span = doc.value_span(at)
    lines = doc.lines()
    indicator = lines[span.line - 1][span.column - 1 : span.column] if span.line <= len(lines) else ""
    block = indicator in ("|", ">")
    if (line <= 1 and not block) or (indicator == ">" and line > 1):  # folding joins lines: no mapping back
        return span
    target = span.line + line - (0 if block else 1)
    if target > len(lines):
        return span
    text = lines[target - 1]
    return Span(target, len(text) - len(text.lstrip()) + 1, target, len(text) + 1)


def unreachable_rules(doc: YamlDocument) -> list[Diagnostic]:
    """stop_after_first stops the rating rules at the first that fires, and one without conditions always
    fires."""
    data = _mapping(doc.data)
    if _mapping(data.get("options")).get("stop_after_first") is not True:
        return []
    out = []
    blocker = None
    for at, rule in rule_entries(data, ("rating_rules",)):
        if blocker is not None:
            out.append(
                warning(
                    doc.path,
                    doc.value_span((*at, "id")),
                    "unreachable-rule",
                    f"rule '{rule.get('id')}' can never run: '{blocker}' has no conditions and "
                    "stop_after_first is set",
                )
            )
        elif not rule.get("when"):
            blocker = rule.get("id")
    return out


def rules_without_actions(doc: YamlDocument) -> list[Diagnostic]:
    out = []
    for at, rule in rule_entries(doc.data):
        if not _has_effect(rule.get("actions")):
            out.append(
                warning(
                    doc.path,
                    doc.key_span((*at, "actions")),
                    "no-actions",
                    f"rule '{rule.get('id')}' has no actions: it fires without effect",
                )
            )
    return out


def _has_effect(actions: Any) -> bool:
    """False for actions that are all empty: `{}`, `add_comment: ""`, `append_note: false`."""
    if not isinstance(actions, dict):
        return True  # missing or of the wrong type: the schema reports that
    return any(value is not False and value != "" for value in actions.values())


def dimension_bounds(doc: YamlDocument) -> list[Diagnostic]:
    data = _mapping(doc.data)
    scale = data.get("scale", [0, 5])
    if not (isinstance(scale, list) and len(scale) == 2 and all(is_number(v) for v in scale)):
        return []
    low, high = scale
    if low >= high:
        return [
            error(
                doc.path,
                doc.value_span(("scale",)),
                "bad-scale",
                f"scale [{low}, {high}] is empty: the first value must be below the second",
            )
        ]
    out = []
    for name, dim in _mapping(data.get("dimensions")).items():
        ideal, tolerance = _mapping(dim).get("ideal"), _mapping(dim).get("tolerance")
        if is_number(ideal) and not low <= ideal <= high:
            out.append(
                error(
                    doc.path,
                    doc.value_span(("dimensions", name, "ideal")),
                    "outside-scale",
                    f"ideal {ideal} of '{name}' is outside the scale [{low}, {high}]",
                )
            )
        if is_number(tolerance) and tolerance > high - low:
            out.append(
                error(
                    doc.path,
                    doc.value_span(("dimensions", name, "tolerance")),
                    "outside-scale",
                    f"tolerance {tolerance} of '{name}' is wider than the scale [{low}, {high}]",
                )
            )
    return out


def prompt_placeholders(doc: YamlDocument) -> list[Diagnostic]:
    """Feedback texts are filled with str.format_map: a malformed or positional field, or attribute access,
    would fail at evaluation time; an unknown name would be printed as it is."""
    out = []
    for outcome, text in _mapping(_mapping(doc.data).get("feedback")).items():
        if isinstance(text, str) and outcome in PROMPT_PLACEHOLDERS:
            problem = _placeholder_problem(text, PROMPT_PLACEHOLDERS[outcome])
            if problem is not None:
                severity = warning if problem.startswith("unknown") else error
                span = doc.value_span(("feedback", outcome))
                out.append(severity(doc.path, span, "bad-placeholder", problem))
    return out


def _placeholder_problem(text: str, names: tuple[str, ...]) -> str | None:
    available = f"available: {', '.join('{' + n + '}' for n in names)}" if names else "this text takes none"
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError as exc:
        return f"malformed placeholder: {exc}; write '{{{{' and '}}}}' for literal braces"
    for field in fields:
        if field == "" or field.isdigit():
            return f"positional placeholder '{{{field}}}' cannot be filled; {available}"
        if not field.isidentifier():
            return (
                f"placeholder '{{{field}}}' uses attribute or index access, which is not allowed; {available}"
            )
        if field not in names:
            suggestion = closest(field, names) if names else None
            hint = f"did you mean '{{{suggestion}}}'?" if suggestion else available
            return f"unknown placeholder '{{{field}}}' is printed as it is; {hint}"
    return None


def non_finite_numbers(doc: YamlDocument) -> list[Diagnostic]:
    """YAML's .nan and .inf are numbers to JSON Schema, and so is an integer of any size, but no threshold,
    delta or bound can be NaN, infinite or beyond a float's range (it would end evaluation in an error)."""
    found = []
    for at, value in _numbers(doc.data, ()):
        if isinstance(value, float) and not math.isfinite(value):
            found.append(
                error(
                    doc.path,
                    doc.value_span(at),
                    "not-finite",
                    f"expected a finite number, found {_yaml_float(value)}",
                )
            )
        elif isinstance(value, int) and abs(value) > _FLOAT_MAX:
            found.append(
                error(
                    doc.path,
                    doc.value_span(at),
                    "number-too-large",
                    "expected a number within a float's range (about ±1.8e308), found an integer of "
                    f"{len(str(abs(value)))} digits",
                )
            )
    return found


_FLOAT_MAX = sys.float_info.max


def _yaml_float(value: float) -> str:
    return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")


def _numbers(value: Any, at: JsonPath) -> Iterator[tuple[JsonPath, int | float]]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers(item, (*at, index))


CHECKS = {
    "rules": (
        duplicate_rule_ids,
        condition_problems,
        action_problems,
        unreachable_rules,
        rules_without_actions,
        non_finite_numbers,
    ),
    "dimensions": (dimension_bounds, non_finite_numbers),
    "prompt": (prompt_placeholders,),
}


def semantic_diagnostics(name: str, doc: YamlDocument) -> list[Diagnostic]:
    return [d for check in CHECKS.get(name, ()) for d in check(doc)]
