"""`evalkit check --journals GLOB`: a warning at the id of a rule whose proposals reviewers discard more
often than `--max-discard-rate`, once there are enough decisions to say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.services.review.proposals import Proposal

REPO = Path(__file__).parents[2]
RULES = REPO / "config_samples" / "rules.yaml"
PENALTY = "low_optimality_penalty"  # 4 label and 4 flag proposals on the 8 samples


def discard_penalty(proposal: Proposal) -> tuple[str, Any]:
    return ("discard", None) if PENALTY in proposal.rules else ("accept", None)


def id_position(rule_id: str) -> str:
    for number, line in enumerate(RULES.read_text().splitlines(), start=1):
        if line.strip() == f"- id: {rule_id}":
            return f"{number}:{line.index(rule_id) + 1}"
    raise AssertionError(f"{rule_id} is not in {RULES}")


def test_a_rule_discarded_too_often_is_a_warning_at_its_id(
    workspace: Path, reviewer: Any, evalkit: Any
) -> None:
    reviewer("ana", discard_penalty)
    reviewer("ben", discard_penalty)
    journals = str(workspace / "*.decisions.jsonl")
    done = evalkit("check", "config_samples", "--journals", journals)
    assert done.returncode == 0 and done.stderr == ""  # a warning; --strict would fail
    assert done.stdout.splitlines() == [
        f"{RULES.relative_to(REPO)}:{id_position(PENALTY)}: warning[rule-discarded] reviewers discarded "
        f"16 of 16 decisions on the proposals of rule '{PENALTY}' (100%, more than --max-discard-rate 50%); "
        "accepted 0, edited 0",
        "1 config folder, 5 files: 1 warning",
    ]
    strict = evalkit("check", "config_samples", "--strict", "--journals", journals)
    assert strict.returncode == 1


def test_the_threshold_is_a_rate_above_which_it_warns(workspace: Path, reviewer: Any, evalkit: Any) -> None:
    reviewer("ana", lambda p: ("accept", None))
    reviewer("ben", discard_penalty)  # half of the 16 decisions on the penalty's proposals
    journals = str(workspace / "*.decisions.jsonl")
    assert "rule-discarded" not in evalkit("check", "config_samples", "--journals", journals).stdout
    lowered = evalkit(
        "check", "config_samples", "--journals", journals, "--max-discard-rate", "0.4", "--format", "json"
    )
    found = [d for d in json.loads(lowered.stdout)["diagnostics"] if d["code"] == "rule-discarded"]
    assert [(d["line"], d["column"], d["severity"]) for d in found] == [
        (*map(int, id_position(PENALTY).split(":")), "warning")
    ]


def test_fewer_than_ten_decisions_say_nothing(workspace: Path, reviewer: Any, evalkit: Any) -> None:
    reviewer("ana", discard_penalty, only=5)  # the penalty moved 2 proposals on 05 and 10: 4 decisions
    done = evalkit(
        "check",
        "config_samples",
        "--journals",
        str(workspace / "*.decisions.jsonl"),
        "--max-discard-rate",
        "0",
    )
    assert done.returncode == 0 and "rule-discarded" not in done.stdout


def test_journal_options_that_cannot_be_used_exit_2(tmp_path: Path, evalkit: Any) -> None:
    nothing = evalkit("check", "config_samples", "--journals", str(tmp_path / "*.jsonl"))
    assert (nothing.returncode, nothing.stderr) == (
        2,
        f"evalkit check: --journals {tmp_path / '*.jsonl'}: no journal matches\n",
    )
    alone = evalkit("check", "config_samples", "--max-discard-rate", "0.3")
    assert alone.returncode == 2
    assert alone.stderr == "evalkit check: --max-discard-rate needs --journals GLOB\n"
    wrong = evalkit("check", "config_samples", "--journals", "x", "--max-discard-rate", "1.5")
    assert wrong.returncode == 2 and "expected a number from 0 to 1, got 1.5" in wrong.stderr


def test_sarif_describes_the_warning(workspace: Path, reviewer: Any, evalkit: Any) -> None:
    reviewer("ana", discard_penalty)
    reviewer("ben", discard_penalty)
    done = evalkit("check", "config_samples", "--format", "sarif", "--journals", str(workspace / "*.jsonl"))
    rules = json.loads(done.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert {rule["id"]: rule["shortDescription"]["text"] for rule in rules} == {
        "rule-discarded": "Reviewers discarded a rule's proposals more often than --max-discard-rate allows."
    }


def _archived(workspace: Path, reviewer: Any) -> Path:
    """Two reviewers' journals that discard the penalty rule, moved into reviews/2026-11/."""
    reviewer("ana", discard_penalty)
    reviewer("ben", discard_penalty)
    archive = workspace / "reviews" / "2026-11"
    archive.mkdir(parents=True)
    for journal in workspace.glob("*.decisions.jsonl"):
        journal.rename(archive / journal.name)
    return archive


def test_a_glob_over_folders_reads_the_journals_in_them_not_the_folders(
    workspace: Path, reviewer: Any, evalkit: Any
) -> None:
    _archived(workspace, reviewer)
    done = evalkit("check", "config_samples", "--journals", str(workspace / "reviews" / "**" / "*.jsonl"))
    assert done.returncode == 0, done.stderr
    every = evalkit("check", "config_samples", "--journals", str(workspace / "reviews" / "**"))
    assert (every.returncode, every.stderr) == (0, "")
    assert every.stdout == done.stdout and "rule-discarded" in every.stdout


def test_a_recursive_glob_over_folders_that_link_to_themselves_ends(
    workspace: Path, reviewer: Any, evalkit: Any
) -> None:
    """`reviews/**` over a folder holding two links to itself: the glob module never ended."""
    archive = _archived(workspace, reviewer)
    (archive / "again").symlink_to(archive)
    (archive / "and-again").symlink_to(archive)
    done = evalkit("check", "config_samples", "--journals", str(workspace / "reviews" / "**" / "*.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "16 of 16 decisions" in done.stdout  # each journal counted once, not once per path to it
