"""Checks the schema cannot express: duplicate rule ids, regexes RE2 refuses, templates the sandbox
refuses, impossible length bounds, ideals outside the scale and rules that can never be reached.

Each check takes the parsed document(s) and returns positioned diagnostics.
"""

from __future__ import annotations

from typing import Any, Iterator

from evalkit.engine.diagnostics import Diagnostic, Span, error, warning
from evalkit.engine.regex import PatternError
from evalkit.engine.templates import TemplateProblem
from evalkit.engine.yamlsource import JsonPath, YamlDocument

RULE_LISTS = ("rating_rules", "ranking_rules", "rewrite_rules")


def _rules(data: Any) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    if not isinstance(data, dict):
        return
    for key in RULE_LISTS:
        for index, rule in enumerate(data.get(key) or []):
            if isinstance(rule, dict):
                yield (key, index), rule


def _condition_blocks(when: Any, at: JsonPath) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    if not isinstance(when, dict):
        return
    yield at, when
    for index, block in enumerate(when.get("any_of") or []):
        yield from _condition_blocks(block, (*at, "any_of", index))


def duplicate_rule_ids(doc: YamlDocument) -> list[Diagnostic]:
    seen: dict[str, int] = {}
    out = []
    for at, rule in _rules(doc.data):
        rule_id = rule.get("id")
        if not isinstance(rule_id, str):
            continue
        if rule_id in seen:
            out.append(error(doc.path, doc.value_span((*at, "id")), "duplicate-rule-id",
                             f"duplicate rule id '{rule_id}' (first defined at line {seen[rule_id]})"))
        else:
            seen[rule_id] = doc.value_span((*at, "id")).line
    return out


def regex_problems(doc: YamlDocument) -> list[Diagnostic]:
    from evalkit.engine.regex import compile_pattern

    out = []
    for at, rule in _rules(doc.data):
        for block_at, block in _condition_blocks(rule.get("when"), (*at, "when")):
            for index, pattern in enumerate(block.get("rewrite_regex_any") or []):
                try:
                    compile_pattern(pattern)
                except PatternError as exc:
                    span = doc.value_span((*block_at, "rewrite_regex_any", index))
                    out.append(error(doc.path, span, "bad-regex", f"RE2 cannot compile {pattern!r}: {exc}"))
    return out


def template_problems(doc: YamlDocument) -> list[Diagnostic]:
    from evalkit.engine.templates import compile_template

    out = []
    for at, rule in _rules(doc.data):
        source = (rule.get("actions") or {}).get("add_comment_template")
        if not isinstance(source, str):
            continue
        try:
            compile_template(source)
        except TemplateProblem as exc:
            span = doc.value_span((*at, "actions", "add_comment_template"))
            if exc.line > 1:
                span = Span.point(span.line + exc.line - 1, 1)
            out.append(error(doc.path, span, "bad-template", str(exc)))
    return out


def length_bounds(doc: YamlDocument) -> list[Diagnostic]:
    out = []
    for at, rule in _rules(doc.data):
        for block_at, block in _condition_blocks(rule.get("when"), (*at, "when")):
            low, high = block.get("min_total_length"), block.get("max_total_length")
            if isinstance(low, int) and isinstance(high, int) and low > high:
                out.append(error(doc.path, doc.value_span((*block_at, "min_total_length")), "impossible-length",
                                 f"min_total_length {low} is above max_total_length {high}: the rule can never fire"))
    return out


def unreachable_rules(doc: YamlDocument) -> list[Diagnostic]:
    data = doc.data if isinstance(doc.data, dict) else {}
    if not (data.get("options") or {}).get("stop_after_first"):
        return []
    out = []
    blocker = None
    for index, rule in enumerate(data.get("rating_rules") or []):
        if not isinstance(rule, dict):
            continue
        if blocker is not None:
            out.append(warning(doc.path, doc.value_span(("rating_rules", index, "id")), "unreachable-rule",
                               f"rule '{rule.get('id')}' can never run: '{blocker}' has no conditions and "
                               "stop_after_first is set"))
        elif not rule.get("when"):
            blocker = rule.get("id")
    return out


def dimension_bounds(doc: YamlDocument) -> list[Diagnostic]:
    data = doc.data if isinstance(doc.data, dict) else {}
    low, high = data.get("scale") or (0, 5)
    if low >= high:
        return [error(doc.path, doc.value_span(("scale",)), "bad-scale",
                      f"scale [{low}, {high}] is empty: the first value must be below the second")]
    out = []
    for name, dim in (data.get("dimensions") or {}).items():
        ideal, tolerance = dim.get("ideal"), dim.get("tolerance")
        if ideal is not None and not low <= ideal <= high:
            out.append(error(doc.path, doc.value_span(("dimensions", name, "ideal")), "outside-scale",
                             f"ideal {ideal} of '{name}' is outside the scale [{low}, {high}]"))
        if tolerance is not None and tolerance > high - low:
            out.append(error(doc.path, doc.value_span(("dimensions", name, "tolerance")), "outside-scale",
                             f"tolerance {tolerance} of '{name}' is wider than the scale [{low}, {high}]"))
    return out


CHECKS = {
    "rules": (duplicate_rule_ids, regex_problems, template_problems, length_bounds, unreachable_rules),
    "dimensions": (dimension_bounds,),
}


def semantic_diagnostics(name: str, doc: YamlDocument) -> list[Diagnostic]:
    return [d for check in CHECKS.get(name, ()) for d in check(doc)]
