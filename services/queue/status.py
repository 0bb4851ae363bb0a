"""`evalkit queue status`: progress per reviewer (done, claimed, pace), reviews per item, and agreement so
far on the items two or more reviewers finished: Krippendorff's alpha (services/stats/agreement.py, the one
`evalkit stats` uses) over final ratings (interval) and labels (nominal), and per rule over what reviewers
did with that rule's proposals (accept, discard, edit: nominal).

Everything is read with a few aggregate queries on indexes (schema version 2); agreement is gathered by the
database into one row per distinct set of values a unit holds, so Python sums a few rows, not 300,000
decisions (benchmarks/bench_queue.py).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from typing import Any

from evalkit.services.queue.store import REVIEW, QueueStore
from evalkit.services.stats.agreement import Alpha, alpha_of_counted

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
    in_progress: list[tuple[str, int, int]]  # (source, finished, claimed): items under way, or all held
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
            "item_reviews": [{"source": s, "reviews": d, "claimed": c} for s, d, c in self.in_progress],
            "agreement": {a.level: a.to_dict() for a in self.agreement},
            "agreement_by_rule": {rule: a.to_dict() for rule, a in sorted(self.by_rule.items())},
        }


def queue_status(store: QueueStore, every_item: bool = False) -> QueueStatus:
    """The report; `every_item` lists each item a reviewer ever held (JSON), else the first few under way."""
    settings = store.settings()
    db = store.db
    items, calibration = db.execute(
        "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM items WHERE calibration = 1)"
    ).fetchone()
    reviews = _items_by_reviews(store, int(items))
    status = QueueStatus(
        store.shown,
        settings.per_item,
        int(items),
        int(calibration),
        _reviewers(store),
        reviews,
        _in_progress(store, every_item),
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


def _items_by_reviews(store: QueueStore, items: int) -> dict[int, int]:
    """Reviews finished -> how many items have that many (the items no one finished: the rest)."""
    rows = store.db.execute(
        "SELECT n, count(*) FROM (SELECT count(*) AS n FROM slots WHERE done_at IS NOT NULL "
        "GROUP BY item_id) counts GROUP BY n"
    ).fetchall()
    reviewed = {int(n): int(count) for n, count in rows}
    unreviewed = items - sum(reviewed.values())
    return {0: unreviewed, **reviewed} if unreviewed else reviewed


def _in_progress(store: QueueStore, every_item: bool) -> list[tuple[str, int, int]]:
    """(source, reviews finished, reviews claimed and unfinished) of the items under way (the first few),
    or of every item held or reviewed."""
    held = "reviewer IS NOT NULL" + ("" if every_item else " AND done_at IS NULL")
    limit = "" if every_item else f" LIMIT {SHOWN_IN_PROGRESS}"
    rows = store.db.execute(
        "SELECT i.source, count(s.done_at), count(s.reviewer) - count(s.done_at) FROM slots s "
        f"JOIN items i ON i.id = s.item_id WHERE s.item_id IN (SELECT item_id FROM slots WHERE {held}) "
        f"GROUP BY i.id, i.source ORDER BY i.id{limit}"
    ).fetchall()
    return [(source, int(done), int(claimed)) for source, done, claimed in rows]


# Each unit's final decisions (a reviewer's last entry per item and target, not a `clear`, of a review they
# finished), gathered into one list per unit by the database: units holding the same list are counted, not
# sent. The lists come in the order the rows did, so one set of values may come as a few lists: it counts
# the same. `decisions_unit` gives the rows in unit order (no sort), `slots_done` the finished reviews
# without reading a slot's row.
_UNITS = (
    "SELECT kind, entries, count(*) FROM (SELECT CASE WHEN d.target = 'label' THEN 'label' "
    "WHEN substr(d.target, 1, 7) = 'rating.' THEN 'rating' ELSE '' END AS kind, "  # LIKE: no case in SQLite
    "{list_of}({entry}(d.action, d.rules, d.value)){as_text} AS entries FROM decisions d "
    "WHERE d.role = ? AND d.action <> 'clear' AND NOT EXISTS (SELECT 1 FROM decisions later "
    "WHERE later.item_id = d.item_id AND later.target = d.target AND later.role = d.role "
    "AND later.reviewer = d.reviewer AND later.seq > d.seq) AND EXISTS (SELECT 1 FROM slots s{finished} "
    "WHERE s.item_id = d.item_id AND s.reviewer = d.reviewer AND s.done_at IS NOT NULL) "
    "GROUP BY d.item_id, d.target HAVING count(*) >= 2) units GROUP BY kind, entries"
)
_WORDS = {
    # SQLite would take the unique (item_id, reviewer) index and read each slot's row for done_at
    "sqlite": {
        "list_of": "json_group_array",
        "entry": "json_array",
        "as_text": "",
        "finished": " INDEXED BY slots_done",
    },
    "postgresql": {"list_of": "json_agg", "entry": "json_build_array", "as_text": "::text", "finished": ""},
}


def _agreement(store: QueueStore) -> tuple[list[Alpha], dict[str, Alpha]]:
    """Alpha over final decisions of finished reviews (units with two or more): ratings (interval) and
    labels (nominal) per item and target, and per rule what reviewers did with its proposals (nominal)."""
    ratings: list[tuple[list[float], int]] = []
    labels: list[tuple[list[str], int]] = []
    actions: dict[str, list[tuple[list[str], int]]] = defaultdict(list)
    sql = _UNITS.format(**_WORDS[store.db.dialect])
    for kind, entries, units in store.db.execute(sql, (REVIEW,)).fetchall():
        decided = json.loads(entries)
        if kind == "label":
            labels.append(([NO_LABEL if v in (None, "null", '""') else v for _, _, v in decided], units))
        elif kind == "rating":
            ratings.append(([n for _, _, v in decided if (n := _number(v)) is not None], units))
        for rule, done in _by_rule(decided).items():
            actions[rule].append((done, units))
    overall = [alpha_of_counted("interval", ratings), alpha_of_counted("nominal", labels)]
    return overall, {rule: alpha_of_counted("nominal", units) for rule, units in actions.items()}


def _by_rule(decided: list[list[Any]]) -> dict[str, list[str]]:
    """What the unit's reviewers did with each rule's proposals (a rule named twice counts twice)."""
    done: dict[str, list[str]] = defaultdict(list)
    for action, rules, _ in decided:
        for rule in filter(None, rules.split(",")):
            done[rule].append(action)
    return done


def _number(value: str | None) -> float | None:
    """A rating's JSON value as a number; None for what is no finite number (null, a string, true)."""
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) else None


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
