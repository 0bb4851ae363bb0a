"""What the lenses and commands say when the project is not as it should be, through the real server:
unreadable samples are counted as `evalkit diff` counts them, a broken config marks the lenses' counts
stale, and a folder with no config is refused as the CLI refuses it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from evalkit.services.config.folders import no_config_files

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def command(editor: Editor, name: str, *arguments: Any) -> dict[str, Any]:
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(name, list(arguments))
    )


def cli_diff(editor: Editor) -> dict[str, Any]:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "evalkit", "diff", str(editor.root / "samples")),
            *("--base", str(editor.config), "--config-dir", str(editor.config), "--format", "json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stdout)


async def test_the_diff_command_counts_unreadable_samples_as_the_cli_does(editor: Editor) -> None:
    (editor.root / "samples" / "broken.json").write_text("{", encoding="utf-8")
    (editor.root / "samples" / "latin1.json").write_bytes(b'{"prompt": "caf\xe9"}')
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda lenses: (0, "vs saved: no change on 5 samples") in lenses)
    report = await command(editor, "evalkit.diff", editor.uri("rules.yaml"))
    cli = cli_diff(editor)
    assert (report["submissions"], report["base"]["errors"], report["head"]["errors"]) == (5, 2, 2)
    assert (cli["submissions"], cli["base"]["errors"], cli["head"]["errors"]) == (5, 2, 2)


async def test_a_broken_config_marks_the_last_counts_stale(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda lenses: (39, "fires on 1/3 samples") in lenses)
    await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: [")
    lenses = await editor.lenses_when(lambda lenses: (39, "fires on 1/3 samples (stale)") in lenses)
    summary = next(title for line, title in lenses if line == 0)
    assert summary.endswith(" (stale: the config has errors)")
    assert all(title.endswith("(stale)") for line, title in lenses if "fires on" in title)
    await editor.replace("rules.yaml", "max_total_length: [", "max_total_length: 80")
    await editor.lenses_when(lambda lenses: (39, "fires on 1/3 samples") in lenses)


@pytest.mark.parametrize("name", ["evalkit.dryRun", "evalkit.diff"])
async def test_a_folder_without_config_files_is_refused_as_the_cli_refuses_it(
    editor: Editor, tmp_path: Path, name: str
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    answer = await command(editor, name, from_fs_path(str(empty / "rules.yaml")))
    assert answer == {"config": str(empty), "error": no_config_files(empty)}
