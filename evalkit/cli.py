"""The `evalkit` command: a thin dispatcher over the subcommands in `evalkit.commands`.

Only the chosen subcommand's module is imported, and each imports its heavy dependencies inside
`run()`, so `evalkit check` never pays for Textual or pygls. Every subcommand returns an exit code:
0 all good, 1 findings, 2 nothing could be done (README, each command's "Exit codes").
"""

from __future__ import annotations

import codecs
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import argparse

COMMANDS: dict[str, str] = {
    "eval": "evaluate submissions against a rule config",
    "check": "validate config folders (for CI and pre-commit)",
    "diff": "compare two configs' outcomes on a corpus (a folder or a git revision as the base)",
    "test": "run the rule tests in a config folder's tests/",
    "review": "triage submissions in the reviewer TUI",
    "queue": "a team's shared review queue on SQLite or PostgreSQL (lead's commands)",
    "stats": "what reviewers did with the engine's proposals, from review journals",
    "lsp": "run the language server on stdio",
    "score": "score a JSONL dataset with the qydomain scorers",
    "schema": "print a JSON Schema for editors and other tools",
    "keygen": "make an ECDSA P-256 key pair for signing results",
    "verify": "check a signed result's bundle, or a review journal's hash chain",
}


class Command(Protocol):
    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _command_module(name: str) -> Command:
    module_name = "eval_" if name == "eval" else name
    return importlib.import_module(f"evalkit.commands.{module_name}")


def build_parser(
    chosen: str | None, prog: str | None = None, argv: Sequence[str] = ()
) -> argparse.ArgumentParser:
    """The parser with the chosen command's options; `prog` renames that command in usage and errors."""
    return _parsers(chosen, prog, argv)[0]


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of command NAME alone, as `evalkit NAME --help` shows it (the docs' CLI reference)."""
    return _parsers(name, None, [name, "--help"])[1][name]


def _parsers(
    chosen: str | None, prog: str | None, argv: Sequence[str]
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """build_parser's parser, and each command's own parser by name."""
    from evalkit import __version__

    parser = _parser_class()(prog="evalkit", description="Judge LLM output with declarative rules.")
    parser.add_argument("--version", action="version", version=f"evalkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands: dict[str, argparse.ArgumentParser] = {}
    # a command named first gets its parser alone: the others' would only be built and thrown away (a
    # tenth of eval's cold start); otherwise all of them, for `evalkit --help` and the error that lists them
    alone = chosen is not None and argv[:1] == [chosen]
    for name, summary in [(chosen, COMMANDS[chosen])] if alone and chosen else COMMANDS.items():
        command_parser = sub.add_parser(
            name, help=summary, description=summary, prog=prog if name == chosen else None
        )
        commands[name] = command_parser
        if name == chosen:
            _command_module(name).configure(command_parser)
            if HELP_FLAGS.intersection(argv):  # only a help shows them: a run does not import them
                _add_examples(command_parser, name)
    return parser, commands


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser, whose messages (`unrecognized arguments: ...`, an invalid choice) show the
    arguments they quote as a terminal shows untrusted text: a file name from a glob may hold anything."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def _print_message(self, message: str, file: Any = None) -> None:
            from evalkit.engine.untrusted_text import shown_as

            lines = message.split("\n")
            super()._print_message("\n".join(shown_as(line) for line in lines), file)

    return Parser


HELP_FLAGS = frozenset({"-h", "--help"})


def _add_examples(parser: argparse.ArgumentParser, name: str) -> None:
    """End the command's --help with its examples and exit codes (evalkit/commands/examples.py)."""
    import argparse

    from evalkit.commands.examples import HELP

    parser.epilog = HELP[name].epilog()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def _chosen_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is so that it unwinds as from Ctrl+C: temporary files are removed,
    worker processes stopped."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


UNWOUND_ON_SIGTERM = ("eval", "score", "test", "check")
"""The commands that write files or start workers; the TUI and the language server keep the default."""


def _unwind_on_sigterm() -> signal.Handlers | Callable[..., object] | int | None:
    """SIGTERM raises Terminated from now on; the handler it had, or None where signals cannot be caught
    (a thread other than the main one: main() called from a test's or an application's thread)."""
    try:
        return signal.signal(signal.SIGTERM, _terminate)
    except ValueError:
        return None


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _reopen_closed_streams()
    _show_undecodable_bytes()
    chosen = _chosen_command(argv)
    previous = _unwind_on_sigterm() if chosen in UNWOUND_ON_SIGTERM else None
    try:
        return _flushed(_run(chosen, prog, argv))
    except Terminated:
        print("terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`| head -1`): what it did not read is not wanted
        _quiet_stdout()
        return 0
    except OSError as error:  # an unreadable folder, a full disk under stdout: never a traceback
        command = prog or " ".join(filter(None, ("evalkit", chosen)))
        from evalkit.engine.untrusted_text import shown_as

        print(f"{command}: {shown_as(_os_problem(error))}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _reopen_closed_streams() -> None:
    """Started with stdout or stderr closed (`>&-`), Python has None for it: every use would end in a
    traceback, `print` would write stderr's messages to stdout, and the next file opened would take the
    descriptor. Stdout becomes a descriptor that refuses writes (a command that writes to it says it cannot,
    exit 2; one that writes elsewhere runs); stderr becomes /dev/null (its messages were not wanted)."""
    for descriptor, name, flags in ((1, "stdout", os.O_RDONLY), (2, "stderr", os.O_WRONLY)):
        if getattr(sys, name) is not None:
            continue
        opened = os.open(os.devnull, flags)
        if opened != descriptor:
            os.dup2(opened, descriptor)
            os.close(opened)
        stream = open(descriptor, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        setattr(sys, name, stream)


def _show_undecodable_bytes() -> None:
    """Stdout and stderr write a byte of a file name that is not UTF-8 as every output shows it, `\\xNN`
    (engine/text.py's `shown`), where a message did not: Python's stderr would write `\\udcff`, its stdout
    the raw byte or a traceback."""
    codecs.register_error(SHOWN_ERRORS, _shown_error)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=SHOWN_ERRORS)


SHOWN_ERRORS = "evalkit.shown"


def _shown_error(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    from evalkit.engine.text import shown

    part = error.object[error.start : error.end]
    return shown(part).encode("ascii", "backslashreplace").decode("ascii"), error.end


def _run(chosen: str | None, prog: str | None, argv: list[str]) -> int:
    args = _plain_args(chosen, argv)
    if args is None:
        argv = _rewritten(chosen, argv)
        parser, commands = _parsers(chosen, prog, argv)
        try:
            args, extra = parser.parse_known_args(argv)
            if extra:  # said by the command's parser, with its usage, not by evalkit's
                refusing = commands.get(args.command, parser)
                refusing.error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as exit_:
            return 0 if exit_.code == 0 else 2
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
    args.prog = prog or f"evalkit {args.command}"  # the name the user typed, for the command's messages
    args.argv = argv  # as typed, for the signed record of the run (`--sign`)
    return _command_module(args.command).run(args)


def _rewritten(chosen: str | None, argv: list[str]) -> list[str]:
    """`argv` as the chosen command's `arguments(argv)` has argparse read it (where a command has one)."""
    if chosen is None:
        return argv
    arguments = getattr(_command_module(chosen), "arguments", None)
    return argv if arguments is None else list(arguments(argv))


def _plain_args(chosen: str | None, argv: list[str]) -> argparse.Namespace | None:
    """The arguments of a command named first that parses its plain form itself (`parse_plain`, as
    argparse would, for the commands whose start time counts), else None: argparse's parser parses them."""
    if chosen is None or argv[:1] != [chosen]:
        return None
    parse_plain = getattr(_command_module(chosen), "parse_plain", None)
    return None if parse_plain is None else parse_plain(argv[1:])


def _flushed(code: int) -> int:
    """Flush stdout now, not at exit, so that a failed write is reported like any other."""
    try:
        sys.stdout.flush()
    except ValueError:  # closed by the command: the language server closes its stdio when it exits
        pass
    except OSError:
        if code != 2:
            raise
        _quiet_stdout()  # the command already said why it stopped
    return code


def _os_problem(error: OSError) -> str:
    """The message for an OSError no command turned into one: the file it names, else stdout."""
    reason = error.strerror or str(error)
    if error.filename:
        return f"{error.filename}: {reason}"
    _quiet_stdout()  # what stdout still buffers would fail again at exit
    return f"cannot write to stdout: {reason}"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: its reader is gone or its disk is full, and the flush at exit of what it
    still buffers would only print 'Exception ignored' after the real message (Python's own advice)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def oai_eval_main(argv: Sequence[str] | None = None) -> int:
    """`oai-eval`: the seed's command name, the same as `evalkit eval`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return main(["eval", *argv], prog="oai-eval")


def entry() -> None:
    sys.exit(main())
