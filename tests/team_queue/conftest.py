"""Fixtures for the queue tests: one real PostgreSQL server per session (tests/queue/postgres.py), a fresh
database per test, and `queue_url`, which runs a test on SQLite and on PostgreSQL."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.team_queue.postgres import Server, running_server

EVALKIT = Path(sys.executable).parent / "evalkit"
REPO = Path(__file__).parents[2]
CONFIG = REPO / "config_samples"
_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Server]:
    with running_server() as server:
        yield server


@pytest.fixture
def pg_url(postgres: Server) -> str:
    name = f"queue_{next(_numbers)}"
    postgres.psql(f"CREATE DATABASE {name}")
    return postgres.url(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def queue_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "team.db")
    return str(request.getfixturevalue("pg_url"))


def evalkit(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real `evalkit` command."""
    return subprocess.run([str(EVALKIT), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def init_queue(url: str, *options: str) -> None:
    done = evalkit("queue", "init", url, "--config-dir", str(CONFIG), *options)
    assert done.returncode == 0, done.stderr
