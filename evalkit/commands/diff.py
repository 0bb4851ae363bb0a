"""`evalkit diff --base REV_OR_DIR [--config-dir DIR] SAMPLES...`: what a config change does to a corpus.

Every submission is evaluated under the base config (another folder, or the config folder as a git
revision has it, read from git's objects) and the head config (the working folder), and the report says
what changed: label transitions, score changes, flags, rule fire counts, ratings, and each changed
submission field by field. Exit codes: 0 compared (changes allowed), 1 a gate failed (`--fail-on-change`,
`--max-label-changes`) or some submissions could not be read, 2 nothing could be compared (bad usage, a
revision git cannot read, an invalid config on either side: its diagnostics are printed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

FORMATS = ("text", "markdown", "json")
PROG = "evalkit diff"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="SAMPLES",
        help="submission files (.json, .yaml, .yml), .jsonl files, or folders of them; - reads stdin",
    )
    parser.add_argument(
        "--base",
        required=True,
        metavar="REV_OR_DIR",
        help="the config to compare against: a config folder, or a git revision (HEAD, "
        "origin/main, a sha) whose version of the --config-dir folder is read from git",
    )
    parser.add_argument(
        "--config-dir", metavar="DIR", help="the head config folder (default: the shipped config_samples)"
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    parser.add_argument("--fail-on-change", action="store_true", help="exit 1 when any submission changed")
    parser.add_argument(
        "--max-label-changes",
        metavar="N|P%",
        help="exit 1 when more than N submissions (or P percent of them) change label",
    )
    from evalkit.commands._signing import add_options

    add_options(parser, out=True)  # --sign signs the JSON report written to --out


def run(args: argparse.Namespace) -> int:
    if args.sign or args.tsa or args.out:
        from evalkit.commands._signing import signed_diff

        return signed_diff(args, _run)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from evalkit.commands._diff_run import DiffRun
    from evalkit.services.usage import UsageProblem

    try:
        return DiffRun(args).execute()
    except UsageProblem as problem:
        from evalkit.engine.untrusted_text import shown_as

        print(f"{PROG}: {shown_as(problem)}", file=sys.stderr)
        return 2


def label_limit(raw: str | None, submissions: int) -> float | None:
    """The most label changes allowed: `N`, or `P%` of the submissions. Raises ValueError."""
    if raw is None:
        return None
    text = raw.strip()
    number = float(text[:-1]) if text.endswith("%") else int(text)
    if not 0 <= number <= (100 if text.endswith("%") else float("inf")):
        raise ValueError(raw)
    return number * submissions / 100 if text.endswith("%") else number


def gate_problems(report: Any, args: argparse.Namespace) -> list[str]:
    """Why a CI gate fails, one line each (none: it passes)."""
    problems = []
    if args.fail_on_change and report.changed:
        problems.append(
            f"{report.changed} submission{'s' if report.changed != 1 else ''} changed (--fail-on-change)"
        )
    limit = label_limit(args.max_label_changes, report.submissions)
    if limit is not None and report.label_changes > limit:
        problems.append(
            f"{report.label_changes} label changes, more than --max-label-changes "
            f"{args.max_label_changes} allows"
        )
    return problems


def head_folder(args: argparse.Namespace) -> Path:
    from evalkit.engine.config import default_config_dir

    return Path(args.config_dir) if args.config_dir else default_config_dir()
