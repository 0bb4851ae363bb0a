"""`evalkit check` in the test's own process, for the usage errors that stop it before it checks anything:
`evalkit.cli.main`, which the console script calls, run from the repository with stdout and stderr captured
(under 1 ms, where a process of its own costs about 70 ms of CPU). Each test using it names one that runs
the same path through the console script."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


@pytest.fixture
def in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """in_process(*args, cwd=REPO): what `evalkit ARGS` exits with and writes."""
    from evalkit.cli import main

    def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["evalkit", *args], code, out, err)

    return run
