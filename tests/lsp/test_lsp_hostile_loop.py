"""Nothing a client sends blocks the server's event loop: a file that is not open is never read on it
(a named pipe, /dev/zero), what the engine refuses is not indexed (16,000-deep flow, 5 MB on one line),
the `journals` glob runs on a worker with a bound, and a lone surrogate still gets its diagnostics.
Driven over stdio by a raw writer; every hover must be answered (the client waits 30 s at most)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygls.uris import from_fs_path

from evalkit.engine.config import analyze
from tests.lsp.rawclient import RawClient

PROJECT = Path(__file__).parent / "fixtures" / "project"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT, tmp_path / "project")
    return tmp_path / "project"


@pytest.fixture
def client(project: Path) -> Iterator[RawClient]:
    started = RawClient()
    started.initialize(project)
    yield started
    assert started.close() == 0, started.log()


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or ""


def assert_answers(client: RawClient, uri: str, times: int = 3) -> None:
    for _ in range(times):
        response = client.hover(uri, 0, 0)
        assert "error" not in response, response


def test_a_hover_on_a_named_pipe_that_is_not_open_is_answered(client: RawClient, tmp_path: Path) -> None:
    folder = tmp_path / "pipes"
    folder.mkdir()
    os.mkfifo(folder / "rules.yaml")
    (folder / "dimensions.yaml").symlink_to("/dev/zero")
    for name in ("rules.yaml", "dimensions.yaml"):
        assert client.hover(uri_of(folder / name), 0, 0)["result"] is None
    assert_answers(client, uri_of(folder / "rules.yaml"))


def test_closing_a_document_whose_file_is_a_named_pipe_keeps_the_server_answering(
    client: RawClient, tmp_path: Path
) -> None:
    folder = tmp_path / "closed"
    folder.mkdir()
    rules = folder / "rules.yaml"
    uri = client.open(rules, "rating_rules: []\n")
    client.diagnostics(uri)
    os.mkfifo(rules)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    found = client.diagnostics(uri)  # the engine's word on the file on disk, read off the loop
    assert [d["code"] for d in found] == ["unreadable"]
    assert "named pipe" in found[0]["message"]
    assert_answers(client, uri)


def test_a_16000_deep_flow_document_is_refused_without_being_indexed(
    client: RawClient, project: Path
) -> None:
    text = "rating_rules: " + "[" * 16_000 + "]" * 16_000 + "\n"
    uri = client.open(project / "config" / "rules.yaml", text)
    assert [d["code"] for d in client.diagnostics(uri)] == ["yaml-too-deep"]
    for character in (0, 20, 8_000, 16_020):
        assert client.hover(uri, 0, character)["result"] is None


def test_a_5_mb_document_on_one_line_is_refused_and_the_server_answers(
    client: RawClient, project: Path
) -> None:
    text = "rating_rules: [" + "{id: a}, " * 600_000 + "]"
    uri = client.open(project / "config" / "rules.yaml", text)
    assert [d["code"] for d in client.diagnostics(uri)] == ["file-too-large"]
    assert client.hover(uri, 0, 2_000_000)["result"] is None
    assert_answers(client, uri)


def test_a_lone_surrogate_still_gets_the_diagnostics_of_the_file_as_saved(
    client: RawClient, project: Path
) -> None:
    rules = project / "config" / "rules.yaml"
    text = rules.read_text(encoding="utf-8").replace("id: very_short_answers", "id: very_\ud800short", 1)
    assert text != rules.read_text(encoding="utf-8")
    text += "\ud83d: 1\n"  # as a key, too
    uri = client.open(rules, text)
    saved = text.replace("\ud800", "\ufffd").replace("\ud83d", "\ufffd")
    expected = sorted(
        (d.span.line - 1, d.code) for d in analyze(rules.parent, {str(rules): saved}).diagnostics
    )
    assert expected  # the unknown key at least
    found = sorted((d["range"]["start"]["line"], d["code"]) for d in client.diagnostics(uri))
    assert found == expected
    assert "error" not in client.hover(uri, text.count("\n") - 1, 0)


def test_journals_set_to_the_whole_file_system_never_delays_a_hover(project: Path) -> None:
    client = RawClient()
    try:
        client.initialize(project, {"journals": "/**"})
        uri = client.open(project / "config" / "rules.yaml")
        client.diagnostics(uri)
        for _ in range(10):
            response = client.hover(uri, 14, 8)
            assert "error" not in response
    finally:
        assert client.close() == 0
