"""The reviewer's keys, fuzzed: random key logs through Pilot on hostile submissions, at random sizes.

Each log mixes keys pressed one at a time, bursts posted at once (as the terminal driver posts one read)
and terminal resizes, down to one row. Whatever the log, the app must not crash, the journal must read
back whole (no broken or torn line) and replay, and no raw control sequence from the submissions may
reach the terminal. A short run is part of the suite; a longer one:

    EVALKIT_FUZZ_KEYS=300 EVALKIT_FUZZ_SEED=7 .venv/bin/python -m pytest -q -n 2 tests/tui/test_fuzz_keys.py

A log that breaks the app is printed as JSON: save it under `tests/tui/key_logs/` and it is replayed
as a regression case from then on (the palette's PageDown without room was found this way by hand).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from evalkit.engine.config import analyze
from evalkit.services.review.journal import read_journal
from evalkit.tui.model import ReviewSession

RUNS = int(os.environ.get("EVALKIT_FUZZ_KEYS", "3"))
SEED = int(os.environ.get("EVALKIT_FUZZ_SEED", "0"))
STEPS = 40
KEY_LOGS = Path(__file__).with_name("key_logs")
CONFIG_DIR = Path(__file__).resolve().parents[2] / "config_samples"

APP_KEYS = [*"adeEjklnuUrRsx[]123456789", "space", "slash", "question_mark", "ctrl+p", "tab"]
EDIT_KEYS = ["backspace", "delete", "left", "right", "home", "end", "enter", "escape", "ctrl+s"]
MOVE_KEYS = ["up", "down", "pageup", "pagedown", "shift+tab"]
TEXT_KEYS = [*"abz0.,-", "\x1b", "\x9b"]  # typed characters, escape sequences among them
SIZES = [(80, 24), (120, 40), (40, 12), (80, 4), (30, 3), (200, 60), (80, 1)]
CHARACTERS = {"space": " ", "slash": "/", "question_mark": "?", "backspace": "\x7f", "enter": "\r"}

Step = list[Any]  # ["press", key] | ["burst", [keys]] | ["resize", width, height]


def random_log(rng: random.Random) -> list[Step]:
    keys = APP_KEYS * 2 + EDIT_KEYS * 2 + MOVE_KEYS + TEXT_KEYS
    log: list[Step] = [["resize", *rng.choice(SIZES)]]
    for _ in range(STEPS):
        roll = rng.random()
        if roll < 0.08:
            log.append(["resize", *rng.choice(SIZES)])
        elif roll < 0.25:
            log.append(["burst", [rng.choice(keys) for _ in range(rng.randint(2, 8))]])
        else:
            log.append(["press", rng.choice(keys)])
    return log


def hostile_rows(sample: dict[str, Any]) -> list[Any]:
    attack = "\x1b]0;T\x07\x1b]52;c;eA==\x07\x1b[?1049l\x1b[2J\x1b[31m\x9b2J"
    return [
        {
            **sample,
            "prompt": f"[/INST] {attack} prompt",
            "category": attack,
            f"extra{attack}": attack,
            "responses": [{"id": f"r{attack}", "text": attack * 3}, sample["responses"][1]],
            "ranking": [sample["responses"][1]["id"], f"r{attack}"],
            "ranking_rationale": attack,
            "rewrite_preferred": f"rewrite {attack} " * 200,
        },
        sample,
        '{"prompt": "broken',
    ]


async def replay(pilot: Any, log: list[Step]) -> None:
    for step in log:
        if step[0] == "resize":
            await pilot.resize_terminal(step[1], step[2])
        elif step[0] == "burst":
            for key in step[1]:
                character = CHARACTERS.get(key, key if len(key) == 1 else None)
                pilot.app.post_message(events.Key(key, character))
        else:
            await pilot.press(step[1])
    await pilot.pause(0.2)


async def check_log(
    log: list[Step],
    make_app: Callable[..., Any],
    inputs: Path,
    journal: Path,
    recorded: list[str],
    leaks: Callable[[list[str]], list[str]],
) -> None:
    app = make_app([inputs], journal=journal)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.3)
            await replay(pilot, log)
    except Exception as exc:
        raise AssertionError(f"the app crashed ({exc!r}) on the key log:\n{json.dumps(log)}") from exc
    contents = read_journal(journal)
    assert not contents.problems and not contents.torn, f"journal damaged by:\n{json.dumps(log)}"
    assert ReviewSession(analyze(CONFIG_DIR)).replay(contents.entries) == 0, json.dumps(log)
    found = leaks(recorded)
    assert not found, f"raw control sequences {found[:3]} reached the terminal on:\n{json.dumps(log)}"


@pytest.fixture
def hostile_inputs(sample_data: dict[str, Any], write_jsonl: Callable[..., Path]) -> Path:
    return write_jsonl(hostile_rows(sample_data), "hostile.jsonl")


@pytest.mark.parametrize("run", range(RUNS))
async def test_random_key_logs_break_nothing(
    run: int,
    make_app: Callable[..., Any],
    hostile_inputs: Path,
    tmp_path: Path,
    recorded: list[str],
    leaks: Callable[[list[str]], list[str]],
) -> None:
    log = random_log(random.Random(SEED * 1_000_003 + run))
    await check_log(log, make_app, hostile_inputs, tmp_path / "fuzz.decisions.jsonl", recorded, leaks)


@pytest.mark.parametrize("name", sorted(path.name for path in KEY_LOGS.glob("*.json")))
async def test_key_logs_that_once_broke_the_app(
    name: str,
    make_app: Callable[..., Any],
    hostile_inputs: Path,
    tmp_path: Path,
    recorded: list[str],
    leaks: Callable[[list[str]], list[str]],
) -> None:
    log = json.loads((KEY_LOGS / name).read_text(encoding="utf-8"))
    await check_log(log, make_app, hostile_inputs, tmp_path / "fuzz.decisions.jsonl", recorded, leaks)
