"""The README's first command on a fresh clone: `python3 tasks.py demo` from nothing to results.

Clones the checkout's HEAD into a temporary folder, runs the demo there once (a new .venv: pip installs
evalkit alone and mypyc compiles the engine), and prints its wall time and the CPU time of it and its
children, beside the venv's size. Packages come from pip's cache after the first run on a machine, as
they would for a user who has installed anything before.

    python3 benchmarks/bench_first_run.py
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        clone = Path(scratch) / "evalkit"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "tasks.py", "demo"], cwd=clone, check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"tasks.py demo on a fresh clone: {wall:.1f} s wall, {cpu:.1f} CPU-s (with its children)")
        results = sorted(path.name for path in (clone / "out").iterdir())
        print(f".venv: {_size(clone / '.venv') / 1e6:.0f} MB; results: {', '.join(results)}")


if __name__ == "__main__":
    main()
