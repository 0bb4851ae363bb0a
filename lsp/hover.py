"""Hover: the schema's description of the key under the cursor, with an example; on a dimension name,
its ideal and tolerance; on a rule id (or an alias that brings rules into a rule list), the rule's dry-run
result on the samples and, with the `journals` option, what reviewers decided on its proposals; on the
first line of rules.yaml, the samples without a result (and why) and the samples the edit changes against
the base config (the live impact)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.lsp import schemanav
from evalkit.lsp.docs import DimensionSetting, dimension_markdown, key_markdown
from evalkit.lsp.dryrun import DryRunReport, RuleKey
from evalkit.lsp.impact import Impact
from evalkit.lsp.lenses import WAITING, aliased_rules, rule_kind
from evalkit.lsp.reviewers import Verdicts
from evalkit.lsp.yamlcontext import StructureIndex, WordAt


@dataclass(frozen=True, slots=True)
class HoverFacts:
    """What the config and the dry run know, beyond the schemas."""

    dimensions: dict[str, DimensionSetting]
    report: DryRunReport | None
    config_ok: bool
    no_samples: str | None  # why the dry run has no samples; None when it has them
    reviewers: Verdicts | None = None  # None: no journals configured
    impact: Impact | None = None


def hover_markdown(schema_name: str, index: StructureIndex, target: WordAt, facts: HoverFacts) -> str | None:
    if schemanav.names_dimension(schema_name, target.path, target.is_key):
        return dimension_markdown(target.word, facts.dimensions.get(target.word))
    kind = rule_kind(target.path) if schema_name == "rules" and not target.is_key else None
    if kind is not None:
        return _rule_markdown(index, target, kind, facts)
    return _described_key(schema_name, target)


def aliased_rules_at(
    index: StructureIndex, rules_data: dict[str, Any], line: int, column: int
) -> list[tuple[RuleKey, str | None]]:
    """The rules an alias at (line, column) brings into a rule list, each with its description;
    `rules_data` is the rules file as it last parsed."""
    return [
        (rule, _description(rules_data.get(f"{rule[0]}_rules"), rule[1]))
        for rule, at_line, at_column in aliased_rules(index, rules_data)
        if at_line == line and column >= at_column
    ]


def _description(rules: Any, rule_id: str) -> str | None:
    for rule in rules if isinstance(rules, list) else []:
        if isinstance(rule, dict) and rule.get("id") == rule_id:
            description = rule.get("description")
            return description if isinstance(description, str) else None
    return None


def alias_markdown(rules: list[tuple[RuleKey, str | None]], facts: HoverFacts) -> str | None:
    """On an alias that brings rules into a rule list (`- *shared`): each rule's kind, description and dry
    run, as on a rule's id; `rules` are the rules with their descriptions."""
    parts = [
        "\n\n".join(
            part for part in (f"**rule `{rule_id}`** · {kind} rule (through an alias)", description) if part
        )
        + f"\n\n{_dry_run_text((kind, rule_id), facts)}"
        for (kind, rule_id), description in rules
    ]
    return "\n\n---\n\n".join(parts) or None


def summary_markdown(schema_name: str, line: int, facts: HoverFacts) -> str | None:
    """On the first line of rules.yaml, under the summary lenses: the samples that have no result and
    why, then the samples the edit changes (the live impact)."""
    if schema_name != "rules" or line != 0:
        return None
    missing = facts.report.missing_markdown() if facts.report is not None else None
    impact = facts.impact.markdown() if facts.impact is not None and facts.config_ok else None
    parts = [part for part in (missing, impact) if part is not None]
    return "\n\n---\n\n".join(parts) or None


def _described_key(schema_name: str, target: WordAt) -> str | None:
    """The key that holds the target (for a list item or a value, the nearest key above it)."""
    path = target.path
    while path and not isinstance(path[-1], str):
        path = path[:-1]
    node = schemanav.node_at(schema_name, path) if path else None
    return key_markdown(schemanav.root(schema_name), str(path[-1]), node) if node is not None else None


def _rule_markdown(index: StructureIndex, target: WordAt, kind: str, facts: HoverFacts) -> str:
    id_key = next((key for key in index.keys_on(target.line) if key.path == target.path), None)
    rule_id = index.scalar(id_key) if id_key is not None else target.word
    parts = [f"**rule `{rule_id}`** · {kind} rule"]
    description = next(
        (k for k in index.children(target.path[:-1], target.line) if k.element.name == "description"), None
    )
    if description is not None and description.element.value:
        parts.append(index.scalar(description))
    parts.append(_dry_run_text((kind, rule_id), facts))
    if facts.reviewers is not None:
        parts.append(facts.reviewers.text(rule_id))
    return "\n\n".join(parts)


def _dry_run_text(rule: tuple[str, str], facts: HoverFacts) -> str:
    if facts.no_samples is not None:
        return facts.no_samples
    report = facts.report
    if report is None or rule not in report.rules:
        return WAITING if not facts.config_ok else "Dry run pending."
    return report.rule_markdown(rule)
