"""Benchmark: `evalkit score` rows per second on mixed rows, and on each data source's rows alone.

The rows are a third each typos (a 150-word passage, mostly in `<solution>` tags after some reasoning),
connections (16 words) and unscrambling (plots of 10 to 40 sentences, a few reworded and reordered). Each
file is scored with --jobs 1 and --jobs 2 by the command's own entry point (`evalkit.cli.main`, what the
`evalkit` script runs) in a child process that reports its CPU time and its workers'. Wall time grows with
other work on the machine and CPU time much less, so both are shown, and each figure is the best of
--rounds runs: `CPU us/row` is the parent's and the workers' CPU time per row, and `rows/CPU-s` what one
core would score at that cost.

    .venv/bin/python benchmarks/bench_score_cli.py [ROWS] [--rounds N] [--kinds] [--floor] [--stdout]
        [--keep FOLDER]

--kinds also scores each data source's rows on their own (ROWS / 3 rows each); --floor the mix with each
scorer replaced by a constant (reading, decoding, checking, encoding and writing rows: what no scorer can
make faster); --stdout the mix with its rows written to stdout redirected to a file (`> FILE`) in place of
--out; --keep writes the files into FOLDER and leaves them there (the mix as rows.jsonl), to
profile or compare against.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from bench_qydomain import connections_pairs, make_words, misspell, typos_pairs

DEFAULT_ROWS = 100_000
KINDS = ("typos", "connections", "unscrambling")
# The `evalkit` script's own call, then this process's and its children's (the workers') CPU seconds.
RUN = """
import os, resource, sys
from evalkit.cli import main
if os.environ.get("BENCH_NO_SCORERS"):  # every row scores 1.0 without its scorer: all but the scoring
    from evalkit.qydomain import dispatch  # what score calls: ROW_SCORERS (PAIR_SCORERS before it)
    table = getattr(dispatch, "ROW_SCORERS", dispatch.PAIR_SCORERS)
    table.update(dict.fromkeys(table, lambda ground_truth, answer: 1.0))
code = main(sys.argv[1:])
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print("CPU", me.ru_utime + me.ru_stime, workers.ru_utime + workers.ru_stime, file=sys.stderr)
sys.exit(code)
"""


def unscrambling_row(rng: random.Random, sentences: list[str]) -> tuple[str, str]:
    plot = rng.sample(sentences, rng.randint(10, 40))
    answer = [misspell(rng, sentence) if rng.random() < 0.1 else sentence for sentence in plot]
    for _ in range(3):
        i, j = rng.randrange(len(answer)), rng.randrange(len(answer))
        answer[i], answer[j] = answer[j], answer[i]
    return ". ".join(plot) + ".", "<PLOT_SUMMARY>" + ". ".join(answer) + ".</PLOT_SUMMARY>"


def make_rows(count: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    vocabulary = make_words(rng, 5000)
    sentences = [" ".join(rng.choices(vocabulary, k=rng.randint(10, 20))).capitalize() for _ in range(5000)]
    rows = []
    for index in range(count):
        kind = KINDS[index % 3]
        if kind == "typos":
            label, output = typos_pairs(rng, vocabulary, 1, tagged=rng.random() < 0.9)[0]
        elif kind == "connections":
            label, output = connections_pairs(rng, vocabulary, 1)[0]
        else:
            label, output = unscrambling_row(rng, sentences)
        rows.append({"data_source": kind, "extra_info": {"label": label}, "model_output": output})
    return rows


class Timing(NamedTuple):
    wall: float
    parent: float  # CPU seconds of the evalkit process
    workers: float  # CPU seconds of its worker processes


def time_run(data: Path, jobs: int, scorers: bool = True, stdout: bool = False) -> Timing:
    """One `evalkit score` run: wall seconds and CPU seconds. `stdout`: the scored rows go to stdout
    redirected to the file (`> FILE`) rather than to --out."""
    out = data.with_suffix(f".jobs{jobs}.out" if scorers else f".jobs{jobs}.floor")
    command = [sys.executable, "-c", RUN, "score", str(data), "--jobs", str(jobs)]
    command += [] if stdout else ["--out", str(out)]
    environment = dict(os.environ, BENCH_NO_SCORERS="" if scorers else "1")
    started = time.perf_counter()
    # From the data's folder: `-c` puts the current folder first on sys.path, and a checkout's evalkit/ there
    # would be imported instead of the installed package.
    with open(out, "wb") if stdout else contextlib.nullcontext(subprocess.PIPE) as output:
        result = subprocess.run(
            command, stdout=output, stderr=subprocess.PIPE, text=True, cwd=data.parent, env=environment
        )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"evalkit score failed ({result.returncode}):\n{result.stderr}")
    _, parent, workers = result.stderr.splitlines()[-1].split()
    return Timing(wall, float(parent), float(workers))


def best_run(data: Path, jobs: int, rounds: int, scorers: bool = True, stdout: bool = False) -> Timing:
    """The best wall time and the best CPU times of `rounds` runs: interference only ever adds time."""
    runs = [time_run(data, jobs, scorers, stdout) for _ in range(rounds)]
    least = min(runs, key=lambda run: run.parent + run.workers)
    return Timing(min(run.wall for run in runs), least.parent, least.workers)


def report(
    name: str, data: Path, count: int, rounds: int, scorers: bool = True, stdout: bool = False
) -> None:
    for jobs in (1, 2):
        run = best_run(data, jobs, rounds, scorers, stdout)
        cpu = run.parent + run.workers
        share = f"{run.parent / count * 1e6:5.1f} parent + {run.workers / count * 1e6:5.1f} workers"
        print(f"{name:<13} --jobs {jobs}: {count / run.wall:8,.0f} rows/s ({run.wall:5.1f} s wall)   "
              f"CPU {cpu / count * 1e6:5.1f} us/row ({share}), {count / cpu:8,.0f} rows/CPU-s")  # fmt: skip
    if scorers:
        outputs = [data.with_suffix(f".jobs{jobs}.out").read_bytes() for jobs in (1, 2)]
        assert outputs[0] == outputs[1], "--jobs 2 must write what --jobs 1 writes"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="?", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, the best counts (default 3)")
    parser.add_argument("--kinds", action="store_true", help="also each data source's rows on their own")
    parser.add_argument("--keep", metavar="FOLDER", help="write the files here and keep them")
    parser.add_argument(
        "--floor", action="store_true", help="also the mix with every scorer a constant: all but the scoring"
    )
    parser.add_argument(
        "--stdout", action="store_true", help="also the mix written to stdout redirected to a file (> FILE)"
    )
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work stretches wall time)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(row) + "\n" for row in make_rows(args.rows)]
        files = {"mix": (folder / "rows.jsonl", lines)}
        if args.kinds:
            for index, kind in enumerate(KINDS):
                files[kind] = (folder / f"{kind}.jsonl", lines[index::3])
        for name, (path, chosen) in files.items():
            path.write_text("".join(chosen), encoding="utf-8")
            print(f"{name}: {len(chosen):,} rows, {path.stat().st_size / 1e6:,.0f} MB")
        for name, (path, chosen) in files.items():
            report(name, path, len(chosen), args.rounds)
        if args.floor:
            path, chosen = files["mix"]
            report("no scorers", path, len(chosen), args.rounds, scorers=False)
        if args.stdout:
            path, chosen = files["mix"]
            report("mix > FILE", path, len(chosen), args.rounds, stdout=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
