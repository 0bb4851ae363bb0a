"""`evalkit review` through the real entry point: unusable arguments exit 2 with a message, and --export
replays the journal and writes the reviewed results without opening the screen."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.cli import main
from evalkit.commands.review import default_path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "sample_submission.json"
EVALKIT = Path(sys.executable).with_name("evalkit")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["review"], "no INPUT given"),
        (["review", "missing.json"], "missing.json: no such file or folder"),
        (["review", str(SAMPLE), "--config-dir", "nowhere"], "--config-dir nowhere: no such folder"),
        (
            ["review", str(SAMPLE), "--decisions", "no/such/folder/j.jsonl"],
            "expected a file in an existing folder",
        ),
    ],
)
def test_unusable_arguments_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_folder_without_submissions_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert main(["review", str(tmp_path)]) == 2
    assert "no submission files" in capsys.readouterr().err


def test_default_paths_sit_beside_the_first_input() -> None:
    assert default_path("data/batch.jsonl", ".decisions.jsonl") == Path("data/batch.jsonl.decisions.jsonl")
    assert default_path("data/submissions/", ".decisions.jsonl") == Path("data/submissions.decisions.jsonl")


def test_export_without_the_screen_applies_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "one.json")
    journal = tmp_path / "in.decisions.jsonl"
    journal.write_text(
        json.dumps(
            {
                "ts": "t",
                "source": str(folder / "one.json"),
                "target": "label",
                "action": "edit",
                "value": "needs_review",
                "note": None,
                "step": 1,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    # a journal or export left in the input folder is not read as submissions
    (folder / "old.reviewed.jsonl").write_text('{"not": "a submission"}\n', encoding="utf-8")
    out = tmp_path / "reviewed.jsonl"
    assert (
        main(["review", str(folder), "--config-dir", str(ROOT / "config_samples"), "--export", str(out)]) == 0
    )
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["label"] == "needs_review" and record["review"]["status"] == "progress"
    assert "1 result, 0 reviewed" in capsys.readouterr().err


def test_export_with_a_broken_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.yaml").write_text("rating_rules: [{id: x}]\n", encoding="utf-8")
    code = main(["review", str(SAMPLE), "--config-dir", str(config), "--export", str(tmp_path / "o.jsonl")])
    assert code == 2
    assert "the config has errors; nothing exported" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("stdout_piped_only", [False, True])
def test_without_a_terminal_it_says_so_and_exits_2(tmp_path: Path, stdout_piped_only: bool) -> None:
    """stdin from /dev/null (and no terminal at all), or a terminal but standard output piped."""
    shutil.copy(SAMPLE, tmp_path / "one.json")
    command = [
        str(EVALKIT),
        "review",
        str(tmp_path / "one.json"),
        "--config-dir",
        str(ROOT / "config_samples"),
    ]
    if stdout_piped_only:
        leader, follower = pty.openpty()
        try:
            done = subprocess.run(
                command, stdin=follower, stdout=subprocess.PIPE, stderr=follower, timeout=60
            )
            os.close(follower)
            said = _read_all(leader)
        finally:
            os.close(leader)
    else:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        said = done.stderr.decode()
    assert done.returncode == 2
    assert "needs a terminal" in said and "--export FILE" in said
    assert b"\x1b" not in done.stdout and "\x1b" not in said  # no escape codes into a pipe or a file
    assert not (tmp_path / "one.json.decisions.jsonl.lock").exists()


def _read_all(leader: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the other side is closed and everything was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()
