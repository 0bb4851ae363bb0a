"""Command lines each command refuses: an unknown flag or a word too many is said by that command's own
parser (its usage, `evalkit CMD: error: ...`, exit 2), not by evalkit's with its list of commands; and no
argument list gets anything from a parser but its exit."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.cli import COMMANDS, build_parser

BIN = Path(sys.executable).parent
InProcess = Callable[..., subprocess.CompletedProcess[str]]  # the `in_process` fixture (conftest.py)
REFUSED = {
    # each: the command line, and what its parser says
    "eval": (["evalkit", "eval", "a.json", "--bogus"], "evalkit eval", "--bogus"),
    "oai-eval": (["oai-eval", "a.json", "--bogus", "x"], "oai-eval", "--bogus x"),
    "check": (["evalkit", "check", "--bogus"], "evalkit check", "--bogus"),
    "test": (["evalkit", "test", "--bogus"], "evalkit test", "--bogus"),
    "diff": (["evalkit", "diff", "a.json", "--base", "b", "--bogus"], "evalkit diff", "--bogus"),
    "stats": (["evalkit", "stats", "j.jsonl", "--bogus"], "evalkit stats", "--bogus"),
    "review": (["evalkit", "review", "a.json", "--bogus"], "evalkit review", "--bogus"),
    "lsp": (["evalkit", "lsp", "--bogus"], "evalkit lsp", "--bogus"),
    "score": (["evalkit", "score", "a.jsonl", "b.jsonl"], "evalkit score", "b.jsonl"),
    "schema": (["evalkit", "schema", "rules", "extra"], "evalkit schema", "extra"),
}


THROUGH_THE_CONSOLE_SCRIPTS = ("eval", "oai-eval")
"""The refusals run as users run them; the others (the same code in evalkit.cli, given each command's
parser) call evalkit.cli.main in the test's process (the in_process fixture)."""


@pytest.mark.parametrize("argv, command, unknown", REFUSED.values(), ids=REFUSED.keys())
def test_an_unknown_argument_is_said_by_the_command_with_its_usage(
    tmp_path: Path, argv: list[str], command: str, unknown: str, in_process: InProcess
) -> None:
    if command.removeprefix("evalkit ") in THROUGH_THE_CONSOLE_SCRIPTS:
        done = subprocess.run(
            [str(BIN / argv[0]), *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    else:
        done = in_process(*argv[1:], cwd=tmp_path, command=argv[0])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"usage: {command} ")
    assert done.stderr.endswith(f"\n{command}: error: unrecognized arguments: {unknown}\n")


def test_an_unknown_argument_before_any_command_is_said_by_evalkit(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "evalkit"), "--bogus"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.endswith("\nevalkit: error: unrecognized arguments: --bogus\n")


WORDS = st.sampled_from(
    [
        "a.json",
        "",
        "-",
        "--",
        "-1",
        "0",
        "2",
        "5%",
        "x=y",
        "--out",
        "--out=o",
        "--jobs",
        "--jobs=0",
        "--format",
        "--format=json",
        "--config-dir",
        "--base",
        "--samples",
        "--strict",
        "--journals",
        "--max-discard-rate",
        "--max-label-changes",
        "--fail-on-change",
        "--input",
        "--decisions",
        "--export",
        "--coverage",
        "--update",
        "--stdio",
        "--log-file",
        "--verbose",
        "--ray",
        "--nope",
        "-o",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(COMMANDS)), st.lists(WORDS | st.text(max_size=4), max_size=8))
def test_a_parser_given_any_argument_list_parses_it_or_exits(command: str, argv: list[str]) -> None:
    parser = build_parser(command, None, [command, *argv])
    try:
        args = parser.parse_args([command, *argv])
    except SystemExit as exit_:
        assert exit_.code in (0, 2)
        return
    assert args.command == command
