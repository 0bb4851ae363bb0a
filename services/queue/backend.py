"""One small connection API over the two databases a queue lives in: sqlite3 (the standard library) and
psycopg 3 (the `queue` extra). SQL is written once with `?` placeholders and the `{now}` clock; each
backend turns them into its own. Every driver error leaves here as a QueueError (or Unavailable) whose
message names the queue by its shown URL, never its password.

Transactions: `with db.transaction():` is one atomic unit. On SQLite it takes the write lock at once
(BEGIN IMMEDIATE), so two writers wait for each other (busy timeout) instead of failing half-way; on
PostgreSQL it is READ COMMITTED, and claims lock rows with FOR UPDATE SKIP LOCKED (store.py).
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalkit.services.queue import QueueError, Unavailable
from evalkit.services.queue.url import POSTGRESQL, QueueURL

CONNECT_TIMEOUT = 5  # seconds before an unreachable server is said to be so
BUSY_TIMEOUT_MS = 30_000  # how long a SQLite writer waits for another's lock
SQLITE_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
POSTGRESQL_NOW = "extract(epoch from clock_timestamp())::double precision"
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_CACHE_KIB = -65_536  # 64 MiB of page cache (negative: KiB): `queue add`'s digest index stays in memory


class Database:
    """An open queue database; `dialect` is "sqlite" or "postgresql"."""

    dialect: str
    url: QueueURL

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise NotImplementedError

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Insert many rows at once (in the caller's transaction)."""
        marks = ", ".join("?" * len(columns))
        self.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def close(self) -> None:
        raise NotImplementedError

    def table_names(self) -> set[str]:
        raise NotImplementedError


def open_database(url: QueueURL, create: bool = False) -> Database:
    """The database behind `url`; a SQLite file is created only with `create` (queue init)."""
    if url.kind == POSTGRESQL:
        return PostgresDatabase(url)
    return SqliteDatabase(url, create)


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, url: QueueURL, create: bool) -> None:
        self.url = url
        path = Path(url.target)
        if path.is_dir():
            raise QueueError(f"{url.shown}: a folder, not a queue file")
        if not path.exists() and not create:
            raise QueueError(f"{url.shown}: no such queue (create it with evalkit queue init {url.shown})")
        if path.exists():
            _refuse_non_sqlite(path, url)
        elif not path.parent.is_dir():
            raise QueueError(f"{url.shown}: the folder {path.parent} does not exist")
        try:
            self.connection = sqlite3.connect(
                path, timeout=0.05, isolation_level=None, check_same_thread=False
            )
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=NORMAL")
            self.connection.execute(f"PRAGMA cache_size={SQLITE_CACHE_KIB}")
            self.connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise QueueError(f"{url.shown}: cannot open the queue: {exc}") from None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        try:
            return self.connection.execute(sql.replace("{now}", SQLITE_NOW), params)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise QueueError(f"{self.url.shown}: {exc}") from None

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self.connection.executemany(sql.replace("{now}", SQLITE_NOW), rows)
        except sqlite3.Error as exc:
            raise QueueError(f"{self.url.shown}: {exc}") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._begin_immediate()
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    def _begin_immediate(self) -> None:
        """Take the write lock, retrying every millisecond or two: SQLite's own busy handler backs off to
        100 ms sleeps, which made a claim's p95 some 300 ms with 20 reviewers (benchmarks/bench_queue.py)."""
        give_up = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self.connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > give_up:
                    raise QueueError(f"{self.url.shown}: {exc}") from None
            time.sleep(random.uniform(0.0005, 0.002))

    def close(self) -> None:
        self.connection.close()

    def table_names(self) -> set[str]:
        rows = self.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {row[0] for row in rows}


def create_sqlite(url: QueueURL, build: Callable[[Database], object]) -> bool:
    """A new SQLite queue at `url`: made whole by `build` in a scratch file beside it, then linked into
    place, so that no one ever sees it half made and of two leads racing, one makes it. False when a file
    got there first (another lead's); the scratch file goes either way, and those of killed inits with it."""
    from evalkit.services.outputs.atomic import orphans, stamped_name

    target = Path(url.target)
    prefix = f".{target.name}."
    for orphan in orphans(target.parent, prefix, ".init"):
        _remove_sqlite(orphan)
    scratch = target.parent / stamped_name(prefix, ".init")
    try:
        db = SqliteDatabase(replace(url, target=str(scratch)), create=True)
        try:
            build(db)
        finally:
            db.close()
        try:
            os.link(scratch, target)
        except FileExistsError:
            return False
        except OSError as exc:
            raise QueueError(f"{url.shown}: cannot create the queue: {exc.strerror or exc}") from None
        return True
    finally:
        _remove_sqlite(scratch)


def _remove_sqlite(path: Path) -> None:
    """A SQLite file and its write-ahead log and shared-memory index."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        name.unlink(missing_ok=True)


def _refuse_non_sqlite(path: Path, url: QueueURL) -> None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise QueueError(f"{url.shown}: cannot read: {exc.strerror or exc}") from None
    if head and head != SQLITE_MAGIC:
        raise QueueError(f"{url.shown}: not a queue: the file is not a SQLite database")
    if not os.access(path, os.R_OK | os.W_OK):
        raise QueueError(f"{url.shown}: cannot open the queue for writing: permission denied")


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(self, url: QueueURL) -> None:
        self.url = url
        try:
            import psycopg
        except ImportError:
            raise QueueError(
                f"{url.shown}: a PostgreSQL queue needs psycopg: pip install 'evalkit-rules[queue]'"
            ) from None
        self._psycopg = psycopg
        self.connection = self._connect()

    def _connect(self) -> Any:
        psycopg = self._psycopg
        try:
            return psycopg.connect(self.url.target, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
        except psycopg.OperationalError as exc:
            raise self._failure(exc, connecting=True) from None
        except psycopg.Error as exc:
            raise QueueError(f"{self.url.shown}: {self._said(exc)}") from None

    def _connected(self) -> Any:
        """The connection; a new one when the server dropped the last (a restart, the network back)."""
        if self.connection.closed or self.connection.broken:
            self.connection = self._connect()
        return self.connection

    def _said(self, exc: Exception) -> str:
        """The driver's message, first line, with the password (were it echoed) hidden."""
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        password = self.url.password
        return text.replace(password, "***") if password else text

    def _failure(self, exc: Exception, connecting: bool = False) -> QueueError:
        said = self._said(exc)
        refused = (
            "password authentication failed",
            "does not exist",
            "no password supplied",
            "permission denied",
            "role ",
        )
        if connecting and any(part in said for part in refused):
            return QueueError(f"{self.url.shown}: the server refused the login: {said}")
        return Unavailable(f"{self.url.shown}: the database cannot be reached: {said}")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        try:
            return self._connected().execute(_pg_sql(sql), params)
        except self._psycopg.errors.UniqueViolation:
            raise
        except self._psycopg.errors.InsufficientPrivilege as exc:
            raise QueueError(f"{self.url.shown}: not allowed: {self._said(exc)}") from None
        except self._psycopg.OperationalError as exc:
            raise self._failure(exc) from None
        except self._psycopg.Error as exc:
            raise QueueError(f"{self.url.shown}: {self._said(exc)}") from None

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            with self._connected().cursor() as cursor:
                cursor.executemany(_pg_sql(sql), rows)
        except self._psycopg.OperationalError as exc:
            raise self._failure(exc) from None
        except self._psycopg.Error as exc:
            raise QueueError(f"{self.url.shown}: {self._said(exc)}") from None

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """COPY: `queue add` of 100,000 submissions sends them as one stream, not row by row. (PostgreSQL
        refuses COPY into a table with row-level security for anyone but its owner: `items` has none.)"""
        try:
            statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
            with self._connected().cursor() as cursor, cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
        except self._psycopg.OperationalError as exc:
            raise self._failure(exc) from None
        except self._psycopg.Error as exc:
            raise QueueError(f"{self.url.shown}: {self._said(exc)}") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            with self._connected().transaction():
                yield
        except self._psycopg.OperationalError as exc:
            raise self._failure(exc) from None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.connection.close()

    def table_names(self) -> set[str]:
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
        return {row[0] for row in rows}


def _pg_sql(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s").replace("{now}", POSTGRESQL_NOW)


def is_unique_violation(exc: BaseException) -> bool:
    if isinstance(exc, sqlite3.IntegrityError):
        return "UNIQUE" in str(exc)
    return type(exc).__name__ == "UniqueViolation"
