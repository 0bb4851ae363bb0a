"""Benchmark: `evalkit score` rows per second on 100,000 mixed rows, through the installed entry point.

The rows are a third each typos (a 150-word passage, mostly in `<solution>` tags after some reasoning),
connections (16 words) and unscrambling (plots of 10 to 40 sentences, a few reworded and reordered). The
same file is scored with --jobs 1 and --jobs 2; wall time and the children's CPU time are both shown,
since other work on the machine stretches the first and not the second.

    .venv/bin/python benchmarks/bench_score_cli.py [ROWS]
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_qydomain import connections_pairs, make_words, misspell, typos_pairs

EVALKIT = str(Path(sys.executable).with_name("evalkit"))
DEFAULT_ROWS = 100_000


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
        kind = ("typos", "connections", "unscrambling")[index % 3]
        if kind == "typos":
            label, output = typos_pairs(rng, vocabulary, 1, tagged=rng.random() < 0.9)[0]
        elif kind == "connections":
            label, output = connections_pairs(rng, vocabulary, 1)[0]
        else:
            label, output = unscrambling_row(rng, sentences)
        rows.append({"data_source": kind, "extra_info": {"label": label}, "model_output": output})
    return rows


def time_run(data: Path, jobs: int) -> tuple[float, float]:
    """Wall seconds and the children's CPU seconds of one `evalkit score` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = data.with_suffix(f".jobs{jobs}.jsonl")
    command = [EVALKIT, "score", str(data), "--out", str(out), "--jobs", str(jobs)]
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"evalkit score failed ({result.returncode}):\n{result.stderr}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ROWS
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work stretches wall time)")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "rows.jsonl"
        data.write_text("".join(json.dumps(row) + "\n" for row in make_rows(count)), encoding="utf-8")
        print(f"{count} rows, {data.stat().st_size / 1e6:.0f} MB")
        for jobs in (1, 2):
            wall, cpu = time_run(data, jobs)
            print(f"--jobs {jobs}: {wall:6.1f} s wall, {count / wall:8.0f} rows/s; {cpu:6.1f} s CPU, "
                  f"{count / cpu:8.0f} rows per CPU-second")  # fmt: skip
        outputs = [data.with_suffix(f".jobs{jobs}.jsonl").read_bytes() for jobs in (1, 2)]
        assert outputs[0] == outputs[1], "--jobs 2 must write what --jobs 1 writes"
    return 0


if __name__ == "__main__":
    sys.exit(main())
