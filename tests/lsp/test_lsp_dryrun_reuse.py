"""The live dry run through the real server, after an edit that changes nothing the rules do (a comment,
the spacing, the quoting): the samples are not run again, so the lenses are not refreshed either; an edit
to what a rule does is run as ever."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")


def ran(lenses: list[tuple[int, str]]) -> bool:
    return any("fires on" in title for _, title in lenses)


async def dry_run(client: LanguageClient, editor: Editor) -> dict[str, Any]:
    """The dry run of the buffers as they are now, done before the answer (and any lens refresh it asks for
    sent before it)."""
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalkit.dryRun", [editor.uri("rules.yaml")])
    )


async def test_an_edit_to_a_comment_or_spacing_runs_nothing_again(
    client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(client)
    await editor.open("rules.yaml")
    await editor.lenses_when(ran)
    before = await dry_run(client, editor)
    refreshes = client.lens_refreshes  # type: ignore[attr-defined]
    await editor.replace("rules.yaml", "version: 2", "version: 2   # edited: a comment")
    await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length:    80")
    assert await dry_run(client, editor) == before
    assert client.lens_refreshes == refreshes  # type: ignore[attr-defined]
    await editor.replace("rules.yaml", "max_total_length:    80", "max_total_length: 100000")
    assert await dry_run(client, editor) != before
    if editor.capabilities.workspace.code_lens:  # type: ignore[union-attr]  # VS Code: told to refresh
        assert client.lens_refreshes > refreshes  # type: ignore[attr-defined]
