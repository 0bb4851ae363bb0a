"""The queue's store: settings, items and their K slots, claims with leases, decisions, the lead's moves.

Claims (FIELD-NOTES): each item has one row per slot (K of them); a reviewer claims one free slot with
`UPDATE slots ... WHERE (item_id, slot) = (SELECT ... FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING`, and a
unique (item, reviewer) in `slots` and in `claims` (everyone who ever held the item) keeps a reviewer from
getting an item twice, even after their lease ran out and the slot went to another. Counting an item's
claims and then locking it would over-assign under PostgreSQL's READ COMMITTED. On SQLite the transaction
holds the write lock (BEGIN IMMEDIATE), so claims are serial there.

A calibration item (every reviewer sees it) gets its slot on claim, numbered minus the reviewer's id.
Decisions carry the id their writer gave them, so writing one twice (a spool flushed again) keeps one.
A review is done when its slot is: the reviewer marked the item done.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from evalkit.services.queue import LeaseLost, QueueError
from evalkit.services.queue.backend import Database, open_database
from evalkit.services.queue.schema import check_version
from evalkit.services.queue.url import QueueURL, parse_url

REVIEW = "review"
ADJUDICATION = "adjudication"
SETTINGS = ("per_item", "lease_seconds", "calibration", "config_hash", "config_dir")
ADD_BATCH = 5_000  # items per INSERT batch in `queue add`
ADD_LOCK = 7_342_029  # PostgreSQL advisory lock: one `queue add` at a time


@dataclass(frozen=True, slots=True)
class Settings:
    per_item: int
    lease_seconds: float
    calibration: str  # "" (none), "N" (the first N items added) or "P%" (P in 100 of them: calibration_rule)
    config_hash: str
    config_dir: str

    def as_rows(self) -> list[tuple[str, str]]:
        return [(name, str(getattr(self, name))) for name in SETTINGS]


@dataclass(frozen=True, slots=True)
class Claimed:
    item_id: int
    slot: int
    source: str
    body: Any  # the submission as JSON data
    calibration: bool


@dataclass(frozen=True, slots=True)
class Progress:
    mine: int  # items this reviewer finished
    team: int  # reviews finished by everyone
    total: int  # reviews the queue wants (K per item, one per reviewer per calibration item)


class QueueStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._settings: Settings | None = None

    @classmethod
    def open(cls, url: str | QueueURL) -> QueueStore:
        """An existing queue, checked: a queue at all, of this evalkit's schema version."""
        parsed = parse_url(url) if isinstance(url, str) else url
        db = open_database(parsed)
        try:
            check_version(db)
        except QueueError:
            db.close()
            raise
        return cls(db)

    def close(self) -> None:
        self.db.close()

    @property
    def shown(self) -> str:
        return self.db.url.shown

    # Settings

    def write_settings(self, settings: Settings) -> bool:
        """Store the settings of a new queue; False (nothing changed) when it has settings already."""
        with self.db.transaction():
            if self.db.execute("SELECT count(*) FROM queue_settings").fetchone()[0]:
                return False
            self.db.executemany("INSERT INTO queue_settings (key, value) VALUES (?, ?)", settings.as_rows())
        return True

    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = self._read_settings()
        return self._settings

    def _read_settings(self) -> Settings:
        rows = dict(self.db.execute("SELECT key, value FROM queue_settings").fetchall())
        try:
            return Settings(
                int(rows["per_item"]),
                float(rows["lease_seconds"]),
                rows["calibration"],
                rows["config_hash"],
                rows["config_dir"],
            )
        except (KeyError, ValueError) as exc:
            raise QueueError(
                f"{self.shown}: a corrupted queue: its settings are incomplete ({exc})"
            ) from None

    # Items

    def add(self, items: Iterable[tuple[str, str, str]]) -> tuple[int, int]:
        """Add (digest, source, body) items not already in the queue, each with its K slots, in one
        transaction; (added, already there). Adds are serial (the write lock on SQLite, an advisory lock
        on PostgreSQL), so the ids after the last one before are this add's."""
        settings = self.settings()
        is_calibration = calibration_rule(settings.calibration)
        added = already = 0
        with self.db.transaction():
            if self.db.dialect == "postgresql":
                self.db.execute(f"SELECT pg_advisory_xact_lock({ADD_LOCK})")
            count, last = self.db.execute("SELECT count(*), coalesce(max(id), 0) FROM items").fetchone()
            for batch in _batches(items, ADD_BATCH):
                fresh = self._fresh(batch)
                already += len(batch) - len(fresh)
                rows = []
                for digest, source, body in fresh:
                    rows.append((digest, source, body, int(is_calibration(count))))
                    count += 1
                self.db.insert_rows("items", ("digest", "source", "body", "calibration"), rows)
                added += len(fresh)
            numbers = " UNION ALL ".join(f"SELECT {slot} AS slot" for slot in range(settings.per_item))
            self.db.execute(  # one statement on the server (COPY is refused on tables with row security)
                "INSERT INTO slots (item_id, slot) SELECT i.id, k.slot FROM items i "
                f"CROSS JOIN ({numbers}) k WHERE i.id > ? AND i.calibration = 0",
                (last,),
            )
        return added, already

    def _fresh(self, batch: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        """The batch's items not in the queue yet, each digest once."""
        digests = [digest for digest, _, _ in batch]
        marks = ", ".join("?" * len(digests))
        rows = self.db.execute(f"SELECT digest FROM items WHERE digest IN ({marks})", digests).fetchall()
        known = {row[0] for row in rows}
        fresh: dict[str, tuple[str, str, str]] = {}
        for digest, source, body in batch:
            if digest not in known:
                fresh.setdefault(digest, (digest, source, body))
        return list(fresh.values())

    def item_id(self, name: str) -> int:
        """An item by its number (`#12` or `12`), its digest or digest prefix, or its source."""
        number = name.removeprefix("#")
        if number.isdigit():
            row = self.db.execute("SELECT id FROM items WHERE id = ?", (int(number),)).fetchone()
        else:
            row = self.db.execute(
                "SELECT id FROM items WHERE source = ? OR digest = ? ORDER BY id LIMIT 1", (name, name)
            ).fetchone()
        if row is None:
            raise QueueError(
                f"{self.shown}: no item {name!r} in the queue (name it by number, digest or source)"
            )
        return int(row[0])

    # Claims

    def claim(self, reviewer: str) -> Claimed | None:
        """The item the reviewer works on next, its lease renewed: the one they hold, else a calibration
        item they have not seen, else a free slot (or one whose lease ran out) of an item they never had.
        None when nothing is left for them."""
        lease = self.settings().lease_seconds
        if self.db.dialect == "postgresql" and not self.settings().calibration:
            return self._claim_in_one_statement(reviewer, lease)
        with self.db.transaction():
            found = self._held(reviewer, lease)
            if found is None and self.settings().calibration:
                found = self._claim_calibration(reviewer, lease)
            found = found or self._claim_slot(reviewer, lease)
            if found is None:
                return None
            item_id, slot = found
            self.db.execute(
                "INSERT INTO claims (item_id, reviewer, claimed_at) VALUES (?, ?, {now}) "
                "ON CONFLICT (item_id, reviewer) DO NOTHING",
                (item_id, reviewer),
            )
        # read after the commit: items never change once added, and on SQLite every statement inside
        # the transaction holds the one write lock all reviewers wait for
        row = self.db.execute(
            "SELECT source, body, calibration FROM items WHERE id = ?", (item_id,)
        ).fetchone()
        return Claimed(item_id, slot, row[0], _body(row[1], self.shown, item_id), bool(row[2]))

    def _claim_in_one_statement(self, reviewer: str, lease: float) -> Claimed | None:
        """`claim` on PostgreSQL as one statement (one round trip instead of six): the held slot renewed,
        else a free one claimed with FOR UPDATE SKIP LOCKED, the claim recorded, the item read. Data-
        modifying CTEs run on one snapshot, as the statements of `claim`'s transaction would."""
        row = self.db.execute(
            "WITH held AS (UPDATE slots SET lease_until = {now} + ? WHERE (item_id, slot) = ("
            "SELECT item_id, slot FROM slots WHERE reviewer = ? AND done_at IS NULL "
            "ORDER BY item_id LIMIT 1) RETURNING item_id, slot), "
            "free AS (UPDATE slots SET reviewer = ?, lease_until = {now} + ?, claimed_at = {now} "
            "WHERE NOT EXISTS (SELECT 1 FROM held) AND (item_id, slot) = ("
            "SELECT s.item_id, s.slot FROM slots s "
            "WHERE s.done_at IS NULL AND (s.reviewer IS NULL OR s.lease_until < {now}) "
            "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.item_id = s.item_id AND c.reviewer = ?) "
            "ORDER BY s.item_id, s.slot LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING item_id, slot), "
            "got AS (SELECT item_id, slot FROM held UNION ALL SELECT item_id, slot FROM free), "
            "noted AS (INSERT INTO claims (item_id, reviewer, claimed_at) SELECT item_id, ?, {now} FROM got "
            "ON CONFLICT (item_id, reviewer) DO NOTHING) "
            "SELECT got.item_id, got.slot, i.source, i.body, i.calibration FROM got "
            "JOIN items i ON i.id = got.item_id",
            (lease, reviewer, reviewer, lease, reviewer, reviewer),
        ).fetchone()
        if row is None:
            return None
        return Claimed(int(row[0]), int(row[1]), row[2], _body(row[3], self.shown, row[0]), bool(row[4]))

    def _held(self, reviewer: str, lease: float) -> tuple[int, int] | None:
        row = self.db.execute(
            "UPDATE slots SET lease_until = {now} + ? WHERE (item_id, slot) = ("
            "SELECT item_id, slot FROM slots WHERE reviewer = ? AND done_at IS NULL "
            "ORDER BY item_id LIMIT 1) RETURNING item_id, slot",
            (lease, reviewer),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def _claim_calibration(self, reviewer: str, lease: float) -> tuple[int, int] | None:
        number = self._reviewer_number(reviewer)
        row = self.db.execute(
            "INSERT INTO slots (item_id, slot, reviewer, lease_until, claimed_at) "
            "SELECT i.id, ?, ?, {now} + ?, {now} FROM items i WHERE i.calibration = 1 "
            "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.item_id = i.id AND c.reviewer = ?) "
            "ORDER BY i.id LIMIT 1 ON CONFLICT DO NOTHING RETURNING item_id, slot",
            (-number, reviewer, lease, reviewer),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def _reviewer_number(self, reviewer: str) -> int:
        self.db.execute("INSERT INTO reviewers (name) VALUES (?) ON CONFLICT (name) DO NOTHING", (reviewer,))
        return int(self.db.execute("SELECT id FROM reviewers WHERE name = ?", (reviewer,)).fetchone()[0])

    def _claim_slot(self, reviewer: str, lease: float) -> tuple[int, int] | None:
        skip_locked = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgresql" else ""
        row = self.db.execute(
            "UPDATE slots SET reviewer = ?, lease_until = {now} + ?, claimed_at = {now} "
            "WHERE (item_id, slot) = (SELECT s.item_id, s.slot FROM slots s "
            "WHERE s.done_at IS NULL AND (s.reviewer IS NULL OR s.lease_until < {now}) "
            "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.item_id = s.item_id AND c.reviewer = ?) "
            f"ORDER BY s.item_id, s.slot LIMIT 1{skip_locked}) RETURNING item_id, slot",
            (reviewer, lease, reviewer),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def renew(self, reviewer: str) -> int:
        """Renew the leases of the items the reviewer holds and has not finished; how many."""
        cursor = self.db.execute(
            "UPDATE slots SET lease_until = {now} + ? WHERE reviewer = ? AND done_at IS NULL",
            (self.settings().lease_seconds, reviewer),
        )
        return int(cursor.rowcount)

    # Decisions

    def record(
        self, reviewer: str, item_id: int, entries: Sequence[dict[str, Any]], role: str = REVIEW
    ) -> None:
        """Write journal entries (each with its `id`) for an item, in one transaction; an entry whose id is
        already stored is skipped. A `status` entry finishes (or reopens) the reviewer's slot. Raises
        LeaseLost when a reviewer writes for an item whose slot another reviewer holds now."""
        with self.db.transaction():
            if role == REVIEW:
                self._keep_lease(reviewer, item_id)
            self.db.executemany(
                "INSERT INTO decisions (id, item_id, reviewer, role, ts, target, action, value, note, step, "
                "undoes, redoes, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO NOTHING",
                [_decision_row(reviewer, item_id, role, entry) for entry in entries],
            )
            for entry in entries:
                if role == REVIEW and entry["target"] == "status":
                    done = "{now}" if entry["action"] == "done" else "NULL"
                    self.db.execute(
                        f"UPDATE slots SET done_at = {done} WHERE item_id = ? AND reviewer = ?",
                        (item_id, reviewer),
                    )

    def _keep_lease(self, reviewer: str, item_id: int) -> None:
        cursor = self.db.execute(
            "UPDATE slots SET lease_until = {now} + ? WHERE item_id = ? AND reviewer = ?",
            (self.settings().lease_seconds, item_id, reviewer),
        )
        if cursor.rowcount == 0:
            raise LeaseLost(
                f"{self.shown}: your lease on item #{item_id} ran out and it went to another reviewer; "
                "this decision was not recorded"
            )

    def decisions_of(self, reviewer: str, item_id: int, role: str = REVIEW) -> list[dict[str, Any]]:
        """The reviewer's journal entries for one item, in the order written (to resume a session)."""
        rows = self.db.execute(
            "SELECT id, ts, target, action, value, note, step, undoes, redoes, rules FROM decisions "
            "WHERE item_id = ? AND reviewer = ? AND role = ? ORDER BY seq",
            (item_id, reviewer, role),
        ).fetchall()
        return [_entry(row, "", self.shown) for row in rows]

    def progress(self, reviewer: str) -> Progress:
        """One statement, on indexes where there are (the app asks after each item)."""
        mine, team, regular, calibration, reviewers = self.db.execute(
            "SELECT (SELECT count(*) FROM slots WHERE reviewer = ? AND done_at IS NOT NULL), "
            "(SELECT count(*) FROM slots WHERE done_at IS NOT NULL), "
            "(SELECT count(*) FROM items WHERE calibration = 0), "
            "(SELECT count(*) FROM items WHERE calibration = 1), (SELECT count(*) FROM reviewers)",
            (reviewer,),
        ).fetchone()
        wanted = int(regular) * self.settings().per_item + int(calibration) * max(1, int(reviewers))
        return Progress(int(mine), int(team), wanted)

    # The lead's moves

    def release(self, item_id: int | None = None, reviewer: str | None = None) -> int:
        """Free the unfinished slots of an item or of a reviewer (or both); how many. The reviewer keeps
        their claim: they will not get that item again."""
        where, params = _slot_filter(item_id, reviewer)
        with self.db.transaction():
            cursor = self.db.execute(
                "UPDATE slots SET reviewer = NULL, lease_until = NULL, claimed_at = NULL "
                f"WHERE done_at IS NULL AND reviewer IS NOT NULL{where}",
                params,
            )
            self.db.execute("DELETE FROM slots WHERE slot < 0 AND done_at IS NULL AND reviewer IS NULL")
        return int(cursor.rowcount)

    def assign(self, item_id: int, reviewer: str, taken_from: str | None = None) -> None:
        """Give one of the item's unfinished slots (a free one, or `taken_from`'s) to the reviewer."""
        lease = self.settings().lease_seconds
        with self.db.transaction():
            had = self.db.execute(
                "SELECT 1 FROM claims WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
            ).fetchone()
            if had:
                raise QueueError(f"{self.shown}: {reviewer} already had item #{item_id}; nothing changed")
            holder = "reviewer = ?" if taken_from else "reviewer IS NULL"
            params: tuple[Any, ...] = (item_id, taken_from) if taken_from else (item_id,)
            row = self.db.execute(
                "SELECT slot FROM slots WHERE item_id = ? AND done_at IS NULL "
                f"AND {holder} ORDER BY slot LIMIT 1",
                params,
            ).fetchone()
            if row is None:
                whose = f"held by {taken_from} and unfinished" if taken_from else "free"
                raise QueueError(f"{self.shown}: item #{item_id} has no slot {whose}; nothing changed")
            self.db.execute(
                "UPDATE slots SET reviewer = ?, lease_until = {now} + ?, claimed_at = {now} "
                "WHERE item_id = ? AND slot = ?",
                (reviewer, lease, item_id, row[0]),
            )
            self.db.execute(
                "INSERT INTO claims (item_id, reviewer, claimed_at) VALUES (?, ?, {now})", (item_id, reviewer)
            )

    # Reading everything (status, export)

    def items(self) -> Iterator[tuple[int, str, Any]]:
        """(id, source, submission data) of every item, in the order added."""
        cursor = self.db.execute("SELECT id, source, body FROM items ORDER BY id")
        for item_id, source, body in cursor:
            yield int(item_id), source, _body(body, self.shown, item_id)

    def held_entries(self, role: str = REVIEW) -> Iterator[tuple[str, int, dict[str, Any]]]:
        """(reviewer, item id, entry) of every decision whose reviewer holds the item's slot (a reviewer
        whose lease ran out and passed to another lost the item, and their decisions with it), by
        reviewer, then in the order written."""
        held = "JOIN slots s ON s.item_id = d.item_id AND s.reviewer = d.reviewer " if role == REVIEW else ""
        cursor = self.db.execute(
            "SELECT d.reviewer, d.item_id, d.id, d.ts, d.target, d.action, d.value, d.note, d.step, "
            f"d.undoes, d.redoes, d.rules FROM decisions d {held}WHERE d.role = ? ORDER BY d.reviewer, d.seq",
            (role,),
        )
        for row in cursor:
            yield row[0], int(row[1]), _entry(row[2:], row[0], self.shown)


def _slot_filter(item_id: int | None, reviewer: str | None) -> tuple[str, tuple[Any, ...]]:
    where, params = "", cast(tuple[Any, ...], ())
    if item_id is not None:
        where, params = where + " AND item_id = ?", (*params, item_id)
    if reviewer is not None:
        where, params = where + " AND reviewer = ?", (*params, reviewer)
    return where, params


def _batches(items: Iterable[tuple[str, str, str]], size: int) -> Iterator[list[tuple[str, str, str]]]:
    batch: list[tuple[str, str, str]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def calibration_rule(calibration: str) -> Callable[[int], bool]:
    """Whether the item added at a position (0 for the first ever) is a calibration item: none, the first
    N, or P% of the items counted as they come: after n items, n x P / 100 of them rounded to the nearest
    whole number (a half up), spread evenly through the order added."""
    if not calibration:
        return lambda position: False
    if not calibration.endswith("%"):
        return lambda position: position < int(calibration)
    share = Fraction(calibration[:-1]) / 100
    # n x P / 100 + 1/2 = (n x 2a + b) / 2b, with P / 100 = a / b: whole numbers, exact
    top, bottom = share.numerator * 2, share.denominator * 2

    def shared(items: int) -> int:
        return (items * top + bottom // 2) // bottom

    return lambda position: shared(position + 1) > shared(position)


def _decision_row(reviewer: str, item_id: int, role: str, entry: dict[str, Any]) -> tuple[Any, ...]:
    return (
        entry["id"],
        item_id,
        reviewer,
        role,
        entry["ts"],
        entry["target"],
        entry["action"],
        json.dumps(entry.get("value"), ensure_ascii=False),
        entry.get("note"),
        entry["step"],
        entry.get("undoes"),
        entry.get("redoes"),
        ",".join(entry.get("rules", ())),
    )


def _entry(row: Sequence[Any], reviewer: str, shown: str) -> dict[str, Any]:
    decision_id, ts, target, action, value, note, step, undoes, redoes, rules = row
    try:
        parsed = json.loads(value) if value is not None else None
    except ValueError:
        raise QueueError(
            f"{shown}: a corrupted row: decision {decision_id} has a value that is not JSON"
        ) from None
    entry: dict[str, Any] = {
        "id": decision_id,
        "ts": ts,
        "target": target,
        "action": action,
        "value": parsed,
        "note": note,
        "step": step,
    }
    if undoes is not None:
        entry["undoes"] = undoes
    if redoes is not None:
        entry["redoes"] = redoes
    entry["rules"] = [rule for rule in rules.split(",") if rule]
    return entry


def _body(body: str, shown: str, item_id: Any) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise QueueError(f"{shown}: a corrupted row: item #{item_id}'s submission is not JSON") from None
