"""Bad input to the queue commands and `review --queue`, through the real entry point: one clear message
each on stderr (no traceback, no password), exit 2, and nothing half-written."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from evalkit.services.queue.schema import LATEST
from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import CONFIG, REPO, evalkit, init_queue
from tests.team_queue.postgres import PASSWORD, Server

SAMPLE = str(REPO / "samples" / "01_algorithms_graphs_complete.json")


def refused(done: subprocess.CompletedProcess[str], *said: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and PASSWORD not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for part in said:
        assert part in done.stderr, done.stderr


def test_urls_that_name_no_queue(tmp_path: Path) -> None:
    refused(evalkit("queue", "status", "mysql://u@h/db"), "unknown kind of queue 'mysql'")
    refused(evalkit("queue", "status", "sqlite://relative"), "sqlite:///relative/path")
    refused(evalkit("queue", "status", str(tmp_path / "absent.db")), "no such queue", "evalkit queue init")
    refused(evalkit("queue", "status", "postgresql://u@127.0.0.1:9/"), "name the database")
    refused(
        evalkit("queue", "status", f"postgresql://u:{PASSWORD}@127.0.0.1:1/db"),
        "postgresql://u:***@127.0.0.1:1/db",
        "cannot be reached",
    )


def test_a_wrong_password_and_an_absent_database(postgres: Server) -> None:
    refused(
        evalkit("queue", "status", postgres.url("postgres", password="wrong")),
        "refused the login",
        "password authentication failed",
        ":***@",
    )
    refused(evalkit("queue", "status", postgres.url("no_such_db")), "refused the login", "no_such_db")


def test_files_that_are_not_queues(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database")
    refused(evalkit("queue", "add", str(text), SAMPLE), "not a SQLite database")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    refused(evalkit("queue", "status", str(other)), "not a queue")
    refused(evalkit("review", "--queue", str(other), "--reviewer", "ann"), "not a queue")


def test_a_newer_queue_and_a_corrupted_row(queue_url: str, tmp_path: Path) -> None:
    init_queue(queue_url)
    assert evalkit("queue", "add", queue_url, SAMPLE).returncode == 0
    store = QueueStore.open(queue_url)
    store.db.execute("UPDATE items SET body = '{cut' WHERE id = 1")
    store.close()
    refused(evalkit("queue", "export", queue_url, "--journals", str(tmp_path)), "corrupted row", "item #1")
    assert not list(tmp_path.glob("*.jsonl"))  # the export was written whole or not at all
    store = QueueStore.open(queue_url)
    store.db.execute(
        "INSERT INTO evalkit_queue_migrations (version, applied_at) VALUES (?, 'x')", (LATEST + 1,)
    )
    store.close()
    newer = f"version {LATEST + 1}, newer than this evalkit's ({LATEST})"
    refused(evalkit("queue", "status", queue_url), newer, "upgrade evalkit")
    refused(evalkit("review", "--queue", queue_url, "--reviewer", "ann"), "newer than this evalkit's")


def test_reviewer_names_and_a_config_that_is_not_the_queues(tmp_path: Path) -> None:
    url = str(tmp_path / "team.db")
    init_queue(url)
    refused(evalkit("review", "--queue", url, "--reviewer", "ann\x1b[31m"), "control characters")
    refused(evalkit("queue", "assign", url, "#1", "--to", "../x"), "reviewer name '../x'")
    other = tmp_path / "config"
    other.mkdir()
    (other / "rules.yaml").write_text((CONFIG / "rules.yaml").read_text() + "\n# changed\n")
    refused(
        evalkit("review", "--queue", url, "--reviewer", "ann", "--config-dir", str(other)),
        "is not the queue's",
        "--config-dir",
    )


def test_two_leads_initialising_at_once_make_one_queue(queue_url: str) -> None:
    command = [
        str(REPO / ".venv" / "bin" / "evalkit"),
        "queue",
        "init",
        queue_url,
        "--config-dir",
        str(CONFIG),
    ]
    leads = [subprocess.Popen(command, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = sorted((lead.wait(timeout=60), lead.stderr.read()) for lead in leads if lead.stderr)
    assert [code for code, _ in outcomes] == [0, 2]
    assert "already a queue; nothing changed" in outcomes[1][1]
    store = QueueStore.open(queue_url)
    assert store.db.execute("SELECT count(*) FROM queue_settings").fetchone()[0] == 5
    store.close()


@pytest.mark.parametrize(
    "options",
    [["--per-item", "0"], ["--lease", "soon"], ["--calibration", "x%"], ["--calibration", "120%"]],
)
def test_init_with_bad_settings_writes_nothing(tmp_path: Path, options: list[str]) -> None:
    url = tmp_path / "team.db"
    refused(evalkit("queue", "init", str(url), "--config-dir", str(CONFIG), *options))
    assert not url.exists()
