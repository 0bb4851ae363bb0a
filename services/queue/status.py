"""`evalkit queue status`: progress per reviewer (done, claimed, pace), reviews per item, and agreement so
far on the items two or more reviewers finished: Krippendorff's alpha (services/agreement.py, the one
`evalkit stats` uses) over final ratings (interval) and labels (nominal), and per rule over what reviewers
did with that rule's proposals (accept, discard, edit: nominal).

Everything is read with a few aggregate queries and one pass over the final decisions, so 100,000 items
and 300,000 decisions report in well under a second (benchmarks/bench_queue.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from typing import Any

from evalkit.services.agreement import Alpha, alpha
from evalkit.services.queue.store import REVIEW, QueueStore

NO_LABEL = "(none)"  # as `evalkit stats` counts a label discarded or cleared
SHOWN_IN_PROGRESS = 20  # items listed by name in the text and HTML reports


@dataclass(frozen=True, slots=True)
class ReviewerRow:
    name: str
    done: int
    claimed: int
    per_hour: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"reviewer": self.name, "done": self.done, "claimed": self.claimed, "per_hour": self.per_hour}


@dataclass
class QueueStatus:
    queue: str
    per_item: int
    items: int
    calibration: int
    reviewers: list[ReviewerRow]
    reviews: dict[int, int]  # reviews finished -> how many items have that many
    in_progress: list[tuple[str, int, int]]  # (source, finished, claimed) of items under way
    agreement: list[Alpha]
    by_rule: dict[str, Alpha] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "queue": self.queue,
            "per_item": self.per_item,
            "items": self.items,
            "calibration": self.calibration,
            "reviewers": [row.to_dict() for row in self.reviewers],
            "items_by_reviews": {str(count): items for count, items in sorted(self.reviews.items())},
            "in_progress": [{"source": s, "reviews": d, "claimed": c} for s, d, c in self.in_progress],
            "agreement": {a.level: a.to_dict() for a in self.agreement},
            "agreement_by_rule": {rule: a.to_dict() for rule, a in sorted(self.by_rule.items())},
        }


def queue_status(store: QueueStore) -> QueueStatus:
    settings = store.settings()
    db = store.db
    items, calibration = db.execute("SELECT count(*), coalesce(sum(calibration), 0) FROM items").fetchone()
    reviews = dict(
        db.execute(
            "SELECT n, count(*) FROM (SELECT count(s.done_at) AS n FROM items i "
            "LEFT JOIN slots s ON s.item_id = i.id GROUP BY i.id) counts GROUP BY n"
        ).fetchall()
    )
    status = QueueStatus(
        store.shown,
        settings.per_item,
        int(items),
        int(calibration),
        _reviewers(store),
        {int(k): int(v) for k, v in reviews.items()},
        _in_progress(store),
        [],
    )
    status.agreement, status.by_rule = _agreement(store)
    return status


def _reviewers(store: QueueStore) -> list[ReviewerRow]:
    rows = store.db.execute(
        "SELECT reviewer, count(done_at), count(*) - count(done_at), min(claimed_at), max(done_at) "
        "FROM slots WHERE reviewer IS NOT NULL GROUP BY reviewer ORDER BY reviewer"
    ).fetchall()
    return [
        ReviewerRow(name, int(done), int(open_), _pace(int(done), first, last))
        for name, done, open_, first, last in rows
    ]


def _pace(done: int, first: float | None, last: float | None) -> float | None:
    if not done or first is None or last is None or last <= first:
        return None
    return round(done / ((last - first) / 3600), 1)


def _in_progress(store: QueueStore) -> list[tuple[str, int, int]]:
    rows = store.db.execute(
        "SELECT i.source, count(s.done_at), count(s.reviewer) - count(s.done_at) FROM slots s "
        "JOIN items i ON i.id = s.item_id GROUP BY i.id, i.source "
        "HAVING count(s.reviewer) > count(s.done_at) ORDER BY i.id LIMIT ?",
        (SHOWN_IN_PROGRESS,),
    ).fetchall()
    return [(source, int(done), int(claimed)) for source, done, claimed in rows]


def _agreement(store: QueueStore) -> tuple[list[Alpha], dict[str, Alpha]]:
    """Alpha over final decisions (each reviewer's last entry per item and target) of finished reviews
    on items finished by two or more reviewers."""
    rows = store.db.execute(
        "SELECT d.item_id, d.reviewer, d.target, d.action, d.value, d.rules FROM decisions d "
        "JOIN (SELECT max(seq) AS seq FROM decisions WHERE role = ? GROUP BY item_id, reviewer, target) last "
        "ON last.seq = d.seq "
        "JOIN slots s ON s.item_id = d.item_id AND s.reviewer = d.reviewer AND s.done_at IS NOT NULL "
        "WHERE d.item_id IN (SELECT item_id FROM slots WHERE done_at IS NOT NULL "
        "GROUP BY item_id HAVING count(*) >= 2)",
        (REVIEW,),
    ).fetchall()
    ratings: dict[str, dict[Any, Any]] = defaultdict(dict)
    labels: dict[str, dict[Any, Any]] = defaultdict(dict)
    actions: dict[str, dict[str, dict[Any, Any]]] = defaultdict(lambda: defaultdict(dict))
    for item_id, reviewer, target, action, value, rules in rows:
        if action == "clear" or target in ("status", "note"):
            continue
        decoded = json.loads(value) if value is not None else None
        if (
            target.startswith("rating.")
            and isinstance(decoded, (int, float))
            and not isinstance(decoded, bool)
        ):
            ratings[reviewer][(item_id, target)] = decoded
        elif target == "label":
            labels[reviewer][item_id] = decoded or NO_LABEL
        for rule in filter(None, rules.split(",")):
            actions[rule][reviewer][(item_id, target)] = action
    overall = [alpha("interval", list(ratings.values())), alpha("nominal", list(labels.values()))]
    by_rule = {rule: alpha("nominal", list(maps.values())) for rule, maps in actions.items()}
    return overall, by_rule


def render_text(status: QueueStatus) -> str:
    lines = [
        f"queue {status.queue}: {status.items} items ({status.calibration} for calibration), "
        f"{status.per_item} reviewers each",
        "reviews per item: " + ", ".join(f"{n}: {count}" for n, count in sorted(status.reviews.items())),
        "",
        "reviewer              done  claimed  per hour",
    ]
    for row in status.reviewers:
        pace = "-" if row.per_hour is None else f"{row.per_hour:g}"
        lines.append(f"{row.name[:20]:<20} {row.done:>5}  {row.claimed:>7}  {pace:>8}")
    if status.in_progress:
        lines += ["", "under way (reviews done, claimed):"]
        lines += [f"  {source}: {done}, {claimed}" for source, done, claimed in status.in_progress]
    lines += ["", "agreement (items finished by 2 or more reviewers):"]
    lines += [f"  {a.level}: {_alpha_text(a)}" for a in status.agreement]
    for rule, value in sorted(status.by_rule.items()):
        lines.append(f"  rule {rule}: {_alpha_text(value)}")
    return "\n".join(lines) + "\n"


def _alpha_text(value: Alpha) -> str:
    if value.value is None:
        return f"- ({value.note}; {value.items} items)"
    return f"{value.value:.3f} over {value.items} items"


def render_html(status: QueueStatus) -> str:
    reviewer_rows = "".join(
        f"<tr><td>{escape(r.name)}</td><td class=n>{r.done}</td><td class=n>{r.claimed}</td>"
        f"<td class=n>{'-' if r.per_hour is None else r.per_hour}</td></tr>"
        for r in status.reviewers
    )
    agreement_rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{escape(_alpha_text(a))}</td></tr>"
        for name, a in [(a.level, a) for a in status.agreement]
        + [(f"rule {rule}", a) for rule, a in sorted(status.by_rule.items())]
    )
    counts = ", ".join(f"{n}: {c}" for n, c in sorted(status.reviews.items()))
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>evalkit queue status</title>"
        "<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px}td,th{padding:3px 8px;"
        "border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}</style></head>\n<body>\n"
        f"<h1>Queue {escape(status.queue)}</h1><p>{status.items} items ({status.calibration} for "
        f"calibration), {status.per_item} reviewers each; reviews per item: {escape(counts)}</p>"
        "<h2>Reviewers</h2><table><tr><th>reviewer</th><th class=n>done</th><th class=n>claimed</th>"
        f"<th class=n>per hour</th></tr>{reviewer_rows}</table>"
        f"<h2>Agreement</h2><table>{agreement_rows}</table>\n</body></html>\n"
    )
