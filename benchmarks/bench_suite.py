"""Benchmark: the whole test suite as `python3 tasks.py test` runs it (both passes), wall and CPU seconds.

Each run's wall time, the CPU time of every process it waited for (user + sys: pytest, its xdist workers,
the pure-source pass, the commands the tests start), and the load average before it are printed, then the
medians. Other work on the machine stretches the wall time and not much the CPU time: compare runs made
in the same conditions, and read the load average.

    .venv/bin/python benchmarks/bench_suite.py [RUNS]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            report.seek(0)
            sys.stdout.write(report.read().decode(errors="replace"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    walls, cpus = [], []
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
