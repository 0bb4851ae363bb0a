"""A journal written by the reviewer app driven with Pilot is what `evalkit stats` reads: the keys a
reviewer pressed come back as the report's counts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLES = [REPO / "samples" / "05_data_sql_complete.json", REPO / "samples" / "24_empty_rewrite.json"]


async def test_what_the_reviewer_pressed_is_what_stats_counts(
    make_app: Callable[..., Any], settle: Callable[..., Any], tmp_path: Path
) -> None:
    journal = tmp_path / "pilot.decisions.jsonl"
    app = make_app(SAMPLES, journal=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("A")  # sample 05: accept its three proposals (rewrite, label, flag)
        await pilot.press("j")
        await settle(pilot)
        await pilot.press("d", "d", "d", "d")  # sample 24: discard its four (rating, rewrite, label, flag)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "stats", str(journal), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    kinds = {kind: (t["accepted"], t["discarded"]) for kind, t in report["kinds"].items() if t["decided"]}
    assert kinds == {"rating": (0, 1), "rewrite": (1, 1), "label": (1, 1), "flag": (1, 1)}
    rules = {rule["rule"]: (rule["accepted"], rule["discarded"]) for rule in report["rules"]}
    assert rules == {"low_optimality_penalty": (2, 0), "very_short_answers": (0, 3)}
    assert report["journals"][0]["decisions"] == 7 and report["submissions"] == 2
