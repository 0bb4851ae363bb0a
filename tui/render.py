"""Rich renderables for the detail panes, built from plain strings only.

LLM text and config text go in through `Text.append`, never through markup, so `[/INST]`, `[bold]` and
`{{ x }}` show exactly as written. Pure functions of a submission, a result and the decisions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from evalkit.engine.config import Config
from evalkit.engine.result import Result
from evalkit.engine.submission import Submission
from evalkit.tui.decisions import Decision
from evalkit.tui.proposals import RATING, format_value
from evalkit.tui.visible import visible
from evalkit.tui.word_diff import word_diff

HEADING = "bold"
DIM = "dim"
ADDED = "bold green"
REMOVED = "red strike"
HELD = "green"
FAILED = "red"
COARSE = (
    "Parts have nothing unique to align on (repetitive or rewritten text): there the diff is approximate."
)


def _heading(text: Text, title: str) -> None:
    if text:
        text.append("\n" if text.plain.endswith("\n") else "\n\n")
    text.append(title, HEADING)
    text.append("\n")


def _field(text: Text, name: str, value: Any) -> None:
    text.append(f"{visible(name, lines=False)}: ", DIM)
    text.append(visible(_plain(value)))
    text.append("\n")


def _plain(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def prompt_text(submission: Submission, result: Result | None) -> Text:
    text = Text()
    _heading(text, "Metadata")
    for name in ("category", "subcategory", "difficulty"):
        _field(text, name, getattr(submission, name))
    for name, value in submission.extra.items():
        _field(text, name, value)
    if result is not None:
        _field(text, "prompt feedback", result.prompt_feedback)
    _heading(text, "Prompt")
    text.append(visible(submission.prompt))
    return text


def ranking_text(submission: Submission, result: Result) -> Text:
    text = Text()
    original = list(submission.ranking)
    _heading(text, "Ranking")
    text.append("original:  ", DIM)
    text.append(" > ".join(visible(str(item), lines=False) for item in original) or "—")
    text.append("\ncorrected: ", DIM)
    for position, item in enumerate(result.corrected_ranking):
        if position:
            text.append(" > ")
        moved = position >= len(original) or original[position] != item
        text.append(visible(str(item), lines=False), ADDED if moved else "bold")
    text.append("\nfeedback:  ", DIM)
    text.append(visible(result.ranking_feedback))
    issues = {name: ids for name, ids in result.ranking_issues.items() if ids}
    for name, ids in issues.items():
        text.append(f"\n{visible(name, lines=False)}: ", DIM)
        text.append(", ".join(visible(str(item), lines=False) for item in ids))
    if submission.ranking_rationale:
        text.append("\nrationale: ", DIM)
        text.append(visible(submission.ranking_rationale))
    return text


def ratings_table(result: Result, decisions: Mapping[str, Decision]) -> Text:
    """A line per dimension (original, proposed, reviewed), then its rationale and the rules that moved it."""
    text = Text()
    _heading(text, "Ratings")
    text.append(f"{'dimension':<13}{'original':>9}{'proposed':>9}  reviewed\n", DIM)
    for name, entry in result.corrected_ratings.items():
        moved = entry["updated"] != entry["original"]
        decision = decisions.get(f"{RATING}.{name}")
        text.append(f"{visible(name, lines=False):<13}{format_value(RATING, entry['original']):>9}")
        text.append(f"{format_value(RATING, entry['updated']):>9}", ADDED if moved else "")
        if decision:
            text.append(visible(f"  {decision.action} {format_value(RATING, decision.value)}"))
        text.append(f"\n{'':<13}{visible(_without_rules(entry['rationale']))}\n", DIM)
        rules = entry.get("adjusted_by") or []
        if rules:
            text.append(visible(f"{'':<13}moved by {', '.join(rules)}") + "\n", "yellow")
    return text


def _without_rules(rationale: str) -> str:
    """The engine appends "; adjusted by <rules>" to a rationale; the rules have their own column here."""
    return rationale.split("; adjusted by ", 1)[0]


def summary_text(result: Result, decisions: Mapping[str, Decision]) -> Text:
    text = Text()
    _heading(text, "Outcome")
    _field(text, "score", result.score)
    _field(text, "label", result.label)
    on = [name for name, value in result.flags.items() if value]
    _field(text, "flags", ", ".join(on) if on else "none")
    for target, title in (("label", "reviewed label"), ("note", "reviewer's note")):
        decision = decisions.get(target)
        if decision is not None:
            _field(text, title, decision.note if target == "note" else decision.value)
    for warning in result.meta.get("warnings") or []:
        text.append("warning: ", "yellow")
        text.append(f"{visible(str(warning))}\n")
    _heading(text, "Comments")
    for comment in result.comments:
        text.append("• ")
        text.append(f"{visible(comment)}\n")
    if not result.comments:
        text.append("none\n", DIM)
    _heading(text, "Summary")
    text.append(visible(result.global_summary))
    return text


def rules_text(result: Result) -> Text:
    text = Text()
    _heading(text, f"Fired rules ({len(result.fired_rules)})")
    for rule in result.fired_rules:
        text.append(f"✓ {visible(rule.id, lines=False)}", HELD + " bold")
        text.append(f"  ({rule.type})\n", DIM)
        _conditions(text, rule.detail, "    ")
        for action in rule.actions:
            for name, value in action.items():
                text.append(f"    → {name}: ", DIM)
                text.append(f"{visible(_action_value(name, value))}\n")
    _heading(text, f"Not fired ({len(result.skipped_rules)})")
    for skipped in result.skipped_rules:
        text.append(f"✗ {visible(skipped.id, lines=False)}", FAILED)
        text.append(f"  ({skipped.type}) {visible(skipped.reason)}\n", DIM)
        _conditions(text, skipped.detail, "    ")
    return text


def _action_value(name: str, value: Any) -> str:
    if name == "adjust_dimension" and isinstance(value, dict) and {"dimension", "from", "to"} <= value.keys():
        return f"{value['dimension']} {_plain(value['from'])} → {_plain(value['to'])}"
    return _plain(value)


def _conditions(text: Text, detail: Mapping[str, Any], indent: str) -> None:
    """Each condition, whether it held, and the values it saw; `any_of` blocks nest."""
    for name, seen in detail.items():
        held = isinstance(seen, dict) and seen.get("held")
        text.append(f"{indent}{'✓' if held else '✗'} {visible(name, lines=False)}", HELD if held else FAILED)
        if isinstance(seen, dict):
            values = {key: value for key, value in seen.items() if key not in ("held", "blocks")}
            if values:
                shown_values = ", ".join(f"{key}={_plain(value)}" for key, value in values.items())
                text.append(": " + visible(shown_values))
            text.append("\n")
            for number, block in enumerate(seen.get("blocks") or [], start=1):
                text.append(f"{indent}  block {number}\n", DIM)
                _conditions(text, block, indent + "    ")
        else:
            text.append(f": {visible(_plain(seen))}\n")


def rewrite_diff(original: str, final: str) -> tuple[Text, bool]:
    """A word diff: removed words struck through in red, added words in green; and whether some part had
    nothing unique to align on (there the diff is approximate)."""
    diff = word_diff(original, final)
    before, after = diff.before, diff.after
    text = Text()
    for tag, a1, a2, b1, b2 in diff.opcodes:
        if tag == "equal":
            text.append(visible("".join(before[a1:a2])))
            continue
        if a2 > a1:
            text.append(visible("".join(before[a1:a2])), REMOVED)
        if b2 > b1:
            text.append(visible("".join(after[b1:b2])), ADDED)
    return text, diff.coarse


def rewrite_text(original: str, final: str) -> Text:
    text = Text()
    _heading(text, "Rewrite: changes (removed struck out, added in green)")
    if original == final:
        text.append("no change", DIM)
    else:
        changes, coarse = rewrite_diff(original, final)
        if coarse:
            text.append(COARSE + "\n", "yellow")
        text.append_text(changes)
    _heading(text, "Final rewrite")
    text.append(visible(final) or "(empty)")
    _heading(text, "Original rewrite")
    text.append(visible(original) or "(empty)")
    return text


def diagnostics_text(config: Config) -> Text:
    text = Text()
    _heading(text, f"Config folder: {visible(str(config.folder), lines=False)}")
    _field(
        text, "status", "ok" if config.ok else "has errors: showing the last good config's results, if any"
    )
    _field(text, "hash", config.config_hash or None)
    _heading(text, f"Diagnostics ({len(config.diagnostics)})")
    for diagnostic in config.diagnostics:
        style = {1: "red", 2: "yellow"}.get(int(diagnostic.severity), "")
        # as `evalkit check` prints it: path:line:col: ...
        text.append(f"{visible(diagnostic.format())}\n", style)
    if not config.diagnostics:
        text.append("none\n", DIM)
    return text


def changes_text(lines: list[str], when: str) -> Text:
    text = Text()
    _heading(text, f"What the last config change did to this submission ({when})")
    for line in lines:
        text.append(f"• {visible(line)}\n")
    if not lines:
        text.append("nothing changed for this submission\n", DIM)
    return text


def response_header(
    response_id: Any,
    original_rank: int | None,
    corrected_rank: int | None,
    meta: Mapping[str, Any] | None,
    length: int,
) -> Text:
    text = Text()
    text.append(visible(str(response_id), lines=False), HEADING)
    text.append(f"  rank {_rank(original_rank)} → {_rank(corrected_rank)}  {length} chars", DIM)
    for name, value in (meta or {}).items():
        text.append(f"\n{visible(str(name), lines=False)}: ", DIM)
        text.append(visible(_plain(value)))
    return text


def _rank(position: int | None) -> str:
    return "—" if position is None else f"#{position + 1}"
