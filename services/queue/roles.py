"""PostgreSQL roles for a queue (`queue init --roles`). `evalkit_reviewer` may read the items, claim,
renew and finish slots and insert decisions, nothing else: no update or delete of any decision, no
settings, no slot given to or taken from another (so no assign or release), and only their own decisions
to read (so blind, and an export holds only theirs). `evalkit_lead` may do everything a queue command
does. Both are group roles without login: a database owner grants them to people's login roles (README:
Access). Row-level security keeps a reviewer to rows in their own name (`reviewer = session_user`), so
with roles on, a reviewer's name is their login.
"""

from __future__ import annotations

from evalkit.services.queue import QueueError
from evalkit.services.queue.backend import Database

REVIEWER_ROLE = "evalkit_reviewer"
LEAD_ROLE = "evalkit_lead"
TABLES = ("queue_settings", "items", "reviewers", "slots", "claims", "decisions", "evalkit_queue_migrations")

REVIEWER_GRANTS = [
    "GRANT SELECT ON queue_settings, items, evalkit_queue_migrations TO evalkit_reviewer",
    "GRANT SELECT, INSERT ON reviewers, claims, decisions TO evalkit_reviewer",
    "GRANT SELECT, UPDATE (reviewer, lease_until, claimed_at, done_at), INSERT ON slots TO evalkit_reviewer",
    "ALTER TABLE decisions ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE slots ENABLE ROW LEVEL SECURITY",
    "ALTER TABLE claims ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY lead_all_decisions ON decisions TO evalkit_lead USING (true)",
    "CREATE POLICY reviewer_reads_own ON decisions FOR SELECT TO evalkit_reviewer "
    "USING (reviewer = session_user)",
    "CREATE POLICY reviewer_writes_own ON decisions FOR INSERT TO evalkit_reviewer "
    "WITH CHECK (reviewer = session_user AND role = 'review')",
    "CREATE POLICY lead_all_slots ON slots TO evalkit_lead USING (true)",
    "CREATE POLICY reviewer_reads_slots ON slots FOR SELECT TO evalkit_reviewer USING (true)",
    "CREATE POLICY reviewer_claims_slots ON slots FOR UPDATE TO evalkit_reviewer "
    "USING (reviewer IS NULL OR reviewer = session_user "
    "OR lease_until < extract(epoch from clock_timestamp())) WITH CHECK (reviewer = session_user)",
    "CREATE POLICY reviewer_adds_calibration ON slots FOR INSERT TO evalkit_reviewer "
    "WITH CHECK (reviewer = session_user AND slot < 0)",
    "CREATE POLICY lead_all_claims ON claims TO evalkit_lead USING (true)",
    "CREATE POLICY reviewer_reads_claims ON claims FOR SELECT TO evalkit_reviewer USING (true)",
    "CREATE POLICY reviewer_own_claims ON claims FOR INSERT TO evalkit_reviewer "
    "WITH CHECK (reviewer = session_user)",
]


def create_roles(db: Database) -> None:
    """Create (or keep) both roles and grant them the queue's tables, in one transaction."""
    if db.dialect != "postgresql":
        raise QueueError(
            f"{db.url.shown}: --roles is for PostgreSQL; a SQLite queue is guarded by its file's permissions"
        )
    with db.transaction():
        for role in (REVIEWER_ROLE, LEAD_ROLE):
            exists = db.execute("SELECT 1 FROM pg_roles WHERE rolname = ?", (role,)).fetchone()
            if not exists:
                db.execute(f"CREATE ROLE {role} NOLOGIN")
        db.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(TABLES)} TO {LEAD_ROLE}")
        policies = db.execute("SELECT count(*) FROM pg_policies WHERE tablename = 'decisions'").fetchone()[0]
        if not policies:
            for statement in REVIEWER_GRANTS:
                db.execute(statement)
