"""Line and branch coverage of engine/ and qydomain/ by the pure pass, at every property's full example count
and at the pure pass's reduced count (tests/budget.py): they must be the same, line for line and branch for
branch. Needs coverage.py in the venv (`.venv/bin/pip install coverage`; not a dependency of the project).

    .venv/bin/python benchmarks/pure_pass_coverage.py             # both counts derandomized (CI=1)
    .venv/bin/python benchmarks/pure_pass_coverage.py --random 3  # and three random runs at the reduced count

Each run is the pure pass's own command (tasks.py), under `coverage run --branch`: about 45 CPU-seconds at
the full count and 12 at the reduced one. It prints what a reduced run misses, if anything, and exits 1 then:
give the property that reached it an @example that does (or keep that property at its full count).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
Covered = tuple[set[tuple[str, int]], set[tuple[str, int, int]], dict[str, int]]


def _tasks() -> object:
    spec = importlib.util.spec_from_file_location("evalkit_tasks", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(command: list[str], reduced: bool, derandomized: bool, data: Path) -> Covered:
    tasks = _tasks()
    profile = f"--hypothesis-profile={tasks.PURE_PASS_PROFILE}"  # type: ignore[attr-defined]
    pytest_args = [str(part) for part in command[len(tasks.PYTEST) :]]  # type: ignore[attr-defined]
    if not reduced:
        pytest_args.remove(profile)
    include = f"{ROOT / 'engine'}/*,{ROOT / 'qydomain'}/*"
    python = str(tasks.BIN / "python")  # type: ignore[attr-defined]
    env = {**os.environ, "EVALKIT_PURE": "1", "COVERAGE_FILE": str(data)}
    env.pop("CI", None)
    if derandomized:
        env["CI"] = "1"
    coverage = [python, "-m", "coverage"]
    done = subprocess.run(
        [*coverage, "run", "--branch", f"--include={include}", "-m", "pytest", "-q", *pytest_args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    if done.returncode:
        sys.exit(f"the pure pass failed under coverage:\n{done.stdout[-2000:]}")
    report = data.with_suffix(".json")
    subprocess.run([*coverage, "json", "-q", "-o", str(report)], cwd=ROOT, env=env, check=True)
    found = json.loads(report.read_text())
    lines = {(name, line) for name, file in found["files"].items() for line in file["executed_lines"]}
    branches = {
        (name, start, end)
        for name, file in found["files"].items()
        for start, end in file.get("executed_branches", [])
    }
    totals = {key: found["totals"][key] for key in ("num_statements", "num_branches")}
    return lines, branches, totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=0, help="random runs at the reduced count, besides")
    options = parser.parse_args()
    command = [str(part) for part in _tasks()._pure_pass()]  # type: ignore[attr-defined]
    runs = [("full count, derandomized", False, True), ("reduced count, derandomized", True, True)]
    runs += [(f"reduced count, random run {n + 1}", True, False) for n in range(options.random)]
    missing = False
    with tempfile.TemporaryDirectory() as folder:
        full: Covered | None = None
        for number, (name, reduced, derandomized) in enumerate(runs):
            lines, branches, totals = _run(command, reduced, derandomized, Path(folder) / f"run{number}")
            print(
                f"{name}: {len(lines):,} of {totals['num_statements']:,} lines, "
                f"{len(branches):,} of {totals['num_branches']:,} branches",
                flush=True,
            )
            if full is None:
                full = lines, branches, totals
                continue
            for kind, reached, baseline in (("line", lines, full[0]), ("branch", branches, full[1])):
                for where in sorted(baseline - reached):
                    missing = True
                    print(f"  missed {kind} {where[0]}:{':'.join(map(str, where[1:]))}")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
