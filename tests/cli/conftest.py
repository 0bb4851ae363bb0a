"""A command line run in the test's own process, for the usage errors that stop a command before it does
any work: `evalkit.cli.main`, which the console scripts call, with the test's folder as the current one and
stdout and stderr captured. A process of its own costs about 40 ms of CPU, the call under 1 ms. Each test
that uses it names the test that runs the same path through the console script."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from evalkit.cli import main, oai_eval_main

InProcess = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcess:
    """in_process(*args, cwd=..., command="evalkit"): what `evalkit ARGS` (or `oai-eval ARGS`) run from
    `cwd` exits with and writes."""

    def run(*args: str | Path, cwd: Path, command: str = "evalkit") -> subprocess.CompletedProcess[str]:
        argv = [str(arg) for arg in args]
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = oai_eval_main(argv) if command == "oai-eval" else main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in err, err
        return subprocess.CompletedProcess([command, *argv], code, out, err)

    return run
