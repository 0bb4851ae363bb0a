"""SVG snapshots of the main screens (pytest-textual-snapshot). Inputs sit in the working folder, so the
paths on screen are the same on every machine. Regenerate with `pytest tests/tui --snapshot-update` after
looking at the new pictures."""

from __future__ import annotations

import shutil
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
