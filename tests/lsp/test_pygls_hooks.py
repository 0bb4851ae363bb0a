"""The pygls internals evalkit relies on (`lsp/documents.py`, `lsp/stdio.py`): if a pygls release
renames or changes one, these fail by name instead of the server drifting silently."""

from __future__ import annotations

import inspect
import logging

import pytest
from lsprotocol import types
from pygls.protocol import JsonRPCProtocol
from pygls.workspace import TextDocument, Workspace

from evalkit.lsp.documents import ProtocolLinesDocument, count_lines_as_the_protocol
from evalkit.lsp.stdio import _without_pygls_tracebacks

URI = "file:///tmp/config/rules.yaml"


HOOK = "pygls's Workspace._create_text_document"
BROKEN = (
    "lsp/documents.py no longer makes the workspace's documents count lines as the protocol does: "
    "edits after a U+2028 would be applied a line early (docs/upstream/pygls.md)"
)


def test_the_workspace_still_makes_its_documents_in_create_text_document() -> None:
    assert hasattr(Workspace, "_create_text_document"), f"{HOOK} is gone. {BROKEN}"
    parameters = list(inspect.signature(Workspace._create_text_document).parameters)
    expected = ["self", "doc_uri", "source", "version", "language_id"]
    assert parameters == expected, f"{HOOK} now takes {parameters}, not {expected}. {BROKEN}"
    workspace = Workspace(None, types.TextDocumentSyncKind.Incremental)
    count_lines_as_the_protocol(workspace)
    workspace.put_text_document(types.TextDocumentItem(URI, "yaml", 1, "a\u2028b\r\n"))
    document = workspace.get_text_document(URI)
    assert isinstance(document, ProtocolLinesDocument), (
        f"put_text_document made a {type(document).__name__} without calling {HOOK}. {BROKEN}"
    )
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 9), types.Position(0, 4)), text="!"
    )  # reversed and past the line's end: the reference model's text, not pygls's
    workspace.update_text_document(types.VersionedTextDocumentIdentifier(version=2, uri=URI), change)
    assert workspace.get_text_document(URI).source == "a\u2028b!\r\n", BROKEN


def test_a_server_on_a_pygls_without_the_hook_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delattr(Workspace, "_create_text_document")
    workspace = Workspace(None, types.TextDocumentSyncKind.Incremental)
    with caplog.at_level(logging.ERROR, logger="evalkit.lsp.documents"):
        count_lines_as_the_protocol(workspace)
    assert "no _create_text_document" in caplog.text


def test_a_documents_text_is_still_its_source_attribute() -> None:
    document = TextDocument(URI, source="old")
    document._source = "new"
    assert document.source == "new", f"pygls's TextDocument.source is no longer its _source. {BROKEN}"


def test_pygls_still_logs_unreadable_params_with_the_message_the_filter_drops() -> None:
    source = inspect.getsource(JsonRPCProtocol.structure_message)
    assert '"Unable to deserialize message' in source
    record = logging.LogRecord(
        "pygls", logging.ERROR, __file__, 1, "Unable to deserialize message\n%s", ("x",), None
    )
    assert not _without_pygls_tracebacks(record)
