"""Hundreds of random edits (deletions, insertions, truncations, whole rewrites) with requests at random
positions in between: the server never dies, keeps answering, and ends with the engine's diagnostics
for the final text."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types

from evalkit.engine.config import analyze

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

EDITS = 300
PIECES = [
    "\n",
    "  ",
    "  - ",
    "- id: ",
    "when:",
    "actions:",
    "{",
    "}",
    "[",
    "]",
    ": ",
    ",",
    "#",
    "'",
    '"',
    "\t",
    "|",
    ">",
    "&a",
    "*a",
    "dimension_gt: { accuracy: ",
    "set_flag: x",
    "é",
    "😀",
    "\x00",
    "-" * 30,
    "  " * 40,
]


def utf16_position(text: str, offset: int) -> types.Position:
    before = text[:offset]
    line_start = before.rfind("\n") + 1
    return types.Position(before.count("\n"), len(before[line_start:].encode("utf-16-le")) // 2)


def random_change(rng: random.Random, text: str) -> tuple[str, types.TextDocumentContentChangeEvent]:
    """One edit of `text`: the new text and the change that describes it to the server."""
    kind = rng.choice(["insert", "insert", "delete", "delete", "truncate", "rewrite"])
    if kind == "rewrite" or not text:
        new = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        return new, types.TextDocumentContentChangeWholeDocument(text=new)
    start = rng.randint(0, len(text))
    end = {"insert": start, "delete": min(len(text), start + rng.randint(1, 40)), "truncate": len(text)}[kind]
    inserted = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3))) if kind == "insert" else ""
    where = types.Range(utf16_position(text, start), utf16_position(text, end))
    return text[:start] + inserted + text[end:], types.TextDocumentContentChangePartial(
        range=where, text=inserted
    )


async def random_request(editor: Editor, rng: random.Random, text: str) -> Any:
    lines = text.split("\n")
    line = rng.randint(0, len(lines))
    character = rng.randint(0, len(lines[line]) + 2 if line < len(lines) else 3)
    document = types.TextDocumentIdentifier(editor.uri("rules.yaml"))
    at = types.Position(line, character)
    client = editor.client
    requests = [
        lambda: client.text_document_completion_async(types.CompletionParams(document, at)),
        lambda: client.text_document_hover_async(types.HoverParams(document, at)),
        lambda: client.text_document_definition_async(types.DefinitionParams(document, at)),
        lambda: client.text_document_code_lens_async(types.CodeLensParams(document)),
        lambda: client.text_document_document_symbol_async(types.DocumentSymbolParams(document)),
        lambda: client.text_document_code_action_async(
            types.CodeActionParams(document, types.Range(at, at), types.CodeActionContext(diagnostics=[]))
        ),
    ]
    return await rng.choice(requests)()


async def test_random_edits_never_take_the_server_down(editor: Editor) -> None:
    rng = random.Random(
        f"evalkit-lsp-fuzz-{editor.client.capabilities.text_document.completion.completion_item.snippet_support}"
    )  # type: ignore[union-attr]
    text = editor.text("rules.yaml")
    await editor.open("rules.yaml")
    for version in range(2, EDITS + 2):
        text, change = random_change(rng, text)
        editor.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=editor.uri("rules.yaml")), [change]
            )
        )
        if version % 10 == 0:
            await random_request(editor, rng, text)
    assert editor.client.error is None
    path = editor.config / "rules.yaml"
    expected = [
        (d.span.line - 1, d.code, d.message)
        for d in analyze(editor.config, {str(path): text}).diagnostics
        if d.path == str(path)
    ]
    await editor.eventually(
        lambda: (
            [
                (d.range.start.line, d.code, d.message)
                for d in editor.client.diagnostics.get(editor.uri("rules.yaml"), ())
            ]
            == expected
        ),
        "the diagnostics of the final text",
    )
    assert (
        await editor.client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
        )
        is not None
    )  # still answering
    failures = [m.message for m in editor.client.log_messages if m.type == types.MessageType.Error]
    assert failures == []  # no handler had to fail soft: every input was understood
