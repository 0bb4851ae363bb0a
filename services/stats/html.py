"""`evalkit stats --format html`: one self-contained page that opens offline (inline SVG and CSS, no script,
no font or image fetched): acceptance per rule, the label confusion matrix, per-dimension drift, the
reviewers' throughput and agreement. Every text from the journals or the config is escaped, as
engine/untrusted_text.py shows text in HTML."""

from __future__ import annotations

import math
from typing import Any

from evalkit.engine.text import counted
from evalkit.engine.untrusted_text import shown_as
from evalkit.services.stats.agreement import Alpha
from evalkit.services.stats.compute import ReviewStats, Tally
from evalkit.services.stats.report import label_names, number, percent

COLOURS = {"accepted": "#2e7d32", "edited": "#f9a825", "discarded": "#c62828"}
BAR_WIDTH = 360
ROW = 22
CELL_HEIGHT = 40
CHARACTER = 7
"""The width of a character of the charts' 12px text, in pixels, wide enough for digits and most letters."""

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; }
td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }
td.n, th.n { text-align: right; } .muted { color: #666; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
"""


def render_html(stats: ReviewStats, config: dict[str, Any]) -> str:
    decided = sum(tally.decided for tally in stats.kinds.values())
    body = [
        "<h1>What reviewers did with the engine's proposals</h1>",
        f"<p class=muted>{counted(len(stats.journals), 'journal')}, "
        f"{counted(stats.submissions, 'submission')} reviewed, {counted(decided, 'decision')}; "
        f"config {_html(str(config['folder']))} (hash {_html(str(config['hash'])[:12])})</p>",
        _unmatched(stats),
        "<h2>Acceptance per rule, most overruled first</h2>",
        _legend(),
        _rule_bars(stats),
        "<h2>Proposals by kind</h2>",
        _kind_bars(stats),
        "<h2>Labels: engine (rows) vs final (columns)</h2>",
        _confusion(stats),
        "<h2>Rating drift per dimension</h2>",
        _drift(stats),
        "<h2>Reviewers</h2>",
        _journals(stats),
        _agreement(stats),
    ]
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width'>"
        f"<title>evalkit stats</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + "\n</body></html>"
    )


def _unmatched(stats: ReviewStats) -> str:
    notes = []
    if stats.unmatched:
        notes.append(f"{stats.unmatched} decisions on proposals this config does not make are left out.")
    if stats.missing:
        notes.append(f"{len(stats.missing)} reviewed submissions were not found or not valid.")
    return f"<p class=muted>{' '.join(notes)}</p>" if notes else ""


def _legend() -> str:
    return (
        "<p class=legend>"
        + "".join(f"<span style='background:{colour}'></span>{name}" for name, colour in COLOURS.items())
        + "</p>"
    )


def _stacked(rows: list[tuple[str, Tally]], label_width: int) -> str:
    """One bar a row: accepted, edited and discarded as shares of its decisions."""
    if not rows:
        return "<p class=muted>No decisions.</p>"
    height = ROW * len(rows) + 4
    captions = [f"{tally.accepted}/{tally.decided} accepted" for _, tally in rows]
    caption_width = max(120, 12 + CHARACTER * max(map(len, captions)))  # 1083/1545 accepted: whole
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{label_width + BAR_WIDTH + caption_width}' "
        f"height='{height}' role=img>"
    ]
    for index, ((name, tally), caption) in enumerate(zip(rows, captions, strict=True)):
        y = index * ROW + 2
        parts.append(f"<text x='{label_width - 6}' y='{y + 14}' text-anchor=end>{_html(name)}</text>")
        x = float(label_width)
        for part, count in (
            ("accepted", tally.accepted),
            ("edited", tally.edited),
            ("discarded", tally.discarded),
        ):
            width = BAR_WIDTH * count / tally.decided if tally.decided else 0.0
            if width:
                parts.append(
                    f"<rect x='{x:.1f}' y='{y}' width='{width:.1f}' height='{ROW - 6}' "
                    f"fill='{COLOURS[part]}'><title>{part} {count}</title></rect>"
                )
            x += width
        parts.append(f"<text x='{label_width + BAR_WIDTH + 6}' y='{y + 14}'>{caption}</text>")
    return "".join(parts) + "</svg>"


def _label_width(names: list[str]) -> int:
    return min(320, 40 + CHARACTER * max((len(name) for name in names), default=0))


def _rule_bars(stats: ReviewStats) -> str:
    rows = [(rule.rule, rule.tally) for rule in stats.rules if rule.tally.decided]
    return _stacked(rows, _label_width([name for name, _ in rows]))


def _kind_bars(stats: ReviewStats) -> str:
    rows = [(kind, tally) for kind, tally in stats.kinds.items() if tally.decided]
    return _stacked(rows, _label_width([name for name, _ in rows]))


def _confusion(stats: ReviewStats) -> str:
    same, total = stats.label_agreement
    if not total:
        return "<p class=muted>No label decisions.</p>"
    engines, finals = label_names(stats)
    width = _label_width(engines)
    cell = max(64, 8 * max(len(name) for name in finals) + 8)  # wide enough for its column's label
    parts = [
        f"<p>The reviewers kept the engine's label {same}/{total} ({percent(same / total)}).</p>",
        (
            f"<svg xmlns='http://www.w3.org/2000/svg' width='{width + cell * len(finals) + 10}' "
            f"height='{CELL_HEIGHT * len(engines) + 30}' role=img>"
        ),
    ]
    for column, final in enumerate(finals):
        parts.append(
            f"<text x='{width + column * cell + cell / 2}' y='16' text-anchor=middle>{_html(final)}</text>"
        )
    for row, engine in enumerate(engines):
        y = 24 + row * CELL_HEIGHT
        parts.append(
            f"<text x='{width - 6}' y='{y + CELL_HEIGHT / 2 + 4}' text-anchor=end>{_html(engine)}</text>"
        )
        parts.extend(
            _cell(stats, engine, final, width + column * cell, y, cell) for column, final in enumerate(finals)
        )
    return "".join(parts) + "</svg>"


def _cell(stats: ReviewStats, engine: str, final: str, x: int, y: int, width: int) -> str:
    """One count, shaded by its share of the biggest: green where the reviewer kept the label, red not."""
    count = stats.labels.get((engine, final), 0)
    shade = 0.08 + 0.85 * count / max(stats.labels.values()) if count else 0.0
    colour = "46,125,50" if engine == final else "198,40,40"
    return (
        f"<rect x='{x}' y='{y}' width='{width - 2}' height='{CELL_HEIGHT - 2}' "
        f"fill='rgba({colour},{shade:.2f})' stroke='#ccc'/>"
        f"<text x='{x + width / 2}' y='{y + CELL_HEIGHT / 2 + 4}' text-anchor=middle>{count}</text>"
    )


def _drift(stats: ReviewStats) -> str:
    """Two bars a dimension: mean |final - proposed| (blue) and mean |final - original| (grey)."""
    if not stats.dimensions:
        return "<p class=muted>No rating decisions.</p>"
    biggest = (
        max(max(d.mean_from_proposed() or 0.0, d.mean_from_original() or 0.0) for d in stats.dimensions)
        or 1.0
    )
    width = _label_width([d.dimension for d in stats.dimensions])
    parts = [
        "<p class=legend><span style='background:#1565c0'></span>mean |final − proposed|"
        "<span style='background:#9e9e9e'></span>mean |final − original|</p>",
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width + BAR_WIDTH + 80}' "
        f"height='{2 * ROW * len(stats.dimensions) + 4}' role=img>",
    ]
    for index, drift in enumerate(stats.dimensions):
        y = index * 2 * ROW + 2
        parts.append(f"<text x='{width - 6}' y='{y + ROW}' text-anchor=end>{_html(drift.dimension)}</text>")
        for offset, value, colour in (
            (0, drift.mean_from_proposed(), "#1565c0"),
            (ROW - 2, drift.mean_from_original(), "#9e9e9e"),
        ):
            length = _bar(value, biggest)
            parts.append(
                f"<rect x='{width}' y='{y + offset}' width='{length:.1f}' height='{ROW - 6}' "
                f"fill='{colour}'/><text x='{width + length + 6:.1f}' y='{y + offset + 13}'>"
                f"{number(value)}</text>"
            )
    return "".join(parts) + "</svg>"


def _bar(value: float | None, biggest: float) -> float:
    """A bar's length for `value` of `biggest`: 0 for none, and never NaN or infinite in the page."""
    length = BAR_WIDTH * (value or 0.0) / biggest
    return length if math.isfinite(length) else 0.0


def _journals(stats: ReviewStats) -> str:
    rows = "".join(
        f"<tr><td>{_html(j.journal)}</td><td class=n>{j.decisions}</td><td class=n>{j.sources}</td>"
        f"<td class=n>{j.active_hours:.2f}</td><td class=n>{number(j.per_hour, 0)}</td></tr>"
        for j in stats.journals
    )
    return (
        "<table><tr><th>journal</th><th class=n>decisions</th><th class=n>submissions</th>"
        f"<th class=n>active hours</th><th class=n>decisions per hour</th></tr>{rows}</table>"
    )


def _agreement(stats: ReviewStats) -> str:
    if not stats.agreement:
        return ""
    rows = "".join(
        f"<tr><td>{'ratings (interval)' if a.level == 'interval' else 'labels (nominal)'}</td>"
        f"<td class=n>{a.items}</td><td>{_alpha_text(a)}</td></tr>"
        for a in stats.agreement
    )
    return (
        "<h2>Agreement between reviewers (Krippendorff's alpha)</h2><table><tr><th></th>"
        f"<th class=n>shared items</th><th>alpha</th></tr>{rows}</table>"
    )


def _html(text: object) -> str:
    return shown_as(text, "html")


def _alpha_text(result: Alpha) -> str:
    return number(result.value, 3) if result.value is not None else _html(result.note or "—")
