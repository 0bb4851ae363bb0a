"""Decisions kept on the reviewer's disk while the queue's database cannot be reached, flushed when it
comes back. Each line is one write the app made (`{"item_id", "role", "entries"}`), appended and fsynced
before the decision counts, as the journal does. Every entry carries its decision id, so a flush that was
cut short and is run again writes nothing twice (the store skips ids it has).

The spool of a queue and a reviewer is one file under `$XDG_CACHE_HOME/evalkit/queue-spool/` (default
`~/.cache`), named by a digest of the queue's shown URL (no password in it) and the reviewer.
"""

from __future__ import annotations

import json
import os
from hashlib import sha256
from pathlib import Path
from typing import Any

from evalkit.services.queue import LeaseLost, QueueError
from evalkit.services.queue.store import QueueStore


def spool_path(shown_url: str, reviewer: str) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = sha256(f"{shown_url}\n{reviewer}".encode()).hexdigest()[:16]
    return cache / "evalkit" / "queue-spool" / f"{reviewer}-{digest}.jsonl"


class Spool:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, item_id: int, role: str, entries: list[dict[str, Any]]) -> None:
        line = json.dumps({"item_id": item_id, "role": role, "entries": entries}, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise QueueError(
                f"{self.path}: cannot keep the decision on disk: {exc.strerror or exc}"
            ) from None

    def pending(self) -> list[dict[str, Any]]:
        """The writes waiting; a last line cut short by a kill never counted and is left out."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        waiting = []
        for line in raw.splitlines():
            try:
                waiting.append(json.loads(line))
            except ValueError:
                continue
        return waiting

    def flush(self, store: QueueStore, reviewer: str) -> tuple[int, int]:
        """Write every waiting decision to the store, then empty the spool; (written, lost to another
        reviewer because the lease ran out). Raises Unavailable (the spool stays) if the database is away."""
        written = lost = 0
        for write in self.pending():
            try:
                store.record(reviewer, int(write["item_id"]), write["entries"], write["role"])
                written += len(write["entries"])
            except LeaseLost:
                lost += len(write["entries"])
        if self.path.exists():
            self.path.unlink()
        return written, lost
