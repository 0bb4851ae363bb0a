"""The Markdown report (`--report-md`): a summary, the ratings table, the ranking, the rewrite and the
fired rules, for one submission or a batch. Renders the result object (Result.to_dict())."""

from __future__ import annotations

import json
from typing import Any


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"


def _ratings_table(ratings: dict[str, dict[str, Any]]) -> list[str]:
    lines = ["| dimension | original | updated | rationale |", "|---|---:|---:|---|"]
    for name, entry in ratings.items():
        lines.append(
            f"| {name} | {entry['original']:g} | {entry['updated']:g} | {_cell(entry['rationale'])} |"
        )
    return lines


def _fired(rules: list[dict[str, Any]]) -> list[str]:
    if not rules:
        return ["No rule fired."]
    lines = []
    for rule in rules:
        actions = "; ".join(_cell(action) for action in rule["actions"]) or "no actions"
        lines.append(f"- **{rule['id']}** ({rule['type']}): {actions}")
    return lines


def submission_section(source: str, result: dict[str, Any], level: int = 2) -> str:
    heading = "#" * level
    flags = ", ".join(result["flags"]) or "none"
    score = "none" if result["score"] is None else f"{result['score']:g}"
    lines = [
        f"{heading} {source}",
        "",
        f"- **Label:** {result['label'] or 'none'}",
        f"- **Score:** {score}",
        f"- **Flags:** {flags}",
        f"- **Prompt:** {_cell(result['prompt_feedback'])}",
        "",
        f"{heading}# Ratings",
        "",
        *_ratings_table(result["corrected_ratings"]),
        "",
        f"{heading}# Ranking",
        "",
        " > ".join(_cell(i) for i in result["corrected_ranking"]),
        "",
        _cell(result["ranking_feedback"]),
        "",
        f"{heading}# Rewrite",
        "",
        _fence(result["rewrite_final"]),
        "",
        f"{heading}# Fired rules",
        "",
        *_fired(result["fired_rules"]),
        "",
        f"{heading}# Summary",
        "",
        result["global_summary"],
        "",
    ]
    return "\n".join(lines)


def render_report(sections: list[str], summary: dict[str, Any]) -> str:
    """The whole report: a header with the batch summary, then one section per submission."""
    lines = [
        "# evalkit report",
        "",
        f"- **Config hash:** `{summary.get('config_hash', '')}`",
        f"- **Rule version:** {summary.get('rule_version')}",
        f"- **Submissions:** {summary.get('count', 0)} evaluated, {summary.get('errors', 0)} with errors",
    ]
    labels = summary.get("labels") or {}
    if labels:
        lines.append("- **Labels:** " + ", ".join(f"{k}: {v}" for k, v in sorted(labels.items())))
    return "\n".join(lines) + "\n\n" + "\n".join(sections)
