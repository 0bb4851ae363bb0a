"""A team's shared review queue (`evalkit queue`, `evalkit review --queue`): submissions that K reviewers
each decide, on SQLite (a file, the default) or PostgreSQL (a server, for reviewers on many machines).

Modules: `url` (what a queue URL names, with its password hidden), `backend` (one connection API over
sqlite3 and psycopg 3), `schema` (the numbered migrations), `store` (claims, decisions, the lead's
moves), `spool` (decisions kept on disk while the server is away), `status` and `export` (reports).

Errors, all raised with a message meant for the user (a password never in it):
- `QueueError`: nothing can be done (a bad URL, a file that is not a queue, a newer schema, a refused
  login, a corrupted row); the commands say it and exit 2.
- `Unavailable(QueueError)`: the server cannot be reached now; the reviewer's app spools and retries.
- `LeaseLost(QueueError)`: the reviewer's lease on an item ran out and another reviewer holds it now.
"""

from __future__ import annotations


class QueueError(Exception):
    """The queue cannot be used; the message says why and what to do."""


class Unavailable(QueueError):
    """The database cannot be reached now (it may come back)."""


class LeaseLost(QueueError):
    """The reviewer no longer holds the item the decision is for."""
