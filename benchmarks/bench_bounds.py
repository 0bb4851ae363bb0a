"""Time and peak memory of the reads issue #30 bounded, through the console script, against an anchor: the
same scenarios run by another evalkit install (`--before`, say the main checkout's venv), alternated with
this one, each in its own process (wall time, CPU time of the process and its children, peak RSS).

Scenarios:
- `journal-1m`: `evalkit stats` over one journal of 1,000,000 decision lines (about 190 MB);
- `agreement-400`, `agreement-6000`: `evalkit stats` over two journals of N items whose final labels and
  ratings are all distinct;
- `journals-10000`: `evalkit stats` over 10,000 journals of one decision each (10 items, every label and
  rating distinct);
- `test-100k`: `evalkit test` over 100,000 cases in 10 files.

A run that fails (a MemoryError traceback, a limit) is reported with its exit code and the last line of its
stderr. Every command runs under RLIMIT_AS `--memory-limit` (default 6 GB: the machine is shared).

Run: `.venv/bin/python benchmarks/bench_bounds.py --before /work/main/.venv/bin/evalkit [--runs 1]
[--only journal-1m,test-100k]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AFTER = Path(sys.executable).parent / "evalkit"


def decision(number: int, source: str, target: str, value: object) -> str:
    minute = number // 60
    ts = f"2026-11-{1 + minute // 1440 % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:{number % 60:02d}Z"
    entry = {"ts": ts, "source": source, "target": target, "action": "edit", "value": value, "note": None}
    return json.dumps({**entry, "step": number + 1}) + "\n"


def journal_1m(folder: Path) -> list[str]:
    with (folder / "long.decisions.jsonl").open("w") as handle:
        for number in range(1_000_000):
            target = ("label", "rating.accuracy", "rating.clarity")[number % 3]
            value = "good" if target == "label" else float(number % 5 + 1)
            handle.write(decision(number, f"samples/s{number % 1000}.json", target, value))
    return ["stats", "long.decisions.jsonl", "--format", "json"]


def agreement(items: int) -> Callable[[Path], list[str]]:
    def make(folder: Path) -> list[str]:
        for side, offset in (("ana", 0), ("ben", 10 * items)):
            with (folder / f"{side}.decisions.jsonl").open("w") as handle:
                for item in range(items):
                    source = f"samples/s{item}.json"
                    handle.write(decision(2 * item, source, "label", f"label{offset + item}"))
                    handle.write(decision(2 * item + 1, source, "rating.accuracy", float(offset + item)))
        return ["stats", "ana.decisions.jsonl", "ben.decisions.jsonl", "--format", "json"]

    return make


def journals_10000(folder: Path) -> list[str]:
    names = []
    for number in range(10_000):
        name = f"r{number:05d}.decisions.jsonl"
        target, value = ("label", f"label{number}") if number % 2 else ("rating.accuracy", number / 1000)
        (folder / name).write_text(decision(0, f"samples/s{number % 10}.json", target, value))
        names.append(name)
    return ["stats", *names, "--format", "json"]


def test_100k(folder: Path) -> list[str]:
    suite = folder / "suite"
    fixture = REPO / "tests" / "ruletests" / "fixtures" / "suite"
    shutil.copytree(fixture, suite, ignore=shutil.ignore_patterns("tests"))
    (suite / "tests").mkdir()
    for number in range(10):
        with (suite / "tests" / f"many{number}.yaml").open("w") as handle:
            handle.write("submissions:\n  h: ../submissions/heap.json\ncases:\n")
            for case in range(10_000):
                handle.write(f"- {{name: c{case}, submission: h, expect: {{must_fire: [mentions_heap]}}}}\n")
    return ["test", "suite"]


SCENARIOS: dict[str, Callable[[Path], list[str]]] = {
    "journal-1m": journal_1m,
    "agreement-400": agreement(400),
    "agreement-6000": agreement(6000),
    "journals-10000": journals_10000,
    "test-100k": test_100k,
}


def measured(evalkit: str, args: list[str], folder: Path, memory: int) -> dict[str, object]:
    """Wall and CPU seconds, peak RSS (MB), exit code and the last stderr line of one run, in a process of
    its own (a child that reports its children's usage: the peak is this run's alone)."""
    code = (
        "import json, resource, subprocess, sys, time\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
        "wall = time.perf_counter() - start\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "lines = done.stderr.strip().splitlines()\n"
        "print(json.dumps({'wall_s': round(wall, 2), 'cpu_s': round(usage.ru_utime + usage.ru_stime, 2),\n"
        "    'peak_mb': round(usage.ru_maxrss / 1024), 'exit': done.returncode,\n"
        "    'stderr': lines[-1][:120] if lines and done.returncode != 0 else ''}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, evalkit, *args], cwd=folder, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--before", help="another install's evalkit script: the anchor")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--memory-limit", type=int, default=6 << 30)
    args = parser.parse_args()
    sides = [("after", str(AFTER))] + ([("before", args.before)] if args.before else [])
    os.environ.pop("EVALKIT_PURE", None)
    for name in args.only.split(","):
        with tempfile.TemporaryDirectory(prefix="bench-bounds-") as temporary:
            folder = Path(temporary)
            command = SCENARIOS[name](folder)
            for run in range(args.runs):
                order = sides if run % 2 == 0 else sides[::-1]  # alternated: neither side always goes first
                for side, evalkit in order:
                    result = measured(evalkit, command, folder, args.memory_limit)
                    print(json.dumps({"scenario": name, "side": side, "run": run + 1, **result}), flush=True)


if __name__ == "__main__":
    start = time.monotonic()
    main()
    print(f"# {time.monotonic() - start:.0f} s in all", file=sys.stderr)
