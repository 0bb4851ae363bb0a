"""The proposals table: what the engine would change in this submission, and what the reviewer decided.

The row under the cursor is the proposal that accept, discard and edit apply to. Cells are `Text`, so
values taken from submissions are never read as markup. The columns keep their designed widths while they
fit and shrink with a narrow terminal, so the proposed value and the decision always stay on screen; a
value cut to its column ends in `…`, and the strip under the table (`detail_text`) shows it in full.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.widgets import DataTable

from evalkit.tui.decisions import ACCEPT, DISCARD, Decision
from evalkit.tui.proposals import REWRITE, Proposal, format_value
from evalkit.tui.visible import visible

COLUMNS = (("proposal", 24), ("original", 10), ("proposed", 10), ("decision", 16))
MIN_COLUMN_WIDTH = 4
DECISION_STYLES = {ACCEPT: "green", DISCARD: "red"}


def column_widths(space: int) -> tuple[int, ...]:
    """The columns' widths in `space` cells: as designed when they fit, else shrunk in proportion."""
    designed = [width for _, width in COLUMNS]
    total = sum(designed)
    if space >= total:
        return tuple(designed)
    return tuple(max(width * space // total, MIN_COLUMN_WIDTH) for width in designed)


class ProposalsTable(DataTable[Text]):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.proposals: list[Proposal] = []
        self._decisions: Mapping[str, Decision] = {}
        self._widths: tuple[int, ...] = ()

    def on_mount(self) -> None:
        self._fit_columns()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Rebuild the columns when the width they get changes (not laid out yet: as designed)."""
        width = self.scrollable_content_region.width
        space = width - 2 * self.cell_padding * len(COLUMNS) if width else sum(w for _, w in COLUMNS)
        widths = column_widths(space)
        if widths == self._widths:
            return
        self._widths = widths
        keep = self.current
        self.clear(columns=True)
        for (name, _), column_width in zip(COLUMNS, widths, strict=False):
            self.add_column(name, width=column_width, key=name)
        self.show(self.proposals, self._decisions, keep.target if keep is not None else None)

    @property
    def current(self) -> Proposal | None:
        row = self.cursor_row
        return self.proposals[row] if 0 <= row < len(self.proposals) else None

    def show(
        self, proposals: list[Proposal], decisions: Mapping[str, Decision], keep: str | None = None
    ) -> None:
        """Fill the table; put the cursor on target `keep` if given, else on the first undecided proposal."""
        self.proposals = proposals
        self._decisions = decisions
        self.clear()
        for proposal in proposals:
            self.add_row(*_cells(proposal, decisions.get(proposal.target)), key=proposal.target)
        targets = [p.target for p in proposals]
        if keep in targets:
            row = targets.index(keep)
        else:
            row = next((i for i, p in enumerate(proposals) if p.target not in decisions), 0)
        self.move_cursor(row=row, animate=False)

    def next_undecided(self, decisions: Mapping[str, Decision]) -> None:
        """After a decision, move on to the next proposal still waiting for one (wrapping round)."""
        count = len(self.proposals)
        for step in range(1, count + 1):
            row = (self.cursor_row + step) % count
            if self.proposals[row].target not in decisions:
                self.move_cursor(row=row, animate=False)
                return


def _cells(proposal: Proposal, decision: Decision | None) -> tuple[Text, ...]:
    kind = proposal.kind
    cells = (
        Text(visible(proposal.target, lines=False)),
        Text(visible(format_value(kind, proposal.original), lines=False)),
        Text(visible(format_value(kind, proposal.proposed), lines=False), "bold"),
        _decision_cell(kind, proposal, decision),
    )
    for cell in cells:
        cell.overflow = "ellipsis"  # a cut value says so: the strip under the table has it in full
    return cells


def detail_text(proposal: Proposal | None, decision: Decision | None) -> Text:
    """The strip under the table: the selected proposal in full (original → proposed), then why.

    The table cuts values to its columns, where `resp_b > resp_a` and `resp_b > resp_c` look alike; here
    nothing is cut, so the reviewer sees what they accept without leaving the table.
    """
    if proposal is None:
        return Text("No proposals: nothing for the engine to change here.", "dim")
    text = _change_line(proposal, decision)
    text.append("\n")
    text.append(visible(proposal.why))
    if decision is not None and decision.note:
        text.append("  note: ", "dim")
        text.append(visible(decision.note), "italic")
    return text


def _change_line(proposal: Proposal, decision: Decision | None) -> Text:
    """`target: original → proposed`, and the value decided when it is neither of them (an edit, stale)."""
    kind = proposal.kind
    text = Text()
    text.append(f"{visible(proposal.target, lines=False)}: ", "bold")
    text.append(visible(format_value(kind, proposal.original)))
    text.append(" → ", "dim")
    text.append(visible(format_value(kind, proposal.proposed)), "bold")
    if kind == REWRITE:
        text.append(" (the diff is in the Rewrite tab, 5)", "dim")
    if decision is not None and decision.action != DISCARD and decision.value != proposal.proposed:
        text.append("   decided: ", "dim")
        text.append_text(_decision_cell(kind, proposal, decision))
    return text


def _decision_cell(kind: str, proposal: Proposal, decision: Decision | None) -> Text:
    if decision is None:
        return Text("pending", "dim")
    text = Text(decision.action, DECISION_STYLES.get(decision.action, "yellow"))
    if decision.value != proposal.proposed or decision.action not in (ACCEPT, DISCARD):
        text.append(f" {visible(format_value(kind, decision.value), lines=False)}")
    if decision.action == ACCEPT and decision.value != proposal.proposed:
        text.append(" (stale)", "bold yellow")  # accepted a value the engine no longer proposes
    return text
