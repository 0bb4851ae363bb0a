"""What `evalkit stats` says: a --config-dir without config files is refused as `check`, `eval` and
`review` refuse it (an empty config makes no proposal, so every decision would be left out as one this
config does not make); its heading counts one of a thing in the singular."""

from __future__ import annotations

from pathlib import Path
from typing import Any

LOOKED_FOR = "(looked for dimensions.yaml, ranking.yaml, prompt.yaml, rewrite.yaml, rules.yaml)"


def test_a_config_folder_without_config_files_exits_2_naming_it(
    reviewer: Any, evalkit: Any, tmp_path: Path
) -> None:
    journal = reviewer("ana", lambda p: ("accept", None))
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.yaml").write_text("not: a config\n", encoding="utf-8")
    done = evalkit("stats", str(journal), "--config-dir", str(notes))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"evalkit stats: {notes}: no config files found here {LOOKED_FOR}\n"


def test_one_submission_and_one_decision_are_counted_in_the_singular(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", lambda p: ("accept", None) if p.kind == "label" else None, only=1)
    text = evalkit("stats", str(journal))
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("1 journal, 1 submission reviewed, 1 decision on proposals (config ")
    html = evalkit("stats", str(journal), "--format", "html")
    assert "1 journal, 1 submission reviewed, 1 decision; config " in html.stdout
