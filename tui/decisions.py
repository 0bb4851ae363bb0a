"""The reviewer's decisions: the model lives in `services/review/decisions.py`, where `evalkit stats`, `check`
and the language server read journals without Textual; the TUI's modules import it from here."""

from evalkit.services.review.decisions import (
    ACCEPT,
    ACTIONS,
    CLEAR,
    DISCARD,
    DONE,
    EDIT,
    NOTE,
    NOTE_TARGET,
    STATUS_TARGET,
    Change,
    Decision,
    DecisionBook,
    Entry,
    Step,
    decision_of,
    entries_of,
)

__all__ = [
    "ACCEPT",
    "ACTIONS",
    "CLEAR",
    "DISCARD",
    "DONE",
    "EDIT",
    "NOTE",
    "NOTE_TARGET",
    "STATUS_TARGET",
    "Change",
    "Decision",
    "DecisionBook",
    "Entry",
    "Step",
    "decision_of",
    "entries_of",
]
