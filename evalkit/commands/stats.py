"""`evalkit stats JOURNAL... [--input INPUT...] [--config-dir DIR] [--format text|json|html] [--out FILE]`:
what reviewers did with the engine's proposals, from `evalkit review`'s decision journals.

The reviewed submissions are evaluated again with the config (the shipped one by default) to learn which
rule made each proposal; they are read from `--input`, else from the files the journals name. Exit codes:
0 the report was made; 2 nothing could be done (a journal or input that is not there, an invalid config,
an output that cannot be written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.engine.config import Config
    from evalkit.services.stats.compute import ReviewStats

FORMATS = ("text", "json", "html")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "journals",
        nargs="+",
        metavar="JOURNAL",
        help="decision journals written by `evalkit review` (one per reviewer)",
    )
    parser.add_argument(
        "--input",
        nargs="+",
        metavar="INPUT",
        dest="inputs",
        help="the reviewed submissions (default: the files the journals name)",
    )
    parser.add_argument(
        "--config-dir",
        metavar="DIR",
        help="the rule config folder that made the proposals (default: the shipped one)",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE (default: stdout)")


def run(args: argparse.Namespace) -> int:
    try:
        _refuse_output_over_input(args)
        output = _report(args)
        _write(output, args.out)
    except UsageProblem as problem:
        from evalkit.engine.untrusted_text import shown_as

        print(f"evalkit stats: {shown_as(problem)}", file=sys.stderr)
        return 2
    return 0


def _refuse_output_over_input(args: argparse.Namespace) -> None:
    from evalkit.engine.text import shown
    from evalkit.services.outputs.over_input import input_written_over

    if args.out is not None and Path(args.out).is_dir():  # found now, not after the report was made
        raise UsageProblem(f"{shown(args.out)}: cannot write: it is a folder")
    if args.out is not None and input_written_over(args.out, [*args.journals, *(args.inputs or [])]):
        raise UsageProblem(f"--out {shown(args.out)} is also a journal or an input; give it its own file")


def _report(args: argparse.Namespace) -> str:
    from evalkit.engine.diagnostics import Severity
    from evalkit.engine.evaluator import Evaluator
    from evalkit.services.review.reviews import ReviewsError, read_reviews, skipped_lines
    from evalkit.services.stats.compute import review_stats

    missing = [name for name in args.inputs or [] if not Path(name).exists()]
    if missing:
        raise UsageProblem(f"--input {missing[0]}: no such file or folder")
    config = _config(args.config_dir)
    try:
        reviews = read_reviews(args.journals, args.inputs)
    except ReviewsError as exc:
        raise UsageProblem(str(exc)) from None
    for journal in reviews.journals:  # skipped, not fatal: say each line, as check says a diagnostic
        for skipped in skipped_lines(journal, Severity.WARNING):
            print(skipped.format(), file=sys.stderr)
        if journal.skipped > len(journal.problems):
            more = journal.skipped - len(journal.problems)
            print(f"{journal.path}: {more:,} more lines skipped", file=sys.stderr)
    stats = review_stats(reviews, Evaluator(config).evaluate)
    about = {"folder": str(config.folder), "hash": config.config_hash}
    return _render(args.format, stats, about)


def _render(kind: str, stats: ReviewStats, about: dict[str, str]) -> str:
    if kind == "html":
        from evalkit.services.stats.html import render_html

        return render_html(stats, about)
    from evalkit.services.stats.report import render_json, render_text

    render = render_json if kind == "json" else render_text
    return render(stats, about)


def _config(config_dir: str | None) -> Config:
    """The config, from eval's compiled-config cache when it was checked before (services/config/cache.py):
    stats evaluates each reviewed submission as eval does, and needs no more of it."""
    from evalkit.services.config.cache import load_for_eval
    from evalkit.services.config.folders import refuse_missing_config_dir, refuse_without_config_files

    refuse_missing_config_dir(config_dir)
    config = load_for_eval(config_dir)
    refuse_without_config_files(config)
    if config.plan is None:
        for diagnostic in config.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        raise UsageProblem("the config has errors; no statistics made")
    return config


def _write(output: str, out: str | None) -> None:
    from evalkit.services.outputs.atomic import atomic_output

    if out is None:
        print(output)
        return
    try:
        with atomic_output(out) as handle:
            handle.write(output + "\n")
    except OSError as exc:
        raise UsageProblem(f"{out}: cannot write: {exc.strerror or exc}") from None
