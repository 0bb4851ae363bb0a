"""SVG snapshots of the main screens (pytest-textual-snapshot). Inputs sit in the working folder, so the
paths on screen are the same on every machine. Regenerate with `pytest tests/tui --snapshot-update` after
looking at the new pictures."""

from __future__ import annotations

import argparse
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SIZE = (120, 40)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def sample(workdir: Path) -> Path:
    source = Path(__file__).resolve().parents[2] / "samples" / "sample_submission.json"
    shutil.copy(source, workdir / "sample_submission.json")
    return Path("sample_submission.json")


def test_main_screen(
    snap_compare: Any, make_app: Callable[..., Any], settle: Callable[..., Any], sample: Path
) -> None:
    assert snap_compare(make_app([sample]), terminal_size=SIZE, run_before=settle)


def test_help_screen(
    snap_compare: Any, make_app: Callable[..., Any], settle: Callable[..., Any], sample: Path
) -> None:
    assert snap_compare(
        make_app([sample], journal=Path("review.decisions.jsonl")),
        press=["question_mark"],
        terminal_size=SIZE,
        run_before=settle,
    )


def test_label_editor(
    snap_compare: Any, make_app: Callable[..., Any], settle: Callable[..., Any], sample: Path
) -> None:
    assert snap_compare(make_app([sample]), press=["l"], terminal_size=SIZE, run_before=settle)


def test_markup_and_broken_lines_in_a_batch(
    snap_compare: Any,
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    mixed_batch: Path,
    workdir: Path,
) -> None:
    assert snap_compare(
        make_app([Path(mixed_batch.name)]), press=["j", "3"], terminal_size=SIZE, run_before=settle
    )


def test_broken_config_shows_diagnostics(
    snap_compare: Any,
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    sample: Path,
    config_copy: Path,
) -> None:
    (config_copy / "rules.yaml").write_text(
        "rating_rules:\n  - id: x\n    when: {respons_contains_any: [a]}\n", encoding="utf-8"
    )
    assert snap_compare(make_app([sample], config_dir=Path("config")), terminal_size=SIZE, run_before=settle)


def test_queue_header(snap_compare: Any, settle: Callable[..., Any], workdir: Path) -> None:
    """`review --queue team.db --reviewer ann` on a SQLite queue (K = 2) where ann and bob each finished the
    first item: the header shows ann's finished items and the team's reviews done of those wanted, and
    the queue's name; the app shows ann's first item done and her second claimed."""
    from evalkit.commands._review_queue import _app
    from evalkit.services.queue.store import QueueStore
    from tests.team_queue.conftest import evalkit, init_queue

    samples = Path(__file__).resolve().parents[2] / "samples"
    for name in ("01_algorithms_graphs_complete.json", "05_data_sql_complete.json"):
        shutil.copy(samples / name, workdir / name)
    init_queue("team.db", "--per-item", "2")
    assert (
        evalkit(
            "queue",
            "add",
            "team.db",
            "01_algorithms_graphs_complete.json",
            "05_data_sql_complete.json",
            cwd=workdir,
        ).returncode
        == 0
    )
    store = QueueStore.open("team.db")
    for reviewer in ("ann", "bob"):
        claimed = store.claim(reviewer)
        assert claimed is not None and claimed.item_id == 1
        done = {"id": f"{reviewer}-done", "ts": "2026-12-04T10:00:00Z", "target": "status", "action": "done"}
        store.record(reviewer, claimed.item_id, [{**done, "value": None, "note": None, "step": 1}])
    store.close()
    options = {"queue": "team.db", "reviewer": "ann", "adjudicate": False, "config_dir": None}
    app = _app(argparse.Namespace(**options, inputs=[], decisions=None, export=None))
    app.blink = False
    app.animation_level = "none"

    async def claimed_and_settled(pilot: Any) -> None:
        deadline = time.monotonic() + 20
        while app.current != 1:
            assert time.monotonic() < deadline, "the second item was not claimed in time"
            await pilot.pause(0.05)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=claimed_and_settled)
