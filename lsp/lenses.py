"""Code lenses of the live dry run: `fires on K/N samples` above each rule, and a summary of the run
(samples, labels) on the first line; with the live impact, the change from the base config beside them
(`vs saved: 2/3 labels change (...)` on the first line, `(+2)` after a rule's count). While the config
has errors, the last good run's counts are marked stale. Rules are found
in the text, so the lenses stay in place while a half-typed document does not parse. A rule that a YAML
alias brings into a rule list (`- *shared`, `rating_rules: *all`) has its lens on the alias, named by its
id (the parsed document says which rules the alias stands for).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from evalkit.engine.semantic import RULE_LISTS
from evalkit.lsp.convert import text_range
from evalkit.lsp.dryrun import DryRunReport, RuleKey
from evalkit.lsp.impact import Impact
from evalkit.lsp.yamlcontext import KeyLine, KeyPath, StructureIndex

DRY_RUN_COMMAND = "evalkit.dryRun"
DIFF_COMMAND = "evalkit.diff"
NO_SAMPLES = "dry run: no sample submissions (add samples/ beside the config folder)"
WAITING = "dry run waits for a valid config"
STALE = " (stale: the config has errors)"
"""After the last good config's summary while the config has errors: its counts may no longer hold."""
STALE_RULE = " (stale)"


def rule_kind(path: KeyPath) -> str | None:
    """The rule type (`rating`, `ranking`, `rewrite`) when `path` is a rule's `id`, else None."""
    if len(path) == 3 and path[0] in RULE_LISTS and isinstance(path[1], int) and path[2] == "id":
        return str(path[0]).removesuffix("_rules")
    return None


def rules_in(index: StructureIndex) -> list[tuple[RuleKey, KeyLine]]:
    """Every rule id in the text, with its rule key, in file order."""
    found = []
    for key in index.keys:
        kind = rule_kind(key.path)
        if kind is not None and key.element.value:
            found.append(((kind, index.scalar(key)), key))
    return found


def aliased_rules(index: StructureIndex, rules_data: dict[str, Any]) -> list[tuple[RuleKey, int, int]]:
    """Every rule an alias brings into a rule list, with the alias's line and column, in file order;
    `rules_data` is the rules file as it last parsed."""
    found = []
    for alias in index.aliases():
        path = alias.path
        rules = rules_data.get(str(path[0])) if path and path[0] in RULE_LISTS else None
        if not isinstance(rules, list):
            continue
        if len(path) == 2 and isinstance(path[1], int) and path[1] < len(rules):
            rules = [rules[path[1]]]
        elif len(path) != 1:
            continue
        kind = str(path[0]).removesuffix("_rules")
        for rule in rules:
            if isinstance(rule, dict) and isinstance(rule.get("id"), str):
                found.append(((kind, rule["id"]), alias.line, alias.column))
    return found


def code_lenses(
    index: StructureIndex,
    report: DryRunReport | None,
    config_ok: bool,
    no_samples: str | None,
    uri: str,
    lines: Sequence[str],
    codec: PositionCodec,
    impact: Impact | None = None,
    rules_data: dict[str, Any] | None = None,
) -> list[types.CodeLens]:
    if no_samples is not None:
        return [_lens(0, 0, no_samples, uri, lines, codec)]
    if report is None:
        return []
    impact = impact if config_ok else None  # against a half-typed config it would be stale
    summary = report.summary_title() + ("" if config_ok else STALE)
    lenses = [_lens(0, 0, summary, uri, lines, codec)]
    if impact is not None:
        lenses.append(_lens(0, 0, impact.summary_title(), uri, lines, codec))
    placed = [
        (key.line, key.element.column, _rule_title(rule, report, config_ok, impact))
        for rule, key in rules_in(index)
    ]
    placed += [
        (line, column, f"{rule[1]}: {_rule_title(rule, report, config_ok, impact)}")
        for rule, line, column in aliased_rules(index, rules_data or {})
    ]
    lenses += [
        _lens(line, column, title, uri, lines, codec) for line, column, title in sorted(placed, key=_place)
    ]
    return lenses


def _place(lens: tuple[int, int, str]) -> tuple[int, int]:
    return lens[0], lens[1]  # in file order; the rules of one alias in their list's order


def _rule_title(rule: RuleKey, report: DryRunReport, config_ok: bool, impact: Impact | None) -> str:
    if rule in report.rules:
        suffix = impact.rule_suffix(rule[1]) if impact is not None else ""
        return report.lens_title(rule) + suffix + ("" if config_ok else STALE_RULE)
    return WAITING if not config_ok else "dry run pending"


def _lens(
    line: int, column: int, title: str, uri: str, lines: Sequence[str], codec: PositionCodec
) -> types.CodeLens:
    return types.CodeLens(
        text_range(line, column, column, lines, codec), types.Command(title, DRY_RUN_COMMAND, arguments=[uri])
    )
