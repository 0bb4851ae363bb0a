"""What a queue URL names: a SQLite file (`team.db`, `sqlite:///path`) or a PostgreSQL database
(`postgresql://user:password@host:port/name`), and the URL as it may be shown: without its password."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from evalkit.services.queue import QueueError

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True, slots=True)
class QueueURL:
    kind: str  # SQLITE or POSTGRESQL
    target: str  # the file path, or the URL libpq is given
    shown: str  # for messages: the password replaced by ***

    @property
    def password(self) -> str | None:
        if self.kind != POSTGRESQL:
            return None
        found = _QUERY_PASSWORD.search(self.target)
        return found.group(0).partition("=")[2] if found else urlsplit(self.target).password


def parse_url(text: str) -> QueueURL:
    """The queue a URL names; a bare path is a SQLite file. Raises QueueError for what is none."""
    if not text or any(not ch.isprintable() for ch in text):
        raise QueueError(
            f"{hide_password(text)!r}: not a queue URL (a file path, sqlite:///PATH or "
            "postgresql://USER@HOST/DB)"
        )
    found = _SCHEME.match(text)
    if found is None:
        return QueueURL(SQLITE, text, text)
    scheme = found.group(1).lower()
    if scheme == "sqlite":
        path = text[found.end() :]
        if not path.startswith("/") or path == "/":
            raise QueueError(
                f"{text}: a SQLite URL names a file as sqlite:///relative/path or sqlite:////absolute/path"
            )
        return QueueURL(SQLITE, path[1:], text)
    if scheme in ("postgresql", "postgres"):
        return _postgresql(text)
    raise QueueError(
        f"{hide_password(text)}: unknown kind of queue {scheme!r}: use a file path, "
        "sqlite:///PATH or postgresql://USER@HOST/DB"
    )


def _postgresql(text: str) -> QueueURL:
    shown = hide_password(text)
    try:
        parts = urlsplit(text)
        _ = parts.port  # a port that is no number raises here
    except ValueError as exc:
        raise QueueError(f"{shown}: not a PostgreSQL URL: {exc}") from None
    if not parts.path.strip("/"):
        raise QueueError(f"{shown}: name the database: postgresql://USER@HOST/DATABASE")
    return QueueURL(POSTGRESQL, text, shown)


_QUERY_PASSWORD = re.compile(r"(?i)([?&]password=)[^&]*")


def hide_password(text: str) -> str:
    """The URL with any password (in its user part or as `?password=`) replaced by ***: what every
    message, log and export shows."""
    text = _QUERY_PASSWORD.sub(r"\1***", text)
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", text)
    if not password:
        return text
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
