"""Engine figures for issue 2: evaluations per second in one process, evaluate() on long texts (issue 15),
a 10,000-submission JSONL batch
end to end (`evalkit eval --jobs 2`), a 60,000-line batch streamed (time and peak memory), and the cold
start of `evalkit eval` on one file.

    .venv/bin/python benchmarks/bench_engine.py [--batch 10000] [--runs 15] [--evals-only] [--long-texts]
    .venv/bin/python benchmarks/bench_engine.py --jsonl        # issue 15: one process against the JSON floor
    .venv/bin/python benchmarks/bench_engine.py --jsonl --jobs-lines 0   # the same without --jobs 2
    .venv/bin/python benchmarks/bench_engine.py --jobs-only --runs 15   # issue 15: only --jobs 2 against 1
    .venv/bin/python benchmarks/bench_engine.py --instructions 2000   # the same work counted by valgrind
    .venv/bin/python benchmarks/bench_engine.py --against /tmp/base --runs 9   # this tree against another

`--against TREE`: `evalkit eval` on a 40,000-line JSONL file (`--batch`) in one process, alternated run by
run with the same command run from TREE, a copy of another build's import folder (`TREE/evalkit/...`, the
package as the editable install maps it: evalkit/, and engine/, services/... copied into it, the compiled
engine's shared libraries with them), found first through PYTHONPATH (both run from a temporary folder,
so that the current folder's `evalkit/` is not found first); wall and CPU time of each, medians.

The engine is measured as installed: compiled by mypyc (setup.py) where the install found a C compiler,
else pure Python; the first line says which. `EVALKIT_COMPILE=0 .venv/bin/pip install -e .` installs the
pure build for comparison, `.venv/bin/pip install -e .` the compiled one again.

This machine is shared and its speed swings by a factor of three within minutes (other tenants, memory
monitoring), so each figure is given as the best of several runs (what the code costs) beside the median
(what it cost today).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALKIT = [sys.executable, "-m", "evalkit"]
PACKAGE_FOLDERS = ("evalkit", "engine", "lsp", "tui", "qydomain", "schemas", "config_samples")


def evals_per_second(repeats: int = 15) -> None:
    import timeit

    from evalkit.engine import Evaluator, load_config
    from evalkit.services.inputs.read import read_inputs

    evaluator = Evaluator(load_config())
    seed = json.loads((ROOT / "samples/sample_submission.json").read_text(encoding="utf-8"))
    varied = [s.data for s in read_inputs([ROOT / "samples"]) if s.submission is not None]

    def evaluate(data: dict) -> None:
        evaluator.evaluate(data)

    def evaluate_to_dict(data: dict) -> None:
        evaluator.evaluate(data).to_dict()

    # to_dict() adds what a fired rule's conditions observed (`detail`), which a Result works out only
    # when asked: `evalkit eval` always asks, the Python API and the review app only for what they show
    for label, step in (("evaluate(dict)", evaluate), ("evaluate(dict).to_dict()", evaluate_to_dict)):
        for name, batch in (("seed sample", [seed]), (f"{len(varied)} varied samples", varied)):

            def run(batch: list = batch, step: Callable[[dict], None] = step) -> None:
                for data in batch:
                    step(data)

            number = max(1, 2000 // len(batch))
            times = timeit.repeat(run, setup="import gc; gc.enable()", number=number, repeat=repeats)
            per_eval = [t / (number * len(batch)) for t in times]
            print(
                f"{label}, {name}: best {1 / min(per_eval):,.0f}/s ({min(per_eval) * 1e6:.0f} us), "
                f"median {1 / statistics.median(per_eval):,.0f}/s"
            )


def stretched(data: dict, total: int) -> dict:
    """`data` with each response and the rewrite repeated until the three hold about `total` characters."""
    parts = [r["text"] for r in data["responses"]] + [data["rewrite_preferred"]]
    times = max(1, round(total / (sum(len(p) + 1 for p in parts))))
    longer = json.loads(json.dumps(data))
    for response in longer["responses"]:
        response["text"] = " ".join([response["text"]] * times)
    longer["rewrite_preferred"] = " ".join([data["rewrite_preferred"]] * times)
    return longer


def long_texts(repeats: int = 15) -> None:
    """evaluate() on the seed sample (Spanish: mostly ASCII, some accented letters) stretched to 1k, 10k
    and 100k characters, and on the same in Greek letters (beyond Latin-1, the slower path)."""
    import timeit

    from evalkit.engine import Evaluator, load_config

    evaluator = Evaluator(load_config())
    seed = json.loads((ROOT / "samples/sample_submission.json").read_text(encoding="utf-8"))
    greek = json.loads(json.dumps(seed))
    for response in greek["responses"]:
        response["text"] = response["text"].replace("a", "\u03b1").replace("o", "\u03bf")
    greek["rewrite_preferred"] = greek["rewrite_preferred"].replace("a", "\u03b1").replace("o", "\u03bf")
    for name, data in (("seed sample", seed), ("seed sample, Greek vowels", greek)):
        for total in (1_000, 10_000, 100_000):
            longer = stretched(data, total)
            number = max(5, 200_000 // total)

            def run(longer: dict = longer) -> None:
                evaluator.evaluate(longer)

            times = [t / number for t in timeit.repeat(run, number=number, repeat=repeats)]
            length = evaluator.evaluate(longer).meta["signals"]["length_total"]
            print(
                f"evaluate(dict), {name}, {length:,} chars: best {min(times) * 1e6:.0f} us, "
                f"median {statistics.median(times) * 1e6:.0f} us",
                flush=True,
            )


def batch_end_to_end(size: int, jobs: int, runs: int = 3) -> None:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "samples").glob("*.json"))]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "batch.jsonl"
        source.write_text("\n".join(json.dumps(samples[i % len(samples)]) for i in range(size)) + "\n")
        out = Path(tmp) / "out.jsonl"
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(
                [*EVALKIT, "eval", str(source), "--out", str(out), "--jobs", str(jobs)], check=True
            )
            times.append(time.perf_counter() - start)
        lines = sum(1 for _ in out.open())
    print(
        f"eval {size:,} JSONL submissions, --jobs {jobs}: best {min(times):.2f} s, "
        f"median {statistics.median(times):.2f} s end to end ({lines:,} lines out)"
    )


def _batch_file(folder: Path, size: int) -> Path:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "samples").glob("*.json"))]
    source = folder / "batch.jsonl"
    source.write_text("".join(json.dumps(samples[i % len(samples)]) + "\n" for i in range(size)))
    return source


def _spread(values: list[float]) -> str:
    quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"median {statistics.median(values):.3f} s (quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f})"


_CPU_SPLIT = (
    "import resource, sys\n"
    "from evalkit.cli import main\n"
    "sys.argv = ['evalkit', *sys.argv[2:]]\n"
    "try:\n"
    "    code = main()\n"
    "finally:\n"
    "    own = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    workers = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "    with open(CPU_FILE, 'w') as out:\n"
    "        out.write(f'{own.ru_utime + own.ru_stime} {workers.ru_utime + workers.ru_stime} '\n"
    "                  f'{own.ru_minflt + workers.ru_minflt}')\n"
    "sys.exit(code)\n"
)


def _eval_cpu_split(source: Path, out: Path, jobs: int) -> tuple[float, float, float, int]:
    """`evalkit eval SOURCE --out OUT --jobs JOBS` in a process that reports its own CPU time apart from its
    workers': (wall, parent CPU, workers' CPU), in seconds, and the page faults of all of them."""
    cpu_file = out.with_suffix(".cpu")
    script = _CPU_SPLIT.replace("CPU_FILE", repr(str(cpu_file)))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", script, "-", "eval", str(source), "--out", str(out), "--jobs", str(jobs)],
        check=True,
    )
    wall = time.perf_counter() - start
    parent, workers, faults = cpu_file.read_text().split()
    return wall, float(parent), float(workers), int(faults)


def jsonl_against_floor(size: int, runs: int, jobs_lines: int) -> None:
    """Issue 15: `evalkit eval` on a JSONL file of `size` lines in one process against the floor of
    json.loads on each input line plus json.dumps(ensure_ascii=False) on each result, the whole run and a
    line's marginal cost (marginal_against_floor); then `--jobs 2` against `--jobs 1` on `jobs_lines` lines
    (none if 0). Wall time and CPU time (user+sys, which other work on the
    machine inflates less), the parent's apart from its workers': the parent must not be the bottleneck."""

    with tempfile.TemporaryDirectory() as tmp:
        source = _batch_file(Path(tmp), size)
        out = Path(tmp) / "out.jsonl"
        subprocess.run([*EVALKIT, "eval", str(source), "--out", str(out)], check=True)
        inputs = source.read_text(encoding="utf-8").splitlines()
        results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]

        def floor() -> None:
            for line in inputs:
                json.loads(line)
            for result in results:
                json.dumps(result, ensure_ascii=False)

        floors, floor_cpus = _floor_times(floor, max(3, runs // 3))
        print(f"floor, json.loads + json.dumps of {size:,} lines in process: {_spread(floors)}", flush=True)
        walls, cpus = [], []
        for _ in range(runs):
            wall, parent, _, _ = _eval_cpu_split(source, out, 1)
            walls.append(wall)
            cpus.append(parent)
        print(
            f"evalkit eval {size:,} lines, one process: wall {_spread(walls)}, best {min(walls):.3f} s, "
            f"{statistics.median(walls) / statistics.median(floors):.2f}x the floor "
            f"(best {min(walls) / min(floors):.2f}x); CPU {_spread(cpus)}",
            flush=True,
        )
        marginal_against_floor(Path(tmp), source, size, runs, floors, floor_cpus)
        if jobs_lines:
            jobs_against_one(Path(tmp), runs, jobs_lines)


def _floor_times(floor: Callable[[], None], repeat: int) -> tuple[list[float], list[float]]:
    """The floor's wall and CPU seconds, `repeat` runs of it."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        floor()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return walls, cpus


def marginal_against_floor(
    folder: Path, source: Path, size: int, runs: int, floors: list[float], floor_cpus: list[float]
) -> None:
    """Issue 15 asks for a cost "per line": what one more line costs, without the process's start (which the
    whole run's wall includes once and the in-process floor does not). `evalkit eval` on `size` lines and on
    the same lines twice over, `runs` pairs alternated (the load swings alike for both): each pair's
    difference over `size` is a line's marginal cost, wall and CPU; against the floor's cost a line
    (its whole run over `size`: it has no start)."""
    double = folder / "double" / "batch.jsonl"
    double.parent.mkdir()
    double.write_bytes(source.read_bytes() * 2)
    out = folder / "marginal.jsonl"
    single_runs, double_runs = [], []
    for turn in range(runs):
        pair = (source, double) if turn % 2 == 0 else (double, source)
        times = {path: _eval_cpu_split(path, out, 1) for path in pair}
        single_runs.append(times[source])
        double_runs.append(times[double])
    floor_wall, floor_cpu = statistics.median(floors) / size, statistics.median(floor_cpus) / size
    for name, index, floor_line in (("wall", 0, floor_wall), ("CPU", 1, floor_cpu)):
        lines = [(two[index] - one[index]) / size for one, two in zip(single_runs, double_runs, strict=True)]
        best = (min(row[index] for row in double_runs) - min(row[index] for row in single_runs)) / size
        print(
            f"a line's marginal cost by {name} ({size * 2:,} lines less {size:,}, {runs} alternated pairs): "
            f"median {statistics.median(lines) * 1e6:.1f} us (quartiles "
            f"{_quartiles_us(lines)}; bests' difference {best * 1e6:.1f} us), the floor "
            f"{floor_line * 1e6:.1f} us a line: {statistics.median(lines) / floor_line:.2f}x "
            f"(bests' {best / (min(floors if index == 0 else floor_cpus) / size):.2f}x)",
            flush=True,
        )


def _quartiles_us(values: list[float]) -> str:
    low, _, high = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"{low * 1e6:.1f}-{high * 1e6:.1f}"


def jobs_against_one(folder: Path, runs: int, jobs_lines: int) -> None:
    """`--jobs 2` against `--jobs 1` on a JSONL file of `jobs_lines` lines written to `--out`, alternated
    `runs // 3` times: wall time, and CPU time a line of the parent apart from its workers'."""
    big = _batch_file(folder, jobs_lines)
    out = folder / "out.jsonl"
    figures: dict[int, list[tuple[float, float, float, int]]] = {1: [], 2: []}
    for _ in range(max(1, runs // 3)):
        for jobs in (1, 2):  # alternated: the machine's load swings alike for both
            figures[jobs].append(_eval_cpu_split(big, out, jobs))
    for jobs, rows in figures.items():
        wall = statistics.median(row[0] for row in rows)
        parent, workers = (statistics.median(row[i] for row in rows) / jobs_lines * 1e6 for i in (1, 2))
        best_parent, best_workers = (min(row[i] for row in rows) / jobs_lines * 1e6 for i in (1, 2))
        best = min(row[0] for row in rows)
        print(
            f"evalkit eval {jobs_lines:,} lines --jobs {jobs}: wall {wall:.2f} s (best {best:.2f}), "
            f"CPU a line: parent {parent:.1f} us (best {best_parent:.1f}), "
            f"workers {workers:.1f} us (best {best_workers:.1f}); "
            f"{statistics.median(row[3] for row in rows) / jobs_lines:.2f} page faults a line",
            flush=True,
        )
    one, two = (statistics.median(row[0] for row in figures[jobs]) for jobs in (1, 2))
    best = min(row[0] for row in figures[1]) / min(row[0] for row in figures[2])
    cpu_one = min(row[1] for row in figures[1])
    cpu_two = min(row[1] + row[2] for row in figures[2])
    print(
        f"--jobs 2 against one process: {one / two:.2f}x (wall medians), {best:.2f}x (bests); "
        f"{2 * cpu_one / cpu_two:.2f}x by CPU (the bests: two cores always busy, no part run alone)"
    )


def against_tree(tree: str, size: int, runs: int) -> None:
    """This build's `evalkit eval` against TREE's (see the module's docstring), alternated run by run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    builds = {"this tree": env, tree: {**env, "PYTHONPATH": tree}}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in builds}
    with tempfile.TemporaryDirectory() as tmp:
        source = _batch_file(Path(tmp), size)
        outputs = {}
        for name, build_env in builds.items():  # warm-up: bytecode and config caches written
            outputs[name] = Path(tmp) / f"out-{len(outputs)}.jsonl"
            command = [*EVALKIT, "eval", str(source), "--out", str(outputs[name])]
            subprocess.run(command, check=True, env=build_env, cwd=tmp)
            where = subprocess.run(
                [sys.executable, "-c", "import evalkit.engine.evaluator as e; print(e.__file__)"],
                check=True, env=build_env, cwd=tmp, capture_output=True, text=True,
            )  # fmt: skip
            print(f"{name}: the engine from {where.stdout.strip()}")
        for _ in range(runs):
            for name, build_env in builds.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                command = [*EVALKIT, "eval", str(source), "--out", str(outputs[name])]
                subprocess.run(command, check=True, env=build_env, cwd=tmp)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                times[name].append((wall, cpu))
        same = len({path.read_bytes() for path in outputs.values()}) == 1
    print(f"eval {size:,} JSONL lines, one process, {runs} alternated runs each (outputs the same: {same}):")
    for name, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs)
        cpu = statistics.median(c for _, c in pairs)
        print(
            f"  {name}: wall median {wall:.3f} s ({wall / size * 1e6:.1f} us a line), CPU median {cpu:.3f} s"
        )


def instructions_a_line(lines: int) -> None:
    """`evalkit eval` on a JSONL file of `lines` lines and on one of 2, each under valgrind's callgrind
    (PYTHONHASHSEED=0): the difference over the lines between is the instructions a line costs, the same
    from run to run however loaded the machine is (wall and CPU times swing by a factor of three here). The
    2-line run's count is the start's. Needs valgrind (Debian's `valgrind`); about 30 s for 2,000 lines."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("instructions a line: valgrind is not installed (apt-get install valgrind)")
        return
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        counts = []
        for size in (lines, 2):
            source = _batch_file(Path(tmp), size)
            command = [*EVALKIT, "eval", str(source), "--out", str(Path(tmp) / "out.jsonl")]
            subprocess.run(command, check=True, env=env)  # bytecode and config caches written first
            done = subprocess.run(
                [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out", *command],
                check=True,
                env=env,
                capture_output=True,
                text=True,
            )
            counts.append(int(done.stderr.split("refs:")[-1].split()[0].replace(",", "")))
    print(
        f"evalkit eval, instructions (callgrind): {(counts[0] - counts[1]) / (lines - 2):,.0f} a JSONL line, "
        f"{counts[1]:,} for the start and 2 lines"
    )


_PEAK_MEMORY = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def streamed_batch(size: int, jobs: int) -> None:
    """A JSONL batch larger than a submission may be: streamed, its time and the peak memory of the
    `evalkit eval` process (the largest worker's with --jobs 2)."""
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "samples").glob("*.json"))]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "big.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for i in range(size):
                handle.write(json.dumps(samples[i % len(samples)], ensure_ascii=False) + "\n")
        command = [*EVALKIT, "eval", str(source), "--out", str(Path(tmp) / "out.jsonl"), "--jobs", str(jobs)]
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _PEAK_MEMORY, *command], check=True, capture_output=True, text=True
        )
        elapsed = time.perf_counter() - start
        print(
            f"eval {size:,}-line JSONL ({source.stat().st_size / 1e6:.0f} MB), streamed, --jobs {jobs}: "
            f"{elapsed:.2f} s, peak memory {int(done.stdout.split()[-1]) / 1024:.0f} MB"
        )


def cold_start(runs: int) -> None:
    """A new process per run. Python normally caches compiled modules (`__pycache__`; pip writes them for
    an installed package): one warm-up run writes evalkit's cache and the first figure is what users see.
    Some environments set PYTHONDONTWRITEBYTECODE, and an editable install then compiles evalkit's own
    modules on every run (the standard library's and the dependencies' stay cached): the second figure."""
    command = [
        str(ROOT / ".venv/bin/evalkit"),
        "eval",
        "samples/sample_submission.json",
        "--out",
        "/dev/null",
    ]
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    _time_runs("evalkit's bytecode cached", command, cached, runs)
    for folder in PACKAGE_FOLDERS:
        for cache in (ROOT / folder).rglob("__pycache__"):
            shutil.rmtree(cache)
    _time_runs("evalkit compiled each run", command, {**cached, "PYTHONDONTWRITEBYTECODE": "1"}, runs)


def _time_runs(label: str, command: list[str], env: dict[str, str], runs: int) -> None:
    subprocess.run(command, cwd=ROOT, check=True, env=env)  # warm-up: writes the cache, fills the OS's
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, env=env)
        times.append(time.perf_counter() - start)
    print(
        f"cold start `evalkit eval` on one file ({label}): "
        f"median {statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms over {runs} runs"
    )


def engine_build() -> str:
    from evalkit.engine import evaluator

    origin = evaluator.__spec__.origin if evaluator.__spec__ else None
    return "compiled by mypyc" if origin and not origin.endswith(".py") else "pure Python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--stream", type=int, default=60_000, help="lines of the streamed batch")
    parser.add_argument("--evals-only", action="store_true", help="only the in-process figures")
    parser.add_argument("--long-texts", action="store_true", help="only evaluate() on long texts")
    parser.add_argument("--jsonl", action="store_true", help="only the JSONL batch against the JSON floor")
    parser.add_argument(
        "--jobs-lines",
        type=int,
        default=120_000,
        help="lines of the --jsonl batch run with --jobs 1 and 2 (0: not run)",
    )
    parser.add_argument(
        "--jobs-only", action="store_true", help="of --jsonl, only --jobs 2 against --jobs 1 (issue 15)"
    )
    parser.add_argument(
        "--instructions",
        type=int,
        metavar="LINES",
        help="only the instructions a JSONL line costs, under valgrind (try 2000)",
    )
    parser.add_argument("--against", metavar="TREE", help="alternated with another build (see above)")
    args = parser.parse_args()
    print(f"engine: {engine_build()}")
    if args.against:
        against_tree(args.against, 40_000 if args.batch == 10_000 else args.batch, args.runs)
        return
    if args.instructions:
        instructions_a_line(args.instructions)
        return
    if args.jsonl or args.jobs_only:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        if args.jobs_only:
            with tempfile.TemporaryDirectory() as tmp:
                jobs_against_one(Path(tmp), args.runs, args.jobs_lines)
        else:
            jsonl_against_floor(args.batch, args.runs, args.jobs_lines)
        return
    if args.long_texts:
        long_texts()
        return
    evals_per_second()
    long_texts()
    if args.evals_only:
        return
    for jobs in (1, 2):
        batch_end_to_end(args.batch, jobs)
    for jobs in (1, 2):
        streamed_batch(args.stream, jobs)
    cold_start(args.runs)


if __name__ == "__main__":
    main()
