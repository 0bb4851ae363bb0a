"""Cold start of `evalkit eval FILE` (issue 15), hyperfine-style: warm-up runs, then a new process per run,
the median and the spread, beside the bare interpreter's start as the floor.

    .venv/bin/python benchmarks/bench_startup.py [--runs 40]

Evalkit's bytecode is cached (a warm-up run writes it). Three cases: the compiled-config cache warm (what
a user sees on the second run with an unchanged config), the cache disabled (EVALKIT_NO_CACHE=1: the YAML
read, validated and compiled on every run), and the bare interpreter (`python -c pass`). `python -X
importtime -m evalkit eval FILE` shows where the import time goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = [str(ROOT / ".venv/bin/evalkit"), "eval", "samples/sample_submission.json", "--out", "/dev/null"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_runs(
    command: list[str], env: dict[str, str], runs: int, warmup: int = 3
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + system) seconds of each run."""
    for _ in range(warmup):
        subprocess.run(command, cwd=ROOT, check=True, env=env)
    walls, cpus = [], []
    for _ in range(runs):
        cpu, start = _children_cpu(), time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, env=env)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
    return walls, cpus


def report(label: str, runs: tuple[list[float], list[float]], floor: float | None) -> float:
    """Prints the wall-clock median and spread, and the CPU time's median: on a machine others share, the
    CPU time swings less than the wall clock (it leaves out the waits for a core)."""
    walls, cpus = runs
    median = statistics.median(walls)
    quartiles = statistics.quantiles(walls, n=4)
    ratio = f", {median / floor:.1f}x the bare interpreter" if floor else ""
    spread = f"quartiles {quartiles[0] * 1000:.1f}-{quartiles[2] * 1000:.1f}"
    print(
        f"{label}: median {median * 1000:.1f} ms ({spread}, "
        f"min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f} ms, {len(walls)} runs){ratio}; "
        f"CPU median {statistics.median(cpus) * 1000:.1f} ms",
        flush=True,
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "EVALKIT_NO_CACHE")}
    with tempfile.TemporaryDirectory() as cache:
        env["XDG_CACHE_HOME"] = cache  # a cache of this run's own, not the user's
        floor = report(
            "bare interpreter (python -c pass)",
            timed_runs([str(ROOT / ".venv/bin/python"), "-c", "pass"], env, args.runs),
            None,
        )
        report("`evalkit eval FILE`, config cache warm", timed_runs(EVAL, env, args.runs), floor)
        report(
            "`evalkit eval FILE`, EVALKIT_NO_CACHE=1",
            timed_runs(EVAL, {**env, "EVALKIT_NO_CACHE": "1"}, args.runs),
            floor,
        )


if __name__ == "__main__":
    main()
