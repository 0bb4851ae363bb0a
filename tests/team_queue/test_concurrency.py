"""Invariants under concurrency and kill -9, with real processes: 50 reviewers over 1,000 items with K = 3,
on SQLite and on PostgreSQL. Some reviewers are killed at random (some come back under their name, some
never: their leases run out and their items go to others). Afterwards: no item has more than K reviewers,
every item has its K reviews, no reviewer got an item twice, every acknowledged decision is stored, and no
decision is stored twice."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import init_queue

pytestmark = pytest.mark.xdist_group("team-queue-processes")  # one run of 50 processes at a time

REVIEWERS = 50
ITEMS = 1_000
K = 3
WORKER = Path(__file__).with_name("reviewer_worker.py")


def start(url: str, name: str, folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, name, str(folder / f"{name}.log"), "500"],
        stdout=subprocess.DEVNULL,
        stderr=open(folder / f"{name}.err", "ab"),
    )


def test_fifty_reviewers_killed_at_random_keep_every_invariant(queue_url: str, tmp_path: Path) -> None:
    init_queue(queue_url, "--per-item", str(K), "--lease", "2s")
    store = QueueStore.open(queue_url)
    store.add((f"{n:064x}", f"s{n}.json", json.dumps({"n": n})) for n in range(ITEMS))
    store.close()
    names = [f"r{n:02d}" for n in range(REVIEWERS)]
    workers = {name: start(queue_url, name, tmp_path) for name in names}
    chance = random.Random(28)
    wait_for_reviews(queue_url, 300)  # every reviewer is at work by then
    killed = chance.sample(names, 10)
    for name in killed:
        workers[name].send_signal(signal.SIGKILL)
        workers[name].wait()
    time.sleep(0.5)
    for name in killed[:5]:  # they come back and resume the item they held
        workers[name] = start(queue_url, name, tmp_path)
    for name, worker in workers.items():
        assert worker.wait(timeout=600) in (0, -signal.SIGKILL), (tmp_path / f"{name}.err").read_text()
    check_invariants(queue_url, tmp_path, names)


def wait_for_reviews(url: str, count: int) -> None:
    store = QueueStore.open(url)
    stop = time.monotonic() + 120
    while time.monotonic() < stop:
        if store.db.execute("SELECT count(done_at) FROM slots").fetchone()[0] >= count:
            break
        time.sleep(0.2)
    store.close()


def check_invariants(url: str, folder: Path, names: list[str]) -> None:
    store = QueueStore.open(url)
    db = store.db
    done = Counter(row[0] for row in db.execute("SELECT item_id FROM slots WHERE done_at IS NOT NULL"))
    assert len(done) == ITEMS and set(done.values()) == {K}  # every item has its K reviews, no more
    holders = Counter(row[0] for row in db.execute("SELECT item_id FROM slots WHERE reviewer IS NOT NULL"))
    assert max(holders.values()) == K
    stored = Counter(row[0] for row in db.execute("SELECT id FROM decisions"))
    assert set(stored.values()) == {1}
    per_review = Counter(
        (row[0], row[1], row[2])
        for row in db.execute(
            "SELECT d.item_id, d.reviewer, d.target FROM decisions d "
            "JOIN slots s ON s.item_id = d.item_id AND s.reviewer = d.reviewer"
        )
    )
    assert len(per_review) == 2 * K * ITEMS and set(per_review.values()) == {1}  # nothing doubled
    for name in names:
        log = folder / f"{name}.log"
        lines = log.read_text().splitlines() if log.exists() else []
        acked = [line.split()[2] for line in lines if line.startswith("ack ")]
        assert all(decision in stored for decision in acked), name  # nothing acknowledged was lost
        claims = [int(line.split()[1]) for line in lines if line.startswith("claim ")]
        runs = [item for position, item in enumerate(claims) if position == 0 or claims[position - 1] != item]
        assert len(runs) == len(set(runs)), name  # an item again only as the resumption of the same claim
    store.close()
