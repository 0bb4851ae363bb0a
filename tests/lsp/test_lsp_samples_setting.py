"""The `samples` setting through the real server when it names no folder: a file is refused as
`evalkit check --samples` refuses it, and a path that does not exist is not mistaken for "no samples/
folder"; either way the user is told once (window/showMessage and the log) naming the setting and the
path, and the lens and the dryRun command say the same."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

NO_FOLDER_SAMPLES = "no/such/samples"  # the `samples` setting of `no_folder_samples_client`


async def refused(client: LanguageClient, editor: Editor, chosen: Path, words: str) -> None:
    await editor.open("rules.yaml")
    problem = f"the `samples` setting names {words}: {chosen}"
    lenses = await editor.lenses_when(lambda found: bool(found))
    assert lenses == [(0, f"dry run: no samples: {problem}")]
    told = f"evalkit: {problem}; the dry run has no samples until it names a folder of submissions"
    shown = await editor.eventually(lambda: [m for m in client.messages if m.message == told], "the message")
    assert [m.type for m in shown] == [types.MessageType.Warning]
    assert [m.type for m in client.log_messages if m.message == told] == [types.MessageType.Warning]
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalkit.dryRun", [editor.uri("rules.yaml")])
    )
    assert result == {"config": str(editor.config), "error": f"dry run: no samples: {problem}"}
    await editor.open("dimensions.yaml")  # another file, and the same folder again: told only once
    await editor.lenses()
    assert len([m for m in client.messages if m.message == told]) == 1


async def test_a_samples_setting_naming_a_file_is_refused_and_said(
    no_folder_samples_client: LanguageClient, workspace_root: Path, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(no_folder_samples_client)
    chosen = workspace_root / NO_FOLDER_SAMPLES
    chosen.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(editor.root / "samples" / "b_short.json", chosen)
    words = "a file, not a folder of sample submissions"
    await refused(no_folder_samples_client, editor, chosen, words)


async def test_a_samples_setting_naming_nothing_is_said_and_not_taken_for_a_missing_samples_folder(
    no_folder_samples_client: LanguageClient, workspace_root: Path, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(no_folder_samples_client)  # its samples/ folder is not used: the setting wins
    chosen = workspace_root / NO_FOLDER_SAMPLES
    chosen.unlink(missing_ok=True)  # the other test's file, if it ran first
    await refused(no_folder_samples_client, editor, chosen, "a folder that does not exist")
