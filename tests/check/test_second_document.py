"""`evalkit check` on a config file with a second YAML document: one error at the `---` that starts it,
saying what to do, not PyYAML's "but found another document"."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"


def test_a_second_document_is_one_error_at_its_marker(tmp_path: Path) -> None:
    folder = shutil.copytree(REPO / "config_samples", tmp_path / "config")
    rules = folder / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text + "---\nversion: 3\n", encoding="utf-8")
    done = subprocess.run(
        [str(EVALKIT), "check", str(folder)], capture_output=True, text=True, timeout=60, check=False
    )
    marker = len(text.splitlines()) + 1
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines()[0] == (
        f"{rules}:{marker}:1: error[yaml-syntax] a second YAML document starts here; evalkit reads one "
        "document a file (remove this `---` line, or put what follows in a file of its own)"
    )
