"""pygls 2's workspace applies an incremental edit a line early after a U+2028 (or U+2029, U+0085, a form
feed: whatever `str.splitlines` ends a line at), where the Language Server Protocol ends lines only at
"\\n", "\\r\\n" and "\\r". The reproduction for the upstream note (docs/upstream/pygls.md), and what
evalkit's hook (lsp/documents.py) gives instead.

    .venv/bin/python benchmarks/repro_pygls_lines.py
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import Workspace

from evalkit.lsp.documents import count_lines_as_the_protocol

URI = "file:///tmp/notes.yaml"
TEXT = "a: pasted\u2028text\nb: 1\n"
# The editor inserts "X" at the start of line 1 ("b: 1"), as the protocol counts lines.
EDIT = types.TextDocumentContentChangePartial(
    range=types.Range(types.Position(1, 0), types.Position(1, 0)), text="X"
)
EXPECTED = "a: pasted\u2028text\nXb: 1\n"


def edited(workspace: Workspace) -> str:
    workspace.put_text_document(types.TextDocumentItem(URI, "yaml", 1, TEXT))
    workspace.update_text_document(types.VersionedTextDocumentIdentifier(version=2, uri=URI), EDIT)
    return workspace.get_text_document(URI).source


def main() -> None:
    plain = Workspace(None, types.TextDocumentSyncKind.Incremental)
    hooked = Workspace(None, types.TextDocumentSyncKind.Incremental)
    count_lines_as_the_protocol(hooked)
    print(f"the editor's text:      {EXPECTED!r}")
    print(f"pygls's workspace:      {edited(plain)!r}")
    print(f"with evalkit's hook:    {edited(hooked)!r}")


if __name__ == "__main__":
    main()
