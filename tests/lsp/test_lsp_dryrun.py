"""The live dry run through the real server: code lenses before and after an edit, while the document
is half-typed, without samples, from the `samples` option, and the `evalkit.dryRun` command."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from evalkit.engine import Evaluator, analyze
from evalkit.services.inputs.read import read_inputs

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

BEFORE = [
    (0, "dry run: 3 samples · needs_review 1 · weak 2"),
    (0, "vs saved: no change on 3 samples"),
    (14, "fires on 2/3 samples"),
    (23, "fires on 2/3 samples"),
    (31, "fires on 1/3 samples"),
    (39, "fires on 1/3 samples"),
    (48, "fires on 1/3 samples"),
]


def ran(lenses: list[tuple[int, str]]) -> bool:
    return any("fires on" in title for _, title in lenses)


async def test_lenses_show_how_often_each_rule_fires_and_follow_edits(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert await editor.lenses_when(ran) == BEFORE
    refreshes = editor.client.lens_refreshes  # type: ignore[attr-defined]
    await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: 100000")
    after = await editor.lenses_when(lambda lenses: (39, "fires on 3/3 samples (+2)") in lenses)
    assert after[2:] == [*BEFORE[2:5], (39, "fires on 3/3 samples (+2)"), BEFORE[6]]
    if editor.capabilities.workspace.code_lens:  # type: ignore[union-attr]  # VS Code: told to refresh
        assert editor.client.lens_refreshes > refreshes  # type: ignore[attr-defined]


async def test_lenses_stay_in_place_while_the_document_is_half_typed(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(ran)
    broken = await editor.replace(
        "rules.yaml", "\nrewrite_rules:", "\n  - id: brand_new\n    when: [\nrewrite_rules:"
    )
    assert [d.code for d in broken] == ["yaml-syntax"]
    # no impact lens: the half-typed config has no outcome to compare; the last counts are marked stale
    assert await editor.lenses() == [
        (0, BEFORE[0][1] + " (stale: the config has errors)"),
        *[(line, title + " (stale)") for line, title in BEFORE[2:6]],
        (47, "dry run waits for a valid config"),
        (50, "fires on 1/3 samples (stale)"),
    ]


async def test_without_samples_the_lens_says_where_to_put_them(
    client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(client)
    shutil.rmtree(editor.root / "samples")
    await editor.open("rules.yaml")
    assert await editor.lenses() == [
        (0, "dry run: no sample submissions (add samples/ beside the config folder)")
    ]


async def test_an_unreadable_sample_is_counted_and_reported(editor: Editor) -> None:
    (editor.root / "samples" / "d_broken.json").write_text("{", encoding="utf-8")
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(ran)
    assert lenses[0] == (0, "dry run: 3 samples · needs_review 1 · weak 2 · 1 unreadable")
    result = await run_command(editor.client, editor.uri("rules.yaml"))
    assert result["results"][-1]["source"] == "d_broken.json"
    assert result["results"][-1]["error"].startswith("invalid JSON")


async def run_command(client: LanguageClient, *arguments: Any) -> dict[str, Any]:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalkit.dryRun", list(arguments))
    )


def engine_results(config: Path, samples: Path, overrides: dict[str, str]) -> list[dict[str, Any]]:
    """What the engine itself says about each sample: the command must say the same."""
    evaluator = Evaluator(analyze(config, overrides))
    out = []
    for sample in read_inputs([samples]):
        result = evaluator.evaluate(sample.submission)  # type: ignore[arg-type]
        out.append(
            {
                "source": Path(sample.source).name,
                "label": result.label,
                "score": result.score,
                "flags": result.flags,
                "fired_rules": [
                    {"id": f.id, "type": f.type, "actions": f.actions} for f in result.fired_rules
                ],
            }
        )
    return out


async def test_the_dry_run_command_returns_the_engines_results_for_the_open_buffers(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "increment_score: 2", "increment_score: 7")
    result = await run_command(editor.client, editor.uri("rules.yaml"))
    overrides = {str(editor.config / "rules.yaml"): editor.texts["rules.yaml"]}
    assert result["config"] == str(editor.config)
    assert result["evaluated"] == 3
    assert result["results"] == json.loads(
        json.dumps(engine_results(editor.config, editor.root / "samples", overrides))
    )
    assert [r["label"] for r in result["results"]] == ["excellent", "needs_review", "excellent"]


async def test_the_dry_run_command_refuses_a_config_with_errors(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "version: 2", "version: [2")
    result = await run_command(editor.client, {"uri": editor.uri("rules.yaml")})
    rules = editor.config / "rules.yaml"
    line = editor.texts["rules.yaml"].splitlines().index("version: [2") + 1
    assert result == {
        "config": str(editor.config),
        "error": f"the config has errors; fix them to run the rules: {rules}:{line}:10: error[yaml-syntax] "
        "the flow sequence '[' is not closed (did not find expected ',' or ']' at line 4:8)",
    }


async def test_the_dry_run_command_on_a_folder_that_does_not_exist_says_so(editor: Editor) -> None:
    await editor.open("rules.yaml")
    result = await run_command(editor.client, "file:///nowhere/rules.yaml")
    assert result == {
        "config": "/nowhere",
        "error": "the config has errors; fix them to run the rules: "
        "/nowhere:1:1: error[no-config-dir] the config folder does not exist",
    }


async def test_the_samples_option_chooses_the_folder(
    options_client: LanguageClient, workspace_root: Path, make_editor: Callable[..., Editor]
) -> None:
    shared = workspace_root / "shared_samples"
    shared.mkdir(exist_ok=True)
    shutil.copy(Path(__file__).parent / "fixtures" / "project" / "samples" / "b_short.json", shared)
    editor = make_editor(options_client)
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(ran)
    assert lenses[0] == (0, "dry run: 1 sample · needs_review 1")
    assert (39, "fires on 1/1 samples") in lenses
    result = await run_command(options_client)  # no argument: the folder of the open config file
    assert result["samples"] == str(shared)


async def test_the_client_is_asked_to_report_config_and_sample_files_changed_on_disk(editor: Editor) -> None:
    await editor.open("rules.yaml")
    registrations = editor.client.registrations  # type: ignore[attr-defined]
    if editor.capabilities.workspace.did_change_watched_files is None:  # type: ignore[union-attr]
        assert registrations == []  # Neovim 0.7 cannot watch files
        return
    (registration,) = registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert registration.register_options == {
        "watchers": [{"globPattern": "**/*.{yaml,yml}"}, {"globPattern": "**/*.{json,jsonl}"}]
    }


async def test_a_new_sample_on_disk_is_counted(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(ran)
    added = editor.root / "samples" / "e_copy.json"
    shutil.copy(editor.root / "samples" / "b_short.json", added)
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(added.as_uri(), types.FileChangeType.Created)])
    )
    lenses = await editor.lenses_when(lambda found: (39, "fires on 2/4 samples") in found)
    assert lenses[0] == (0, "dry run: 4 samples · needs_review 2 · weak 2")
