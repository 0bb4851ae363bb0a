"""The database goes away while a reviewer works: the app says so, keeps each decision in the spool on
disk, and when the server is back writes them all, once each (a real PostgreSQL of its own, stopped with
pg_ctl -m immediate and started again)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalkit.commands._review_queue import _app
from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import evalkit, init_queue
from tests.team_queue.postgres import Server, running_server
from tests.team_queue.test_app import SAMPLES, SIZE, args, wait_until


@pytest.fixture
def own_server() -> Iterator[Server]:
    with running_server() as server:
        yield server


async def test_decisions_made_while_the_database_is_away_are_kept_and_written_once(
    own_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    own_server.psql("CREATE DATABASE team")
    url = own_server.url("team")
    init_queue(url, "--lease", "3s")
    assert evalkit("queue", "add", url, *map(str, SAMPLES)).returncode == 0
    app: Any = _app(args(url, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.current is not None and app.session.evaluation_finished)
        made: list[tuple[str, str]] = []
        sink = app.session.sink

        def recorded(entries: list[dict[str, Any]]) -> None:
            sink(entries)
            made.extend((e["target"], e["action"]) for e in entries)

        app.session.sink = recorded
        await pilot.press("a")
        own_server.stop()
        await pilot.press("d", "d")
        await wait_until(pilot, lambda: app.journal.offline is not None)
        assert "database away: decisions kept on disk" in app.status_text().plain
        spool = list((tmp_path / "cache").rglob("*.jsonl"))
        assert len(spool) == 1 and spool[0].read_text().count("\n") >= 1
        own_server.start()
        await wait_until(pilot, lambda: app.journal.offline is None, timeout=30)
        assert "database away" not in app.status_text().plain
        assert not spool[0].exists()
        await pilot.press("q")
    store = QueueStore.open(url)
    rows = store.db.execute("SELECT id, target, action FROM decisions ORDER BY seq").fetchall()
    store.close()
    assert len({row[0] for row in rows}) == len(rows)  # none twice
    assert [(t, a) for _, t, a in rows] == made and len(made) == 3  # all three, once each, in order
