"""Decisions, undo and redo, and the law that matters: replaying the journal rebuilds the same state."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.tui.decisions import ACCEPT, DISCARD, DONE, Decision, DecisionBook, entries_of


def run(book: DecisionBook, journal: list[dict[str, Any]], op: tuple[str, str, str, Decision | None]) -> None:
    """Apply one operation the way the session does: entries first, then the state."""
    kind, source, target, after = op
    if kind == "do":
        step = book.step(source, {target: after})
        if step is not None:
            journal.extend(entries_of(step, "t"))
            book.commit(step)
    elif kind == "undo" and (inverse := book.undo_step()) is not None:
        journal.extend(entries_of(inverse, "t", undoes=book.undo_stack[-1].id))
        book.commit_undo(inverse)
    elif kind == "redo" and (step := book.redo_step()) is not None:
        journal.extend(entries_of(step, "t", redoes=book.redo_stack[-1].id))
        book.commit_redo(step)


def snapshot(book: DecisionBook) -> tuple[Any, ...]:
    state = {source: dict(book.of(source)) for source in book.sources() if book.of(source)}
    return state, [s.id for s in book.undo_stack], [s.id for s in book.redo_stack]


def test_undo_restores_the_previous_decision_and_redo_reapplies_it() -> None:
    book, journal = DecisionBook(), []
    run(book, journal, ("do", "a", "label", Decision(ACCEPT, "good")))
    run(book, journal, ("do", "a", "label", Decision(DISCARD, None)))
    run(book, journal, ("undo", "", "", None))
    assert book.get("a", "label") == Decision(ACCEPT, "good")
    run(book, journal, ("redo", "", "", None))
    assert book.get("a", "label") == Decision(DISCARD, None)
    assert [e["action"] for e in journal] == ["accept", "discard", "accept", "discard"]
    assert journal[2]["undoes"] == 2 and journal[3]["redoes"] == 2


def test_a_new_decision_clears_the_redo_stack() -> None:
    book, journal = DecisionBook(), []
    run(book, journal, ("do", "a", "label", Decision(ACCEPT, "good")))
    run(book, journal, ("undo", "", "", None))
    run(book, journal, ("do", "a", "status", Decision(DONE)))
    assert book.redo_step() is None


def test_setting_what_is_already_set_is_no_step() -> None:
    book = DecisionBook()
    book.commit(book.step("a", {"label": Decision(ACCEPT, "x")}))  # type: ignore[arg-type]
    assert book.step("a", {"label": Decision(ACCEPT, "x")}) is None


def test_replay_rebuilds_state_and_history_so_undo_works_after_a_restart() -> None:
    book, journal = DecisionBook(), []
    run(book, journal, ("do", "a", "rating.accuracy", Decision(ACCEPT, 4.5)))
    run(book, journal, ("do", "b", "label", Decision(DISCARD, None)))
    run(book, journal, ("undo", "", "", None))
    again = DecisionBook()
    assert again.replay(journal) == 0
    assert snapshot(again) == snapshot(book)
    run(again, [], ("redo", "", "", None))
    assert again.get("b", "label") == Decision(DISCARD, None)


def test_malformed_entries_are_counted_and_skipped() -> None:
    good = {
        "ts": "t",
        "source": "a",
        "target": "label",
        "action": "accept",
        "value": "x",
        "note": None,
        "step": 1,
    }
    book = DecisionBook()
    skipped = book.replay([good, {"source": "a"}, "text", {**good, "action": "explode", "step": 2}])
    assert skipped == 3
    assert book.get("a", "label") == Decision(ACCEPT, "x")


def test_entries_whose_value_or_note_cannot_be_shown_are_skipped() -> None:
    """A hand-edited journal: a note that is a number, a label that is a number, a rating that is a list."""
    good = {"ts": "t", "source": "a", "target": "rating.accuracy", "action": "edit", "value": 4, "note": "ok"}
    bad = [
        {**good, "note": 5},
        {**good, "value": [1, 2]},
        {**good, "value": True},
        {**good, "target": "label", "value": 3},
        {**good, "target": "flag.too_short", "value": 1},
    ]
    book = DecisionBook()
    skipped = book.replay([{**entry, "step": n} for n, entry in enumerate([good, *bad], start=1)])
    assert skipped == len(bad)
    assert book.get("a", "rating.accuracy") == Decision("edit", 4, "ok")
    assert book.get("a", "label") is None and book.get("a", "flag.too_short") is None


def test_an_undo_that_does_not_match_the_history_keeps_the_state_and_drops_the_history() -> None:
    entries = [
        {
            "ts": "t",
            "source": "a",
            "target": "label",
            "action": "accept",
            "value": "x",
            "note": None,
            "step": 1,
        },
        {
            "ts": "t",
            "source": "a",
            "target": "label",
            "action": "clear",
            "value": None,
            "note": None,
            "step": 2,
            "undoes": 99,
        },
    ]
    book = DecisionBook()
    book.replay(entries)
    assert book.get("a", "label") is None
    assert book.undo_step() is None and book.redo_step() is None
    assert book.next_id == 3


DECISIONS = st.one_of(
    st.none(),
    st.builds(Decision, st.sampled_from([ACCEPT, DISCARD, DONE]), st.one_of(st.none(), st.integers(0, 5))),
)
OPS = st.lists(
    st.tuples(
        st.sampled_from(["do", "do", "undo", "redo"]),
        st.sampled_from(["a", "b"]),
        st.sampled_from(["rating.freshness", "rating.accuracy", "status"]),  # targets that take numbers
        DECISIONS,
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_replaying_any_journal_gives_the_same_state_and_history(ops: list[Any]) -> None:
    book, journal = DecisionBook(), []
    for op in ops:
        run(book, journal, op)
    again = DecisionBook()
    again.replay(journal)
    assert snapshot(again) == snapshot(book)
    assert again.next_id == book.next_id


@settings(max_examples=100, deadline=None)
@given(OPS)
def test_the_state_is_the_last_journal_entry_per_target(ops: list[Any]) -> None:
    book, journal = DecisionBook(), []
    for op in ops:
        run(book, journal, op)
    last: dict[tuple[str, str], Any] = {}
    for e in journal:
        last[(e["source"], e["target"])] = (
            None if e["action"] == "clear" else Decision(e["action"], e["value"], e["note"])
        )
    assert {key: value for key, value in last.items() if value is not None} == {
        (source, target): decision
        for source in book.sources()
        for target, decision in book.of(source).items()
    }
