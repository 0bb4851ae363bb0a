"""The `evalkit` command: a thin dispatcher over the subcommands in `evalkit.commands`.

Only the chosen subcommand's module is imported, and each imports its heavy dependencies inside
`run()`, so `evalkit check` never pays for Textual or pygls. Every subcommand returns an exit code:
0 all good, 1 findings, 2 nothing could be done (DESIGN.md).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Protocol, Sequence

COMMANDS: dict[str, str] = {
    "eval": "evaluate submissions against a rule config",
    "check": "validate config folders (for CI and pre-commit)",
    "test": "run the rule tests in a config folder's tests/",
    "review": "triage submissions in the reviewer TUI",
    "lsp": "run the language server on stdio",
    "score": "score a JSONL dataset with the qydomain scorers",
    "schema": "print a JSON Schema for editors and other tools",
}


class Command(Protocol):
    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _command_module(name: str) -> Command:
    module_name = "eval_" if name == "eval" else name
    return importlib.import_module(f"evalkit.commands.{module_name}")  # type: ignore[return-value]


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    from evalkit import __version__

    parser = argparse.ArgumentParser(prog="evalkit", description="Judge LLM output with declarative rules.")
    parser.add_argument("--version", action="version", version=f"evalkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        command_parser = sub.add_parser(name, help=summary, description=summary)
        if name == chosen:
            _command_module(name).configure(command_parser)
    return parser


def _chosen_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen_command(argv)
    parser = build_parser(chosen)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _command_module(args.command).run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0


def oai_eval_main(argv: Sequence[str] | None = None) -> int:
    """`oai-eval`: the seed's command name, the same as `evalkit eval`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return main(["eval", *argv])


def entry() -> None:
    sys.exit(main())
