"""The reviewer's keys. Each binding's id says its group in the help screen (`review.`, `queue.`, `tabs.`,
`app.`); its description names it in the footer and the command palette, its tooltip in the help."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from textual.binding import Binding, BindingType

from evalkit.tui.detail import TABS

REVIEW_BINDINGS: list[BindingType] = [
    Binding(
        "a",
        "decide('accept')",
        "Accept",
        id="review.accept",
        tooltip="accept the proposal under the cursor",
    ),
    Binding(
        "d",
        "decide('discard')",
        "Discard",
        id="review.discard",
        tooltip="discard the proposal under the cursor: keep the original",
    ),
    Binding("e", "edit", "Edit", id="review.edit", tooltip="type your own value for the proposal"),
    Binding(
        "A",
        "accept_all",
        "Accept all",
        show=False,
        id="review.accept_all",
        tooltip="accept every undecided proposal and mark the submission done",
    ),
    Binding("c", "toggle_done", "Done", id="review.done", tooltip="mark the submission done, or reopen it"),
    Binding("l", "label", "Label", show=False, id="review.label", tooltip="set the final label"),
    Binding("n", "note", "Note", id="review.note", tooltip="write a note on the submission"),
    Binding("u", "undo", "Undo", id="review.undo", tooltip="undo the last decision, wherever it was"),
    Binding("U,ctrl+r", "redo", "Redo", show=False, id="review.redo", tooltip="redo what was undone"),
    Binding("j", "move(1)", "Next", id="queue.next", tooltip="next submission in the queue"),
    Binding("k", "move(-1)", "Prev", id="queue.previous", tooltip="previous submission in the queue"),
    Binding(
        "right_square_bracket",
        "unreviewed(1)",
        "Next to review",
        show=False,
        id="queue.next_unreviewed",
        tooltip="next submission not done yet",
    ),
    Binding(
        "left_square_bracket",
        "unreviewed(-1)",
        "Previous to review",
        show=False,
        id="queue.previous_unreviewed",
        tooltip="previous submission not done yet",
    ),
    Binding(
        "slash", "filter", "Filter", id="queue.filter", tooltip="filter the queue (Enter or Esc returns)"
    ),
    Binding(
        "escape",
        "leave_filter",
        "Back to the queue",
        show=False,
        id="queue.leave_filter",
        tooltip="leave the filter, keeping it",
    ),
    Binding(
        "s",
        "sort",
        "Sort",
        show=False,
        id="queue.sort",
        tooltip="cycle the order: input, score, label, status",
    ),
    *(
        Binding(
            str(number),
            f"tab('{tab_id}')",
            title,
            show=False,
            id=f"tabs.{tab_id}",
            tooltip=f"show the {title.lower()} tab",
        )
        for number, (tab_id, title) in enumerate(TABS, start=1)
    ),
    Binding(
        "x",
        "export",
        "Export",
        show=False,
        id="app.export",
        tooltip="write the reviewed results as JSON Lines",
    ),
    Binding("question_mark", "help", "Help", id="app.help", tooltip="this screen"),
    Binding("q", "quit", "Quit", id="app.quit", tooltip="quit (every decision is already saved)"),
]


def with_prefix(bindings: Iterable[BindingType], prefix: str) -> Iterator[Binding]:
    """The bindings of one help group, in order."""
    for binding in bindings:
        if isinstance(binding, Binding) and (binding.id or "").startswith(f"{prefix}."):
            yield binding
