"""`evalkit review --sign KEY`: the export signed (`--export FILE`), and a checkpoint of the journal signed
when a session in a real terminal ends (tmux)."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path

import pytest

from evalkit.services.review.chain import check_chain
from evalkit.tui.journal import Journal
from tests.signing.conftest import ROOT, evalkit
from tests.tui.test_tmux import Tmux, wait_for_file

EVALKIT = Path(sys.executable).with_name("evalkit")


def _decide(journal: Path, source: Path) -> None:
    writer = Journal(journal)
    writer.append(
        [{"ts": "2026-01-01T00:00:00Z", "source": str(source), "target": "label", "action": "edit",
          "value": "good", "note": None, "step": 1}]
    )  # fmt: skip
    writer.close()


def test_a_signed_export_verifies_and_records_the_journal_as_an_input(work: Path, keys: Path) -> None:
    sample = work / "in" / "sample_submission.json"
    journal = work / "review.decisions.jsonl"
    _decide(journal, sample)
    done = evalkit(
        "review", str(sample), "--decisions", str(journal), "--export", "out/reviewed.jsonl",
        "--sign", f"{keys}.key", cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bundle = work / "out/reviewed.jsonl.sigstore.json"
    statement = json.loads(base64.b64decode(json.loads(bundle.read_text())["dsseEnvelope"]["payload"]))
    assert [s["name"] for s in statement["subject"]] == ["reviewed.jsonl"]
    assert [Path(i["name"]).name for i in statement["predicate"]["inputs"]] == [
        "sample_submission.json", "review.decisions.jsonl"
    ]  # fmt: skip
    assert statement["predicate"]["summary"]["submissions"] == 1
    assert evalkit("verify", str(bundle), "--key", f"{keys}.pub", cwd=work).returncode == 0
    (work / "out/reviewed.jsonl").write_text("{}\n")
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 1 and "artifact reviewed.jsonl: artifact changed" in done.stdout


@pytest.fixture
def tmux() -> object:
    if shutil.which("tmux") is None:  # tasks.py installs it where it can (Debian, as root)
        pytest.fail("this test drives the review app in a real terminal and needs tmux: apt-get install tmux")
    session = Tmux()
    yield session
    session.stop()


def test_a_session_signed_ends_with_a_checkpoint_of_its_journal(tmux: Tmux, work: Path, keys: Path) -> None:
    journal = work / "session.decisions.jsonl"
    code = work / "exit-code"
    tmux.start(
        f"cd {work} && {EVALKIT} review in/sample_submission.json --config-dir {ROOT / 'config_samples'} "
        f"--decisions {journal} --sign {keys}.key; echo $? > {code}; sleep 60"
    )
    tmux.wait_for(lambda s: "rating.accuracy" in s, "the submission")
    tmux.keys("a")
    wait_for_file(journal, lambda text: text.count("\n") == 1)
    tmux.keys("x")  # the export from the screen, signed with the checkpoint when the session ends
    tmux.wait_for(lambda s: "Export reviewed results" in s, "the export's dialog")
    tmux.keys("Enter")
    export = work / "in/sample_submission.json.reviewed.jsonl"
    wait_for_file(export, lambda text: text.count("\n") == 1)
    tmux.keys("q")
    assert wait_for_file(code, lambda text: text.strip() != "").strip() == "0", tmux.screen()
    assert "session.decisions.jsonl.sigstore.json, no trusted time" in tmux.screen().replace("\n", "")
    bundle = work / "session.decisions.jsonl.sigstore.json"
    statement = json.loads(base64.b64decode(json.loads(bundle.read_text())["dsseEnvelope"]["payload"]))
    summary = statement["predicate"]["summary"]
    names = [subject["name"] for subject in statement["subject"]]
    assert names == ["session.decisions.jsonl", "in/sample_submission.json.reviewed.jsonl"]
    assert summary["journal_lines"] == 1 and summary["chain"] == "1 lines, every link holds"
    assert summary["last_line_sha256"] == check_chain(journal.read_bytes()).last_digest
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 0 and "ok   journal chain: 1 lines, every link holds" in done.stdout
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", "--reproduce", cwd=work)
    assert done.returncode == 1 and "FAIL reproduce: a review session's checkpoint" in done.stdout
    first = journal.read_bytes()
    writer = Journal(journal)  # a later session without --sign adds a decision after the checkpoint
    writer.append([{"ts": "2026-01-01T00:00:01Z", "source": "x", "target": "note", "action": "note",
                    "value": "later", "note": None, "step": 2}])  # fmt: skip
    writer.close()
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 1 and "artifact session.decisions.jsonl: artifact changed" in done.stdout
    assert (
        "ok   journal chain: 2 lines, every link holds; the 1 lines checkpointed are its first, 1 added since"
        in done.stdout
    )
    journal.write_bytes(first.replace(b'"accept"', b'"discard"'))  # the checkpointed decision edited
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", cwd=work)
    assert (
        done.returncode == 1
        and "FAIL journal chain: the 1 lines checkpointed were changed or removed" in done.stdout
    )
