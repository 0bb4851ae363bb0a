"""Fixtures for the reviewer TUI tests: the shipped sample config, sample submissions, sessions and apps."""

from __future__ import annotations

import copy
import errno
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.drivers.headless_driver import HeadlessDriver

from evalkit.engine.config import Config, analyze
from evalkit.services.inputs.read import read_inputs

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "config_samples"
SAMPLE = ROOT / "samples" / "sample_submission.json"


@pytest.fixture(scope="session")
def config() -> Config:
    return analyze(CONFIG_DIR)


@pytest.fixture
def sample_data() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def _variant(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out.update(changes)
    return out


@pytest.fixture
def variant() -> Callable[..., dict[str, Any]]:
    """variant(data, **changes): a copy of a submission with some top-level fields replaced."""
    return _variant


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[list[Any], str], Path]:
    """Write submissions (dicts, or raw strings for broken lines) to a JSONL file in tmp_path."""

    def write(rows: list[Any], name: str = "batch.jsonl") -> Path:
        path = tmp_path / name
        lines = [row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def mixed_batch(sample_data: dict[str, Any], write_jsonl: Callable[..., Path]) -> Path:
    """Four submissions: the sample, one with markup-like text, a broken JSON line, low optimality."""
    markup = _variant(
        sample_data,
        prompt="Repeat: [/INST] [bold]x[/bold] {{ x }}",
        responses=[
            {"id": "resp_a", "text": "[/INST] Sure [bold]bold[/bold] {{ x }}"},
            {"id": "resp_b", "text": "[/x] closing tag"},
        ],
    )
    low = _variant(sample_data, ratings={**sample_data["ratings"], "optimality": 1.0})
    return write_jsonl([sample_data, markup, '{"prompt": "unterminated', low])


@pytest.fixture
def config_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, folder, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    return folder


@pytest.fixture
def read() -> Callable[[list[Path]], list[Any]]:
    """read(paths): every LoadedSubmission under the paths, as the engine reads them."""
    return lambda paths: list(read_inputs(paths))


@pytest.fixture
def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """make_app(inputs, config_dir=..., journal=..., watch=False): a ReviewApp built as the command does.

    The background evaluation's pause after each move (0.3 s, for a reviewer's next keypress) is cut to
    10 ms: Pilot's keys come as fast as the app takes them, and each test would wait out every pause.
    Animations are off: Pilot waits for each one to end after every key (a tab's underline slides for
    0.3 s), and no test looks at one; the screens they end on are the same."""
    from evalkit.commands.review import open_session
    from evalkit.tui.app import ReviewApp

    monkeypatch.setattr("evalkit.tui.app.INTERACTION_PAUSE", 0.01)

    def make(
        inputs: list[Path], config_dir: Path = CONFIG_DIR, journal: Path | None = None, watch: bool = False
    ) -> ReviewApp:
        session, opened, skipped = open_session(
            analyze(config_dir), journal or tmp_path / "review.decisions.jsonl"
        )
        app = ReviewApp(
            session,
            inputs,
            opened,
            tmp_path / "out.reviewed.jsonl",
            live_rules=watch,
            blink=False,
            skipped_entries=skipped,
        )
        app.animation_level = "none"
        return app

    return make


@pytest.fixture
def settle() -> Callable[..., Any]:
    """await settle(pilot): wait until the input is read, the queue evaluated and the screen up to date."""

    async def wait(pilot: Any, timeout: float = 20.0) -> None:
        app = pilot.app
        deadline = time.monotonic() + timeout
        while app.loading or not app.session.evaluation_finished:
            assert time.monotonic() < deadline, "the app did not finish reading and evaluating in time"
            await pilot.pause(0.05)
        await pilot.pause()
        await pilot.pause()

    return wait


@pytest.fixture
def until() -> Callable[..., Any]:
    """await until(pilot, condition, what): let the app run until `condition()` holds (a debounce timer, a
    worker, a message to come), failing after a catastrophe-scale deadline that names `what`."""

    async def wait(pilot: Any, condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"{what} did not happen in time"
            await pilot.pause(0.02)

    return wait


@pytest.fixture
def read_only(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """read_only(path): the journal module cannot open the file for writing, as if it were read-only.
    Tests run as root, whom chmod does not stop, so `os.open` and the module's `open` are patched."""

    def refuse(path: Path) -> None:
        def denied(name: Any) -> PermissionError:
            return PermissionError(errno.EACCES, "Permission denied", str(name))

        def guarded_os_open(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if Path(name) == path and flags & (os.O_WRONLY | os.O_RDWR):
                raise denied(name)
            return real_os_open(name, flags, *args, **kwargs)

        def guarded_open(name: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if Path(name) == path and set(mode) & set("wax+"):
                raise denied(name)
            return open(name, mode, *args, **kwargs)

        real_os_open = os.open
        monkeypatch.setattr(os, "open", guarded_os_open)
        monkeypatch.setattr("evalkit.tui.journal.open", guarded_open, raising=False)

    return refuse


RAW = re.compile("\x1b\\]|\x1b\\[\\?1049l|\x1b\\[2J|\x1b\\[31m|[\x07\x80-\x9f]")
"""What Textual never writes itself: an OSC, leaving the screen, a clear, a 16-colour code, BEL, C1."""
POINTER = re.compile("\x1b\\]22;[a-z-]+\x07")
"""The one OSC Textual writes: the mouse pointer's shape."""


class RecordingDriver(HeadlessDriver):
    """A headless driver that Textual draws to as to a terminal; it keeps what was written."""

    written: ClassVar[list[str]] = []

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        RecordingDriver.written.append(data)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    RecordingDriver.written = []
    monkeypatch.setattr("textual.drivers.headless_driver.HeadlessDriver", RecordingDriver)
    return RecordingDriver.written


def raw_sequences(written: list[str]) -> list[str]:
    """The control sequences in what was written that Textual never writes itself (its pointer shape
    aside): what a submission, a file name or a journal would have smuggled in."""
    output = POINTER.sub("", "".join(written))
    return [output[max(m.start() - 30, 0) : m.end() + 30] for m in RAW.finditer(output)]


@pytest.fixture
def leaks() -> Callable[[list[str]], list[str]]:
    """leaks(recorded): the raw control sequences (with some context) in what the app wrote."""
    return raw_sequences
