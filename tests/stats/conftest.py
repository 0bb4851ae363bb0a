"""Journals for the `evalkit stats` tests, written as `evalkit review` writes them: a `ReviewSession`
deciding through the real journal writer, with a clock the test sets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine.config import analyze
from evalkit.services.inputs.read import read_inputs
from evalkit.services.review.proposals import Proposal
from evalkit.tui.journal import Journal
from evalkit.tui.model import ReviewSession

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
SAMPLES = (
    "01_algorithms_graphs_complete.json",
    "02_algorithms_sorting_missing.json",
    "05_data_sql_complete.json",
    "10_infra_networking_missing.json",
    "18_out_of_scale_ratings.json",
    "21_negative_weights_claim.json",
    "24_empty_rewrite.json",
    "30_long_single_response.json",
)
START = datetime(2026, 11, 20, 9, 0, 0)

Policy = Callable[[Proposal], tuple[str, Any] | None]
"""What a reviewer does with a proposal: (action, value) or None to leave it undecided."""


def accept_all(proposal: Proposal) -> tuple[str, Any]:
    return "accept", None


class Clock:
    """Each call is one step later; `pause` adds a break."""

    def __init__(self, step: timedelta) -> None:
        self.now, self.step, self.calls = START, step, 0

    def __call__(self) -> str:
        self.now += self.step
        self.calls += 1
        return self.now.isoformat(timespec="milliseconds") + "Z"


def review(
    workspace: Path,
    name: str,
    policy: Policy,
    only: int | None = None,
    step: timedelta = timedelta(seconds=30),
    pause_after: int | None = None,
) -> Path:
    """Review the samples in `workspace/samples` (the first `only`) as `evalkit review samples` run from
    `workspace` would; returns the journal, `samples.<name>.decisions.jsonl` beside the folder."""
    journal = Journal(workspace / f"samples.{name}.decisions.jsonl")
    clock = Clock(step)
    cwd = Path.cwd()
    os.chdir(workspace)  # sources are written as the reviewer typed them: relative to where they ran
    try:
        session = ReviewSession(analyze(REPO / "config_samples"), sink=journal.append, clock=clock)
        session.add(read_inputs(["samples"]))
        for index in range(len(session.items) if only is None else only):
            if pause_after is not None and index == pause_after:
                clock.now += timedelta(hours=2)
            for proposal in session.proposals(index):
                decided = policy(proposal)
                if decided is not None:
                    session.decide(index, proposal.target, decided[0], decided[1])
    finally:
        os.chdir(cwd)
        journal.close()
    return journal.path


def _workspace(folder: Path) -> Path:
    (folder / "samples").mkdir()
    for name in SAMPLES:
        shutil.copy(REPO / "samples" / name, folder / "samples" / name)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder with `samples/` holding a few of the shipped samples."""
    return _workspace(tmp_path)


@pytest.fixture
def reviewer(workspace: Path) -> Callable[..., Path]:
    """reviewer(name, policy, only=None, step=30 s, pause_after=None): a journal of that reviewer."""
    return lambda name, policy, **options: review(workspace, name, policy, **options)


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`workspace`, for the tests of a module that read one command's output (a module fixture's)."""
    return _workspace(tmp_path_factory.mktemp("workspace"))


@pytest.fixture(scope="module")
def module_reviewer(module_workspace: Path) -> Callable[..., Path]:
    """`reviewer`, in module_workspace."""
    return lambda name, policy, **options: review(module_workspace, name, policy, **options)


@pytest.fixture(scope="session")
def evalkit() -> Callable[..., subprocess.CompletedProcess[str]]:
    """evalkit(*args, cwd=REPO): the console script, run as a user runs it."""

    def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(EVALKIT), *args], cwd=cwd, capture_output=True, text=True, timeout=120)

    return run
