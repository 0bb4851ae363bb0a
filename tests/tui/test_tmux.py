"""The real command in a real terminal: `evalkit review` under tmux, read back with capture-pane.

Each test runs its own tmux server (its own socket), so it neither sees nor disturbs anyone else's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVALKIT = Path(sys.executable).with_name("evalkit")
TIMEOUT = 60.0  # generous: a loaded CI machine can take several seconds to start Textual


class Tmux:
    def __init__(self) -> None:
        self.socket = f"evalkit-test-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def start(self, command: str) -> None:
        # the test process may carry COLUMNS/LINES (set for headless apps); Textual would obey them
        self.run(
            "new-session",
            "-d",
            "-s",
            "review",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            str(ROOT),
            f"unset COLUMNS LINES; {command}",
        )

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "review")

    def wait_for(self, ready: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            screen = self.screen()
            if ready(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "review", *keys)

    def pane_pid(self) -> int:
        return int(self.run("list-panes", "-t", "review", "-F", "#{pane_pid}").strip())

    def stop(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        folder = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}"
        (folder / self.socket).unlink(missing_ok=True)  # kill-server leaves the socket file behind


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    if shutil.which("tmux") is None:  # tasks.py installs it where it can (Debian, as root)
        pytest.fail("these tests drive the review app in a real terminal and need tmux: apt-get install tmux")
    session = Tmux()
    yield session
    session.stop()


def wait_for_file(path: Path, ready: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if path.exists() and ready(text := path.read_text(encoding="utf-8")):
            return text
        time.sleep(0.1)
    raise AssertionError(f"{path} never became ready")


def wait_for_exit(pid: int) -> None:
    """Until process `pid` has ended: gone, or a zombie its parent (tmux) has not reaped yet."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except FileNotFoundError:
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not end")


def test_the_sample_draws_ranking_and_ratings_and_q_exits_zero(tmux: Tmux, tmp_path: Path) -> None:
    code_file = tmp_path / "exit-code"
    tmux.start(
        f"{EVALKIT} review samples/sample_submission.json --config-dir config_samples; "
        f"echo $? > {code_file}; sleep 60"
    )
    screen = tmux.wait_for(lambda s: "resp_b" in s and "freshness" in s, "the ranking and the ratings")
    assert "corrected: resp_b > resp_a" in screen
    assert "accuracy" in screen and "rating.accuracy" in screen
    assert "0/1 reviewed" in screen
    tmux.keys("q")
    assert wait_for_file(code_file, lambda text: text.strip() != "").strip() == "0"
    assert not (ROOT / "samples" / "sample_submission.json.decisions.jsonl").exists()


def test_a_killed_session_loses_nothing_and_resumes(tmux: Tmux, tmp_path: Path) -> None:
    shutil.copy(ROOT / "samples" / "sample_submission.json", tmp_path / "one.json")
    shutil.copy(ROOT / "samples" / "13_markup_1.json", tmp_path / "two.json")
    journal = tmp_path / "folder.decisions.jsonl"
    command = f"exec {EVALKIT} review {tmp_path} --config-dir config_samples --decisions {journal}"
    tmux.start(command)
    tmux.wait_for(lambda s: "two.json" in s and "rating.accuracy" in s, "the queue and the first submission")
    tmux.keys("j")
    tmux.wait_for(lambda s: "2/2" in s, "the second submission")
    tmux.keys("a")
    wait_for_file(journal, lambda text: text.count("\n") == 1)
    app = tmux.pane_pid()
    os.kill(app, signal.SIGKILL)
    wait_for_exit(app)
    tmux.stop()
    again = Tmux()
    try:
        again.start(command)
        screen = again.wait_for(lambda s: "◐ two.json" in s and "accept" in s, "the resumed submission")
        assert "2/2  " in screen  # the cursor is back on the second submission, its decision in place
        again.keys("q")
    finally:
        again.stop()


def test_a_second_app_on_the_journal_is_refused_and_a_killed_ones_lock_is_taken_over(
    tmux: Tmux, tmp_path: Path
) -> None:
    shutil.copy(ROOT / "samples" / "sample_submission.json", tmp_path / "one.json")
    journal = tmp_path / "one.decisions.jsonl"
    command = (
        f"exec {EVALKIT} review {tmp_path / 'one.json'} --config-dir config_samples --decisions {journal}"
    )
    tmux.start(command)
    tmux.wait_for(lambda s: "rating.accuracy" in s, "the first app")
    first = tmux.pane_pid()
    second, code_file = Tmux(), tmp_path / "exit-code"
    try:
        second.start(f"{command.removeprefix('exec ')}; echo $? > {code_file}; sleep 60")
        assert wait_for_file(code_file, lambda text: text.strip() != "").strip() == "2"
        screen = second.run("capture-pane", "-p", "-J", "-t", "review")  # -J: wrapped lines joined
        assert "another evalkit review has this journal open" in screen and f"(pid {first}, user" in screen
    finally:
        second.stop()
    os.kill(first, signal.SIGKILL)  # its lock file stays behind, holding no lock
    wait_for_exit(first)
    tmux.stop()
    third = Tmux()
    try:
        third.start(command)
        screen = third.wait_for(lambda s: "lock was left" in s, "the app taking the stale lock over")
        third.keys("a")
        text = wait_for_file(journal, lambda text: text.count("\n") == 1)
        assert json.loads(text)["action"] == "accept"
        third.keys("q")
        wait_for_exit(third.pane_pid())
    finally:
        third.stop()
    assert not (tmp_path / "one.decisions.jsonl.lock").exists()  # a quit removes it


def test_a_journal_without_its_final_newline_keeps_its_last_entry(tmux: Tmux, tmp_path: Path) -> None:
    submission = tmp_path / "one.json"
    shutil.copy(ROOT / "samples" / "sample_submission.json", submission)
    journal = tmp_path / "one.decisions.jsonl"
    note = {"ts": "2026-01-01T00:00:00Z", "source": str(submission), "target": "note", "action": "note"}
    journal.write_text(json.dumps({**note, "value": None, "note": "kept note", "step": 1}), encoding="utf-8")
    tmux.start(f"exec {EVALKIT} review {submission} --config-dir config_samples --decisions {journal}")
    tmux.wait_for(lambda s: "note: kept note" in s and "rating.accuracy" in s, "the note from the journal")
    app = tmux.pane_pid()
    tmux.keys("a")
    wait_for_file(journal, lambda text: text.count("\n") == 2)
    tmux.keys("q")
    wait_for_exit(app)
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert [(e["action"], e["step"]) for e in entries] == [("note", 1), ("accept", 2)]
    assert entries[0]["note"] == "kept note"
