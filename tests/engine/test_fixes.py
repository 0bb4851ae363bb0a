"""A diagnostic's fix, applied to the text, gives a file without that problem and without a new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.engine import analyze
from evalkit.engine.diagnostics import Diagnostic, Fix


def apply(text: str, fix: Fix) -> str:
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: fix.span.line - 1]) + fix.span.column - 1
    end = sum(len(line) + 1 for line in lines[: fix.span.end_line - 1]) + fix.span.end_column - 1
    return text[:start] + fix.text + text[end:]


def problems(folder: Path, name: str, text: str) -> list[Diagnostic]:
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return [d for d in analyze(folder).diagnostics if d.severity == 1]


@pytest.mark.parametrize(
    ("name", "text", "fixed"),
    [
        ("rewrite", "postprocessors:\n  - {}\n", 'postprocessors:\n  - {type: "ensure_period"}\n'),
        (
            "rewrite",
            "postprocessors: [{}, {type: trim_spaces}]\n",
            'postprocessors: [{type: "ensure_period"}, {type: trim_spaces}]\n',
        ),
        (
            "rules",
            "rating_rules:\n  - id: a\n    actions:\n      adjust_dimension: {dimension: accuracy}\n",
            "rating_rules:\n  - id: a\n    actions:\n"
            "      adjust_dimension: {delta: -0.5, dimension: accuracy}\n",
        ),
        (
            "rules",
            "rating_rules:\n  - actions: {set_flag: x}\n",
            "rating_rules:\n  - id: new_rule\n    actions: {set_flag: x}\n",
        ),
        ("rules", "rating_rules:\n  - id: a\n    when: {max_total_length: 9}\n", None),
    ],
)
def test_inserting_a_missing_key_gives_a_valid_file(
    tmp_path: Path, name: str, text: str, fixed: str | None
) -> None:
    (missing,) = problems(tmp_path, name, text)
    assert missing.code == "missing-key" and missing.fix is not None
    repaired = apply(text, missing.fix)
    if fixed is not None:
        assert repaired == fixed
    assert problems(tmp_path, name, repaired) == []
