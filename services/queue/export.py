"""`evalkit queue export URL --journals DIR`: the queue as today's review journals, so `evalkit stats` and
`evalkit check --journals` read a team's work unchanged.

DIR gets `items.jsonl` (every submission in the queue, one a line, in the order added) and one
`<reviewer>.decisions.jsonl` per reviewer whose entries name their submission as `items.jsonl:N` (a journal's
relative sources are found from its folder); the lead's settled decisions go to
`+adjudication.decisions.jsonl`. Each file is written atomically. The queue's URL, and so its password, is
written nowhere.
"""

from __future__ import annotations

import json
from itertools import groupby
from pathlib import Path
from typing import Any

from evalkit.services.outputs.atomic import atomic_output
from evalkit.services.queue.store import ADJUDICATION, REVIEW, QueueStore
from evalkit.services.review.files import JOURNAL_SUFFIX

ITEMS_FILE = "items.jsonl"
ADJUDICATION_JOURNAL = "+adjudication"
JOURNAL_FIELDS = ("ts", "target", "action", "value", "note", "step", "undoes", "redoes")


def export_journals(store: QueueStore, folder: Path) -> dict[str, int]:
    """Write the files; the number of entries in each journal, by file name."""
    lines: dict[int, int] = {}
    with atomic_output(folder / ITEMS_FILE) as handle:
        for number, (item_id, _, body) in enumerate(store.items(), start=1):
            lines[item_id] = number
            handle.write(json.dumps(body, ensure_ascii=False) + "\n")
    written: dict[str, int] = {}
    for reviewer, group in groupby(store.held_entries(REVIEW), key=lambda row: row[0]):
        written[reviewer + JOURNAL_SUFFIX] = _write_journal(
            folder / (reviewer + JOURNAL_SUFFIX), group, lines
        )
    settled = list(store.held_entries(ADJUDICATION))
    if settled:
        name = ADJUDICATION_JOURNAL + JOURNAL_SUFFIX
        written[name] = _write_journal(folder / name, settled, lines)
    return written


def _write_journal(path: Path, rows: Any, lines: dict[int, int]) -> int:
    count = 0
    with atomic_output(path) as handle:
        for _, item_id, entry in rows:
            handle.write(
                json.dumps(_journal_entry(entry, f"{ITEMS_FILE}:{lines[item_id]}"), ensure_ascii=False)
            )
            handle.write("\n")
            count += 1
    return count


def _journal_entry(entry: dict[str, Any], source: str) -> dict[str, Any]:
    out = {"ts": entry["ts"], "source": source}
    out.update((name, entry.get(name)) for name in JOURNAL_FIELDS[1:6])
    for marker in ("undoes", "redoes"):
        if entry.get(marker) is not None:
            out[marker] = entry[marker]
    return out
