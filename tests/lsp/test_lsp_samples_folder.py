"""The dry run follows the samples folder on disk through the real server: a folder that appears after
the config was opened is run, one that goes is no longer counted, and the hover on a rule id lists the
samples it fired on."""

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

NO_SAMPLES = [(0, "dry run: no sample submissions (add samples/ beside the config folder)")]


def ran(lenses: list[tuple[int, str]]) -> bool:
    return any("fires on" in title for _, title in lenses)


def told(editor: Editor, kind: types.FileChangeType, *paths: Path) -> None:
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(path.as_uri(), kind) for path in paths])
    )


async def test_a_samples_folder_made_after_opening_is_run(
    client: LanguageClient, make_editor: Callable[..., Editor], tmp_path: Path
) -> None:
    editor = make_editor(client)
    samples = editor.root / "samples"
    shutil.move(samples, tmp_path / "kept")
    await editor.open("rules.yaml")
    assert await editor.lenses() == NO_SAMPLES
    shutil.move(tmp_path / "kept", samples)
    told(editor, types.FileChangeType.Created, *sorted(samples.iterdir()))
    lenses = await editor.lenses_when(ran)
    assert lenses[0] == (0, "dry run: 3 samples · needs_review 1 · weak 2")


async def test_a_samples_folder_removed_is_no_longer_counted(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(ran)
    samples = editor.root / "samples"
    gone = sorted(samples.iterdir())
    shutil.rmtree(samples)
    told(editor, types.FileChangeType.Deleted, *gone)
    assert await editor.lenses_when(lambda lenses: not ran(lenses)) == NO_SAMPLES


async def test_the_hover_on_a_rule_id_lists_the_samples_it_fired_on(editor: Editor) -> None:
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(ran)
    line = next(number for number, title in lenses if title == "fires on 1/3 samples")
    text = editor.texts["rules.yaml"].splitlines()[line]
    hover = await editor.hover("rules.yaml", line, text.index("id:") + 5)
    assert hover is not None
    markdown = hover.contents.value  # type: ignore[union-attr]
    assert "Dry run: **fires on 1/3 samples**" in markdown
    assert "Did not fire on:" in markdown
    assert markdown.count("\n- `") == 3  # each sample, once: where it fired or why it did not
