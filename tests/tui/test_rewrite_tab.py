"""The rewrite tab on a long rewrite: diffed off the screen's thread, the reviewer moving on meanwhile."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from evalkit.tui import render
from evalkit.tui.detail import REWRITE_IN_BACKGROUND
from evalkit.tui.render import COARSE
from evalkit.tui.text_view import TextView


def long_prose(chars: int) -> str:
    rng = random.Random(7)
    words = [f"w{n}" for n in range(2000)] + ["the", "of", "a"] * 300
    return " ".join(rng.choice(words) for _ in range(chars // 4))[:chars]


def rewrite_tab(app: Any) -> str:
    return app.query_one("#rewrite-text", TextView).text.plain


async def test_a_long_rewrite_is_diffed_in_a_thread_and_moving_on_is_not_held_up(
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    until: Callable[..., Any],
    sample_data: dict[str, Any],
    write_jsonl: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rewrite = long_prose(100_000)
    assert len(rewrite) > REWRITE_IN_BACKGROUND
    release = threading.Event()
    real = render.rewrite_text

    def slow(original: str, final: str) -> Text:
        """The long diff waits for the test: the screen must answer keys until it comes."""
        if len(original) > REWRITE_IN_BACKGROUND:
            assert threading.current_thread() is not threading.main_thread()
            release.wait(20)
        return real(original, final)

    monkeypatch.setattr(render, "rewrite_text", slow)
    app = make_app([write_jsonl([{**sample_data, "rewrite_preferred": rewrite}, sample_data])])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        assert rewrite_tab(app).startswith("Comparing the rewrites")
        await pilot.press("j")  # answered while the long diff is still running
        assert app.current == 1
        assert sample_data["rewrite_preferred"][:40] in rewrite_tab(app)
        release.set()  # the long diff ends now: it is for a submission no longer shown, and dropped
        await pilot.pause(0.3)
        assert sample_data["rewrite_preferred"][:40] in rewrite_tab(app)
        await pilot.press("k")
        await until(pilot, lambda: "Final rewrite" in rewrite_tab(app), "the long rewrite's diff")
        assert rewrite[:30] in rewrite_tab(app) and COARSE not in rewrite_tab(app)
