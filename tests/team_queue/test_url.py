"""Queue URLs: what each names, and that a password never shows in what the URL is shown as."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.services.queue import QueueError
from evalkit.services.queue.url import POSTGRESQL, SQLITE, hide_password, parse_url

PASSWORDS = st.text(alphabet=st.characters(codec="ascii", exclude_characters="@/?#&%*"), min_size=3)


@given(password=PASSWORDS, user=st.from_regex(r"[a-z]{1,8}", fullmatch=True))
def test_a_password_never_shows(password: str, user: str) -> None:
    for text in (
        f"postgresql://{user}:{password}@db.example:5432/team",
        f"postgresql://{user}@db.example/team?password={password}&sslmode=require",
    ):
        try:
            shown = parse_url(text).shown
        except QueueError as exc:
            shown = str(exc)
        assert f":{password}@" not in shown and f"password={password}" not in shown
        assert f":{password}@" not in hide_password(text) and "***" in hide_password(text)


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("team.db", SQLITE, "team.db"),
        ("sqlite:///q/team.db", SQLITE, "q/team.db"),
        ("sqlite:////srv/team.db", SQLITE, "/srv/team.db"),
        ("postgresql://ann@h/q", POSTGRESQL, "postgresql://ann@h/q"),
        ("postgres://ann@h:5433/q", POSTGRESQL, "postgres://ann@h:5433/q"),
    ],
)
def test_what_a_url_names(text: str, kind: str, target: str) -> None:
    parsed = parse_url(text)
    assert (parsed.kind, parsed.target) == (kind, target)


@pytest.mark.parametrize("text", ["", "a\x00b", "mysql://h/db", "sqlite://x", "postgresql://h:port/db"])
def test_what_names_no_queue(text: str) -> None:
    with pytest.raises(QueueError):
        parse_url(text)
