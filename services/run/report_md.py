"""The Markdown report (`--report-md`): a summary, the ratings table, the ranking, the rewrite and the
fired rules, for one submission or a batch. Renders the result object (Result.to_dict()).

Every text a submission or a config supplies (sources, ids, labels, flags, rationales, comments, the
rewrite) is shown as engine/untrusted_text.py shows Markdown: it renders as itself, never as HTML, a link,
an image, a mention, a heading or the end of a table row.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.engine.untrusted_text import shown_as


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return shown_as(text, "markdown")


def _ratings_table(ratings: dict[str, dict[str, Any]]) -> list[str]:
    lines = ["| dimension | original | updated | rationale |", "|---|---:|---:|---|"]
    for name, entry in ratings.items():
        lines.append(
            f"| {_text(name)} | {entry['original']:g} | {entry['updated']:g} | {_text(entry['rationale'])} |"
        )
    return lines


def _fired(rules: list[dict[str, Any]]) -> list[str]:
    if not rules:
        return ["No rule fired."]
    lines = []
    for rule in rules:
        actions = "; ".join(_text(action) for action in rule["actions"]) or "no actions"
        lines.append(f"- **{_text(rule['id'])}** ({_text(rule['type'])}): {actions}")
    return lines


def submission_section(source: str, result: dict[str, Any], level: int = 2) -> str:
    heading = "#" * level
    flags = ", ".join(map(_text, result["flags"])) or "none"
    score = "none" if result["score"] is None else f"{result['score']:g}"
    label = _text(result["label"]) if result["label"] else "none"
    lines = [
        f"{heading} {_text(source)}",
        "",
        f"- **Label:** {label}",
        f"- **Score:** {score}",
        f"- **Flags:** {flags}",
        f"- **Prompt:** {_text(result['prompt_feedback'])}",
        "",
        f"{heading}# Ratings",
        "",
        *_ratings_table(result["corrected_ratings"]),
        "",
        f"{heading}# Ranking",
        "",
        " > ".join(_text(i) for i in result["corrected_ranking"]),
        "",
        _text(result["ranking_feedback"]),
        "",
        f"{heading}# Rewrite",
        "",
        shown_as(result["rewrite_final"], "markdown-block"),
        "",
        f"{heading}# Fired rules",
        "",
        *_fired(result["fired_rules"]),
        "",
        f"{heading}# Summary",
        "",
        shown_as(result["global_summary"], "markdown-block"),
        "",
    ]
    return "\n".join(lines)


def error_section(source: str, error: str) -> str:
    """The section of a submission that could not be evaluated."""
    return f"## {_text(source)}\n\nError: {_text(error)}\n"


def render_report(sections: list[str], summary: dict[str, Any]) -> str:
    """The whole report: a header with the batch summary, then one section per submission."""
    lines = [
        "# evalkit report",
        "",
        f"- **Config hash:** `{summary.get('config_hash', '')}`",
        f"- **Rule version:** {_text(str(summary.get('rule_version')))}",
        f"- **Submissions:** {summary.get('count', 0)} evaluated, {summary.get('errors', 0)} with errors",
    ]
    labels = summary.get("labels") or {}
    if labels:
        shown = ", ".join(f"{_text(k)}: {v}" for k, v in sorted(labels.items()))
        lines.append(f"- **Labels:** {shown}")
    return "\n".join(lines) + "\n\n" + "\n".join(sections)
