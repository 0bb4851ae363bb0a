"""`evalkit diff` refuses a config folder without config files, as `check`, `eval` and `review` do: an empty
config fires no rule, so every submission would 'change' and the report would look like a finding."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
LOOKED_FOR = "(looked for dimensions.yaml, ranking.yaml, prompt.yaml, rewrite.yaml, rules.yaml)"


def evalkit_diff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "diff", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "config_samples", tmp_path / "config", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.yaml").write_text("not: a config\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("base", "head", "empty"),
    [("config", "notes", "notes"), ("notes", "config", "notes"), ("config", "config/tests", "config/tests")],
)
def test_a_folder_without_config_files_on_either_side_exits_2_naming_it(
    project: Path, base: str, head: str, empty: str
) -> None:
    done = evalkit_diff("--base", base, "--config-dir", head, "samples", cwd=project)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"evalkit diff: {empty}: no config files found here {LOOKED_FOR}\n"
