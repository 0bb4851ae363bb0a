"""Wall and CPU time of `evalkit stats` (through the installed entry point) on two reviewers' journals over
N submissions (the shipped samples repeated into one JSONL), for text, json and html; and of the hover's
count (`evalkit.lsp.reviewers`), which its worker thread runs when a journal changed.

Run: `.venv/bin/python benchmarks/bench_stats.py [--submissions 2000] [--runs 3]`. The journals are
written by the review session's journal writer, every proposal decided (accept, discard or edit by turn).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVALKIT = Path(sys.executable).parent / "evalkit"


def make_inputs(folder: Path, count: int) -> Path:
    from evalkit.services.inputs.read import read_inputs

    samples = [item.data for item in read_inputs([REPO / "samples"]) if item.submission is not None]
    batch = folder / "batch.jsonl"
    with batch.open("w") as handle:
        for index in range(count):
            handle.write(json.dumps(samples[index % len(samples)]) + "\n")
    return batch


def make_journal(folder: Path, batch: Path, name: str, turn: int) -> tuple[Path, int]:
    from evalkit.engine.config import analyze
    from evalkit.services.inputs.read import read_inputs
    from evalkit.tui.journal import Journal
    from evalkit.tui.model import ReviewSession

    journal = Journal(folder / f"{name}.decisions.jsonl")
    session = ReviewSession(analyze(REPO / "config_samples"), sink=journal.append)
    session.add(read_inputs([batch]))
    decisions = 0
    for index in range(len(session.items)):
        for number, proposal in enumerate(session.proposals(index)):
            action = ("accept", "discard", "edit")[(number + turn) % 3]
            if action == "edit" and not proposal.editable:
                action = "accept"
            value = {"rating": 3.0, "label": "poor"}.get(proposal.kind, proposal.proposed)
            session.decide(index, proposal.target, action, value if action == "edit" else None)
            decisions += 1
    journal.close()
    return journal.path, decisions


def timed(command: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        os.chdir(folder)
        batch = make_inputs(folder, args.submissions)
        journals = [make_journal(folder, batch, name, turn) for turn, name in enumerate(("ana", "ben"))]
        decisions = sum(count for _, count in journals)
        print(f"{args.submissions} submissions, 2 journals, {decisions} decisions")
        for kind in ("text", "json", "html"):
            command = [
                str(EVALKIT),
                "stats",
                *(str(path) for path, _ in journals),
                "--format",
                kind,
                "--out",
                str(folder / f"out.{kind}"),
            ]
            runs = [timed(command) for _ in range(args.runs)]
            wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
            print(f"evalkit stats --format {kind}: median wall {wall:.2f} s, cpu {cpu:.2f} s")
        hover_recount([str(path) for path, _ in journals])


def hover_recount(paths: list[str]) -> None:
    """The language server's count (on its worker thread), and what a hover pays once it is done."""
    from evalkit.engine.config import analyze
    from evalkit.lsp.reviewers import ReviewerVerdicts, count

    config = analyze(REPO / "config_samples")
    start = time.perf_counter()
    count(config, paths)
    counting = time.perf_counter() - start
    verdicts = ReviewerVerdicts()
    while verdicts.of(config, "*.decisions.jsonl", Path.cwd()).by_rule is None:
        time.sleep(0.01)
    start = time.perf_counter()
    verdicts.of(config, "*.decisions.jsonl", Path.cwd())
    hover = time.perf_counter() - start
    print(
        f"language server: counting (worker thread) {counting:.2f} s; a hover with the count done "
        f"{hover * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
