"""Every command that evaluates with a config refuses a folder without config files with the one message
(services/config/folders.py), naming the folder as every output names a file: a byte that is not UTF-8 as
`\\xNN`. `eval --ray` evaluated with no rules at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
SAMPLE = str(REPO / "samples" / "sample_submission.json")
EMPTY = os.fsdecode(b"e\xffmpty")
MESSAGE = (
    "e\\xffmpty: no config files found here "
    "(looked for dimensions.yaml, ranking.yaml, prompt.yaml, rewrite.yaml, rules.yaml)"
)
COMMANDS = {
    "eval": ["evalkit", "eval", SAMPLE, "--config-dir", EMPTY],
    "eval --jobs": ["evalkit", "eval", SAMPLE, SAMPLE, "--jobs", "2", "--config-dir", EMPTY],
    "eval --ray": ["evalkit", "eval", SAMPLE, "--config-dir", EMPTY, "--ray"],
    "oai-eval": ["oai-eval", SAMPLE, "--config-dir", EMPTY],
    "diff (head)": ["evalkit", "diff", SAMPLE, "--base", str(REPO / "config_samples"), "--config-dir", EMPTY],
    "diff (base)": ["evalkit", "diff", SAMPLE, "--base", EMPTY, "--config-dir", str(REPO / "config_samples")],
    "review": ["evalkit", "review", SAMPLE, "--config-dir", EMPTY],
    "review --export": ["evalkit", "review", SAMPLE, "--config-dir", EMPTY, "--export", "out.jsonl"],
    "stats": ["evalkit", "stats", "ana.decisions.jsonl", "--config-dir", EMPTY],
}


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_each_command_refuses_a_folder_without_config_files_in_the_same_words(
    tmp_path: Path, argv: list[str]
) -> None:
    (tmp_path / EMPTY).mkdir()
    (tmp_path / "ana.decisions.jsonl").write_text("", encoding="utf-8")
    done = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (2, "")
    command = "oai-eval" if argv[0] == "oai-eval" else f"evalkit {argv[1]}"
    assert done.stderr == f"{command}: {MESSAGE}\n"
    assert not (tmp_path / "out.jsonl").exists()


def test_check_says_the_same_of_a_tree_with_none_below(tmp_path: Path) -> None:
    (tmp_path / EMPTY).mkdir()
    done = subprocess.run(
        [str(BIN / "evalkit"), "check", EMPTY], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr == f"evalkit check: {MESSAGE.replace(' here ', ' here or below ')}\n"
