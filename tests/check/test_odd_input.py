"""`evalkit check` on odd input a rule author meets: each problem reported once, where it is, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EVALKIT = Path(sys.executable).parent / "evalkit"


def check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "check", *args, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def problems(result: subprocess.CompletedProcess[str], folder: Path) -> list[str]:
    """The diagnostics' lines, with the folder's path left out."""
    return [
        line.removeprefix(f"{folder}/") for line in result.stdout.splitlines() if line.startswith(str(folder))
    ]


def test_a_bad_merge_is_one_error_without_a_warning_about_the_mapping_it_left_empty(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: 5\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: [1]\n",
        encoding="utf-8",
    )
    result = check(tmp_path)
    message = "error[yaml-syntax] a merge key '<<' takes a mapping or a list of mappings"
    assert problems(result, tmp_path) == [f"rules.yaml:6:7: {message}", f"rules.yaml:10:7: {message}"]
    assert result.returncode == 1
