"""The live impact through the real server: an edit's change from the saved config (or git HEAD) on the
samples, as lenses, as hover on the first line, and as the `evalkit.diff` command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

LONGER = ("max_total_length: 80", "max_total_length: 100000")  # very_short_answers fires on every sample
LOWER_GOOD = ("good: 3", "good: 2")  # a_dijkstra and c_negative (score 2) become good
CHANGED = "vs saved: 2/3 labels change (weak→good 2)"


async def make_changes(editor: Editor) -> None:
    await editor.replace("rules.yaml", *LOWER_GOOD)
    await editor.replace("rules.yaml", *LONGER)
    await editor.lenses_when(has((39, "fires on 3/3 samples (+2)")))


def has(expected: tuple[int, str]) -> Callable[[list[tuple[int, str]]], bool]:
    return lambda lenses: expected in lenses


async def run_diff(client: LanguageClient, *arguments: Any) -> dict[str, Any]:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalkit.diff", list(arguments))
    )


async def test_an_edit_shows_its_impact_on_the_first_line_and_on_each_rule(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(has((0, "vs saved: no change on 3 samples")))
    await editor.replace("rules.yaml", *LONGER)
    lenses = await editor.lenses_when(has((39, "fires on 3/3 samples (+2)")))
    assert (0, "vs saved: no label changes; 2/3 samples change") in lenses
    assert (14, "fires on 2/3 samples") in lenses  # unchanged: no suffix
    await editor.replace("rules.yaml", *LOWER_GOOD)
    await editor.lenses_when(has((0, CHANGED)))


async def test_a_new_rule_is_marked_new(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(has((0, "vs saved: no change on 3 samples")))
    await editor.replace(
        "rules.yaml",
        "\nrewrite_rules:",
        (
            '\n  - id: mentions_dijkstra\n    when: {response_contains_any: ["Dijkstra"]}\n'
            "    actions: {set_flag: dijkstra}\n\nrewrite_rules:"
        ),
    )
    lenses = await editor.lenses_when(has((47, "fires on 2/3 samples (new)")))
    assert (0, "vs saved: no label changes; 2/3 samples change") in lenses


async def test_hover_on_the_first_line_lists_the_changed_samples(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await make_changes(editor)
    hovered = await editor.hover("rules.yaml", 0, 3)
    assert hovered is not None and isinstance(hovered.contents, types.MarkupContent)
    lines = hovered.contents.value.splitlines()
    assert lines[0] == f"**{CHANGED}**"
    assert lines[1].startswith("- `a_dijkstra.json`: label weak → good; flags +too_short; ")
    assert "fired_rules +very_short_answers" in lines[1]
    assert [line.split("`")[1] for line in lines[1:]] == ["a_dijkstra.json", "c_negative.json"]


async def test_the_diff_command_gives_evalkit_diffs_json(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await make_changes(editor)
    report = await run_diff(editor.client, editor.uri("rules.yaml"))
    assert report["base"]["ref"] == "saved" and report["head"]["ref"] == str(editor.config)
    assert report["submissions"] == 3 and report["changed"] == 2
    assert report["labels"] == {"weak -> good": 2}
    assert report["rules"]["very_short_answers"] == {"base": 1, "head": 3}
    assert [change["source"] for change in report["changes"]] == ["a_dijkstra.json", "c_negative.json"]
    assert report["changes"][0]["label"] == ["weak", "good"]
    edited = editor.root / "edited"  # the same comparison from the command line, the edit saved elsewhere
    shutil.copytree(editor.config, edited)
    (edited / "rules.yaml").write_text(editor.texts["rules.yaml"], encoding="utf-8")
    cli = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "evalkit",
                "diff",
                "--base",
                str(editor.config),
                "--config-dir",
                str(edited),
                str(editor.root / "samples"),
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    same = ("submissions", "changed", "labels", "scores", "flags", "rules", "dimensions")
    assert {key: cli[key] for key in same} == {key: report[key] for key in same}
    assert cli["head"]["config_hash"] == report["head"]["config_hash"]
    assert [c["fired_rules"] for c in cli["changes"]] == [c["fired_rules"] for c in report["changes"]]


async def test_saving_moves_the_base(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await make_changes(editor)
    (editor.config / "rules.yaml").write_text(editor.texts["rules.yaml"], encoding="utf-8")
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    lenses = await editor.lenses_when(has((0, "vs saved: no change on 3 samples")))
    assert (39, "fires on 3/3 samples") in lenses


async def test_a_broken_edit_hides_the_impact_until_the_config_is_valid(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await make_changes(editor)
    await editor.replace("rules.yaml", "max_total_length: 100000", "max_total_length: [")
    lenses = await editor.lenses()
    assert not any(title.startswith("vs saved") for _, title in lenses)
    report = await run_diff(editor.client, editor.uri("rules.yaml"))
    assert report["config"] == str(editor.config)
    line = editor.texts["rules.yaml"].splitlines().index("      max_total_length: [") + 1
    assert report["error"].startswith(
        f"the config has errors; fix them to compare it: {editor.config / 'rules.yaml'}:{line}:25: "
        "error[yaml-syntax] the flow sequence '[' is not closed"
    )


def commit_project(root: Path) -> None:
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.email=t@e.st", "-c", "user.name=t", "commit", "-qm", "c"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


async def test_impact_base_head_compares_with_the_last_commit(
    head_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(head_client)
    commit_project(editor.root)
    rules = editor.config / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace(*LOWER_GOOD), encoding="utf-8"
    )  # not committed
    await editor.open("rules.yaml")
    await editor.lenses_when(has((0, "vs HEAD: 2/3 labels change (weak→good 2)")))
    await editor.replace("rules.yaml", "good: 2", "good: 3")
    await editor.lenses_when(has((0, "vs HEAD: no change on 3 samples")))
    report = await run_diff(head_client, editor.uri("rules.yaml"))
    assert report["base"]["ref"] == "HEAD" and report["changed"] == 0
    assert json.dumps(report)  # plain JSON all through


async def test_impact_base_head_outside_a_repository_says_so(
    head_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(head_client)
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(has((0, "vs HEAD: not in a git repository")))
    assert (39, "fires on 1/3 samples") in lenses
