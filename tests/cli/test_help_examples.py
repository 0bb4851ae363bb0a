"""Every subcommand's --help ends with examples and its exit codes, and every example runs as written.

The examples are run by bash, through the console script, from a folder laid out as a checkout of evalkit
(samples/, config_samples/, a git repository with a `main` branch) with the three files they name besides
(evalkit/commands/examples.py's docstring). The reviewer app runs in a real terminal (tmux) and quits on q.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.cli import COMMANDS
from evalkit.commands.examples import HELP
from evalkit.engine.config import analyze
from evalkit.services.inputs.read import read_inputs
from evalkit.tui.journal import Journal
from evalkit.tui.model import ReviewSession
from tests.tui.test_tmux import Tmux, wait_for_file

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = [(name, command) for name, help_ in HELP.items() for command, _ in help_.examples]
SCORE_ROWS = [
    {
        "data_source": "typos",
        "extra_info": {"label": "extraordinary"},
        "model_output": "<solution>extraordinary</solution>",
    },
    {
        "data_source": "connections",
        "extra_info": {"label": "Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow"},
        "model_output": "<solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>",
    },
]

pytestmark = pytest.mark.xdist_group("help-examples")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("checkout")
    shutil.copytree(ROOT / "samples", folder / "samples")
    shutil.copytree(ROOT / "config_samples", folder / "config_samples")
    (folder / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in SCORE_ROWS))
    _journal(folder / "me.decisions.jsonl", folder)
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "samples", "config_samples"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "rules"], check=True)
    signed = "evalkit keygen --out me && evalkit eval samples --out results.jsonl --sign me.key"
    made = _bash(signed, folder)
    assert made.returncode == 0, made.stderr
    return folder


def _journal(path: Path, folder: Path) -> None:
    """A reviewer who accepted every proposal on the first three samples."""
    journal = Journal(path)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        session = ReviewSession(analyze(folder / "config_samples"), sink=journal.append)
        session.add(read_inputs(["samples"]))
        for index in range(3):
            for proposal in session.proposals(index):
                session.decide(index, proposal.target, "accept", None)
    finally:
        os.chdir(cwd)
        journal.close()


def _bash(command: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, input=stdin, capture_output=True, timeout=120
    )


def test_every_command_has_examples_and_exit_codes_at_the_end_of_its_help() -> None:
    assert set(HELP) == set(COMMANDS)
    for name, help_ in HELP.items():
        assert 2 <= len(help_.examples) <= 3, name
        shown = subprocess.run(
            [BIN / "evalkit", name, "--help"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert shown.returncode == 0
        assert shown.stdout.rstrip().endswith(help_.epilog()), name
        for code in range(3):
            assert f"\n  {code}  " in shown.stdout, (name, code)


def _lsp_session() -> bytes:
    """What an editor sends: initialize, initialized, shutdown, exit."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    frames = b""
    for message in messages:
        body = json.dumps(message).encode()
        frames += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    return frames


@pytest.mark.parametrize(("name", "command"), EXAMPLES, ids=[command for _, command in EXAMPLES])
def test_the_example_runs_as_written(name: str, command: str, checkout: Path) -> None:
    if name == "review" and "--export" not in command:
        _run_in_a_terminal(command, checkout)
        return
    done = _bash(command, checkout, stdin=_lsp_session() if name == "lsp" else b"")
    assert done.returncode == 0, (command, done.stderr.decode(errors="replace"))
    assert b"Traceback" not in done.stderr


def _run_in_a_terminal(command: str, cwd: Path) -> None:
    """Run the reviewer app in tmux, wait for its first screen, press q; it must exit 0."""
    if shutil.which("tmux") is None:  # tasks.py installs it where it can (Debian, as root)
        pytest.fail("the reviewer's example runs in a real terminal and needs tmux: apt-get install tmux")
    code_file = cwd / "review.code"
    terminal = Tmux()  # the reviewer app's own tmux tests' driver: it removes its socket when stopped
    try:
        terminal.start(
            f"cd {shlex.quote(str(cwd))} && export PATH={BIN}:$PATH; {command}; echo $? > {code_file}"
        )
        terminal.wait_for(lambda screen: "samples" in screen, "the reviewer's first screen")
        terminal.keys("q")
        assert wait_for_file(code_file, lambda text: text.strip() != "").strip() == "0"
    finally:
        terminal.stop()
