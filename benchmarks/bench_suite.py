"""Benchmark: the whole test suite as `python3 tasks.py test` runs it (both passes), wall and CPU seconds.

Each run's wall time, the CPU time of every process it started (user + sys: pytest, its xdist workers,
the pure-source pass, the commands the tests start, and Ray's processes), and the load average before it
are printed, then the medians. Some of Ray's processes outlive their parents, and nobody waits for them:
this script makes itself their subreaper (Linux) and waits for them, so that their CPU time counts (about
13 CPU-s of a run in November 2026, uncounted before). Other work on the machine stretches the wall time
and not much the CPU time: compare runs made in the same conditions, and read the load average.

    .venv/bin/python benchmarks/bench_suite.py [RUNS]
"""

from __future__ import annotations

import ctypes
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36
ORPHANS_WAIT_S = 60


def adopt_orphans() -> None:
    """Become the parent of every process this one's children leave behind (Linux; elsewhere a no-op)."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_orphans() -> None:
    """Wait for the adopted processes, so that their CPU time counts in RUSAGE_CHILDREN."""
    deadline = time.monotonic() + ORPHANS_WAIT_S
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.1)


def one_run() -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and the exit code of one `python3 tasks.py test`; a failed run's report is
    printed."""
    with tempfile.TemporaryFile() as report:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "tasks.py", "test"], cwd=ROOT, stdout=report, stderr=subprocess.STDOUT
        )
        wall = time.perf_counter() - started
        reap_orphans()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            report.seek(0)
            sys.stdout.write(report.read().decode(errors="replace"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    walls, cpus = [], []
    adopt_orphans()
    for number in range(1, runs + 1):
        load = os.getloadavg()[0]
        wall, cpu, code = one_run()
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {number}: {wall:6.1f} s wall, {cpu:6.1f} CPU-s, exit {code} (load before: {load:.1f})")
    if runs > 1:
        print(f"median: {statistics.median(walls):6.1f} s wall, {statistics.median(cpus):6.1f} CPU-s")


if __name__ == "__main__":
    main()
