"""Open documents, split into lines as the protocol counts them.

pygls splits a document with `str.splitlines`, which also ends a line at U+2028, U+2029, U+0085, form
feeds and other separators; the protocol ends lines only at "\\n", "\\r\\n" and "\\r". With such a
character in a file (pasted text often carries U+2028), pygls applied the editor's incremental edits a
line early, and its copy of the text drifted from the editor's until the file was reopened. The lines
are split by the engine's `lines_with_ends`, as every position evalkit reports is counted. Incremental
edits are applied as the protocol's reference model applies them (`edits.apply_change`).

Two pygls internals are used, for want of a public hook: `Workspace._create_text_document` (where the
workspace makes its documents) and `TextDocument._source` (the text `source` returns);
tests/lsp/test_pygls_hooks.py fails if a pygls release changes either, and a server run on a pygls without
the hook logs it. docs/upstream/pygls.md proposes the public change that would retire them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from evalkit.engine.positions import lines_with_ends
from evalkit.lsp.edits import apply_change

logger = logging.getLogger(__name__)


class ProtocolLinesDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return tuple(lines_with_ends(self.source))

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            encoding = self.position_codec.encoding
            self._source = apply_change(self.source, change.range, change.text, encoding)
        else:
            super().apply_change(change)


class ProtocolLinesWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return ProtocolLinesDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def count_lines_as_the_protocol(workspace: Workspace) -> None:
    """Make `workspace` (pygls creates it at `initialize`, before any document opens) create documents
    that split lines as the protocol does; logs an error where this pygls has no such hook."""
    if not callable(getattr(Workspace, "_create_text_document", None)):
        logger.error(
            "pygls's Workspace has no _create_text_document: documents count lines as str.splitlines does, "
            "and edits after a U+2028 land a line early (docs/upstream/pygls.md)"
        )
    workspace.__class__ = ProtocolLinesWorkspace
