"""What evalkit's own process pool (services/run/pool.py, workers.py) earns over the standard library's.

    .venv/bin/python benchmarks/bench_pool_stdlib.py [--lines 60000] [--rows 60000] [--rounds 5]
        [--only timing|behaviour] [--variants pool,pipe,stdlib]

Timing: `evalkit eval BATCH --jobs 2` and `evalkit score ROWS --jobs 2`, each with `--out FILE` and with
stdout a pipe (`| cat > /dev/null`), in a child process that runs the command's own entry point with the
pool replaced or not:

- `pool`: as shipped: workers hold their chunks of output and write them into --out themselves, or spool
  them to files the parent copies on in the kernel (a pipe);
- `pipe`: the same pool, every chunk of output crossing the pipe to the parent (no hold, no spool);
- `stdlib`: `concurrent.futures.ProcessPoolExecutor(2)` (forked, the work made once per worker by its
  initializer) and its `map`, every chunk crossing its pipe, the parent writing it;
- `nomallopt`, `nofadvise` (on request): the pool without `_keep_freed_memory`'s mallopt, without the
  `posix_fadvise` that starts writing each chunk to disk as it is placed or copied: what each earns (the
  latter in the seconds the output's fsync takes at the end).

The variants run alternated, round after round (the machine's load swings alike for each); each line gives
the median wall seconds, the median CPU seconds (the parent's user+sys, then its workers'), the parent's
peak memory (max RSS), the ratio to `pool` in the same rounds, and the parent's CPU a line beyond what a run
of 200 lines costs it (starting, forking, ending): what caps the lines a second however many workers there
are. The outputs are checked equal.

Behaviour: the same command (`eval BATCH --jobs 2 --out FILE`, a batch large enough to be at work), with the
pool and with the stdlib's, (1) killed outright (SIGKILL to the parent) once its workers run: how many of its
workers are still alive 2 s later (then killed by this script); (2) Ctrl+C (SIGINT to its process group)
once its workers run: the exit code, the seconds to exit (a run not ended 20 s later is killed), the
tracebacks on stderr, the workers left; each --tries times; (3)
`eval BATCH --jobs 2` into a pipe whose reader waits 4 s before it reads: the parent's peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

_RUN = r"""
import contextlib, json, os, resource, sys, time
LOG, VARIANT = sys.argv[1], sys.argv[2]
sys.argv = ['evalkit', *sys.argv[3:]]
from evalkit.services.run import pool, workers

@contextlib.contextmanager
def no_spool(jobs, hold=False):
    yield None  # every chunk of output crosses the pipe

if VARIANT in ('pipe', 'stdlib'):
    pool.spool_folder = no_spool
if VARIANT == 'stdlib':
    import concurrent.futures, multiprocessing
    WORK = []

    def initializer(make):
        WORK.append(make())

    def call(task):
        return WORK[0](task)

    original_map = pool.ordered_map

    def stdlib_map(tasks, make, jobs, local=None):
        if jobs <= 1:
            yield from original_map(tasks, make, jobs, local)
            return
        context = multiprocessing.get_context('fork')
        with concurrent.futures.ProcessPoolExecutor(jobs, context, initializer, (make,)) as executor:
            yield from executor.map(call, tasks)

    pool.ordered_map = stdlib_map
if VARIANT == 'nomallopt':
    workers._keep_freed_memory = lambda: None
if VARIANT == 'nofadvise':
    os.posix_fadvise = lambda *args: None
FSYNC = [0.0]
original_fsync = os.fsync

def fsync(fd):
    begin = time.monotonic()
    original_fsync(fd)
    FSYNC[0] += time.monotonic() - begin

os.fsync = fsync
from evalkit.cli import main
try:
    code = main()
finally:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # VmHWM, not ru_maxrss: a process started by exec keeps its forking parent's ru_maxrss
    with open('/proc/self/status') as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith('VmHWM:'))
    with open(LOG, 'w') as out:
        json.dump({'cpu': own.ru_utime + own.ru_stime, 'workers_cpu': children.ru_utime + children.ru_stime,
                   'rss_mb': peak / 1024, 'fsync': FSYNC[0]}, out)
sys.exit(code)
"""
"""The command's own entry point, the pool replaced as VARIANT says; its CPU and memory written to LOG."""


def command(log: Path, variant: str, arguments: list[str]) -> list[str]:
    return [sys.executable, "-c", _RUN, str(log), variant, *arguments]


def timed(log: Path, variant: str, arguments: list[str], out: Path | None, cwd: Path) -> dict[str, float]:
    """One run: wall seconds, the parent's and its workers' CPU seconds, the parent's peak memory. `out`
    None: stdout is a pipe, read and dropped by `cat`."""
    started = time.perf_counter()
    if out is not None:
        result = subprocess.run(
            command(log, variant, [*arguments, "--out", str(out)]), cwd=cwd, capture_output=True, timeout=600
        )
        returncode, stderr = result.returncode, result.stderr
    else:
        with subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL) as cat:
            result = subprocess.run(
                command(log, variant, arguments),
                cwd=cwd,
                stdout=cat.stdin,
                stderr=subprocess.PIPE,
                timeout=600,
            )
            returncode, stderr = result.returncode, result.stderr
            assert cat.stdin is not None
            cat.stdin.close()
    wall = time.perf_counter() - started
    if returncode not in (0, 1):
        raise SystemExit(f"{variant} {' '.join(arguments)} failed ({returncode}):\n{stderr.decode()}")
    return {"wall": wall, **json.loads(log.read_text())}


Case = tuple[list[str], list[str], int]
"""A command's arguments on the whole input, on its first TINY lines, and its count of lines."""
TINY = 200


def timing(folder: Path, cases: dict[str, Case], variants: list[str], rounds: int) -> None:
    log = folder / "usage.json"
    for name, (arguments, tiny, count) in cases.items():
        for output in ("--out", "pipe"):
            rows: dict[str, list[dict[str, float]]] = {variant: [] for variant in variants}
            starts: dict[str, list[float]] = {variant: [] for variant in variants}
            outputs: dict[str, bytes] = {}
            for variant in variants:  # a round not counted: the files in the page cache, the code too
                timed(log, variant, arguments, folder / "warm" if output == "--out" else None, folder)
            for _ in range(rounds):
                for variant in variants:  # alternated
                    out = folder / f"out.{variant}" if output == "--out" else None
                    rows[variant].append(timed(log, variant, arguments, out, folder))
                    if out is not None:
                        outputs[variant] = out.read_bytes()
                    starts[variant].append(timed(log, variant, tiny, out, folder)["cpu"])
            if outputs:
                assert len(set(outputs.values())) == 1, "every variant must write the same bytes"
            anchor = statistics.median(row["wall"] for row in rows[variants[0]])
            anchor_cpu = statistics.median(row["cpu"] + row["workers_cpu"] for row in rows[variants[0]])
            for variant in variants:
                wall = statistics.median(row["wall"] for row in rows[variant])
                parent = statistics.median(row["cpu"] for row in rows[variant])
                workers = statistics.median(row["workers_cpu"] for row in rows[variant])
                cpu = statistics.median(row["cpu"] + row["workers_cpu"] for row in rows[variant])
                rss = statistics.median(row["rss_mb"] for row in rows[variant])
                fsync = statistics.median(row["fsync"] for row in rows[variant])
                # the parent's CPU a line beyond what it spends on TINY lines (starting, forking, ending):
                # what caps the lines a second however many workers there are
                line = (parent - statistics.median(starts[variant])) / (count - TINY)
                print(
                    f"{name} --jobs 2 {output:<5} {variant:<9}: wall {wall:6.2f} s ({wall / anchor:4.2f}x), "
                    f"CPU {parent:5.2f} + {workers:5.2f} s ({cpu / anchor_cpu:4.2f}x), parent {rss:5.0f} MB, "
                    f"fsync {fsync:4.2f} s, "
                    f"{line * 1e6:4.1f} us a line"
                    + (f" (at most {1 / line:,.0f} lines/s)" if line > 0 else ""),
                    flush=True,
                )


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _started(process: subprocess.Popen[bytes], jobs: int) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = _children(process.pid)
        if len(found) >= jobs:
            time.sleep(0.5)  # at work on their chunks
            return found
        time.sleep(0.05)
    raise SystemExit("the workers did not start")


def slow_reader(folder: Path, arguments: list[str], variants: list[str]) -> None:
    """stdout a pipe whose reader starts reading only after 4 s: what the parent holds meanwhile."""
    log = folder / "usage.json"
    for variant in variants:
        reader = subprocess.Popen(["sh", "-c", "sleep 4; cat > /dev/null"], stdin=subprocess.PIPE)
        started = time.perf_counter()
        result = subprocess.run(
            command(log, variant, arguments),
            cwd=folder,
            stdout=reader.stdin,
            stderr=subprocess.PIPE,
            timeout=600,
        )
        wall = time.perf_counter() - started
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait()
        if result.returncode not in (0, 1):
            raise SystemExit(f"{variant} failed ({result.returncode}):\n{result.stderr.decode()}")
        usage = json.loads(log.read_text())
        peak = usage["rss_mb"]
        print(
            f"{variant:<9} stdout a pipe read after 4 s: wall {wall:.2f} s, parent peak {peak:.0f} MB",
            flush=True,
        )


def behaviour(folder: Path, arguments: list[str], variants: list[str], tries: int) -> None:
    for _ in range(tries):
        for variant in variants:
            killed(folder, arguments, variant)
    for _ in range(tries):
        for variant in variants:
            interrupted(folder, arguments, variant)


def killed(folder: Path, arguments: list[str], variant: str) -> None:
    """The parent killed outright once its workers are at work: its workers alive 2 s later."""
    log = folder / "usage.json"
    process = subprocess.Popen(
        command(log, variant, [*arguments, "--out", str(folder / "killed.jsonl")]),
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pids = _started(process, 2)
    process.kill()
    process.wait()
    time.sleep(2.0)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:  # leave nothing running
        os.kill(pid, signal.SIGKILL)
    print(f"{variant:<9} parent killed outright: {len(left)} of {len(pids)} workers alive 2 s later")


def interrupted(folder: Path, arguments: list[str], variant: str) -> None:
    """Ctrl+C once the workers are at work: how the run ends (a run not ended 20 s later is killed)."""
    log = folder / "usage.json"
    process = subprocess.Popen(
        command(log, variant, [*arguments, "--out", str(folder / "interrupted.jsonl")]),
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    pids = _started(process, 2)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl+C: the whole process group
    try:
        _, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
    seconds = time.monotonic() - sent
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    tracebacks = stderr.count(b"Traceback")
    print(
        f"{variant:<9} Ctrl+C: exit {process.returncode} after {seconds:.2f} s, {tracebacks} tracebacks "
        f"({len(stderr.splitlines())} lines) on stderr, {len(left)} workers left",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=60_000, help="submissions in eval's batch")
    parser.add_argument("--rows", type=int, default=60_000, help="rows in score's dataset")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=("timing", "behaviour"))
    parser.add_argument("--tries", type=int, default=5, help="runs of each behaviour (default 5)")
    parser.add_argument("--variants", default="pool,pipe,stdlib", help="the first is the anchor")
    args = parser.parse_args()
    variants = args.variants.split(",")
    from bench_engine import _batch_file
    from bench_score_cli import make_rows

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        batch = _batch_file(folder, args.lines)
        rows = folder / "rows.jsonl"
        rows.write_text("".join(json.dumps(row) + "\n" for row in make_rows(args.rows)), encoding="utf-8")
        (folder / "tiny").mkdir()
        tiny_batch = folder / "tiny" / "batch.jsonl"
        tiny_batch.write_text("".join(batch.read_text(encoding="utf-8").splitlines(True)[:TINY]))
        tiny_rows = folder / "tiny" / "rows.jsonl"
        tiny_rows.write_text("".join(rows.read_text(encoding="utf-8").splitlines(True)[:TINY]))
        cases = {
            "eval": (
                ["eval", str(batch), "--jobs", "2"],
                ["eval", str(tiny_batch), "--jobs", "2"],
                args.lines,
            ),
            "score": (
                ["score", str(rows), "--jobs", "2"],
                ["score", str(tiny_rows), "--jobs", "2"],
                args.rows,
            ),
        }
        if args.only != "behaviour":
            timing(folder, cases, variants, args.rounds)
        if args.only != "timing":
            (folder / "big").mkdir()
            big = _batch_file(folder / "big", args.lines * 5)
            behaviour(folder, ["eval", str(big), "--jobs", "2"], ["pool", "stdlib"], args.tries)
            slow_reader(folder, cases["eval"][0], ["pool", "stdlib"])


if __name__ == "__main__":
    main()
