"""`evalkit stats` as terminal text and as JSON (the HTML page is `stats_html`)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from evalkit.engine.text import counted
from evalkit.engine.untrusted_text import shown_as
from evalkit.services.stats.compute import KINDS, NO_LABEL, ReviewStats, Tally


def render_json(stats: ReviewStats, config: dict[str, Any]) -> str:
    """JSON, strictly: a number that is not finite (a mean that overflowed) is null, never `Infinity` or
    `NaN`, which JSON has not."""
    report = finite({"config": config, **stats.to_dict()})
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)


def finite(value: Any) -> Any:
    """`value` with every float that is not finite, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def render_text(stats: ReviewStats, config: dict[str, Any]) -> str:
    sections = [
        _heading(stats, config),
        _rules(stats),
        _kinds(stats),
        _dimensions(stats),
        _labels(stats),
        _journals(stats),
        _agreement(stats),
    ]
    return "\n\n".join(section for section in sections if section)


def percent(rate: float | None) -> str:
    return "—" if rate is None or not math.isfinite(rate) else f"{rate:.0%}"


def number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (0,)) -> str:
    """Columns padded to their widest cell; the `left` ones (text) left-aligned, the rest (numbers)
    right-aligned. Each cell shown as a terminal shows untrusted text (a rule id, a label, a path)."""
    shown_rows = [[shown_as(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in shown_rows) for i in range(len(header))]
    lines = []
    for row in shown_rows:
        cells = [
            cell.ljust(w) if i in left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _heading(stats: ReviewStats, config: dict[str, Any]) -> str:
    decided = sum(tally.decided for tally in stats.kinds.values())
    lines = [
        f"{counted(len(stats.journals), 'journal')}, {counted(stats.submissions, 'submission')} reviewed, "
        f"{counted(decided, 'decision')} on proposals "
        f"(config {shown_as(config['folder'])}, hash {str(config['hash'])[:12]})"
    ]
    if stats.unmatched:
        lines.append(
            f"{stats.unmatched} decisions on proposals this config does not make (the rules or the "
            "submissions changed since) are left out of the rule, kind, dimension and label tables"
        )
    if stats.missing:
        shown = ", ".join(map(shown_as, stats.missing[:3])) + (", …" if len(stats.missing) > 3 else "")
        lines.append(f"{len(stats.missing)} reviewed submissions not found or not valid: {shown}")
    return "\n".join(lines)


def _tally_cells(tally: Tally) -> list[str]:
    return [
        str(tally.decided),
        f"{tally.accepted} {percent(tally.rate(tally.accepted))}",
        f"{tally.discarded} {percent(tally.rate(tally.discarded))}",
        f"{tally.edited} {percent(tally.rate(tally.edited))}",
    ]


def _rules(stats: ReviewStats) -> str:
    if not stats.rules:
        return "Rules: no rule moved a proposal on the reviewed submissions"
    rows = [[rule.rule, *_tally_cells(rule.tally), _moved(rule.moved)] for rule in stats.rules]
    return "Rules, most overruled first (moved: its proposals on the reviewed submissions)\n" + table(
        ["rule", "decided", "accepted", "discarded", "edited", "moved"], rows, left=(0, 5)
    )


def _moved(moved: dict[str, int]) -> str:
    return ", ".join(f"{moved[kind]} {kind}" for kind in KINDS if moved.get(kind))


def _kinds(stats: ReviewStats) -> str:
    rows = [[kind, *_tally_cells(tally)] for kind, tally in stats.kinds.items() if tally.decided]
    if not rows:
        return "Proposals: none decided"
    return "Proposals by kind\n" + table(["kind", "decided", "accepted", "discarded", "edited"], rows)


def _dimensions(stats: ReviewStats) -> str:
    if not stats.dimensions:
        return ""
    rows = [
        [d.dimension, str(d.decided), number(d.mean_from_proposed()), number(d.mean_from_original())]
        for d in stats.dimensions
    ]
    return "Ratings: how far the final ratings are\n" + table(
        ["dimension", "decided", "mean |final-proposed|", "mean |final-original|"], rows
    )


def label_names(stats: ReviewStats) -> tuple[list[str], list[str]]:
    """The engine's labels (rows) and the final ones (columns), (none) last."""

    def ordered(names: set[str]) -> list[str]:
        return sorted(names - {NO_LABEL}) + ([NO_LABEL] if NO_LABEL in names else [])

    return (ordered({engine for engine, _ in stats.labels}), ordered({final for _, final in stats.labels}))


def _labels(stats: ReviewStats) -> str:
    same, total = stats.label_agreement
    if not total:
        return ""
    engines, finals = label_names(stats)
    rows = [
        [engine, *[str(stats.labels.get((engine, final), "")) or "." for final in finals]]
        for engine in engines
    ]
    return (
        f"Labels: the reviewers kept the engine's label {same}/{total} ({percent(same / total)}); "
        "rows: engine, columns: final\n" + table(["engine \\ final", *finals], rows)
    )


def _journals(stats: ReviewStats) -> str:
    rows = [
        [
            j.journal,
            str(j.decisions),
            str(j.sources),
            f"{j.active_hours:.2f}",
            number(j.per_hour, 0),
            _span(j.first, j.last),
            str(j.skipped),
        ]
        for j in stats.journals
    ]
    return "Reviewers\n" + table(
        ["journal", "decisions", "submissions", "active h", "per hour", "from – to (UTC)", "skipped"],
        rows,
        left=(0, 5),
    )


def _span(first: str | None, last: str | None) -> str:
    """`2026-11-28 09:00 – 2026-11-28 17:30`: both ends as the report gives them, in UTC."""
    if first is None or last is None:
        return "—"
    return f"{first[:16].replace('T', ' ')} – {last[:16].replace('T', ' ')}"


def _agreement(stats: ReviewStats) -> str:
    if not stats.agreement:
        return ""
    names = {"interval": "ratings (interval)", "nominal": "labels (nominal)"}
    rows = [
        [names[a.level], str(a.items), number(a.value, 3) if a.value is not None else a.note or "—"]
        for a in stats.agreement
    ]
    heading = "Agreement between reviewers (Krippendorff's alpha)\n"
    return heading + table(["", "shared items", "alpha"], rows, left=(0, 2))
