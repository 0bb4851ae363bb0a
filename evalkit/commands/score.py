"""`evalkit score INPUT.jsonl`: score a JSONL dataset with the qydomain scorers.

Each line is `{"data_source": ..., "extra_info": {"label": ...}, "model_output": ...}` (`response` is
accepted too). Every line is written back in input order with `"score"` added; a line that cannot be scored
becomes `{"source": "PATH:LINE", "error": {"code": ..., "message": ...}}`, is reported on stderr as
`PATH:LINE: message`, and the run goes on. Blank lines are skipped.

The scored JSONL goes to --out (written atomically) or to stdout; a summary per data source (count, mean,
spread) goes to stdout when --out is given, else to stderr. Exit codes: 0 every line scored, 1 some lines
were bad, 2 nothing could be done (unreadable input, unwritable output, bad usage).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.qydomain.summary import ScoreSummary

_COLUMNS = ("mean", "std", "min", "p25", "median", "p75", "max")


def arguments(argv: list[str]) -> list[str]:
    """The arguments as argparse reads them: a file that follows `--ray` is an input (_ray_run.py)."""
    if "--ray" not in argv:
        return argv
    from evalkit.commands._ray_run import file_after_ray

    return file_after_ray(argv)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        'Each line: {"data_source": "typos"|"connections"|"unscrambling", "extra_info": {"label": ...}, '
        '"model_output": ...}. Exit status: 0 all lines scored, 1 some lines were bad, '
        "2 nothing could be done."
    )
    parser.add_argument("input", metavar="INPUT.jsonl", help="the rows to score, one JSON object a line")
    parser.add_argument("--out", metavar="FILE", help="write the scored JSONL here instead of stdout")
    parser.add_argument(
        "--jobs", metavar="N", type=_positive_int, default=1, help="processes to score with (default: 1)"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="summary format (default: text)"
    )
    from evalkit.commands._ray_run import add_option
    from evalkit.commands._signing import add_options

    add_option(parser)
    add_options(parser)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "sign", None) or getattr(args, "tsa", None):  # a plain parse may leave them out
        from evalkit.commands._signing import signed_score

        return signed_score(args, _run)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.ray is not None:
        from evalkit.commands._ray_run import run_score

        return run_score(args)
    from evalkit.qydomain.summary import ScoreSummary
    from evalkit.services.run.score import score_file
    from evalkit.services.run.workers import capped_jobs

    args.jobs = capped_jobs(args.jobs, args.prog)
    summary = ScoreSummary()
    try:
        bad_lines = score_file(args.input, args.out, args.jobs, args.prog, summary)
    except UsageProblem as problem:
        from evalkit.engine.untrusted_text import shown_as

        print(f"{args.prog}: {shown_as(problem)}", file=sys.stderr)
        return 2
    report = render_summary(args, summary, bad_lines)
    print(report, file=sys.stdout if args.out else sys.stderr)
    return 1 if bad_lines else 0


def render_summary(args: argparse.Namespace, summary: ScoreSummary, bad_lines: int) -> str:
    """The summary in --format's form: per data source, the count and the spread of the scores."""
    from evalkit.engine.text import shown
    from evalkit.engine.untrusted_text import shown_as

    stats = summary.stats()
    if args.format == "json":
        return json.dumps(
            {
                "input": shown(args.input),
                "scored": summary.total,
                "bad_lines": bad_lines,
                "data_sources": {name: source.to_dict() for name, source in stats.items()},
            }
        )
    plural = "" if bad_lines == 1 else "s"
    lines = [f"{shown_as(args.input)}: {summary.total} rows scored, {bad_lines} bad line{plural}"]
    if stats:
        lines.append(f"{'data_source':<14}{'count':>8}" + "".join(f"{name:>8}" for name in _COLUMNS))
        for name, source in stats.items():
            values = "".join(f"{getattr(source, column):>8.3f}" for column in _COLUMNS)
            lines.append(f"{shown_as(name):<14}{source.count:>8}{values}")
    return "\n".join(lines)
