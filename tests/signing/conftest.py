"""Fixtures of the signing tests: a key pair made by `evalkit keygen`, a real RFC 3161 authority on
loopback, and a small corpus to evaluate."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.signing.tsa_server import Authority, running_authority

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def evalkit(
    *arguments: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The real `evalkit` entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "evalkit", *arguments],
        cwd=cwd,
        env={**os.environ, "EVALKIT_KEY_PASSWORD": "", **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="session")
def tsa(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Authority]:
    with running_authority(tmp_path_factory.mktemp("tsa")) as authority:
        yield authority


@pytest.fixture
def authority(tsa: Authority) -> Iterator[Authority]:
    """The session's authority, answering normally again after the test."""
    yield tsa
    tsa.mode, tsa.delay = "ok", 0.0


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The prefix of a key pair (PREFIX.key, PREFIX.pub), not encrypted."""
    folder = tmp_path_factory.mktemp("keys")
    done = evalkit("keygen", "--out", "signer", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "signer"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder with three submissions (one invalid) in `in/` and an empty `out/`, where a test runs
    evalkit."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (tmp_path / "out").mkdir()
    for name in ("sample_submission.json", "05_data_sql_complete.json"):
        shutil.copy(SAMPLES / name, inputs / name)
    (inputs / "broken.json").write_text('{"responses": "not a list"}\n')
    return tmp_path
