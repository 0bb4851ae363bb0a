"""`evalkit review --queue URL`: the reviewer app on a team's queue (services/queue/) instead of files.

`QueueJournal` stands where the app's journal stands: each step's entries get a decision id and go to the
store as they are made (the store renews the lease with each), or, while the database cannot be reached,
to the reviewer's spool on disk, which a background thread flushes when it comes back. `QueueReviewApp`
is the review app with three differences: its submissions come from claims (the items this reviewer has
had, then the next one, claimed again each time one is done), a thread renews the lease while the
reviewer works, and the header shows mine / the team's progress and whether the database is away.

Blind by design: the app shows only this reviewer's decisions. With `--adjudicate` it shows the items
that finished reviews disagree on, every reviewer's decision beside the selected proposal, and records
the lead's own as the final one.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from rich.text import Text
from textual import work

from evalkit.services.inputs.read import LoadedSubmission, parse_text
from evalkit.services.queue import LeaseLost, QueueError, Unavailable
from evalkit.services.queue.spool import Spool
from evalkit.services.queue.store import ADJUDICATION, REVIEW, Progress, QueueStore
from evalkit.services.review.journal import JournalContents, JournalError
from evalkit.tui.app import ReviewApp
from evalkit.tui.decisions import STATUS_TARGET
from evalkit.tui.journal import Journal
from evalkit.tui.model import ReviewSession
from evalkit.tui.proposals_table import detail_text
from evalkit.tui.visible import visible

RENEW_FRACTION = 3  # the lease is renewed this many times per lease period
RETRY_SECONDS = 2.0  # how often a reviewer whose database is away tries again


def item_source(item_id: int, source: str) -> str:
    """The name a queue item has in the app: its number first, so two items from one path differ."""
    return f"#{item_id} {source}"


def item_id_of(source: str) -> int:
    return int(source.split(" ", 1)[0].removeprefix("#"))


class QueueJournal:
    """The app's journal on the queue: entries to the store (or the spool while it is away)."""

    def __init__(self, store: QueueStore, reviewer: str, spool: Spool, role: str = REVIEW) -> None:
        self.store = store
        self.reviewer = reviewer
        self.spool = spool
        self.role = role
        self.path = Path(store.shown)  # the app shows its name in the status bar and help
        self.lock = threading.Lock()  # the store's connection is used from the app and the renewer
        self.offline: str | None = None  # why the database cannot be reached, while it cannot
        self.on_done: Callable[[int], None] = lambda item_id: None
        self.progress = Progress(0, 0, 0)

    def read(self) -> JournalContents:
        return JournalContents()  # the app's session is replayed from the store (QueueReviewApp.claimed)

    def check_writable(self) -> None:
        """Nothing to check: a store that cannot be written now spools."""

    def append(self, entries: list[dict[str, Any]]) -> None:
        by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for entry in entries:
            by_item[item_id_of(entry["source"])].append({**entry, "id": uuid.uuid4().hex})
        with self.lock:
            for item_id, written in by_item.items():
                self._write(item_id, written)
        for item_id, written in by_item.items():
            if any(e["target"] == STATUS_TARGET and e["action"] == "done" for e in written):
                self.on_done(item_id)

    def _write(self, item_id: int, entries: list[dict[str, Any]]) -> None:
        try:
            if self.offline is None:
                self.store.record(self.reviewer, item_id, entries, self.role)
                if any(entry["target"] == STATUS_TARGET for entry in entries):  # an item finished or reopened
                    self.progress = self.store.progress(self.reviewer)
                return
        except LeaseLost as exc:
            raise JournalError(str(exc)) from None
        except Unavailable as exc:
            self.offline = str(exc)
        except QueueError as exc:
            raise JournalError(str(exc)) from None
        try:
            self.spool.append(item_id, self.role, entries)
        except QueueError as exc:
            raise JournalError(str(exc)) from None

    def keep_alive(self) -> str | None:
        """Renew the leases and flush the spool; what to tell the reviewer, if anything changed."""
        with self.lock:
            try:
                was_offline = self.offline is not None
                written, lost = self.spool.flush(self.store, self.reviewer)
                if self.role == REVIEW:
                    self.store.renew(self.reviewer)
                self.progress = self.store.progress(self.reviewer)
                self.offline = None
            except Unavailable as exc:
                self.offline = str(exc)
                return None
            except QueueError as exc:
                return str(exc)
        if not was_offline and not written:
            return None
        told = f"The queue is back: {written} decision(s) kept while it was away are saved."
        return told + (f" {lost} were for an item whose lease ran out." if lost else "")

    def close(self) -> None:
        with self.lock:
            self.store.close()


class QueueReviewApp(ReviewApp):
    """The review app fed by a queue's claims; `journal` is a QueueJournal."""

    def __init__(
        self, session: ReviewSession, journal: QueueJournal, export_path: Path, adjudicate: bool = False
    ) -> None:
        super().__init__(session, [], cast(Journal, journal), export_path, live_rules=False)
        self.journal: QueueJournal = journal  # type: ignore[assignment]  # it stands where the Journal stands
        self.adjudicate = adjudicate
        self.others: dict[str, dict[str, dict[str, Any]]] = {}  # source -> reviewer -> target -> entry
        self._claim_lock = threading.Lock()
        self.nothing_left_said: str | None = None  # why the queue gave this reviewer no item, once it did

    def on_mount(self) -> None:  # Textual calls ReviewApp.on_mount too (each class's handler in the MRO)
        self.journal.on_done = self._item_done
        if not self.adjudicate:
            self.keep_lease()

    @work(thread=True, group="read", exit_on_error=False)
    def read_input(self) -> None:
        """The items this reviewer had (their decisions replayed), then the next claim."""
        journal = self.journal
        try:
            with journal.lock:
                loaded, entries = self._disagreements() if self.adjudicate else self._mine()
                journal.progress = journal.store.progress(journal.reviewer)
        except QueueError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", markup=False, timeout=30)
            loaded, entries = [], []
        self.call_from_thread(self.session.replay, entries)
        self.post_message(self.Loaded(loaded, True))
        if not self.adjudicate:
            self.claim_next()

    def _mine(self) -> tuple[list[LoadedSubmission], list[dict[str, Any]]]:
        store, reviewer = self.journal.store, self.journal.reviewer
        rows = store.db.execute(
            "SELECT i.id, i.source, i.body FROM slots s JOIN items i ON i.id = s.item_id "
            "WHERE s.reviewer = ? AND s.done_at IS NOT NULL ORDER BY s.done_at",
            (reviewer,),
        ).fetchall()
        loaded, entries = [], []
        for item_id, source, body in rows:
            name = item_source(int(item_id), source)
            loaded.append(parse_text(body, name, ".json"))
            entries += [{**e, "source": name} for e in store.decisions_of(reviewer, int(item_id))]
        return loaded, entries

    def _disagreements(self) -> tuple[list[LoadedSubmission], list[dict[str, Any]]]:
        store = self.journal.store
        finals: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
        for reviewer, item_id, entry in store.held_entries(REVIEW):
            if entry["target"] not in (STATUS_TARGET, "note"):
                finals[item_id].setdefault(reviewer, {})[entry["target"]] = entry
        loaded, entries = [], []
        for item_id, source, body in store.items():
            by_reviewer = finals.get(item_id, {})
            if len(by_reviewer) < 2 or not _disagree(by_reviewer):
                continue
            name = item_source(item_id, source)
            self.others[name] = by_reviewer
            loaded.append(parse_text(json.dumps(body), name, ".json"))
            entries += [
                {**e, "source": name}
                for e in store.decisions_of(self.journal.reviewer, item_id, ADJUDICATION)
            ]
        return loaded, entries

    def _item_done(self, item_id: int) -> None:
        self.claim_next()

    @work(thread=True, group="claim", exit_on_error=False)
    def claim_next(self) -> None:
        if self.adjudicate or not self._claim_lock.acquire(blocking=False):
            return
        try:
            self._claim_one()
        finally:
            self._claim_lock.release()

    def _claim_one(self) -> None:
        journal = self.journal
        try:
            with journal.lock:
                if journal.offline is not None:
                    return
                claimed = journal.store.claim(journal.reviewer)
                if claimed is None:
                    journal.progress = journal.store.progress(journal.reviewer)
                    self.call_from_thread(self._nothing_left, nothing_left(journal.progress))
                    return
                name = item_source(claimed.item_id, claimed.source)
                if self.session.index_of(name) is not None:
                    return
                entries = [
                    {**e, "source": name}
                    for e in journal.store.decisions_of(journal.reviewer, claimed.item_id)
                ]
                journal.progress = journal.store.progress(journal.reviewer)
        except Unavailable as exc:
            journal.offline = str(exc)
            self.call_from_thread(self.update_status)
            return
        except QueueError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", markup=False, timeout=15)
            return
        self.call_from_thread(
            self._show_claimed, parse_text(json.dumps(claimed.body), name, ".json"), entries
        )

    def _nothing_left(self, message: str) -> None:
        self.nothing_left_said = message
        self.notify(message, timeout=10)
        self.update_status()
        if self.current is None:
            self.show(None)

    def empty_message(self) -> str:
        if self.loading or self.session.items:
            return super().empty_message()
        return self.nothing_left_said or "Claiming an item from the queue…"

    def _show_claimed(self, loaded: LoadedSubmission, entries: list[dict[str, Any]]) -> None:
        self.session.replay(entries)
        self.on_review_app_loaded(self.Loaded([loaded], True))
        index = self.session.index_of(loaded.source)
        if index is not None:
            self.queue.select_index(index)

    @work(thread=True, group="lease", exit_on_error=False)
    def keep_lease(self) -> None:
        period = self.journal.store.settings().lease_seconds / RENEW_FRACTION
        while not self._stopping.wait(RETRY_SECONDS if self.journal.offline else period):
            was_offline = self.journal.offline is not None
            told = self.journal.keep_alive()
            if told:
                self.call_from_thread(self.notify, told, markup=False, timeout=10)
            if was_offline != (self.journal.offline is not None):
                self.call_from_thread(self.update_status)
                if self.journal.offline is None:
                    self.claim_next()

    def append_progress(self, text: Text) -> None:
        """First what this reviewer finished and the team's reviews done of those the queue wants, then a
        database that cannot be reached (before anything the header may cut at its end)."""
        progress = self.journal.progress
        if self.adjudicate:
            settled = self.session.progress()
            text.append(f"adjudicating: {settled.done}/{settled.total} settled", "bold magenta")
        else:
            text.append(f"{self.journal.reviewer}: {progress.mine} done", "bold")
        text.append(f"  team: {progress.team}/{progress.total} reviews", "bold")
        if self.journal.offline is not None:
            text.append("  database away: decisions kept on disk", "bold red")

    def append_source(self, text: Text) -> None:
        text.append(f"  queue {visible(self.journal.store.shown, lines=False)}", "dim")  # no password

    def _update_detail(self) -> None:
        """Adjudicating: every reviewer's decision on the selected proposal, on the line after the proposal
        (the pane is three lines high: below the why, they were out of sight)."""
        super()._update_detail()
        proposal = self.proposals_table.current
        if not self.adjudicate or proposal is None or self.current is None:
            return
        by_reviewer = self.others.get(self.session.items[self.current].source, {})
        said = "  ·  ".join(
            f"{reviewer}: {_decision_said(targets.get(proposal.target))}"
            for reviewer, targets in sorted(by_reviewer.items())
        )
        first, *why = detail_text(proposal, self.session.decisions(self.current).get(proposal.target)).split(
            "\n", allow_blank=True
        )
        text = Text("\n").join([first, Text(said, "bold"), *why])
        self.proposal_detail.update(text, layout=False)


def _decision_said(entry: dict[str, Any] | None) -> str:
    return "no decision" if entry is None else f"{entry['action']} {entry['value']!r}"


def nothing_left(progress: Progress) -> str:
    """What a reviewer the queue has no item for is told: why, and what now."""
    if not progress.total:
        return "The queue holds no items yet: a lead adds them with evalkit queue add."
    if progress.mine:
        return (
            f"Nothing left in the queue for you: your {progress.mine} review(s) are in. Thank you! (q quits)"
        )
    return "Nothing in the queue for you now: other reviewers hold or finished every item."


def _disagree(by_reviewer: dict[str, dict[str, dict[str, Any]]]) -> bool:
    targets = {target for decided in by_reviewer.values() for target in decided}
    for target in targets:
        values = {repr((d.get(target) or {}).get("value")) for d in by_reviewer.values()}
        if len(values) > 1:
            return True
    return False
