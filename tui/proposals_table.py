"""The proposals table: what the engine would change in this submission, and what the reviewer decided.

The row under the cursor is the proposal that accept, discard and edit apply to. Cells are `Text`, so
values taken from submissions are never read as markup.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import DataTable

from evalkit.tui.decisions import ACCEPT, DISCARD, Decision
from evalkit.tui.proposals import Proposal, format_value

COLUMNS = (("proposal", 24), ("original", 10), ("proposed", 10), ("decision", 16))
DECISION_STYLES = {ACCEPT: "green", DISCARD: "red"}


class ProposalsTable(DataTable[Text]):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.proposals: list[Proposal] = []

    def on_mount(self) -> None:
        for name, width in COLUMNS:
            self.add_column(name, width=width, key=name)

    @property
    def current(self) -> Proposal | None:
        row = self.cursor_row
        return self.proposals[row] if 0 <= row < len(self.proposals) else None

    def show(
        self, proposals: list[Proposal], decisions: Mapping[str, Decision], keep: str | None = None
    ) -> None:
        """Fill the table; put the cursor on target `keep` if given, else on the first undecided proposal."""
        self.proposals = proposals
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
    return (
        Text(proposal.target),
        Text(format_value(kind, proposal.original)),
        Text(format_value(kind, proposal.proposed), "bold"),
        _decision_cell(kind, proposal, decision),
    )


def why_text(proposal: Proposal | None, decision: Decision | None) -> Text:
    """The line under the table: why the engine proposes the selected change, and what was decided."""
    if proposal is None:
        return Text("No proposals: nothing for the engine to change here.", "dim")
    text = Text()
    text.append(f"{proposal.target}: ", "bold")
    text.append(proposal.why)
    if decision is not None and decision.note:
        text.append("  note: ", "dim")
        text.append(decision.note, "italic")
    return text


def _decision_cell(kind: str, proposal: Proposal, decision: Decision | None) -> Text:
    if decision is None:
        return Text("pending", "dim")
    text = Text(decision.action, DECISION_STYLES.get(decision.action, "yellow"))
    if decision.value != proposal.proposed or decision.action not in (ACCEPT, DISCARD):
        text.append(f" {format_value(kind, decision.value)}")
    if decision.action == ACCEPT and decision.value != proposal.proposed:
        text.append(" (stale)", "bold yellow")  # accepted a value the engine no longer proposes
    return text
