"""`evalkit review --queue` in a real terminal (tmux), killed with SIGKILL after a decision: the decision is
in the queue, and the reviewer who starts again finds it and resumes the item they held."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import evalkit, init_queue
from tests.team_queue.test_app import SAMPLES
from tests.tui.test_tmux import EVALKIT, Tmux


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    session = Tmux()
    yield session
    session.stop()


def test_a_reviewer_killed_after_a_decision_keeps_it_and_resumes(tmux: Tmux, tmp_path: Path) -> None:
    url = str(tmp_path / "team.db")
    init_queue(url, "--per-item", "1")
    assert evalkit("queue", "add", url, *map(str, SAMPLES)).returncode == 0
    command = f"exec {EVALKIT} review --queue {url} --reviewer ann"
    tmux.start(command)
    header = "ann: 0 done  team: 0/2 reviews"
    tmux.wait_for(lambda screen: header in screen and "pending" in screen, "the first item")
    tmux.keys("a")
    tmux.wait_for(lambda screen: "accept" in screen, "the decision shown")
    os.kill(tmux.pane_pid(), signal.SIGKILL)
    store = QueueStore.open(url)
    kept = [e["target"] for e in store.decisions_of("ann", 1)]
    store.close()
    assert kept == ["rating.accuracy"]
    tmux.stop()
    again = Tmux()
    try:
        again.start(command)
        screen = again.wait_for(lambda screen: "accept" in screen, "the decision replayed")
        assert "01_algorithms" in screen and "05_data" not in screen  # the same item, not a second one
        assert header in screen
    finally:
        again.stop()
