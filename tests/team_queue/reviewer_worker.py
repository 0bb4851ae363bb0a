"""One reviewer process for the concurrency test: claims items until none is left, deciding each in two
writes (a rating, then done), and logs every write the store acknowledged (`ack ITEM ID`) and every claim
(`claim ITEM`), each line flushed before going on. A write refused because the lease ran out (LeaseLost)
is logged as `lost ITEM` and the reviewer moves on. A restarted reviewer first reads what it already wrote
for the item it holds, as the app replays its decisions, and writes only what is missing.

Usage: python reviewer_worker.py URL NAME LOG DEADLINE_SECONDS
"""

from __future__ import annotations

import os
import sys
import time
import uuid

from evalkit.services.queue import LeaseLost
from evalkit.services.queue.store import QueueStore


def entry(target: str, action: str, value: object = None, step: int = 1) -> dict[str, object]:
    """A journal entry with a new decision id (the store keeps each id once); the queue tests' too."""
    return {
        "id": uuid.uuid4().hex,
        "ts": "2026-12-04T10:00:00Z",
        "target": target,
        "action": action,
        "value": value,
        "note": None,
        "step": step,
    }


def main() -> None:
    url, name, log_path, deadline = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    stop = time.monotonic() + deadline
    store = QueueStore.open(url)
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 - kept open for the process's life
    while time.monotonic() < stop:
        claimed = store.claim(name)
        if claimed is None:
            if not store.db.execute("SELECT count(*) FROM slots WHERE done_at IS NULL").fetchone()[0]:
                break
            time.sleep(0.3)  # a slot held by a reviewer who died comes free when its lease runs out
            continue
        log.write(f"claim {claimed.item_id}\n")
        written = {e["target"] for e in store.decisions_of(name, claimed.item_id)}
        for target, action, value, step in (("rating.accuracy", "edit", 4.0, 1), ("status", "done", None, 2)):
            if target in written:
                continue
            decided = entry(target, action, value, step)
            try:
                store.record(name, claimed.item_id, [decided])
            except LeaseLost:  # this process was too slow: the item went to another, as the app says
                log.write(f"lost {claimed.item_id}\n")
                break
            log.write(f"ack {claimed.item_id} {decided['id']}\n")
            os.fsync(log.fileno())
    store.close()


if __name__ == "__main__":
    main()
