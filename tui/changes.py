"""What changed in one submission's result when the rules changed: the live-rules view for rule authors.

`result_changes(before, after)` lists the differences a reviewer cares about, one plain line each: ratings,
ranking, rewrite, label, score, flags, and the rules that started or stopped firing.
"""

from __future__ import annotations

from typing import Any

from evalkit.engine.result import Result


def result_changes(before: Result, after: Result) -> list[str]:
    lines = _rating_changes(before, after)
    lines += _value_change("ranking", before.corrected_ranking, after.corrected_ranking)
    if before.rewrite_final != after.rewrite_final:
        lines.append(f"rewrite: {len(before.rewrite_final)} → {len(after.rewrite_final)} chars")
    lines += _value_change("label", before.label, after.label)
    lines += _value_change("score", before.score, after.score)
    lines += _set_changes("flag", set(_on(before.flags)), set(_on(after.flags)))
    lines += _set_changes(
        "rule",
        {r.id for r in before.fired_rules},
        {r.id for r in after.fired_rules},
        ("now fires", "no longer fires"),
    )
    lines += _set_changes("comment", set(before.comments), set(after.comments))
    return lines


def _on(flags: dict[str, bool]) -> list[str]:
    return [name for name, on in flags.items() if on]


def _rating_changes(before: Result, after: Result) -> list[str]:
    lines = []
    for name, entry in after.corrected_ratings.items():
        old = before.corrected_ratings.get(name, {}).get("updated")
        if old != entry["updated"]:
            lines.append(f"rating {name}: proposed {_show(old)} → {_show(entry['updated'])}")
    return lines


def _value_change(name: str, old: Any, new: Any) -> list[str]:
    return [] if old == new else [f"{name}: {_show(old)} → {_show(new)}"]


def _set_changes(
    kind: str, old: set[str], new: set[str], words: tuple[str, str] = ("added", "removed")
) -> list[str]:
    return [f"{kind} {words[0]}: {name}" for name in sorted(new - old)] + [
        f"{kind} {words[1]}: {name}" for name in sorted(old - new)
    ]


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return " > ".join(str(item) for item in value)
    return str(value)
