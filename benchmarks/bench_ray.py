"""Benchmark: `evalkit eval --ray` (a local Ray on this machine) against `evalkit eval --jobs 2`, through the
installed entry point, on the same JSONL of submissions (the shipped JSON samples, each prompt made unique).

The CLI runs start a Ray instance each (as `--ray` without an address does). The same file is then
evaluated through `evalkit.ray` on one Ray instance started beforehand, from reading to the last record
(actors started and configs compiled included): that is the rate a running node gives, which a cluster
multiplies by its nodes. Every run's output must be the --jobs 2 run's, byte for byte.

    .venv/bin/python benchmarks/bench_ray.py [SUBMISSIONS] [RUNS]     # default 100,000 and 3
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EVALKIT = str(Path(sys.executable).with_name("evalkit"))
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def write_submissions(path: Path, count: int) -> None:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SAMPLES.glob("*.json"))]
    samples = [s for s in samples if isinstance(s, dict)]
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            submission = dict(samples[number % len(samples)])
            submission["prompt"] = f"{submission['prompt']} #{number}"
            out.write(json.dumps(submission, ensure_ascii=False) + "\n")


def timed(data: Path, out: Path, *options: str) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [EVALKIT, "eval", str(data), "--out", str(out), *options], capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"evalkit eval {' '.join(options)} failed ({result.returncode}):\n{result.stderr}")
    return wall


def on_running_ray(data: Path, count: int, runs: int) -> list[float]:
    """Seconds to evaluate `data` through evalkit.ray on a Ray started once, before the clock."""
    import logging

    import ray

    import evalkit.ray

    ray.init(address="local", include_dashboard=False, logging_level="ERROR")
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    ray.data.DataContext.get_current().enable_progress_bars = False
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        results = evalkit.ray.evaluate(evalkit.ray.read_submissions([data]), None)
        rows = sum(batch.num_rows for batch in results.iter_batches(batch_format="pyarrow", batch_size=None))
        walls.append(time.perf_counter() - started)
        assert rows == count, f"{rows} records for {count} submissions"
    ray.shutdown()
    return walls


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):6.1f} s (min {min(values):.1f}, max {max(values):.1f})"


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work stretches wall time)")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder, "submissions.jsonl")
        write_submissions(data, count)
        print(f"{count} submissions, {data.stat().st_size / 1e6:.0f} MB; {runs} runs each")
        jobs = [timed(data, Path(folder, "jobs2.jsonl"), "--jobs", "2") for _ in range(runs)]
        on_ray = [timed(data, Path(folder, "ray.jsonl"), "--ray") for _ in range(runs)]
        same = Path(folder, "jobs2.jsonl").read_bytes() == Path(folder, "ray.jsonl").read_bytes()
        assert same, "--ray must write what --jobs 2 writes"
        running = on_running_ray(data, count, runs)
        cpus = os.cpu_count() or 1
        runs_by_name = (("--jobs 2", jobs), ("--ray (a new Ray)", on_ray), ("evalkit.ray, running", running))
        for name, walls in runs_by_name:
            rate = count / statistics.median(walls)
            print(f"{name:<22}{spread(walls)}  {rate:7.0f} submissions/s ({rate / cpus:.0f} per CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
