"""Keys typed ahead are never lost or reordered: a burst does what the same keys do one at a time.

The terminal driver posts every key of one read (`e BSpace BSpace BSpace 3 Enter` pasted or typed fast)
to the app at once; here they are posted the same way, without Pilot's wait after each key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from evalkit.tui.journal import Journal

CHARACTERS = {
    "backspace": "\x7f",
    "enter": "\r",
    "space": " ",
    "escape": "\x1b",
    "ctrl+s": "\x13",
    "slash": "/",
}


def burst(app: Any, *keys: str) -> None:
    for key in keys:
        character = CHARACTERS.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))


async def decided(pilot: Any, keys: tuple[str, ...], at_once: bool) -> list[Any]:
    app = pilot.app
    if at_once:
        burst(app, *keys)
    else:
        await pilot.press(*keys)
    await pilot.pause(0.3)
    await pilot.pause()
    return [
        (e["target"], e["action"], e["value"], e.get("note"))
        for e in Journal(app.journal.path).read().entries
    ]


@pytest.mark.parametrize(
    "keys",
    [
        ("e", "backspace", "backspace", "backspace", "3", "enter"),  # the rating editor, prefilled 4.5
        ("e", "backspace", "backspace", "backspace", "2", ".", "5", "enter", "j", "a"),
        ("n", "o", "k", "space", "x", "ctrl+s"),  # the note editor
        ("l", "backspace", "backspace", "backspace", "backspace", "b", "a", "d", "enter"),  # the label
        ("slash", "b", "a", "t", "c", "h", "enter", "j", "a", "escape", "a"),  # the filter, then the queue
    ],
)
async def test_a_burst_of_keys_does_what_the_keys_do_one_by_one(
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    write_jsonl: Callable[..., Path],
    sample_data: dict[str, Any],
    tmp_path: Path,
    keys: tuple[str, ...],
) -> None:
    inputs = write_jsonl([sample_data, sample_data])
    results = []
    for at_once in (False, True):
        app = make_app([inputs], journal=tmp_path / f"{at_once}.decisions.jsonl")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            results.append(await decided(pilot, keys, at_once))
    one_by_one, at_once_result = results
    assert one_by_one, "the keys decided nothing: the test would prove nothing"
    assert at_once_result == one_by_one
