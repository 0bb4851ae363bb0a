"""The review session without a screen: proposals, decisions, status, resume, live config, export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine.config import Config, analyze
from evalkit.tui import filters
from evalkit.tui.decisions import ACCEPT, DISCARD, DONE, EDIT, Decision
from evalkit.tui.journal import Journal, JournalError
from evalkit.tui.model import ReviewError, ReviewSession

SAMPLE_TARGETS = [
    "rating.accuracy",
    "rating.freshness",
    "rewrite",
    "label",
    "flag.low_accuracy",
    "flag.justification_required",
]


@pytest.fixture
def session(
    config: Config, mixed_batch: Path, read: Callable[..., list[Any]], tmp_path: Path
) -> ReviewSession:
    journal = Journal(tmp_path / "decisions.jsonl")
    review = ReviewSession(config, sink=journal.append, clock=lambda: "2025-01-01T00:00:00.000Z")
    review.add(read([mixed_batch]))
    review.refresh_view()
    return review


def journal_entries(tmp_path: Path) -> list[dict[str, Any]]:
    return Journal(tmp_path / "decisions.jsonl").read().entries


def test_the_engine_changes_become_proposals(session: ReviewSession) -> None:
    proposals = session.proposals(0)
    assert [p.target for p in proposals] == SAMPLE_TARGETS
    accuracy = proposals[0]
    assert (accuracy.original, accuracy.proposed, accuracy.rules) == (
        5.0,
        4.5,
        ("lower_accuracy_if_no_example",),
    )


def test_accept_discard_and_edit_record_the_value_that_applies(
    session: ReviewSession, tmp_path: Path
) -> None:
    session.decide(0, "rating.accuracy", ACCEPT)
    session.decide(0, "rating.freshness", DISCARD)
    session.decide(0, "label", EDIT, "needs_review", note="too generous")
    assert session.decisions(0)["rating.accuracy"] == Decision(ACCEPT, 4.5)
    assert session.decisions(0)["rating.freshness"] == Decision(DISCARD, 1.0)
    entries = journal_entries(tmp_path)
    assert [(e["target"], e["action"], e["value"], e["note"]) for e in entries] == [
        ("rating.accuracy", "accept", 4.5, None),
        ("rating.freshness", "discard", 1.0, None),
        ("label", "edit", "needs_review", "too generous"),
    ]
    assert entries[0]["source"] == session.items[0].source and entries[0]["ts"] == "2025-01-01T00:00:00.000Z"
    assert session.final_label(0) == "needs_review"
    assert session.status(0) == filters.PROGRESS


def test_deciding_the_last_proposal_finishes_the_submission_in_the_same_undoable_step(
    session: ReviewSession,
) -> None:
    for target in SAMPLE_TARGETS[:-1]:
        session.decide(0, target, ACCEPT)
    assert session.status(0) == filters.PROGRESS
    session.decide(0, SAMPLE_TARGETS[-1], DISCARD)
    assert session.status(0) == filters.DONE
    assert session.final_flags(0) == frozenset({"low_accuracy"})
    assert session.undo() == session.items[0].source
    assert session.status(0) == filters.PROGRESS
    assert "flag.justification_required" not in session.decisions(0)


def test_accept_remaining_keeps_earlier_decisions(session: ReviewSession) -> None:
    session.decide(0, "rating.accuracy", DISCARD)
    session.accept_remaining(0)
    decisions = session.decisions(0)
    assert decisions["rating.accuracy"].action == DISCARD
    assert all(decisions[t].action == ACCEPT for t in SAMPLE_TARGETS[1:])
    assert session.progress().done == 1


def test_toggle_done_and_notes(session: ReviewSession) -> None:
    session.toggle_done(3)
    assert session.status(3) == filters.DONE
    session.toggle_done(3)
    assert session.status(3) == filters.PENDING
    session.set_note(3, "  check the [/INST] leak  ")
    assert session.note(3) == "check the [/INST] leak"
    session.set_note(3, "")
    assert session.note(3) == "" and session.status(3) == filters.PENDING


def test_flags_are_not_edited_and_unknown_targets_are_refused(session: ReviewSession) -> None:
    with pytest.raises(ReviewError, match="not edited"):
        session.decide(0, "flag.low_accuracy", EDIT, False)
    with pytest.raises(ReviewError, match="proposes nothing for ranking"):
        session.decide(0, "ranking", ACCEPT)


def test_a_broken_submission_is_an_error_in_the_queue_and_cannot_be_decided(session: ReviewSession) -> None:
    assert session.status(2) == filters.ERROR
    assert "invalid JSON" in str(session.result(2))
    assert session.proposals(2) == []
    with pytest.raises(ReviewError, match="could not be read"):
        session.toggle_done(2)
    assert session.progress().errors == 1


def test_when_the_journal_cannot_be_written_nothing_changes(
    config: Config, mixed_batch: Path, read: Callable[..., list[Any]]
) -> None:
    def refuse(entries: list[dict[str, Any]]) -> None:
        raise JournalError("disk full")

    review = ReviewSession(config, sink=refuse)
    review.add(read([mixed_batch]))
    with pytest.raises(JournalError):
        review.decide(0, "label", ACCEPT)
    assert review.decisions(0) == {} and review.status(0) == filters.PENDING
    assert review.book.undo_step() is None


def test_reopening_with_the_journal_resumes_where_the_reviewer_stopped(
    config: Config, session: ReviewSession, mixed_batch: Path, read: Callable[..., list[Any]], tmp_path: Path
) -> None:
    session.accept_remaining(0)
    session.decide(1, "label", ACCEPT)
    again = ReviewSession(config)
    assert again.replay(journal_entries(tmp_path)) == 0
    again.add(read([mixed_batch]))
    assert again.resume_index() == 1
    assert again.status(0) == filters.DONE and again.decisions(1)["label"].action == ACCEPT
    session.accept_remaining(1)
    third = ReviewSession(config)
    third.replay(journal_entries(tmp_path))
    third.add(read([mixed_batch]))
    assert third.resume_index() == 3  # 1 is done and 2 is broken: the next one to review


def test_decisions_for_submissions_not_in_the_input_are_reported(config: Config) -> None:
    review = ReviewSession(config)
    review.replay(
        [
            {
                "ts": "t",
                "source": "gone.json",
                "target": "label",
                "action": "accept",
                "value": "x",
                "note": None,
                "step": 1,
            }
        ]
    )
    assert review.orphan_sources() == ["gone.json"]


def test_background_evaluation_fills_summaries_and_a_new_config_refills_them(
    session: ReviewSession, config_copy: Path
) -> None:
    assert session.evaluate_pending(2) == 2
    assert not session.evaluation_finished
    while session.evaluate_pending(10):
        pass
    assert session.evaluation_finished
    assert session.items[3].summary is not None and "low_optimality" in session.items[3].summary.flags
    rules = config_copy / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace(
            "dimension_lt: { optimality: 2.5 }", "dimension_lt: { optimality: 0.5 }"
        ),
        encoding="utf-8",
    )
    assert session.set_config(analyze(config_copy))
    assert not session.evaluation_finished
    while session.evaluate_pending(10):
        pass
    assert session.items[3].summary is not None and "low_optimality" not in session.items[3].summary.flags


def test_a_broken_config_keeps_the_last_good_rules(session: ReviewSession, config_copy: Path) -> None:
    before = session.engine
    (config_copy / "rules.yaml").write_text("rating_rules: [{id: x, when: {nope: 1}}]\n", encoding="utf-8")
    broken = analyze(config_copy)
    assert not session.set_config(broken)
    assert session.engine is before and session.config is broken


def test_without_a_usable_config_there_are_no_proposals(
    mixed_batch: Path, read: Callable[..., list[Any]], config_copy: Path
) -> None:
    (config_copy / "dimensions.yaml").write_text("scale: oops\n", encoding="utf-8")
    review = ReviewSession(analyze(config_copy))
    review.add(read([mixed_batch]))
    assert review.result(0) is None and review.proposals(0) == []
    with pytest.raises(ReviewError, match="config has errors"):
        review.decide(0, "label", ACCEPT)
    with pytest.raises(ReviewError, match="fix it before exporting"):
        list(review.export_records())


def test_the_view_filters_and_sorts(session: ReviewSession) -> None:
    while session.evaluate_pending(10):
        pass
    session.query = filters.parse_query("flag:low_optimality")
    assert session.refresh_view() == [3]
    session.query = filters.parse_query("status:error")
    assert session.refresh_view() == [2]
    session.query = filters.parse_query("")
    session.sort = "score"
    assert session.refresh_view()[-1] == 2  # no score (broken) sorts last
    session.query = filters.parse_query("inst")
    session.sort = "input"
    assert session.refresh_view() == [1]


def test_export_applies_decisions_and_lists_what_is_undecided(session: ReviewSession) -> None:
    session.decide(0, "rating.accuracy", DISCARD)
    session.decide(0, "flag.low_accuracy", DISCARD)
    session.decide(0, "label", EDIT, "needs_review")
    session.set_note(0, "checked")
    records = list(session.export_records())
    assert [r["source"] for r in records] == [item.source for item in session.items]
    first = records[0]
    assert first["corrected_ratings"]["accuracy"]["updated"] == 5.0
    assert first["corrected_ratings"]["freshness"]["updated"] == 2.0  # undecided: the engine's value
    assert first["label"] == "needs_review" and "low_accuracy" not in first["flags"]
    review = first["review"]
    assert review["status"] == "progress" and review["note"] == "checked"
    assert review["undecided"] == ["rating.freshness", "rewrite", "flag.justification_required"]
    assert review["decisions"][0] == {
        "target": "rating.accuracy",
        "action": "discard",
        "value": 5.0,
        "original": 5.0,
        "proposed": 4.5,
        "note": None,
    }
    assert records[2]["error"]["message"].startswith("invalid JSON")
    assert records[1]["review"] == {
        "status": "pending",
        "note": None,
        "decisions": [],
        "undecided": [
            "rating.accuracy",
            "rating.freshness",
            "rewrite",
            "label",
            "flag.low_accuracy",
            "flag.justification_required",
        ],
    }


def test_known_labels_come_from_thresholds_default_and_rules(session: ReviewSession) -> None:
    assert session.known_labels() == ["excellent", "good", "needs_review", "neutral", "weak"]


def test_done_status_is_read_from_the_decisions(session: ReviewSession) -> None:
    step = session.book.step(session.items[1].source, {"status": Decision(DONE)})
    assert step is not None
    session.book.commit(step)
    assert session.status(1) == filters.DONE
