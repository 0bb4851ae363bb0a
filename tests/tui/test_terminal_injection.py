"""Nothing from a submission, a file name or a journal reaches the terminal as a control sequence.

Each field of a hostile submission carries its own escape sequences (a window title, a clipboard write,
leaving the alternate screen, clearing, a colour, 8-bit CSI). The app runs under Pilot with a driver that
records every byte Textual writes to the terminal; the test shows each field on screen and checks that
its sequences arrived as readable escapes and never raw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.tui.visible import visible

FIELDS = (
    "prompt",
    "category",
    "extra-key",
    "extra-value",
    "response-text",
    "response-id",
    "rationale",
    "rewrite",
    "filename",
    "note",
)


def payload(field: str) -> str:
    """The attacks, each tagged with the field so a leak names its source."""
    return (
        f"\x1b]0;T-{field}\x07"  # window title
        f"\x1b]52;c;{field}\x07"  # clipboard write
        f"\x1b[?1049l\x1b[2J\x1b[31mC-{field}"  # leave the alternate screen, clear, red
        f"\x9b2JE-{field}"  # 8-bit CSI
    )


def hostile(sample: dict[str, Any]) -> dict[str, Any]:
    first = payload("response-id")
    return {
        **sample,
        "prompt": "Explain. " + payload("prompt"),
        "category": payload("category"),
        payload("extra-key"): payload("extra-value"),
        "responses": [
            {"id": first, "text": "Some text " + payload("response-text")},
            sample["responses"][1],
        ],
        "ranking": [sample["responses"][1]["id"], first],
        "ranking_rationale": "because " + payload("rationale"),
        "rewrite_preferred": "A rewrite " + payload("rewrite"),
    }


async def test_no_field_reaches_the_terminal_raw(
    make_app: Callable[..., Any],
    settle: Callable[..., Any],
    sample_data: dict[str, Any],
    tmp_path: Path,
    recorded: list[str],
    leaks: Callable[[list[str]], list[str]],
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    name = f"x{payload('filename').replace('/', '_')}.json"
    submission = folder / name
    submission.write_text(json.dumps(hostile(sample_data)), encoding="utf-8")
    journal = tmp_path / "j.decisions.jsonl"
    note = {"source": str(submission), "target": "note", "action": "note", "value": None}
    journal.write_text(
        json.dumps({"ts": "2026-01-01T00:00:00Z", **note, "note": payload("note"), "step": 1}) + "\n",
        encoding="utf-8",
    )
    app = make_app([submission], journal=journal)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        for key in ("1", "2", "3", "5"):  # overview, prompt, responses, rewrite
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("n")  # the note's editor shows the text as it is: the line filter guards it
        await pilot.pause()
        await pilot.press("escape")
    found = leaks(recorded)
    assert not found, f"raw control sequences reached the terminal: {found[:5]}"
    output = "".join(recorded)
    for field in FIELDS:
        assert visible(f"\x1b]0;T-{field}") in output, f"{field} was not shown (as escapes)"


@pytest.mark.parametrize(
    ("text", "lines", "expected"),
    [
        ("a\x1b]0;t\x07b", True, "a\\x1b]0;t\\x07b"),
        ("one\ntwo\tthree", True, "one\ntwo\tthree"),
        ("one\ntwo", False, "one\\ntwo"),
        ("a\tb", False, "a\\tb"),
        ("line\u2028separator", True, "line\\u2028separator"),
        ("::error::x", False, "::error::x"),
        ("crlf\r\nline", True, "crlf\nline"),
        ("lone\rcr", True, "lone\\rcr"),
        ("\x9b2J\x7f", True, "\\x9b2J\\x7f"),
        ("rtl\u202eevil", True, "rtl\\u202eevil"),
        ("bad byte \udcff", True, "bad byte \\xff"),
        ("plain ünïcode ✓", False, "plain ünïcode ✓"),
    ],
)
def test_visible_writes_each_control_character_as_an_escape(text: str, lines: bool, expected: str) -> None:
    assert visible(text, lines=lines) == expected
