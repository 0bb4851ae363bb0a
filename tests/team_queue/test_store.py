"""The store on SQLite and on a real PostgreSQL: adding is idempotent, claims respect K and never give a
reviewer an item twice, leases run out and return items, decisions are written once by id."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from evalkit.services.queue import LeaseLost, QueueError
from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import init_queue
from tests.team_queue.reviewer_worker import entry


def items(count: int, start: int = 0) -> list[tuple[str, str, str]]:
    return [(f"{n:064x}", f"s{n}.json", json.dumps({"n": n})) for n in range(start, start + count)]


@pytest.fixture
def store(queue_url: str) -> QueueStore:
    init_queue(queue_url, "--per-item", "2", "--lease", "1s")
    opened = QueueStore.open(queue_url)
    yield opened
    opened.close()


def test_adding_twice_adds_once(store: QueueStore) -> None:
    assert store.add(items(5)) == (5, 0)
    assert store.add(items(7)) == (2, 5)
    assert store.db.execute("SELECT count(*) FROM slots").fetchone()[0] == 14


def test_claims_give_each_item_to_k_reviewers_and_no_reviewer_twice(store: QueueStore) -> None:
    store.add(items(3))
    got: dict[str, list[int]] = {}
    for reviewer in ("ann", "bob", "cy"):
        while (claimed := store.claim(reviewer)) is not None:
            got.setdefault(reviewer, []).append(claimed.item_id)
            store.record(reviewer, claimed.item_id, [entry("status", "done")])
    per_item: dict[int, int] = {}
    for ids in got.values():
        assert len(ids) == len(set(ids))
        for item_id in ids:
            per_item[item_id] = per_item.get(item_id, 0) + 1
    assert sorted(per_item.values()) == [2, 2, 2]
    assert "cy" not in got  # ann and bob took both slots of every item


def test_a_held_item_comes_back_to_its_reviewer_and_a_lapsed_lease_to_another(store: QueueStore) -> None:
    store.add(items(1))
    first = store.claim("ann")
    assert first is not None and store.claim("ann") == first  # resumed, not a second item
    assert store.claim("bob") is not None
    assert store.claim("cy") is None  # both slots held
    time.sleep(1.2)  # ann's and bob's leases run out
    taken = store.claim("cy")
    assert taken is not None and taken.item_id == first.item_id
    with pytest.raises(LeaseLost):  # whichever of ann and bob lost the slot to cy
        for reviewer in ("ann", "bob"):
            store.record(reviewer, first.item_id, [entry("rating.accuracy", "accept", 4)])


def test_a_decision_written_twice_is_kept_once(store: QueueStore) -> None:
    store.add(items(1))
    claimed = store.claim("ann")
    assert claimed is not None
    decided = [entry("label", "edit", "good"), entry("status", "done", step=2)]
    store.record("ann", claimed.item_id, decided)
    store.record("ann", claimed.item_id, decided)  # a spool flushed again after a lost reply
    assert [e["id"] for e in store.decisions_of("ann", claimed.item_id)] == [e["id"] for e in decided]
    assert store.progress("ann").mine == 1


def test_calibration_items_go_to_every_reviewer_first(queue_url: str) -> None:
    init_queue(queue_url, "--per-item", "1", "--calibration", "2")
    store = QueueStore.open(queue_url)
    store.add(items(4))
    for reviewer in ("ann", "bob", "cy"):
        seen = []
        for _ in range(2):
            claimed = store.claim(reviewer)
            assert claimed is not None and claimed.calibration
            seen.append(claimed.source)
            store.record(reviewer, claimed.item_id, [entry("status", "done")])
        assert seen == ["s0.json", "s1.json"]
    store.close()


def test_a_release_frees_the_slot_but_not_for_the_same_reviewer(store: QueueStore) -> None:
    store.add(items(1))
    claimed = store.claim("ann")
    assert claimed is not None
    assert store.release(reviewer="ann") == 1
    assert store.claim("ann") is None
    assert store.claim("bob") is not None and store.claim("cy") is not None


def test_a_newer_schema_is_refused_with_what_to_do(queue_url: str) -> None:
    init_queue(queue_url)
    store = QueueStore.open(queue_url)
    store.db.execute("INSERT INTO evalkit_queue_migrations (version, applied_at) VALUES (99, 'later')")
    store.close()
    with pytest.raises(QueueError, match=r"version 99, newer than this evalkit's .*upgrade evalkit"):
        QueueStore.open(queue_url)


def test_a_sqlite_file_that_is_not_a_queue_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("hello")
    with pytest.raises(QueueError, match="not a SQLite database"):
        QueueStore.open(str(text))
    other = tmp_path / "other.db"
    import sqlite3

    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(QueueError, match=r"not a queue .*evalkit queue init"):
        QueueStore.open(str(other))
