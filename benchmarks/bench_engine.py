"""Engine figures for issue 2: evaluations per second in one process, a 10,000-submission JSONL batch
end to end (`evalkit eval --jobs 2`), and the cold start of `evalkit eval` on one file.

    .venv/bin/python benchmarks/bench_engine.py [--batch 10000] [--runs 15]

CPU time is reported beside wall time because this machine is shared: wall time includes waiting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALKIT = [sys.executable, "-m", "evalkit"]


def evals_per_second(seconds: float = 3.0) -> None:
    from evalkit.engine import Evaluator, load_config
    from evalkit.engine.inputs import read_inputs

    evaluator = Evaluator(load_config())
    seed = json.loads((ROOT / "samples/sample_submission.json").read_text(encoding="utf-8"))
    varied = [s.data for s in read_inputs([ROOT / "samples"]) if s.submission is not None]
    for name, batch in (("seed sample", [seed]), (f"{len(varied)} varied samples", varied)):
        count, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            for data in batch:
                evaluator.evaluate(data)
            count += len(batch)
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        print(f"evaluate(dict), {name}: {count / wall:,.0f}/s wall, {count / used:,.0f}/s per CPU second")


def batch_end_to_end(size: int, jobs: int) -> None:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "samples").glob("*.json"))]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "batch.jsonl"
        source.write_text("\n".join(json.dumps(samples[i % len(samples)]) for i in range(size)) + "\n")
        out = Path(tmp) / "out.jsonl"
        start = time.perf_counter()
        subprocess.run([*EVALKIT, "eval", str(source), "--out", str(out), "--jobs", str(jobs)], check=True)
        elapsed = time.perf_counter() - start
        lines = sum(1 for _ in out.open())
    print(f"eval {size:,} JSONL submissions, --jobs {jobs}: {elapsed:.2f} s end to end ({lines:,} lines out)")


def cold_start(runs: int) -> None:
    command = [str(ROOT / ".venv/bin/evalkit"), "eval", "samples/sample_submission.json", "--out", "/dev/null"]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True)
        times.append(time.perf_counter() - start)
    print(f"cold start `evalkit eval` on one file: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms over {runs} runs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    evals_per_second()
    for jobs in (1, 2):
        batch_end_to_end(args.batch, jobs)
    cold_start(args.runs)


if __name__ == "__main__":
    main()
