"""The lead's commands through the real `evalkit` entry point, on SQLite and on PostgreSQL: init, add
(idempotent), status in three formats, assign and release, and export to journals that `evalkit stats` and
`evalkit check --journals` read unchanged."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import CONFIG, REPO, evalkit, init_queue
from tests.team_queue.postgres import PASSWORD

SAMPLES = REPO / "samples"


def decide(store: QueueStore, reviewer: str, label: str, rating: float) -> int:
    claimed = store.claim(reviewer)
    assert claimed is not None
    entries = [
        {"target": "rating.accuracy", "action": "edit", "value": rating, "rules": ["r1"]},
        {"target": "label", "action": "edit", "value": label, "rules": ["r2"]},
        {"target": "status", "action": "done"},
    ]
    for step, entry in enumerate(entries, start=1):
        entry.update(id=uuid.uuid4().hex, ts=f"2026-12-04T10:0{step}:00Z", note=None, step=step)
        entry.setdefault("value", None)
    store.record(reviewer, claimed.item_id, entries)
    return claimed.item_id


def test_init_add_status_export_then_stats(queue_url: str, tmp_path: Path) -> None:
    out = tmp_path / "journals"
    out.mkdir()
    init_queue(queue_url, "--per-item", "2")
    broken = tmp_path / "in" / "broken.json"
    broken.parent.mkdir()
    broken.write_text("{")
    added = evalkit("queue", "add", queue_url, str(SAMPLES), str(broken))
    assert added.returncode == 1
    assert "broken.json: error: invalid JSON" in added.stderr and ": 31 added" in added.stderr
    again = evalkit("queue", "add", queue_url, str(SAMPLES))
    assert ": 0 added" in again.stderr
    store = QueueStore.open(queue_url)
    for reviewer, label in (("ann", "good"), ("bob", "good"), ("ann", "bad"), ("bob", "good")):
        decide(store, reviewer, label, 4.0 if reviewer == "ann" else 3.0)
    store.close()
    status = evalkit("queue", "status", queue_url, "--format", "json")
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert {r["reviewer"]: r["done"] for r in report["reviewers"]} == {"ann": 2, "bob": 2}
    assert report["items_by_reviews"]["2"] == 2
    assert [item["reviews"] for item in report["item_reviews"]] == [2, 2]
    assert report["agreement"]["nominal"]["items"] == 2
    assert set(report["agreement_by_rule"]) == {"r1", "r2"}
    text = evalkit("queue", "status", queue_url)
    assert "ann" in text.stdout and "agreement" in text.stdout
    assert "<table>" in evalkit("queue", "status", queue_url, "--format", "html").stdout
    exported = evalkit("queue", "export", queue_url, "--journals", str(out))
    assert exported.returncode == 0, exported.stderr
    journals = sorted(str(p) for p in out.glob("*.decisions.jsonl"))
    assert [Path(p).name for p in journals] == ["ann.decisions.jsonl", "bob.decisions.jsonl"]
    stats = evalkit("stats", *journals, "--format", "json", "--config-dir", str(CONFIG))
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["agreement"]["nominal"]["items"] == 2
    check = evalkit("check", str(CONFIG), "--journals", str(out / "*.decisions.jsonl"))
    assert check.returncode == 0, check.stdout + check.stderr
    written = "".join(p.read_text() for p in out.iterdir()) + exported.stderr + status.stdout
    assert PASSWORD not in written


def test_assign_and_release(queue_url: str) -> None:
    init_queue(queue_url, "--per-item", "1")
    evalkit("queue", "add", queue_url, str(SAMPLES / "01_algorithms_graphs_complete.json"))
    assigned = evalkit("queue", "assign", queue_url, "#1", "--to", "cy")
    assert assigned.returncode == 0, assigned.stderr
    store = QueueStore.open(queue_url)
    assert store.claim("ann") is None  # the one slot is cy's
    held = store.claim("cy")
    assert held is not None and held.item_id == 1
    store.close()
    moved = evalkit("queue", "assign", queue_url, "#1", "--to", "dee", "--from", "cy")
    assert moved.returncode == 0, moved.stderr
    again = evalkit("queue", "assign", queue_url, "#1", "--to", "cy")
    assert again.returncode == 2 and "cy already had item #1" in again.stderr
    released = evalkit("queue", "release", queue_url, "--reviewer", "dee")
    assert released.returncode == 0 and "1 unfinished" in released.stderr
    store = QueueStore.open(queue_url)
    assert store.claim("ann") is not None
    store.close()


def test_a_version_1_queue_is_refused_until_init_upgrades_it(queue_url: str) -> None:
    init_queue(queue_url, "--per-item", "3")
    assert (
        evalkit("queue", "add", queue_url, str(SAMPLES / "01_algorithms_graphs_complete.json")).returncode
        == 0
    )
    store = QueueStore.open(queue_url)
    with store.db.transaction():  # back to what version 1 made
        for index in ("decisions_unit", "slots_done", "items_calibration", "slots_reviewer", "slots_open"):
            store.db.execute(f"DROP INDEX {index}")
        store.db.execute("CREATE INDEX slots_reviewer ON slots (reviewer, done_at)")
        store.db.execute("CREATE INDEX slots_free ON slots (done_at, lease_until, item_id)")
        store.db.execute("DELETE FROM evalkit_queue_migrations WHERE version = 2")
    store.close()
    refused = evalkit("queue", "status", queue_url)
    assert refused.returncode == 2
    assert "version 1; this evalkit needs 2: a lead upgrades it with evalkit queue init" in refused.stderr
    upgraded = evalkit("queue", "init", queue_url, "--config-dir", str(CONFIG))
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stderr.strip().endswith("schema upgraded from version 1 to 2")  # not this command's K
    report = json.loads(evalkit("queue", "status", queue_url, "--format", "json").stdout)
    assert (report["per_item"], report["items"]) == (3, 1)


@pytest.mark.parametrize(
    ("calibration", "expected"),
    [("3", {1, 2, 3}), ("10%", {5, 15, 25}), ("2.5%", {20})],  # of 31: 3.1 -> 3, 0.775 -> 1, spread out
)
def test_calibration_items_are_seen_by_every_reviewer_first(
    queue_url: str, calibration: str, expected: set[int]
) -> None:
    init_queue(queue_url, "--per-item", "1", "--calibration", calibration)
    added = evalkit("queue", "add", queue_url, str(SAMPLES))
    assert added.returncode == 0 and ": 31 added" in added.stderr, added.stderr
    store = QueueStore.open(queue_url)
    chosen = {row[0] for row in store.db.execute("SELECT id FROM items WHERE calibration = 1")}
    assert chosen == expected
    for reviewer in ("ann", "bob", "cy"):
        seen = []
        for _ in range(len(expected) + 1):
            claimed = store.claim(reviewer)
            assert claimed is not None
            seen.append(claimed.item_id)
            done = {"id": uuid.uuid4().hex, "ts": "t", "target": "status", "action": "done", "step": 1}
            store.record(reviewer, claimed.item_id, [{**done, "value": None, "note": None}])
        assert set(seen[:-1]) == expected and seen[-1] not in expected  # all of them first, then another
    store.close()
    report = json.loads(evalkit("queue", "status", queue_url, "--format", "json").stdout)
    assert report["calibration"] == len(expected)
    assert report["items_by_reviews"]["3"] == len(expected)  # each calibration item: every reviewer's
