"""`evalkit eval` (also `oai-eval`): evaluate submissions against a rule config.

One submission: the result object (to --out, or pretty JSON on stdout). Several (more than one INPUT, a
folder or a JSONL file): JSON Lines in input order, each with its "source"; a submission that cannot be
read or is invalid gets an error line and the run goes on. Exit 0 all evaluated, 1 some submissions were
invalid, 2 nothing could be done (bad usage, an invalid config).
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="submission files (.json, .yaml, .yml), .jsonl files, or folders of them",
    )
    parser.add_argument(
        "--config-dir", metavar="DIR", help="the rule config folder (default: the shipped config_samples)"
    )
    parser.add_argument("--out", metavar="FILE", help="write results here (default: stdout)")
    parser.add_argument("--explain-json", metavar="FILE", help="write every rule's explanation, fired or not")
    parser.add_argument("--report-md", metavar="FILE", help="write a Markdown report")
    parser.add_argument("--log-file", metavar="FILE", help="write a log of the run")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="worker processes for large batches (default 1)"
    )
    from evalkit.commands._ray_run import add_option

    add_option(parser)


def run(args: argparse.Namespace) -> int:
    from evalkit.commands._eval_run import EvalRun
    from evalkit.services.workers import capped_jobs

    if args.jobs < 1:
        print("evalkit eval: --jobs must be at least 1", file=sys.stderr)
        return 2
    if args.ray is not None:
        from evalkit.commands._ray_run import run_eval

        return run_eval(args)
    args.jobs = capped_jobs(args.jobs, "evalkit eval")
    return EvalRun(args).execute()
