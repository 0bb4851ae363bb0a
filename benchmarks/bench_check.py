"""Wall time of `evalkit check config_samples` (the whole shipped config folder, through the installed
entry point) against `check-jsonschema` validating the single rules.yaml with the same schema, the bar the
issue sets for a pre-commit hook. Then the modules `evalkit check` spends its import time on.

Run: `.venv/bin/python benchmarks/bench_check.py [--runs 20]`. check-jsonschema is installed into a
throwaway virtual environment under /tmp (never into the project's); if that fails, only evalkit is timed.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
THROWAWAY = Path(tempfile.gettempdir()) / "evalkit-bench-check-jsonschema"


def check_jsonschema() -> Path | None:
    """The check-jsonschema executable, installed on first use into THROWAWAY; None if it cannot be."""
    executable = THROWAWAY / "bin" / "check-jsonschema"
    if executable.exists():
        return executable
    print(f"installing check-jsonschema into {THROWAWAY} ...", file=sys.stderr)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(THROWAWAY)], check=True, capture_output=True)
        subprocess.run(
            [str(THROWAWAY / "bin" / "pip"), "install", "-q", "check-jsonschema"],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        print(f"check-jsonschema could not be installed ({exc}); timing evalkit only", file=sys.stderr)
        return None
    return executable


def timings(commands: dict[str, list[str]], runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall seconds and CPU seconds (user + system, of the child) per run of each command. The commands take
    turns, so that all meet the same load on a shared machine; one untimed warm-up run each comes first
    (bytecode caches, file cache). CPU time is the steadier figure on a busy machine."""
    for command in commands.values():
        subprocess.run(command, cwd=REPO, capture_output=True)
    found: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            wall, cpu = _timed(command)
            found[name][0].append(wall)
            found[name][1].append(cpu)
    return found


def _timed(command: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def describe(name: str, wall: list[float], cpu: list[float]) -> str:
    ms = sorted(t * 1000 for t in wall)
    return (
        f"{name:<58} wall median {statistics.median(ms):6.0f} ms (min {ms[0]:5.0f}, max {ms[-1]:5.0f})   "
        f"cpu median {statistics.median(cpu) * 1000:5.0f} ms"
    )


def import_offenders(limit: int, runs: int = 7) -> list[str]:
    """The modules with the largest cumulative import time under `evalkit check config_samples`, each its
    fastest of `runs` runs (a single run on a shared machine blames whichever module a stall hit)."""
    best: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        for name, cumulative, own in _import_times():
            if name not in best or cumulative < best[name][0]:
                best[name] = (cumulative, own)
    rows = sorted(((cumulative, own, name) for name, (cumulative, own) in best.items()), reverse=True)
    return [
        f"  {cumulative / 1000:7.1f} ms cumulative {own / 1000:6.1f} ms self  {name}"
        for cumulative, own, name in rows[:limit]
    ]


def _import_times() -> list[tuple[str, int, int]]:
    """(module, cumulative µs, self µs) from one `python -X importtime` run."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "evalkit", "check", "config_samples"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            own, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
            rows.append((name, int(cumulative), int(own)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    commands = {
        "python -c pass (the machine's baseline)": [sys.executable, "-c", "pass"],
        "evalkit check config_samples (5 files)": [str(BIN / "evalkit"), "check", "config_samples"],
    }
    other = check_jsonschema()
    if other is not None:
        commands["check-jsonschema --schemafile rules.schema.json rules.yaml"] = [
            str(other),
            "--schemafile",
            "schemas/rules.schema.json",
            "config_samples/rules.yaml",
        ]
    found = timings(commands, args.runs)
    for name, (wall, cpu) in found.items():
        print(describe(name, wall, cpu))
    if other is not None:
        evalkit, cjs = (statistics.median(found[name][0]) for name in list(commands)[1:])
        print(f"evalkit / check-jsonschema (wall medians): {evalkit / cjs:.2f}")
    print("largest imports of `evalkit check config_samples`:")
    print("\n".join(import_offenders(15)))


if __name__ == "__main__":
    main()
