"""An unexpected error ends the app without printing the reviewer's data, and the journal stays intact.

The key log that found it: the command palette's PageDown while its list has no room (a terminal four
rows high) raised `KeyError: 0` inside Textual's option list, and Textual's traceback printed every
frame's local variables.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.tui.app import ReviewApp
from evalkit.tui.journal import Journal

KEY_LOG = ("ctrl+p", "pagedown", "pageup", "down", "pagedown", "escape")


async def test_the_palettes_page_keys_without_room_do_not_end_the_app(
    make_app: Callable[..., Any], settle: Callable[..., Any], mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        for height in (4, 3, 1):
            await pilot.resize_terminal(80, height)
            await pilot.pause()
            await pilot.press(*KEY_LOG)
        await pilot.resize_terminal(80, 24)
        await pilot.press("ctrl+p", "pagedown", "escape")  # with room it still pages
        await pilot.press("q")
    assert app.return_code == 0
    assert [e["action"] for e in Journal(app.journal.path).read().entries] == ["accept"]


async def test_an_unexpected_error_prints_no_locals_and_no_control_sequence(
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    mixed_batch: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A real error of the same kind, raised with a local holding the reviewer's note."""

    def broken_help(self: ReviewApp) -> None:
        reviewers_note = "PRIVATE-NOTE"  # a local the traceback must not show
        raise RuntimeError(f"boom \x1b]0;title\x07 {len(reviewers_note)}")

    monkeypatch.setattr(ReviewApp, "action_help", broken_help)
    app = make_app([mixed_batch])
    with pytest.raises(RuntimeError, match="boom"):
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("a")
            await pilot.press("question_mark")
    printed = app.crash_report  # what the command prints once the screen is gone
    assert not capsys.readouterr().err  # and nothing else: Textual's traceback printed locals
    assert "RuntimeError: boom \\x1b]0;title\\x07 12" in printed and "broken_help" in printed
    assert "PRIVATE-NOTE" not in printed and "locals" not in printed
    assert "\x1b" not in printed and str(app.journal.path) in printed
    assert app.return_code == 1
    assert [e["action"] for e in Journal(app.journal.path).read().entries] == ["accept"]
