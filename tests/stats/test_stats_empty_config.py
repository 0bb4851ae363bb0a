"""`evalkit stats --config-dir` refuses a folder without config files, as `check`, `eval` and `review` do:
an empty config makes no proposal, so every decision would be left out as 'not made by this config'."""

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
