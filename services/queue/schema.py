"""The queue's schema: numbered migrations, applied in order and recorded in `evalkit_queue_migrations`.

One schema serves SQLite and PostgreSQL; the few words that differ are filled in per dialect (`{id}`, an
auto-numbered key; `{real}`, a float). Migrating holds a lock for the whole run (PostgreSQL: an advisory
lock in the transaction; SQLite: BEGIN IMMEDIATE), so two leads migrating at once run one after the other,
and a failure leaves the queue as it was (DDL is transactional in both). A queue whose schema is newer
than this evalkit knows is refused: its tables may mean things this code does not know.

Why our own small migrations table and not Alembic: a dozen statements in two versions, two drivers, and no
ORM; Alembic would bring SQLAlchemy (about 20 MB) for what one table and one lock do here.
"""

from __future__ import annotations

from evalkit.services.queue import QueueError
from evalkit.services.queue.backend import Database

MIGRATIONS_TABLE = "evalkit_queue_migrations"
ADVISORY_LOCK = 7_342_028  # any fixed number: the queue's migrations lock on PostgreSQL

_WORDS = {
    "sqlite": {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL"},
    "postgresql": {"id": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "real": "DOUBLE PRECISION"},
}

MIGRATIONS: list[list[str]] = [
    [  # 1: items, their K slots, who ever claimed what, decisions, settings
        "CREATE TABLE queue_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE items (id {id}, digest TEXT NOT NULL UNIQUE, source TEXT NOT NULL, "
        "body TEXT NOT NULL, calibration INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE reviewers (id {id}, name TEXT NOT NULL UNIQUE)",
        "CREATE TABLE slots (item_id BIGINT NOT NULL REFERENCES items (id), slot INTEGER NOT NULL, "
        "reviewer TEXT, lease_until {real}, claimed_at {real}, done_at {real}, PRIMARY KEY (item_id, slot))",
        "CREATE UNIQUE INDEX slots_item_reviewer ON slots (item_id, reviewer)",
        "CREATE INDEX slots_free ON slots (done_at, lease_until, item_id)",
        "CREATE INDEX slots_reviewer ON slots (reviewer, done_at)",
        "CREATE TABLE claims (item_id BIGINT NOT NULL REFERENCES items (id), reviewer TEXT NOT NULL, "
        "claimed_at {real} NOT NULL, PRIMARY KEY (item_id, reviewer))",
        "CREATE TABLE decisions (seq {id}, id TEXT NOT NULL UNIQUE, "
        "item_id BIGINT NOT NULL REFERENCES items (id), reviewer TEXT NOT NULL, role TEXT NOT NULL, "
        "ts TEXT NOT NULL, target TEXT NOT NULL, action TEXT NOT NULL, value TEXT, note TEXT, "
        "step INTEGER NOT NULL, undoes INTEGER, redoes INTEGER, rules TEXT NOT NULL DEFAULT '')",
        "CREATE INDEX decisions_item ON decisions (item_id, reviewer)",
    ],
    [  # 2: indexes for claims (the first open slot, no sort), `queue status` (final decisions by unit,
        # finished slots, pace) and the app's progress
        "DROP INDEX slots_free",
        "CREATE INDEX slots_open ON slots (item_id, slot, reviewer, lease_until) WHERE done_at IS NULL",
        "DROP INDEX slots_reviewer",
        "CREATE INDEX slots_reviewer ON slots (reviewer, done_at, claimed_at)",
        "CREATE INDEX decisions_unit ON decisions (item_id, target, role, reviewer, seq)",
        "CREATE INDEX slots_done ON slots (item_id, reviewer) WHERE done_at IS NOT NULL",
        "CREATE INDEX items_calibration ON items (calibration)",
    ],
]
LATEST = len(MIGRATIONS)


def version(db: Database) -> int | None:
    """The queue's schema version, or None when the database holds no queue."""
    if MIGRATIONS_TABLE not in db.table_names():
        return None
    row = db.execute(f"SELECT max(version) FROM {MIGRATIONS_TABLE}").fetchone()
    if row is None or not isinstance(row[0], int):
        raise QueueError(f"{db.url.shown}: a corrupted queue: its migrations table has no version")
    return int(row[0])


def check_version(db: Database) -> None:
    """Refuse a database that is no queue, or a queue newer or older than this evalkit."""
    found = version(db)
    if found is None:
        raise QueueError(
            f"{db.url.shown}: not a queue (no {MIGRATIONS_TABLE} table): create one with evalkit queue init"
        )
    if found > LATEST:
        raise QueueError(
            f"{db.url.shown}: the queue's schema is version {found}, newer than this evalkit's "
            f"({LATEST}): upgrade evalkit (pip install -U evalkit) to use it"
        )
    if found < LATEST:
        raise QueueError(
            f"{db.url.shown}: the queue's schema is version {found}; this evalkit needs {LATEST}: "
            f"a lead upgrades it with evalkit queue init {db.url.shown}"
        )


def migrate(db: Database) -> tuple[int | None, int]:
    """Apply the migrations the queue lacks, in one transaction under the lock; (before, after)."""
    with db.transaction():
        if db.dialect == "postgresql":
            db.execute(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK})")
        before = version(db)
        if before is not None and before > LATEST:
            check_version(db)
        if before is None:
            db.execute(
                f"CREATE TABLE {MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
        for number in range((before or 0) + 1, LATEST + 1):
            for statement in MIGRATIONS[number - 1]:
                db.execute(statement.format(**_WORDS[db.dialect]))
            db.execute(
                f"INSERT INTO {MIGRATIONS_TABLE} (version, applied_at) VALUES (?, CAST({{now}} AS TEXT))",
                (number,),
            )
    return before, LATEST
