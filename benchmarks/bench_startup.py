"""Cold start of `evalkit eval FILE` (issue 15), hyperfine-style: warm-up runs, then a new process per run,
the median and the spread, beside the bare interpreter's start as the floor.

    .venv/bin/python benchmarks/bench_startup.py [--runs 40] [--no-wheel] [--against REV]

Two installs: the development venv (`.venv`, an editable install: `pip install -e .` puts an import finder
in front of every import, which costs even `python -c pass` some milliseconds) and, unless --no-wheel, what
users get: a wheel built from this tree (`pip wheel`, the engine compiled by mypyc) installed with plain
`pip install` into a temporary venv. For each: the bare interpreter (`python -c pass`), `evalkit eval FILE`
with the compiled-config cache warm (what a user sees on the second run with an unchanged config), and with
the cache disabled (EVALKIT_NO_CACHE=1: the YAML read, checked and compiled on every run). `--against REV`
(a git revision, e.g. main) installs that revision's wheel as well and runs it in turn with this tree's.

The cases take turns run by run, so that a change in the machine's load falls on all of them alike; on a
machine others share, the CPU time (user + system) swings less than the wall clock. Evalkit's bytecode is
cached (the warm-up runs write it). `python -X importtime -m evalkit eval FILE` shows where the import time
goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL_ARGS = ["eval", "samples/sample_submission.json", "--out", "/dev/null"]

Case = tuple[str, list[str], dict[str, str]]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, env=env)
    return time.perf_counter() - start, _children_cpu() - cpu


def timed_runs(cases: list[Case], runs: int, warmup: int = 3) -> list[tuple[list[float], list[float]]]:
    """Wall-clock and CPU (user + system) seconds of each run of each case, the cases taking turns."""
    for _, command, env in cases:
        for _ in range(warmup):
            subprocess.run(command, cwd=ROOT, check=True, env=env)
    times: list[tuple[list[float], list[float]]] = [([], []) for _ in cases]
    for _ in range(runs):
        for (_, command, env), (walls, cpus) in zip(cases, times, strict=True):
            wall, cpu = _run_once(command, env)
            walls.append(wall)
            cpus.append(cpu)
    return times


def report(label: str, runs: tuple[list[float], list[float]], floor: float | None) -> float:
    """Prints the wall-clock median and spread, and the CPU time's median."""
    walls, cpus = runs
    median = statistics.median(walls)
    quartiles = statistics.quantiles(walls, n=4)
    ratio = f", {median / floor:.1f}x the bare interpreter" if floor else ""
    spread = f"quartiles {quartiles[0] * 1000:.1f}-{quartiles[2] * 1000:.1f}"
    print(
        f"  {label}: median {median * 1000:.1f} ms ({spread}, "
        f"min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f} ms, {len(walls)} runs){ratio}; "
        f"CPU median {statistics.median(cpus) * 1000:.1f} ms",
        flush=True,
    )
    return median


def install_wheel(into: Path, revision: str | None = None) -> Path:
    """A venv in `into` with evalkit installed as users install it (a wheel, no import finder), from this
    tree or from a git revision; its bin folder."""
    source = ROOT
    if revision is not None:
        source = into / "source"
        source.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    wheels = into / "wheels"
    print(f"building a wheel of {revision or 'this tree'} and installing it in a temporary venv", flush=True)
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)], **quiet)
    venv = into / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], **quiet)
    bin_ = venv / ("Scripts" if os.name == "nt" else "bin")
    wheel = next(wheels.glob("evalkit*.whl"))  # evalkit_rules since it took a name free on the index
    subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "--quiet", str(wheel)], **quiet)
    return bin_


def measure(title: str, bin_: Path, env: dict[str, str], runs: int, against: Path | None = None) -> None:
    """The floor and eval with the cache warm and off; with `against`, that install's eval in turn too."""
    evalkit = [str(bin_ / "evalkit"), *EVAL_ARGS]
    cases: list[Case] = [
        ("bare interpreter (python -c pass)", [str(bin_ / "python"), "-c", "pass"], env),
        ("`evalkit eval FILE`, config cache warm", evalkit, env),
        ("`evalkit eval FILE`, EVALKIT_NO_CACHE=1", evalkit, {**env, "EVALKIT_NO_CACHE": "1"}),
    ]
    if against is not None:
        baseline = [str(against / "evalkit"), *EVAL_ARGS]
        cases += [
            ("the other revision's eval, config cache warm", baseline, env),
            ("the other revision's eval, EVALKIT_NO_CACHE=1", baseline, {**env, "EVALKIT_NO_CACHE": "1"}),
        ]
    print(title, flush=True)
    times = timed_runs(cases, runs)
    floor = report(cases[0][0], times[0], None)
    for (label, _, _), runs_of_case in zip(cases[1:], times[1:], strict=True):
        report(label, runs_of_case, floor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--no-wheel", action="store_true", help="measure the development venv only")
    parser.add_argument("--against", metavar="REV", help="a git revision to compare with, e.g. main")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "EVALKIT_NO_CACHE")}
    with tempfile.TemporaryDirectory() as temporary:
        env["XDG_CACHE_HOME"] = str(Path(temporary) / "cache")  # a cache of this run's own, not the user's
        against = install_wheel(Path(temporary) / "against", args.against) if args.against else None
        if not args.no_wheel:
            installed = install_wheel(Path(temporary) / "this")
            measure("installed from a wheel (what users get):", installed, env, args.runs, against)
        measure("editable install (.venv, development):", ROOT / ".venv" / "bin", env, args.runs)


if __name__ == "__main__":
    main()
