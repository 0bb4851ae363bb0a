"""Benchmark: what `--ray` costs in CPU per submission, on the driver and on the workers, against the local
`evalkit eval --jobs 1` (the anchor, run in the same session, alternated with the Ray runs), on a simulated
node of 4 CPUs and on 4 simulated nodes of one CPU (ray.cluster_utils.Cluster: the same four actors on this
machine's two cores, so that only the number of nodes differs), and on a `ray start` cluster.

CPU time, not wall time, is what is compared: the machine's two cores are shared, and 4 simulated nodes
on 2 cores have no more wall-clock speed than one. Per submission (medians of RUNS):
- local: the CPU of `evalkit eval --jobs 1` (the child's rusage), less its start (a run of 1 submission);
- workers: the workers' processes' CPU from their config compiled to the run's end (Ray's threads in them
  included: what a worker node spends), over the submissions; Ray's overhead is that less local's;
- driver: this process's CPU over the run (Ray's driver threads included), which is the CLI's driver: the
  chunks cut, handed out, taken in order and written (`--out` a file), or only their parts' names put in the
  manifest (`--out` a folder).
Every output is checked against the --jobs 1 run's, byte for byte.

    .venv/bin/python benchmarks/bench_ray.py [SUBMISSIONS] [RUNS]     # default 100,000 and 2
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EVALKIT = str(Path(sys.executable).with_name("evalkit"))
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
NO_DASHBOARD = ["--include-dashboard=false"]
SETTINGS = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_metrics_collection": "0"}


def write_submissions(path: Path, count: int) -> None:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SAMPLES.glob("*.json"))]
    samples = [s for s in samples if isinstance(s, dict)]
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            submission = dict(samples[number % len(samples)])
            submission["prompt"] = f"{submission['prompt']} #{number}"
            out.write(json.dumps(submission, ensure_ascii=False) + "\n")


def local_cpu(data: Path, out: Path) -> float:
    """CPU seconds of `evalkit eval --jobs 1` over `data`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([EVALKIT, "eval", str(data), "--out", str(out)], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode not in (0, 1):
        raise SystemExit(f"evalkit eval failed ({run.returncode}):\n{run.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def on_ray(data: Path, out: Path) -> dict[str, float]:
    """One run of the CLI's driver on the Ray this process is connected to: driver and worker CPU."""
    from evalkit.ray._chunks import Job, eval_tasks
    from evalkit.ray._outputs import FileOutput, FolderOutput, form_of, is_folder
    from evalkit.ray._scheduler import run_chunks
    from evalkit.ray._workers import config_files

    started, wall = time.process_time(), time.perf_counter()
    output = FolderOutput(str(out), form_of(str(out))) if is_folder(str(out)) else FileOutput(str(out), None)
    job = Job("eval", config_files(None), form_of(str(out)), output.parts, output.stamp)
    stats = run_chunks(job, eval_tasks([data]), output.take, measure=True)
    output.commit("eval")
    return {
        "driver": time.process_time() - started,
        "workers": stats.worker_cpu,
        "tasks": stats.task_cpu,
        "records": stats.records,
        "wall": time.perf_counter() - wall,
    }


def same_output(out: Path, expected: Path) -> bool:
    if out.is_dir():
        from evalkit.ray._outputs import read_parts

        return b"".join(p.read_bytes() for p in read_parts(out)) == expected.read_bytes()
    return out.read_bytes() == expected.read_bytes()


def measure(name: str, folder: Path, data: Path, count: int, runs: int, anchor: float) -> dict[str, Any]:
    """`runs` Ray runs into a file and into a folder, each after a --jobs 1 run (alternated). The driver's
    figure is beyond its run's constant (actors started, the manifest written: a run of one submission's);
    `idle` is what Ray's threads in the driver spend a second with nothing to do, part of it."""
    rows: dict[str, Any] = {}
    (folder / "ray-parts").mkdir(exist_ok=True)
    started = time.process_time()
    time.sleep(3)
    idle = (time.process_time() - started) / 3
    for kind, out in (("file", folder / "ray.jsonl"), ("folder", folder / "ray-parts")):
        row: dict[str, list[float]] = {k: [] for k in ("local", "driver", "workers", "in_tasks", "idle")}
        constant = []
        for _ in range(runs):
            row["local"].append((local_cpu(data, folder / "local.jsonl") - anchor) / count)
            constant.append(on_ray(folder / "one.jsonl", out)["driver"])
            result = on_ray(data, out)
            assert result["records"] == count and same_output(out, folder / "local.jsonl"), kind
            row["driver"].append((result["driver"] - constant[-1]) / (count - 1))
            row["idle"].append(idle * result["wall"] / count)
            row["workers"].append(result["workers"] / count)
            row["in_tasks"].append(result["tasks"] / count)
        rows[kind] = row
        show(name, kind, row)
        print(
            f"{'':<28} the driver's constant per run {statistics.median(constant) * 1e3:.0f} ms; its idle "
            f"{idle * 1e3:.1f} ms/s, {statistics.median(row['idle']) * 1e6:.2f} µs a submission of this run's"
        )
    return rows


def show(name: str, kind: str, row: dict[str, list[float]]) -> None:
    local, workers, driver, tasks = (
        statistics.median(row[k]) * 1e6 for k in ("local", "workers", "driver", "in_tasks")
    )
    print(
        f"{name:<28} --out {kind:<6}  local {local:6.1f} µs  workers {workers:6.1f} µs "
        f"(Ray's overhead {workers - local:+6.1f}; outside the chunks' work {workers - tasks:5.1f})  "
        f"driver {driver:5.2f} µs  per submission (medians of {len(row['local'])}; workers "
        f"{min(row['workers']) * 1e6:.1f}-{max(row['workers']) * 1e6:.1f}, driver "
        f"{min(row['driver']) * 1e6:.2f}-{max(row['driver']) * 1e6:.2f})"
    )


def simulated(nodes: int, cpus: int, folder: Path, data: Path, count: int, runs: int, anchor: float) -> None:
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": cpus, "include_dashboard": False, "object_store_memory": 100 << 20},
    )
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=cpus, object_store_memory=100 << 20)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
    try:
        measure(f"cluster_utils, {nodes} node(s) x {cpus} CPU", folder, data, count, runs, anchor)
    finally:
        ray.shutdown()
        cluster.shutdown()


def ray_start(folder: Path, data: Path, count: int, runs: int, anchor: float) -> None:
    import ray

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ray_cli = str(Path(sys.executable).with_name("ray"))
    env = {**os.environ, **SETTINGS, "RAY_AUTH_MODE": "disabled"}  # on loopback; this process's Ray has none
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", f"--port={port}", "--num-cpus=2", *NO_DASHBOARD],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("ray start did not come up in 60 s") from None
                time.sleep(0.5)
        time.sleep(2)
        ray.init(address=f"127.0.0.1:{port}", logging_level="ERROR", log_to_driver=False)
        measure("ray start, 1 node x 2 CPUs", folder, data, count, runs, anchor)
    finally:
        ray.shutdown()
        head.terminate()
        head.wait(timeout=60)


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    os.environ.update(SETTINGS)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {count} submissions, {runs} runs")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        data, one = folder / "submissions.jsonl", folder / "one.jsonl"
        write_submissions(data, count)
        write_submissions(one, 1)
        anchor = statistics.median(local_cpu(one, folder / "one-out.jsonl") for _ in range(3))
        for nodes, cpus in ((1, 4), (4, 1)):  # the same 4 actors on this machine's 2 cores: only nodes differ
            simulated(nodes, cpus, folder, data, count, runs, anchor)
            shutil.rmtree(folder / "ray-parts", ignore_errors=True)
        ray_start(folder, data, count, runs, anchor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
