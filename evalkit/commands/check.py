"""`evalkit check [PATH...]`: validate config folders for CI and pre-commit.

Every problem in one run, as `path:line:col: severity[code] message`, sorted by file and line; `--format`
picks text (colour on a terminal), json, sarif or github annotations. `--journals GLOB` adds a warning at
the id of each rule whose proposals reviewers discarded too often (`--max-discard-rate`). Exit codes:
0 clean, 1 findings (errors; warnings too under --strict), 2 nothing could be checked (bad usage, a PATH
that is not there, a journal that cannot be read).
"""

from __future__ import annotations

import argparse
import sys

FORMATS = ("text", "json", "sarif", "github")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=["."],
        help="config folders, config files or trees to search (default: the current folder)",
    )
    parser.add_argument(
        "--samples",
        metavar="DIR",
        help="also run the rules on the submissions in DIR: evaluation errors are errors, "
        "rules that fire on no sample are reported",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the check too")
    parser.add_argument(
        "--journals",
        metavar="GLOB",
        help="review journals (evalkit review's decisions, e.g. 'reviews/*.decisions.jsonl'):"
        " warn on rules whose proposals reviewers discard too often",
    )
    parser.add_argument(
        "--max-discard-rate",
        metavar="RATE",
        type=_rate,
        default=None,
        help="with --journals: warn when more than this share of at least 10 decisions on a "
        "rule's proposals were discards (default 0.5)",
    )


def _rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= rate <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text}")
    return rate


def run(args: argparse.Namespace) -> int:
    from evalkit.engine.untrusted_text import shown_as
    from evalkit.services.check.reporters import render, use_colour
    from evalkit.services.check.runner import ReviewVerdicts, check_paths
    from evalkit.services.usage import UsageProblem

    if args.max_discard_rate is not None and args.journals is None:
        print("evalkit check: --max-discard-rate needs --journals GLOB", file=sys.stderr)
        return 2
    verdicts = (
        ReviewVerdicts(args.journals, 0.5 if args.max_discard_rate is None else args.max_discard_rate)
        if args.journals is not None
        else None
    )
    try:
        report = check_paths(args.paths, args.samples, args.strict, verdicts)
    except UsageProblem as problem:
        print(f"evalkit check: {shown_as(problem)}", file=sys.stderr)
        return 2
    output = render(report, args.format, colour=use_colour(sys.stdout))
    if output:
        print(output)
    return 1 if report.failed(args.strict) else 0
