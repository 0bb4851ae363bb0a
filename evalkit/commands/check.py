"""`evalkit check [PATH...]`: validate config folders for CI and pre-commit.

Every problem in one run, as `path:line:col: severity[code] message`, sorted by file and line; `--format`
picks text (colour on a terminal), json, sarif or github annotations. Exit codes: 0 clean, 1 findings
(errors; warnings too under --strict), 2 nothing could be checked (bad usage, a PATH that is not there).
"""

from __future__ import annotations

import argparse
import sys

FORMATS = ("text", "json", "sarif", "github")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", default=["."],
                        help="config folders, config files or trees to search (default: the current folder)")
    parser.add_argument("--samples", metavar="DIR",
                        help="also run the rules on the submissions in DIR: evaluation errors are errors, "
                             "rules that fire on no sample are reported")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the check too")


def run(args: argparse.Namespace) -> int:
    from evalkit.engine.check import UsageProblem, check_paths
    from evalkit.engine.reporters import render, use_colour
    from evalkit.engine.text import shown

    try:
        report = check_paths(args.paths, args.samples, args.strict)
    except UsageProblem as problem:
        print(f"evalkit check: {shown(str(problem))}", file=sys.stderr)
        return 2
    output = render(report, args.format, colour=use_colour(sys.stdout))
    if output:
        print(output)
    return 1 if report.failed(args.strict) else 0
