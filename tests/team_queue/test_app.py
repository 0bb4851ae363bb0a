"""`evalkit review --queue`: the reviewer app on a queue, driven with Textual's Pilot on SQLite and on
PostgreSQL: the first claim shows at once, each decision is in the store as soon as it is made, finishing
an item claims and shows the next, the header shows mine / the team's progress, a restart resumes, and
`--adjudicate` shows the items reviewers disagree on with every reviewer's decision."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from evalkit.commands._review_queue import _app
from evalkit.services.queue.store import Progress, QueueStore
from evalkit.tui.queue_source import nothing_left
from tests.team_queue.conftest import REPO, evalkit, init_queue

SIZE = (140, 40)
SAMPLES = [
    REPO / "samples" / name for name in ("01_algorithms_graphs_complete.json", "05_data_sql_complete.json")
]


def args(url: str, reviewer: str, adjudicate: bool = False) -> argparse.Namespace:
    return argparse.Namespace(
        queue=url,
        reviewer=reviewer,
        adjudicate=adjudicate,
        config_dir=None,
        inputs=[],
        decisions=None,
        export=None,
    )


async def wait_until(pilot: Any, done: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the app did not get there in time"
        await pilot.pause(0.05)
    await pilot.pause()


def stored(url: str, reviewer: str) -> list[tuple[int, str, str]]:
    store = QueueStore.open(url)
    rows = store.db.execute(
        "SELECT item_id, target, action FROM decisions WHERE reviewer = ? ORDER BY seq", (reviewer,)
    ).fetchall()
    store.close()
    return [(int(i), t, a) for i, t, a in rows]


def queue_of_two(url: str) -> None:
    init_queue(url, "--per-item", "2")
    added = evalkit("queue", "add", url, *map(str, SAMPLES))
    assert added.returncode == 0, added.stderr


async def test_decisions_go_to_the_store_and_done_brings_the_next_item(queue_url: str) -> None:
    queue_of_two(queue_url)
    app: Any = _app(args(queue_url, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.current is not None and app.session.evaluation_finished)
        assert app.session.items[app.current].source.startswith("#1 ")
        await pilot.press("a")
        assert stored(queue_url, "ann") == [(1, "rating.accuracy", "accept")]  # in the store at once
        await pilot.press("A")  # accept the rest: the item is done
        await wait_until(pilot, lambda: len(app.session.items) == 2 and app.current == 1)
        assert app.session.items[1].source.startswith("#2 ")
        assert "ann: 1 done  team: 1/4 reviews" in app.status_text().plain
        await pilot.press("q")
    again: Any = _app(args(queue_url, "ann"))
    async with again.run_test(size=SIZE) as pilot:  # a restart shows what ann did and resumes item 2
        await wait_until(pilot, lambda: len(again.session.items) == 2 and again.session.evaluation_finished)
        assert again.session.status(0) == "done" and again.current == 1
        await pilot.press("q")


async def test_adjudicate_shows_the_disagreements_side_by_side(queue_url: str) -> None:
    queue_of_two(queue_url)
    store = QueueStore.open(queue_url)
    for reviewer, action in (("ann", "accept"), ("bob", "discard")):
        claimed = store.claim(reviewer)
        assert claimed is not None
        store.record(
            reviewer,
            claimed.item_id,
            [
                {
                    "id": f"{reviewer}1",
                    "ts": "t",
                    "target": "rating.accuracy",
                    "action": action,
                    "value": 4.0,
                    "note": None,
                    "step": 1,
                },
                {
                    "id": f"{reviewer}2",
                    "ts": "t",
                    "target": "label",
                    "action": "edit",
                    "value": "good" if reviewer == "ann" else "bad",
                    "note": None,
                    "step": 2,
                },
                {
                    "id": f"{reviewer}3",
                    "ts": "t",
                    "target": "status",
                    "action": "done",
                    "value": None,
                    "note": None,
                    "step": 3,
                },
            ],
        )
    store.close()
    app: Any = _app(args(queue_url, "lead", adjudicate=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.current is not None and app.session.evaluation_finished)
        assert len(app.session.items) == 1  # only the item they disagree on
        shown = str(app.proposal_detail.content).split("\n")
        assert shown[1] == "ann: accept 4.0  ·  bob: discard 4.0"  # in the pane's 3 lines, not below
        assert "adjudicating: 0/1 settled  team: 2/4 reviews" in app.status_text().plain
        await pilot.press("a")
        await pilot.press("q")
    assert stored(queue_url, "lead") == [(1, "rating.accuracy", "accept")]


async def test_the_app_renews_its_lease_while_the_reviewer_works(tmp_path: Any) -> None:
    url = str(tmp_path / "team.db")
    init_queue(url, "--per-item", "1", "--lease", "1s")
    assert evalkit("queue", "add", url, *map(str, SAMPLES)).returncode == 0
    app: Any = _app(args(url, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.current is not None)
        await pilot.pause(2.5)  # more than two leases without a decision
        store = QueueStore.open(url)
        taken = store.claim("bob")
        store.close()
        assert taken is not None and taken.item_id == 2  # item 1 is still ann's
        await pilot.press("q")


async def test_a_reviewer_the_queue_has_nothing_for_is_told_why(tmp_path: Path) -> None:
    url = str(tmp_path / "team.db")
    init_queue(url, "--per-item", "1")
    app: Any = _app(args(url, "ann"))
    async with app.run_test(size=SIZE) as pilot:  # no items at all
        await wait_until(pilot, lambda: app.nothing_left_said is not None)
        assert "holds no items yet: a lead adds them with evalkit queue add" in str(
            app.detail_header.render()
        )
        await pilot.press("q")
    assert evalkit("queue", "add", url, str(SAMPLES[0])).returncode == 0
    store = QueueStore.open(url)
    assert store.claim("bob") is not None  # the one slot is bob's
    store.close()
    again: Any = _app(args(url, "ann"))
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: again.nothing_left_said is not None)
        assert again.nothing_left_said.startswith("Nothing in the queue for you now: other reviewers")
        await pilot.press("q")
    assert "your 3 review(s) are in. Thank you!" in nothing_left(Progress(3, 5, 6))


async def test_a_reviewer_never_sees_another_reviewers_decisions(queue_url: str) -> None:
    """Blind: ann finishes item 1; bob, given item 1 next, sees it untouched, and none of her decisions."""
    queue_of_two(queue_url)
    ann: Any = _app(args(queue_url, "ann"))
    async with ann.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: ann.current is not None and ann.session.evaluation_finished)
        await pilot.press("d", "A")  # discard the first proposal, accept the rest: item 1 is done
        await wait_until(pilot, lambda: len(ann.session.items) == 2)
        await pilot.press("q")
    assert [action for item, _, action in stored(queue_url, "ann") if item == 1][:1] == ["discard"]
    bob: Any = _app(args(queue_url, "bob"))
    async with bob.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bob.current is not None and bob.session.evaluation_finished)
        assert bob.session.items[bob.current].source.startswith("#1 ")
        assert bob.session.status(bob.current) == "pending"
        assert bob.session.book.of(bob.session.items[bob.current].source) == {}
        assert "discard" not in bob.status_text().plain and "ann" not in bob.status_text().plain
        await pilot.press("q")
