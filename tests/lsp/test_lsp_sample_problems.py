"""Samples without a result, through the real server: one that cannot be read, one that is read but is no
valid submission, and one whose evaluation raised are counted apart in the summary lens, and the hover
on it (and the `evalkit.dryRun` command) say why for each, at the line and column of the problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")


def ran(lenses: list[tuple[int, str]]) -> bool:
    return any("fires on" in title for _, title in lenses)


def add_problem_samples(samples: Path) -> None:
    (samples / "d_broken.json").write_text('{\n  "prompt": ,\n}\n', encoding="utf-8")
    short = json.loads((samples / "b_short.json").read_text(encoding="utf-8"))
    invalid = {**short, "ratings": {**short["ratings"], "accuracy": "high"}}
    (samples / "e_invalid.json").write_text(json.dumps(invalid, indent=2), encoding="utf-8")
    (samples / "f_raises.json").write_text(json.dumps({**short, "prompt": "RAISE"}), encoding="utf-8")


async def test_unreadable_invalid_and_failed_samples_are_counted_apart_and_explained(
    failing_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(failing_client)
    add_problem_samples(editor.root / "samples")
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(ran)
    summary = "dry run: 3 samples · needs_review 1 · weak 2 · 1 unreadable · 1 invalid · 1 failed to evaluate"
    assert lenses[0] == (0, summary)
    hover = await editor.hover("rules.yaml", 0, 0)
    assert hover is not None
    markdown = hover.contents.value  # type: ignore[union-attr]
    assert markdown.startswith(f"**{summary}**\n\nNo result for:\n")
    assert "- `d_broken.json:2:13`: unreadable: invalid JSON at line 2:13: Expecting value\n" in markdown
    assert (
        "- `e_invalid.json:22:17`: invalid: invalid submission: ratings.accuracy: expected a number, "
        "found a string\n" in markdown
    )
    assert "- `f_raises.json`: failed to evaluate: ZeroDivisionError: division by zero" in markdown


async def test_the_dry_run_command_says_why_a_sample_has_no_result_and_where(
    failing_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(failing_client)
    add_problem_samples(editor.root / "samples")
    await editor.open("rules.yaml")
    result: dict[str, Any] = await failing_client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalkit.dryRun", [editor.uri("rules.yaml")])
    )
    problems = {r["source"]: r for r in result["results"] if "error" in r}
    assert problems["d_broken.json"] == {
        "source": "d_broken.json",
        "error": "invalid JSON at line 2:13: Expecting value",
        "problem": "unreadable",
        "line": 2,
        "column": 13,
    }
    assert (problems["e_invalid.json"]["problem"], problems["e_invalid.json"]["line"]) == ("invalid", 22)
    assert problems["f_raises.json"] == {
        "source": "f_raises.json",
        "error": "ZeroDivisionError: division by zero",
        "problem": "failed",
    }


async def test_the_impact_counts_every_sample_as_evalkit_diff_does(editor: Editor) -> None:
    (editor.root / "samples" / "d_broken.json").write_text("{", encoding="utf-8")
    await editor.open("rules.yaml")
    lenses = await editor.lenses_when(lambda found: any(t.startswith("vs saved") for _, t in found))
    assert [title for line, title in lenses if line == 0] == [
        "dry run: 3 samples · needs_review 1 · weak 2 · 1 unreadable",
        "vs saved: no change on 4 samples",  # the unreadable one too (`evalkit diff`: 4, errors 1/1)
    ]
