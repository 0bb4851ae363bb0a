"""The outline of a config file (sections, their entries, and rules by id) and go to definition from a
dimension name to its entry in dimensions.yaml. Both read the parsed document's spans, so every range
is exact."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from evalkit.engine.diagnostics import Span
from evalkit.engine.yamlsource import JsonPath, YamlDocument
from evalkit.lsp.convert import to_range, with_bom


def document_symbols(document: YamlDocument, codec: PositionCodec, bom: bool) -> list[types.DocumentSymbol]:
    """The outline; `bom`: the client's text starts with a byte order mark (the parse dropped it)."""
    data = document.data if isinstance(document.data, dict) else {}
    outline = _Outline(document, with_bom(document.lines(), bom), codec)
    return [outline.section(key, value) for key, value in data.items()]


class _Outline:
    def __init__(self, document: YamlDocument, lines: Sequence[str], codec: PositionCodec) -> None:
        self.document, self.lines, self.codec = document, lines, codec

    def section(self, key: str, value: Any) -> types.DocumentSymbol:
        if isinstance(value, dict):
            children = [self.entry((key, name), name, sub) for name, sub in value.items()]
        elif isinstance(value, list):
            children = [self.item((key, i), item) for i, item in enumerate(value) if isinstance(item, dict)]
        else:
            children = []
        return self.symbol((key,), key, _kind(value, top=True), children=children)

    def entry(self, path: JsonPath, name: str, value: Any) -> types.DocumentSymbol:
        return self.symbol(path, str(name), _kind(value, top=False))

    def item(self, path: JsonPath, item: dict[str, Any]) -> types.DocumentSymbol:
        """A list entry: a rule by its id (with its description), another mapping by its `type` or index."""
        rule_id = item.get("id")
        if isinstance(rule_id, str) and rule_id:
            description = item.get("description")
            return self.symbol(
                path,
                rule_id,
                types.SymbolKind.Function,
                (*path, "id"),
                description if isinstance(description, str) else None,
            )
        name = item.get("type")
        return self.symbol(path, str(name) if name is not None else f"[{path[-1]}]", types.SymbolKind.Object)

    def symbol(
        self,
        path: JsonPath,
        name: str,
        kind: types.SymbolKind,
        selection: JsonPath | None = None,
        detail: str | None = None,
        children: list[types.DocumentSymbol] | None = None,
    ) -> types.DocumentSymbol:
        whole = self.range(_whole_span(self.document, path))
        chosen = self.range(
            self.document.value_span(selection) if selection else self.document.key_span(path)
        )
        return types.DocumentSymbol(name, kind, whole, chosen, detail=detail, children=children or None)

    def range(self, span: Span) -> types.Range:
        return to_range(span, self.lines, self.codec)


def _whole_span(document: YamlDocument, path: JsonPath) -> Span:
    """From the key (or the item's first token) to the end of the value."""
    value = document.value_span(path)
    start = document.key_span(path)
    return Span(start.line, start.column, value.end_line, value.end_column)


def _kind(value: Any, top: bool) -> types.SymbolKind:
    if isinstance(value, dict):
        return types.SymbolKind.Namespace if top else types.SymbolKind.Object
    if isinstance(value, list):
        return types.SymbolKind.Array
    return types.SymbolKind.Property


def dimension_location(
    document: YamlDocument | None, name: str, uri: str, lines: Sequence[str], codec: PositionCodec
) -> types.Location | None:
    """Where dimensions.yaml defines `name` (its key under `dimensions`), or None when it does not;
    `lines`: dimensions.yaml's as the client has them."""
    spans = document.spans.get(("dimensions", name)) if document is not None else None
    if spans is None or spans.key is None or document is None:
        return None
    return types.Location(uri, to_range(spans.key, lines, codec))
