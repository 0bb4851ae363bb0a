"""What issue 16's "one place each" costs where it sits on a hot path:

- `evaluate_safely` (services/run/evaluation.py) against a bare `Evaluator.evaluate` on every shipped sample:
  `diff` and `stats` call it once per submission and side;
- `evalkit diff --format json`'s writer (`diffrender.json_text`, the value built whole and encoded once)
  against the splice it replaced (a dump cut open, kept here only to compare), on a report of 2,000
  submissions with a few hundred changes.

    .venv/bin/python benchmarks/bench_one_place.py [--repeat 7]

Each row: the median of the repeats, per call.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench_twins import per_call

from evalkit.engine import Evaluator
from evalkit.engine.config import analyze
from evalkit.services.diff.impact import DiffReport, DiffRunner
from evalkit.services.diff.render import json_text
from evalkit.services.inputs.read import read_inputs
from evalkit.services.run.evaluation import evaluate_safely

ROOT = Path(__file__).resolve().parent.parent


def spliced_json(report: DiffReport) -> str:
    """The writer json_text replaced, for comparison only."""
    data = report.to_dict()
    changes = data.pop("changes")
    head = json.dumps(data, ensure_ascii=False, indent=2)[: -len("\n}")]
    lines = ",\n".join("    " + json.dumps(change, ensure_ascii=False) for change in changes)
    return head + (',\n  "changes": [\n' + lines + "\n  ]\n}\n" if changes else ',\n  "changes": []\n}\n')


def diff_report(size: int) -> DiffReport:
    base = analyze(ROOT / "config_samples")
    rules = (ROOT / "config_samples" / "rules.yaml").read_text(encoding="utf-8")
    edited = rules.replace("max_total_length: 80", "max_total_length: 400")
    head = analyze(ROOT / "config_samples", {str(ROOT / "config_samples" / "rules.yaml"): edited})
    runner = DiffRunner(base, head)
    samples = [s for s in read_inputs([ROOT / "samples"]) if s.submission is not None]
    report = DiffReport.between(base, head, "base", "head")
    for i in range(size):
        sample = samples[i % len(samples)]
        assert sample.submission is not None
        report.add(runner.compare(f"{sample.source}#{i}", sample.submission))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    evaluate = Evaluator(analyze(ROOT / "config_samples")).evaluate
    submissions = [s.submission for s in read_inputs([ROOT / "samples"]) if s.submission is not None]

    def bare() -> None:
        for submission in submissions:
            evaluate(submission)

    def safe() -> None:
        for submission in submissions:
            evaluate_safely(evaluate, submission)

    n = len(submissions)
    bare_s, safe_s = per_call(bare, args.repeat) / n, per_call(safe, args.repeat) / n
    print(
        f"evaluate, {n} samples:   bare {bare_s * 1e6:.1f} µs   safely {safe_s * 1e6:.1f} µs per submission"
    )
    report = diff_report(2000)
    assert json_text(report) == spliced_json(report)
    spliced, built = (
        per_call(lambda: spliced_json(report), args.repeat),
        per_call(lambda: json_text(report), args.repeat),
    )
    print(
        f"diff --format json, {report.submissions} submissions, {report.changed} changes:   "
        f"spliced {spliced * 1e3:.2f} ms   built and encoded once {built * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
