"""`evalkit review` through the real entry point: unusable arguments exit 2 with a message, and --export
replays the journal and writes the reviewed results without opening the screen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalkit.cli import main
from evalkit.commands.review import default_path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "sample_submission.json"


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
