"""`evalkit eval` (also `oai-eval`): evaluate submissions against a rule config.

One submission: the result object (to --out, or pretty JSON on stdout). Several (more than one INPUT, a
folder or a JSONL file): JSON Lines in input order, each with its "source"; a submission that cannot be
read or is invalid gets an error line and the run goes on. Exit 0 all evaluated, 1 some submissions were
invalid, 2 nothing could be done (bad usage, an invalid config).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import argparse

INPUTS_HELP = (
    "submission files (.json, .yaml, .yml), .jsonl files, or folders of them; "
    "- reads standard input (JSON Lines, or one JSON or YAML document)"
)
PATH_OPTIONS = {
    "--config-dir": ("DIR", "the rule config folder (default: the shipped config_samples)"),
    "--out": ("FILE", "write results here (default: stdout)"),
    "--explain-json": ("FILE", "write every rule's explanation, fired or not"),
    "--report-md": ("FILE", "write a Markdown report"),
    "--log-file": ("FILE", "write a log of the run"),
}
"""The options that name a path: flag, metavar, help (argparse's parser and parse_plain read both)."""
JOBS_DEFAULT = 1
SIGN_OPTIONS = ("--sign", "--tsa")
"""Signing's options (evalkit/commands/_signing.py), which parse_plain reads as it reads the paths."""


def arguments(argv: list[str]) -> list[str]:
    """The arguments as argparse reads them: a file that follows `--ray` is an input (_ray_run.py)."""
    if "--ray" not in argv:
        return argv
    from evalkit.commands._ray_run import file_after_ray

    return file_after_ray(argv)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help=INPUTS_HELP)
    for flag, (metavar, summary) in PATH_OPTIONS.items():
        parser.add_argument(flag, metavar=metavar, help=summary)
    parser.add_argument(
        "--jobs",
        type=int,
        default=JOBS_DEFAULT,
        metavar="N",
        help=f"worker processes for large batches (default {JOBS_DEFAULT})",
    )
    from evalkit.commands._ray_run import add_option
    from evalkit.commands._signing import add_options

    add_option(parser)
    add_options(parser)


def parse_plain(argv: list[str]) -> argparse.Namespace | None:
    """The arguments after `eval` when they take the plain form, as argparse would parse them, without
    importing or building argparse's parser (a tenth of a cold start): the flags spelled out (`--out F` or
    `--out=F`), no value starting with "-", the inputs in one run, no --ray. None for anything else
    (--help, an abbreviation, a bad --jobs, `--`...): argparse parses it then, with its messages."""
    values: dict[str, str | None] = dict.fromkeys([*PATH_OPTIONS, *SIGN_OPTIONS])
    jobs, inputs, runs, after_input = str(JOBS_DEFAULT), [], 0, False
    tokens = iter(argv)
    for token in tokens:
        if token == "-" or not token.startswith("-"):  # "-": standard input
            runs += not after_input
            inputs.append(token)
            after_input = True
            continue
        after_input = False
        flag, equals, value = token.partition("=")
        if not equals:
            value = next(tokens, "-")
            if value.startswith("-"):
                return None
        if flag == "--jobs":
            if not _is_int(value):  # argparse converts each as it comes: a bad one refused, even if repeated
                return None
            jobs = value
        elif flag in values:
            values[flag] = value
        else:
            return None
    if runs != 1:
        return None
    from types import SimpleNamespace

    options = {flag[2:].replace("-", "_"): value for flag, value in values.items()}
    namespace = SimpleNamespace(command="eval", inputs=inputs, **options, jobs=int(jobs), ray=None)
    return cast("argparse.Namespace", namespace)  # the same attributes; run() reads nothing else


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def run(args: argparse.Namespace) -> int:
    if getattr(args, "sign", None) or getattr(args, "tsa", None):  # a plain parse may leave them out
        from evalkit.commands._signing import signed_eval

        return signed_eval(args, _run)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from evalkit.commands._eval_run import EvalRun
    from evalkit.services.run.workers import capped_jobs

    if args.jobs < 1:
        print(f"{args.prog}: --jobs must be at least 1", file=sys.stderr)
        return 2
    problem = _standard_output(args)
    if problem is not None:
        print(f"{args.prog}: {problem}", file=sys.stderr)
        return 2
    if args.ray is not None:
        from evalkit.commands._ray_run import run_eval

        return run_eval(args)
    args.jobs = capped_jobs(args.jobs, args.prog)
    return EvalRun(args).execute()


FILE_ONLY_FLAGS = ("explain_json", "report_md", "log_file")


def _standard_output(args: argparse.Namespace) -> str | None:
    """`--out -` is standard output (the default), as an INPUT `-` is standard input, not a file named
    -; the other outputs need a file of their own (standard output holds the results). Returns what is
    wrong, or None."""
    if args.out == "-":
        args.out = None
    for flag in FILE_ONLY_FLAGS:
        if getattr(args, flag) == "-":
            return f"--{flag.replace('_', '-')} -: name a file (standard output holds the results)"
    return None
