"""`evalkit stats`' numbers whatever the journals hold (issue 30, point 11): strict JSON when a mean
overflows, no NaN in the page, a skipped line's time outside the time range, both ends of the range in
UTC, and chart captions wide enough for counts past a thousand."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evalkit.services.stats.compute import ReviewStats, RuleStats, Tally
from evalkit.services.stats.html import render_html


def accept(proposal: Any) -> tuple[str, Any]:
    return "accept", None


def entries(journal: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in journal.read_text().splitlines()]


def append(journal: Path, *added: dict[str, Any]) -> None:
    with journal.open("a") as handle:
        handle.writelines(json.dumps(entry) + "\n" for entry in added)


def test_ratings_whose_sum_overflows_give_no_mean_not_infinity(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept)
    decided = entries(journal)
    ratings = [entry for entry in decided if entry["target"] == "rating.accuracy"][:2]
    step = decided[-1]["step"]
    append(
        journal,
        *({**r, "action": "edit", "value": 1.7e308, "step": step + n} for n, r in enumerate(ratings, 1)),
    )
    done = evalkit("stats", str(journal), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    (accuracy,) = (d for d in report["dimensions"] if d["dimension"] == "accuracy")
    assert accuracy["decided"] >= 2 and accuracy["mean_abs_final_minus_proposed"] is None
    page = evalkit("stats", str(journal), "--format", "html")
    assert page.returncode == 0 and not re.search(r"(?i)='(nan|inf)", page.stdout)
    text = evalkit("stats", str(journal))
    assert text.returncode == 0 and not re.search(r"(?i)\b(nan|inf)\b", text.stdout)


def test_a_skipped_lines_time_does_not_set_the_time_range(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept)
    before = json.loads(evalkit("stats", str(journal), "--format", "json").stdout)["journals"][0]
    last = entries(journal)[-1]
    append(
        journal, {**last, "source": ["not a path"], "ts": "2030-01-01T00:00:00Z", "step": last["step"] + 1}
    )
    after = json.loads(evalkit("stats", str(journal), "--format", "json").stdout)["journals"][0]
    assert after["skipped_entries"] == before["skipped_entries"] + 1
    assert (after["first"], after["last"], after["active_hours"]) == (
        before["first"],
        before["last"],
        before["active_hours"],
    )


def test_both_ends_of_the_time_range_are_in_utc(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept)
    last = entries(journal)[-1]
    # an hour after the app's first entry, in UTC+05:30: written by a hand in another zone
    append(journal, {**last, "ts": "2026-11-20T16:00:00+05:30", "step": last["step"] + 1})
    report = json.loads(evalkit("stats", str(journal), "--format", "json").stdout)["journals"][0]
    assert report["first"].endswith("+00:00") and report["last"] == "2026-11-20T10:30:00+00:00"
    text = evalkit("stats", str(journal)).stdout
    assert "from – to (UTC)" in text and "2026-11-20 09:00 – 2026-11-20 10:30" in text


def test_chart_captions_past_a_thousand_fit_their_chart() -> None:
    tally = Tally(accepted=1083, discarded=400, edited=62)
    page = render_html(ReviewStats(rules=[RuleStats("r", tally=tally)]), {"folder": "c", "hash": "h"})
    svg = page[page.index("<svg") : page.index("</svg>")]
    width = int(re.search(r"width='(\d+)'", svg).group(1))
    caption = re.search(r"<text x='(\d+)'[^>]*>1083/1545 accepted</text>", svg)
    assert caption is not None
    assert int(caption.group(1)) + 7 * len("1083/1545 accepted") <= width
