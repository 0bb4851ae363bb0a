"""Benchmark the team queue (issue #28's figures) on SQLite and on a real PostgreSQL started for the run.

    .venv/bin/python benchmarks/bench_queue.py [--items 100000] [--claims 40] [--skip-postgresql]
        [--parts claim,add,status,next] [--repeat N]

- claim: N reviewer processes (50 on PostgreSQL, 20 on SQLite) claim and finish items as fast as they can,
  each timing `claim` (wall) and a `SELECT 1` round trip on the same connection (the anchor: what the
  database's round trip alone costs), alternated; reported as p50 / p95 over all processes, with the
  ratio claim / anchor at the median. Targets: p95 < 20 ms on PostgreSQL (50), < 50 ms on SQLite (20).
- add: `evalkit queue add` of ITEMS submissions (one JSONL file), through the real command: wall and
  CPU (user + system of the child). Target < 10 s.
- status: `queue status` computed over ITEMS items and 3 x ITEMS decisions (K = 3, every review done,
  filled in bulk), wall and CPU (this process's, and on PostgreSQL the server's too), alternated with the
  anchor: one plain read of every decision (`SELECT count(*), max(length(value)) FROM decisions`). Target
  < 1 s.
- next item: what the app does between a reviewer finishing an item and the next one being ready: the
  done decision written (QueueJournal.append), the next claim, and the submission parsed; beside it, the
  file-backed app's cost of the same step (the journal append). Target < 100 ms.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' PostgreSQL server (tests/team_queue/postgres.py)

from evalkit.services.queue.store import QueueStore  # noqa: E402
from tests.team_queue.postgres import running_server  # noqa: E402

EVALKIT = Path(sys.executable).parent / "evalkit"
CONFIG = ROOT / "config_samples"
ANCHOR = "SELECT count(*), max(length(value)) FROM decisions"
SAMPLE = json.loads((ROOT / "samples" / "sample_submission.json").read_text())


def init(url: str, per_item: int) -> None:
    subprocess.run(
        [str(EVALKIT), "queue", "init", url, "--config-dir", str(CONFIG), "--per-item", str(per_item)],
        check=True,
        capture_output=True,
    )


def done_entry() -> dict[str, object]:
    return {
        "id": uuid.uuid4().hex,
        "ts": "t",
        "target": "status",
        "action": "done",
        "value": None,
        "note": None,
        "step": 1,
    }


def reviewer(url: str, name: str, claims: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    store = QueueStore.open(url)
    timings: list[tuple[float, float]] = []
    for _ in range(claims):
        started = time.perf_counter()
        store.db.execute("SELECT 1").fetchone()
        anchor = time.perf_counter() - started
        started = time.perf_counter()
        claimed = store.claim(name)
        took = time.perf_counter() - started
        if claimed is None:
            break
        timings.append((took, anchor))
        store.record(name, claimed.item_id, [done_entry()])
    store.close()
    out.put(timings)


def bench_claims(url: str, reviewers: int, claims: int) -> None:
    init(url, 3)
    store = QueueStore.open(url)
    store.add((f"{n:064x}", f"s{n}", "{}") for n in range(reviewers * claims))
    store.close()
    results: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    workers = [
        multiprocessing.Process(target=reviewer, args=(url, f"r{n}", claims, results))
        for n in range(reviewers)
    ]
    cpu = time.process_time()
    for worker in workers:
        worker.start()
    timings = [t for _ in workers for t in results.get(timeout=600)]
    for worker in workers:
        worker.join()
    claim = sorted(t for t, _ in timings)
    anchor = sorted(a for _, a in timings)
    p = lambda values, q: values[min(len(values) - 1, int(q * len(values)))] * 1000  # noqa: E731
    print(
        f"  claim, {reviewers} reviewers, {len(claim)} claims: p50 {p(claim, 0.5):.1f} ms, "
        f"p95 {p(claim, 0.95):.1f} ms (SELECT 1: p50 {p(anchor, 0.5):.2f} ms, p95 {p(anchor, 0.95):.2f} ms; "
        f"ratio at p50 {statistics.median(claim) / max(statistics.median(anchor), 1e-9):.0f}x)"
    )
    del cpu


def bench_add(url: str, items: int, folder: Path) -> None:
    init(url, 3)
    corpus = folder / "corpus.jsonl"
    with open(corpus, "w") as handle:
        for n in range(items):
            handle.write(json.dumps({**SAMPLE, "prompt": f"{SAMPLE['prompt']} #{n}"}) + "\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([str(EVALKIT), "queue", "add", url, str(corpus)], check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(f"  queue add of {items} submissions: {wall:.2f} s wall, {cpu:.2f} s CPU (the command)")


def bench_status(url: str, server_cpu: Callable[[], float]) -> None:
    from evalkit.services.queue.status import queue_status

    store = QueueStore.open(url)  # the queue bench_add filled
    db = store.db
    with db.transaction():
        db.execute(
            "UPDATE slots SET reviewer = 'r' || CAST(slot + 3 * (item_id % 7) AS TEXT), "
            "claimed_at = {now} - 3600, done_at = {now}, lease_until = {now}"
        )
        db.execute(
            "INSERT INTO decisions (id, item_id, reviewer, role, ts, target, action, value, note, step, "
            "rules) SELECT CAST(item_id AS TEXT) || '-' || reviewer, item_id, reviewer, 'review', 't', "
            "'label', 'edit', "
            "CASE WHEN (item_id + slot) % 3 = 0 THEN '\"bad\"' ELSE '\"good\"' END, NULL, 1, 'r1' FROM slots"
        )
    if db.dialect == "postgresql":
        db.execute("VACUUM ANALYZE")  # as autovacuum would after such a fill
    rows = db.execute("SELECT count(*) FROM decisions").fetchone()[0]
    timed: dict[str, list[tuple[float, float]]] = {"status": [], "anchor": []}
    for _ in range(3):  # alternated: the anchor, a plain read of every decision, then the status
        for name, step in (
            ("anchor", lambda: db.execute(ANCHOR).fetchall()),
            ("status", lambda: queue_status(store)),
        ):
            cpu, server, started = time.process_time(), server_cpu(), time.perf_counter()
            step()
            wall = time.perf_counter() - started
            timed[name].append((wall, time.process_time() - cpu + server_cpu() - server))
    status = queue_status(store)
    store.close()
    wall, cpu = min(timed["status"])
    anchor_wall, anchor_cpu = min(timed["anchor"])
    print(
        f"  queue status over {status.items} items, {rows} decisions: best {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU (this process and the server; of 3; alpha over {status.agreement[1].items} "
        f"items); the anchor (every decision read): {anchor_wall:.2f} s wall, {anchor_cpu:.2f} s CPU; "
        f"ratio {wall / anchor_wall:.1f}x"
    )


def no_server() -> float:
    return 0.0


def postgres_cpu(folder: Path) -> Callable[[], float]:
    """The CPU seconds the server's processes used so far: the postmaster's own and its reaped children's
    (parallel workers come and go), and its live children's (the backends)."""
    ticks = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # a process that ended meanwhile
            pid, parent = int(stat.parent.name), int(fields[1])
            if pid == postmaster or parent == postmaster:
                total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        return total / ticks

    return used


def bench_next_item(url: str, folder: Path) -> None:
    from evalkit.services.inputs.read import parse_text
    from evalkit.services.queue.spool import Spool
    from evalkit.tui.journal import Journal
    from evalkit.tui.queue_source import QueueJournal, item_source

    init(url, 1)
    store = QueueStore.open(url)
    store.add((f"{n:064x}", f"s{n}", json.dumps({**SAMPLE, "prompt": str(n)})) for n in range(200))
    journal = QueueJournal(store, "ann", Spool(folder / "spool.jsonl"))
    file_journal = Journal(folder / "ann.decisions.jsonl")
    queue_times, file_times = [], []
    claimed = store.claim("ann")
    for _ in range(50):
        assert claimed is not None
        entry = {**done_entry(), "source": item_source(claimed.item_id, claimed.source)}
        started = time.perf_counter()
        file_journal.append([entry])
        file_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        journal.append([entry])
        claimed = store.claim("ann")
        assert claimed is not None
        parse_text(json.dumps(claimed.body), item_source(claimed.item_id, claimed.source), ".json")
        queue_times.append(time.perf_counter() - started)
    journal.close()
    file_journal.close()
    print(
        f"  next item after a decision: queue median {statistics.median(queue_times) * 1000:.1f} ms, "
        f"max {max(queue_times) * 1000:.1f} ms; the file journal's append median "
        f"{statistics.median(file_times) * 1000:.1f} ms"
    )


def run(
    kind: str,
    url_for: object,
    args: argparse.Namespace,
    folder: Path,
    server_cpu: Callable[[], float] = no_server,
) -> None:
    print(kind)
    reviewers = 50 if kind == "postgresql" else 20
    parts = args.parts.split(",")
    for run_number in range(args.repeat):
        if "claim" in parts:
            bench_claims(url_for(f"claims{run_number}"), reviewers, args.claims)  # type: ignore[operator]
    if "add" in parts or "status" in parts:
        add_url = url_for("add")  # type: ignore[operator]
        bench_add(add_url, args.items, folder)
        if "status" in parts:
            bench_status(add_url, server_cpu)
    if "next" in parts:
        bench_next_item(url_for("next"), folder)  # type: ignore[operator]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--claims", type=int, default=40, help="claims per reviewer process")
    parser.add_argument("--skip-postgresql", action="store_true")
    parser.add_argument(
        "--parts", default="claim,add,status,next", help="which parts to run (status needs add)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of the claim part, each on a new queue")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        run("sqlite", lambda label: str(folder / f"{label}.db"), args, folder)
        if not args.skip_postgresql:
            with running_server() as server:

                def url_for(label: str) -> str:
                    server.psql(f"CREATE DATABASE {label}")
                    return server.url(label)

                run("postgresql", url_for, args, folder, postgres_cpu(server.folder))


if __name__ == "__main__":
    main()
