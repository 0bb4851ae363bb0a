"""Access on PostgreSQL (`queue init --roles`): a reviewer's login claims and decides, and cannot assign,
release, read or write others' decisions, or change a decision; a lead's login does every lead command."""

from __future__ import annotations

import uuid

import pytest

from evalkit.services.queue import QueueError
from evalkit.services.queue.store import QueueStore
from tests.team_queue.conftest import CONFIG, REPO, evalkit, init_queue
from tests.team_queue.postgres import Server
from tests.team_queue.reviewer_worker import entry

SAMPLE = str(REPO / "samples" / "01_algorithms_graphs_complete.json")


def test_reviewer_and_lead_roles(postgres: Server, pg_url: str) -> None:
    init_queue(pg_url, "--roles", "--per-item", "2")
    database = pg_url.rsplit("/", 1)[1]
    for name, role in (("ann", "evalkit_reviewer"), ("bob", "evalkit_reviewer"), ("lee", "evalkit_lead")):
        postgres.psql(
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}') THEN "
            f"CREATE ROLE {name} LOGIN PASSWORD 'pw-{name}' IN ROLE {role}; END IF; END $$"
        )
    lead = postgres.url(database, password="pw-lee", user="lee")
    added = evalkit("queue", "add", lead, SAMPLE)
    assert added.returncode == 0, added.stderr
    ann = QueueStore.open(postgres.url(database, password="pw-ann", user="ann"))
    claimed = ann.claim("ann")
    assert claimed is not None
    ann.record("ann", claimed.item_id, [entry("status", "done")])
    for name, role in (("bob", "review"), ("ann", "adjudication")):  # in another's name; the lead's part
        with pytest.raises(QueueError, match="row-level security"):
            ann.db.execute(
                "INSERT INTO decisions (id, item_id, reviewer, role, ts, target, action, step) "
                "VALUES (?, ?, ?, ?, 't', 'label', 'accept', 1)",
                (uuid.uuid4().hex, claimed.item_id, name, role),
            )
    with pytest.raises(QueueError, match="permission denied"):
        ann.db.execute("UPDATE decisions SET action = 'discard'")
    with pytest.raises(QueueError, match="row-level security"):
        ann.assign(claimed.item_id, "bob")
    ann.close()
    bob = QueueStore.open(postgres.url(database, password="pw-bob", user="bob"))
    assert bob.db.execute("SELECT count(*) FROM decisions").fetchone()[0] == 0  # blind: not ann's
    assert bob.claim("bob") is not None
    bob.close()
    reviewer_url = postgres.url(database, password="pw-bob", user="bob")
    released = evalkit("queue", "release", reviewer_url, "--reviewer", "bob")
    assert released.returncode == 2 and "row-level security" in released.stderr
    assert evalkit("queue", "release", lead, "--reviewer", "bob").returncode == 0
    status = evalkit("queue", "status", lead, "--format", "json")
    assert status.returncode == 0, status.stderr


def test_init_with_roles_is_all_or_nothing(postgres: Server, pg_url: str) -> None:
    """The server refuses the last step of `init --roles` (an event trigger refuses CREATE POLICY): the
    command fails with a message, and the tables and settings made before it are gone too."""
    database = pg_url.rsplit("/", 1)[1]
    postgres.psql(
        "CREATE FUNCTION refuse() RETURNS event_trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'policies are refused here'; END $$; "
        "CREATE EVENT TRIGGER no_policies ON ddl_command_start WHEN TAG IN ('CREATE POLICY') "
        "EXECUTE FUNCTION refuse()",
        database=database,
    )
    failed = evalkit("queue", "init", pg_url, "--config-dir", str(CONFIG), "--roles")
    assert failed.returncode == 2, failed.stderr
    assert "policies are refused here" in failed.stderr and "Traceback" not in failed.stderr
    tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    assert postgres.psql(tables, database=database).strip() == "0"
    postgres.psql("DROP EVENT TRIGGER no_policies", database=database)
    init_queue(pg_url, "--roles")
    assert int(postgres.psql(tables, database=database)) == 7
