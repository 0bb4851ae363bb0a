"""The language server's hover on a rule id, with the `journals` option: what reviewers decided on the
rule's proposals, driven over stdio by pytest-lsp; a new journal changes the answer."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalkit.lsp.reviewers import COUNTING
from evalkit.services.review.proposals import Proposal

REPO = Path(__file__).parents[2]
PENALTY = "low_optimality_penalty"


def discard_penalty(proposal: Proposal) -> tuple[str, Any]:
    return ("discard", None) if PENALTY in proposal.rules else ("accept", None)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "evalkit", "lsp"]))
async def client(lsp_client: LanguageClient, workspace: Path, reviewer: Any):
    shutil.copytree(
        REPO / "config_samples",
        workspace / "config",
        ignore=shutil.ignore_patterns("__init__.py", "__pycache__", "tests"),
    )
    reviewer("ana", lambda p: ("accept", None))
    reviewer("ben", discard_penalty)

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh(params: None) -> None:
        """VS Code refreshes its lenses when asked."""

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """VS Code accepts the server's file watchers."""

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=from_fs_path(str(workspace)),
            initialization_options={
                "journals": "*.decisions.jsonl",
                "diagnosticsDelayMs": 0,
                "dryRunDelayMs": 0,
            },
        )
    )
    yield
    await lsp_client.shutdown_session()


async def hover_on_rule(client: LanguageClient, rules: Path, rule_id: str, until: str = "") -> str:
    """The hover's text once its last line starts with `until` (the journals are counted off the loop)."""
    deadline = time.monotonic() + 30
    while True:
        text = await hover_once(client, rules, rule_id)
        if text.splitlines()[-1].startswith(until):
            return text
        assert time.monotonic() < deadline, f"the hover never became right; last: {text!r}"
        await asyncio.sleep(0.05)


async def hover_once(client: LanguageClient, rules: Path, rule_id: str) -> str:
    lines = rules.read_text().splitlines()
    line = next(number for number, text in enumerate(lines) if text.strip() == f"- id: {rule_id}")
    found = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(from_fs_path(str(rules)) or ""),
            types.Position(line, lines[line].index(rule_id) + 2),
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def open_and_wait(client: LanguageClient, rules: Path) -> None:
    uri = from_fs_path(str(rules)) or ""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, rules.read_text()))
    )
    deadline = time.monotonic() + 30
    while uri not in client.diagnostics:  # the folder was checked: its config is known
        assert time.monotonic() < deadline, "no diagnostics for rules.yaml"
        await asyncio.sleep(0.02)


async def test_the_hover_on_a_rule_id_adds_the_reviewers_verdict(
    client: LanguageClient, workspace: Path, reviewer: Any
) -> None:
    rules = workspace / "config" / "rules.yaml"
    await open_and_wait(client, rules)
    first = await hover_once(client, rules, PENALTY)
    assert first.splitlines()[-1] in (COUNTING, "reviewers accepted 8/16, discarded 8, edited 0")
    hovered = await hover_on_rule(client, rules, PENALTY, until="reviewers accepted")
    assert hovered.startswith(f"**rule `{PENALTY}`**")
    assert hovered.splitlines()[-1] == "reviewers accepted 8/16, discarded 8, edited 0"
    quiet = await hover_on_rule(client, rules, "complexity_in_rewrite")
    assert quiet.splitlines()[-1] == "Reviewers: no decisions on this rule's proposals in the journals."

    reviewer("cy", lambda p: ("edit", "poor") if p.kind == "label" else ("accept", None))
    again = await hover_on_rule(client, rules, PENALTY, until="reviewers accepted 12/24")
    assert again.splitlines()[-1] == "reviewers accepted 12/24, discarded 8, edited 4"
