"""Where the wall time of `evalkit eval --jobs 2` goes (issue 15): a timeline of the parent and each worker.

    .venv/bin/python benchmarks/bench_pool_timeline.py [--lines 120000] [--runs 5] [--before CHECKOUT]

Runs `evalkit eval BATCH --out OUT` with --jobs 1 and --jobs 2, alternated, in a process that wraps the
pool's functions (services/run/: workers.py, pool.py, batch.py's renderer: interpreted, so a
wrapper sees every call) to stamp the monotonic clock, which every process shares. Each run's line splits
the wall time: the start (process start to the first chunk at work; with --jobs 2, to the fork, the fork,
and fork to each worker ready for its first chunk: the config loaded there, its renderer made), the time
between a worker's chunks (replying, its next chunk's message; `no chunk there`: it found none waiting, the
parent behind or the window full), its placing of held chunks into the output (pwrite and write-back),
each worker's idle time at the end (its last chunk done, the other still working), and the end (the last
chunk to the process's exit: the workers stopped, the output's fsync and rename). The summary gives the
wall ratio (medians and bests), the ratio by CPU, the CPU a line of the parent and the workers, and the
idle time at the end. `--before CHECKOUT` (say `git worktree add /tmp/main main`) runs, alternated, the
pool's modules of that checkout as well (services/inputs/read.py, pool.py, workers.py and
evalkit/commands/_eval_run.py): before and after in the same minutes. CPU time is user+sys; this machine is
shared, so walls swing: compare runs of the same minute.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

_BEFORE = r"""
import importlib.util, sys
import evalkit.commands, evalkit.services
POOL = ("services/inputs/read", "services/run/workers", "services/run/pool", "evalkit/commands/_eval_run")
for name in POOL:
    module_name = "evalkit." + name.replace("evalkit/", "").replace("/", ".")
    spec = importlib.util.spec_from_file_location(module_name, f"{CHECKOUT}/{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
"""
"""Loads the pool's modules of another checkout in place of this one's (they are not compiled)."""

_RUN = r"""
import json, os, resource, sys, time
T0 = time.monotonic()
# BEFORE
LOG = sys.argv[1]
sys.argv = ['evalkit', *sys.argv[2:]]
from evalkit.services.run import workers
from evalkit.services.run import pool
marks = {'t0': T0}
original_serve, original_made, original_place = workers._serve, workers._made, workers._place
original_start = workers._start

def _start(*args, **kwargs):
    marks['fork_begin'] = time.monotonic()
    made = original_start(*args, **kwargs)
    marks['fork_end'] = time.monotonic()
    return made

def _serve(connection, parent, make, inherited):
    own = {'begin': time.monotonic(), 'chunks': [], 'place': 0.0, 'pid': os.getpid()}

    def made(make):
        work = original_made(make)
        own['ready'] = time.monotonic()
        own['cpu_ready'] = time.process_time()

        def timed(task):
            begin, cpu = time.monotonic(), time.process_time()
            value = work(task)
            own['chunks'].append((begin, time.monotonic()))
            own['chunks_cpu'] = own.get('chunks_cpu', 0.0) + time.process_time() - cpu
            return value

        return timed

    def placed(order):
        begin, cpu = time.monotonic(), time.thread_time()
        original_place(order)
        own['place'] += time.monotonic() - begin
        own['place_cpu'] = own.get('place_cpu', 0.0) + time.thread_time() - cpu

    workers._made, workers._place = made, placed
    import queue

    class Inbox(queue.SimpleQueue):
        def get(self, *args, **kwargs):
            if not self.empty() or 'ready' not in own:
                return super().get(*args, **kwargs)
            begin = time.monotonic()
            got = super().get(*args, **kwargs)
            own['starved'] = own.get('starved', 0.0) + time.monotonic() - begin
            own['starved_n'] = own.get('starved_n', 0) + 1
            return got

    queue.SimpleQueue = Inbox
    try:
        original_serve(connection, parent, make, inherited)
    finally:
        own['end'] = time.monotonic()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        own['cpu'] = usage.ru_utime + usage.ru_stime
        with open(f'{LOG}.{os.getpid()}', 'w') as out:
            json.dump(own, out)

workers._serve, workers._start = _serve, _start
original_replies = workers.Crew.replies
original_synced = workers.Crew.synced

def replies(self):
    got = original_replies(self)
    marks['last_reply'] = time.monotonic()
    marks.setdefault('first_reply', marks['last_reply'])
    return got

def synced(self, number):
    marks['sync_begin'] = time.monotonic()
    original_synced(self, number)
    marks['sync_end'] = time.monotonic()

workers.Crew.replies, workers.Crew.synced = replies, synced
original_fsync = os.fsync

def fsync(fd):
    begin = time.monotonic()
    original_fsync(fd)
    marks['fsync'] = marks.get('fsync', 0.0) + time.monotonic() - begin

os.fsync = fsync
original_replace, original_stop = os.replace, workers._stop

def replace(*args, **kwargs):
    begin = time.monotonic()
    original_replace(*args, **kwargs)
    marks['replace'] = marks.get('replace', 0.0) + time.monotonic() - begin

def _stop(*args, **kwargs):
    marks['stop_begin'] = time.monotonic()
    original_stop(*args, **kwargs)
    marks['stop_end'] = time.monotonic()

os.replace, workers._stop = replace, _stop
from evalkit.services.run import batch
original_render = batch.ChunkRenderer.render

def render(self, task):
    marks.setdefault('first_render', time.monotonic())
    value = original_render(self, task)
    marks['last_render'] = time.monotonic()
    return value

batch.ChunkRenderer.render = render
from evalkit.cli import main
try:
    code = main()
finally:
    marks['end'] = time.monotonic()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    marks['cpu'] = usage.ru_utime + usage.ru_stime
    marks['workers_cpu'] = children.ru_utime + children.ru_stime
    with open(LOG, 'w') as out:
        json.dump(marks, out)
sys.exit(code)
"""


def timeline(source: Path, out: Path, jobs: int, log: Path, checkout: Path | None = None) -> dict:
    """The marks of one run of `evalkit eval SOURCE --out OUT --jobs JOBS` (with the pool's modules of
    `checkout`, when given), in seconds."""
    for old in log.parent.glob(log.name + "*"):
        old.unlink()
    start = time.monotonic()
    before = "" if checkout is None else _BEFORE.replace("CHECKOUT", repr(str(checkout)))
    subprocess.run(
        [
            sys.executable,
            "-c",
            _RUN.replace("# BEFORE", before),
            str(log),
            *("eval", str(source), "--out", str(out), "--jobs", str(jobs)),
        ],
        check=True,
    )
    wall = time.monotonic() - start
    marks = json.loads(log.read_text())
    crew = [json.loads(path.read_text()) for path in sorted(log.parent.glob(log.name + ".*"))]
    figures = {"wall": wall, "cpu": marks["cpu"], "workers_cpu": marks["workers_cpu"]}
    figures["process"] = marks["end"] - marks["t0"]
    figures["fsync"] = marks.get("fsync", 0.0)
    figures["replace"] = marks.get("replace", 0.0)
    if jobs == 1:
        figures["after_last_chunk"] = marks["end"] - marks["last_render"]
        figures["to_first_chunk"] = marks["first_render"] - marks["t0"]
    if jobs > 1:
        figures["to_fork"] = marks["fork_begin"] - marks["t0"]
        figures["fork"] = marks["fork_end"] - marks["fork_begin"]
        figures["worker_start"] = [w["ready"] - marks["fork_begin"] for w in crew]
        figures["first_chunk"] = [w["chunks"][0][0] - marks["fork_begin"] for w in crew if w["chunks"]]
        figures["to_first_chunk"] = min(w["chunks"][0][0] for w in crew if w["chunks"]) - marks["t0"]
        ends = [w["chunks"][-1][1] for w in crew if w["chunks"]]
        figures["idle_end"] = [max(ends) - end for end in ends]
        figures["waiting"] = [
            sum(b[0] - a[1] for a, b in zip(w["chunks"], w["chunks"][1:], strict=False)) - w["place"]
            for w in crew
        ]
        figures["place"] = [w["place"] for w in crew]
        figures["place_cpu"] = [w.get("place_cpu", 0.0) for w in crew]
        figures["starved"] = [w.get("starved", 0.0) for w in crew]
        figures["starved_n"] = [w.get("starved_n", 0) for w in crew]
        figures["chunks"] = [len(w["chunks"]) for w in crew]
        figures["working"] = [sum(b - a for a, b in w["chunks"]) for w in crew]
        figures["cpu_ready"] = [w["cpu_ready"] for w in crew]
        figures["chunks_cpu"] = [w["chunks_cpu"] for w in crew]
        figures["worker_cpu"] = [w["cpu"] for w in crew]
        figures["after_last_chunk"] = marks["end"] - max(ends)
        figures["sync"] = marks["sync_end"] - marks["sync_begin"]
        figures["exit"] = marks["end"] - marks["sync_end"]
        figures["stop"] = marks["stop_end"] - marks["stop_begin"]
    return figures


def _ms(values: float | list[float]) -> str:
    if isinstance(values, list):
        return "/".join(f"{v * 1000:.0f}" for v in values)
    return f"{values * 1000:.0f}"


def _line(name: str, jobs: int, f: dict) -> str:
    line = (
        f"{name} --jobs {jobs}: wall {f['wall']:.2f} s, CPU {f['cpu']:.2f}+{f['workers_cpu']:.2f} s; ms: "
        f"to the first chunk {_ms(f['to_first_chunk'])}"
    )
    if jobs == 1:
        return line + f", last chunk to exit {_ms(f['after_last_chunk'])} (fsync {_ms(f['fsync'])})"
    return line + (
        f" (to fork {_ms(f['to_fork'])}, fork {_ms(f['fork'])}, worker ready {_ms(f['worker_start'])}), "
        f"between chunks {_ms(f['waiting'])} (no chunk there {_ms(f['starved'])}, {f['starved_n']} times), "
        f"placing {_ms(f['place'])} (CPU {_ms(f['place_cpu'])}), idle at the end {_ms(f['idle_end'])}, "
        f"last chunk to exit {_ms(f['after_last_chunk'])} (sync {_ms(f['sync'])}, stopping the workers "
        f"{_ms(f['stop'])}, fsync {_ms(f['fsync'])}); chunks {f['chunks']}; worker CPU {_ms(f['worker_cpu'])}"
        f", starting {_ms(f['cpu_ready'])}, in chunks {_ms(f['chunks_cpu'])}"
    )


def _summary(name: str, rows: dict[int, list[dict]], lines: int) -> str:
    walls = {jobs: [row["wall"] for row in rows[jobs]] for jobs in rows}
    parent = [row["cpu"] / lines * 1e6 for row in rows[2]]
    workers = [row["workers_cpu"] / lines * 1e6 for row in rows[2]]
    one = min(row["cpu"] for row in rows[1])
    two = min(row["cpu"] + row["workers_cpu"] for row in rows[2])
    idle = [max(row["idle_end"]) * 1000 for row in rows[2]]
    return (
        f"{name}: --jobs 2 against 1: {statistics.median(walls[1]) / statistics.median(walls[2]):.2f}x (wall "
        f"medians), {min(walls[1]) / min(walls[2]):.2f}x (bests), {2 * one / two:.2f}x by CPU (bests); CPU a "
        f"line: one process {one / lines * 1e6:.1f} us, with --jobs 2 the parent "
        f"{statistics.median(parent):.2f} (best {min(parent):.2f}), the workers "
        f"{statistics.median(workers):.1f} (best {min(workers):.1f}); "
        f"a worker idle at the end: median {statistics.median(idle):.0f} ms, most {max(idle):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=120_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--before",
        type=Path,
        metavar="FOLDER",
        help="also run, alternated, with the pool's modules of the checkout FOLDER (services/run/pool.py, "
        "services/run/workers.py, services/inputs/read.py, commands/_eval_run.py) in place of this one's",
    )
    args = parser.parse_args()
    from bench_engine import _batch_file

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    builds = [("this build", None)] + ([("before", args.before.resolve())] if args.before else [])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = _batch_file(folder, args.lines)
        out, log = folder / "out.jsonl", folder / "marks"
        rows: dict[str, dict[int, list[dict]]] = {name: {1: [], 2: []} for name, _ in builds}
        for _ in range(args.runs):
            for name, checkout in builds:
                for jobs in (1, 2):  # alternated: the machine's load swings alike for each
                    figures = timeline(source, out, jobs, log, checkout)
                    rows[name][jobs].append(figures)
                    print(_line(name, jobs, figures), flush=True)
        for name, _ in builds:
            print(_summary(name, rows[name], args.lines))


if __name__ == "__main__":
    main()
