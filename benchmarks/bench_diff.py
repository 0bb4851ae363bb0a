"""`evalkit diff` figures for issue 14: a 10,000-submission JSONL corpus diffed end to end against the
config at git HEAD (a temporary repository: the shipped config committed, then edited so that a rule
changes and one is added), with one process and with `--jobs 2`; and the in-process diff of 1,000
submissions that the language server runs after each pause in typing.

    .venv/bin/python benchmarks/bench_diff.py [--size 10000] [--runs 5]

Goal: 10,000 submissions in under 1.5 s with --jobs 2 on this 2-core machine. The machine is shared and
its speed swings within minutes, so each figure is the best of several runs beside the median.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALKIT = [sys.executable, "-m", "evalkit"]
EDIT = ("max_total_length: 80", "max_total_length: 400")
ADDED_RULE = """
  - id: mentions_heap
    when: { response_contains_any: ["heap"] }
    actions: { set_flag: heap, increment_score: 1 }
"""


def make_repository(folder: Path) -> Path:
    """A git repository holding the shipped config at HEAD, edited in the working tree."""
    config = folder / "config"
    shutil.copytree(
        ROOT / "config_samples", config, ignore=shutil.ignore_patterns("__init__.py", "tests", "__pycache__")
    )
    git = ["git", "-C", str(folder), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "config"], check=True)
    rules = config / "rules.yaml"
    text = rules.read_text(encoding="utf-8").replace(*EDIT)
    rules.write_text(text.replace("\nrewrite_rules:", ADDED_RULE + "\nrewrite_rules:", 1), encoding="utf-8")
    return config


def corpus(path: Path, size: int) -> None:
    samples = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "samples").glob("*.json"))]
    path.write_text(
        "\n".join(json.dumps(samples[i % len(samples)]) for i in range(size)) + "\n", encoding="utf-8"
    )


def end_to_end(config: Path, source: Path, jobs: int, runs: int) -> None:
    command = [
        *EVALKIT,
        "diff",
        "--base",
        "HEAD",
        "--config-dir",
        str(config),
        str(source),
        "--format",
        "json",
        "--jobs",
        str(jobs),
    ]
    times, cpu, report = [], [], {}
    for _ in range(runs):
        used = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        cpu.append(_children_cpu() - used)
        report = json.loads(done.stdout)
    print(
        f"diff {report['submissions']:,} JSONL submissions against HEAD, --jobs {jobs}: "
        f"best {min(times):.2f} s, median {statistics.median(times):.2f} s end to end, "
        f"processor time {min(cpu):.2f} s ({report['changed']:,} changed)"
    )


def _children_cpu() -> float:
    """User and system time of the finished child processes (and theirs): what a run cost, whatever the
    machine's load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def in_process(config: Path, size: int, runs: int) -> None:
    """What the language server does after a pause: both configs compiled, the samples parsed already."""
    from evalkit.engine.config import analyze
    from evalkit.services.config.gitrev import config_at
    from evalkit.services.diff.impact import DiffReport, DiffRunner
    from evalkit.services.inputs.read import read_inputs

    base, head = config_at("HEAD", config).analyze(), analyze(config)
    samples = [s for s in read_inputs([ROOT / "samples"]) if s.submission is not None]
    loaded = [samples[i % len(samples)] for i in range(size)]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        runner = DiffRunner(base, head)
        report = DiffReport.between(base, head, "HEAD", str(config))
        report.add_all(runner.compare(s.source, s.submission) for s in loaded if s.submission is not None)
        report.to_dict()
        times.append(time.perf_counter() - start)
    print(
        f"diff {size:,} parsed submissions in process: best {min(times) * 1000:.0f} ms, "
        f"median {statistics.median(times) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = make_repository(Path(tmp))
        source = Path(tmp) / "corpus.jsonl"
        corpus(source, args.size)
        for jobs in (1, 2):
            end_to_end(config, source, jobs, args.runs)
        in_process(config, 1_000, args.runs * 4)


if __name__ == "__main__":
    main()
