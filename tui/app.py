"""`ReviewApp`: the reviewer's screen. It translates keys into session calls and session state into widgets.

Three thread workers keep the screen responsive: one reads the input in batches (the first submission
shows as soon as it is read), one evaluates the queue in the background (label, score and flags fill in),
one polls the config folder and re-evaluates when it changes. They talk to the app with messages only.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.containers import Horizontal, Vertical
from textual.filter import LineFilter
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static, TabbedContent, TextArea

from evalkit.engine.config import Config, analyze
from evalkit.engine.result import Result
from evalkit.services.inputs.read import LoadedSubmission, read_file
from evalkit.tui import filters
from evalkit.tui.bindings import REVIEW_BINDINGS
from evalkit.tui.changes import result_changes
from evalkit.tui.commands import ReviewCommands, ReviewPalette
from evalkit.tui.decisions import EDIT
from evalkit.tui.detail import DetailTabs, Shown, header_text
from evalkit.tui.edits import edit_text, parse_edit
from evalkit.tui.export import write_jsonl_atomic
from evalkit.tui.footer import KeyFooter
from evalkit.tui.help import help_text
from evalkit.tui.journal import Journal, JournalError
from evalkit.tui.journal_lock import JournalLock
from evalkit.tui.model import ReviewError, ReviewSession
from evalkit.tui.proposals import LABEL, REWRITE, Proposal
from evalkit.tui.proposals_table import ProposalsTable, detail_text
from evalkit.tui.queue_view import QueueView
from evalkit.tui.screens import HelpScreen, InputScreen, OrderedInput, TextScreen
from evalkit.tui.visible import ControlFilter, visible
from evalkit.tui.watcher import POLL_SECONDS, config_fingerprint

BATCH_SIZE = 500  # submissions per message while reading; the first one goes out alone, at once
EVALUATION_BATCH = 20  # evaluations between pauses that hand the interpreter back to the screen
REFRESH_SECONDS = 0.25  # how often background progress repaints the queue
FILTER_DELAY = 0.15  # typing in the filter re-filters once the reviewer pauses
FIRST_PAINT_WAIT = 5.0  # background work starts after the first screen, or after this many seconds
INTERACTION_PAUSE = 0.3  # after each move, the background evaluation pauses this long


class ReviewApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "evalkit review"
    COMMANDS = App.COMMANDS | {ReviewCommands}

    BINDINGS = REVIEW_BINDINGS

    class Loaded(Message):
        """A batch of submissions was read; `finished` when the input is exhausted."""

        def __init__(self, batch: list[LoadedSubmission], finished: bool) -> None:
            super().__init__()
            self.batch = batch
            self.finished = finished

    class Evaluated(Message):
        """The background evaluation filled in more of the queue."""

    class ConfigChanged(Message):
        def __init__(self, config: Config) -> None:
            super().__init__()
            self.config = config

    class Exported(Message):
        def __init__(self, path: Path, count: int, error: str | None) -> None:
            super().__init__()
            self.path = path
            self.count = count
            self.error = error

    def __init__(
        self,
        session: ReviewSession,
        files: list[Path],
        journal: Journal,
        export_path: Path,
        *,
        live_rules: bool = True,
        blink: bool = True,
        skipped_entries: int = 0,
        lock: JournalLock | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.files = files
        self.journal = journal
        self.export_path = export_path
        self.exported: list[Path] = []  # the files exported this session (`review --sign` signs them)
        self.live_rules = live_rules
        self.blink = blink
        self.skipped_entries = skipped_entries
        self.lock = lock
        self.journal_problem: str | None = None  # why decisions cannot be saved now; the app is read-only
        self.current: int | None = None
        self.loading = True
        self.changes_seen = 0
        self.first_shown_at: float | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._first_paint = threading.Event()  # background work waits for it: the first screen comes first
        self._interacting_until = 0.0  # the background evaluation yields the interpreter until then
        self._filter_timer: Any = None
        self._control_filter = ControlFilter()
        self.crash_report: str | None = None  # what to print once the screen is gone, after an error

    # What reaches the terminal

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the one that keeps control characters from the terminal."""
        return [*super().get_line_filters(), self._control_filter]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is shown with its control characters visible: many quote file names."""
        super().notify(
            visible(message), title=visible(title), severity=severity, timeout=timeout, markup=markup
        )

    def _fatal_error(self) -> None:
        """Textual prints an unexpected error's traceback with every frame's local variables, which hold
        the reviewer's data (submissions, notes). Here the traceback has no locals, its text goes through
        `visible`, and the command prints it once the screen is gone (`crash_report`). The journal needs
        nothing: every entry was synced when it was written."""
        self.bell()
        report = "".join(traceback.format_exception(*sys.exc_info()))
        journal = visible(str(self.journal.path), lines=False)
        self.crash_report = (
            f"{visible(report)}\nevalkit review stopped on an unexpected error (above). Every decision "
            f"shown as saved is in {journal}; open it again to resume."
        )
        self._close_messages_no_wait()

    async def on_event(self, event: events.Event) -> None:
        """Keys typed ahead are handled in the order they came, by the widget focused when each one's turn
        comes. Textual sends each key to the widget focused when it is read, and runs its binding only once
        it has come back up: in a burst, the keys after `e` went to the queue before the editor opened, and
        were lost. So, unless a text field has the focus (it takes keys in order itself), a key's binding
        runs as soon as the key is read, and an editor it opens has the focus before the next key is."""
        if isinstance(event, events.Key) and not self.screen_stack:
            return  # closing: a key typed ahead came after the last screen went (Textual would raise)
        if isinstance(event, events.Key) and not event.is_forwarded and await self._key_handled_now(event):
            return
        await super().on_event(event)

    async def _key_handled_now(self, key: events.Key) -> bool:
        if _takes_text(self.focused):
            return False
        return await self._check_bindings(key.key, priority=True) or await self._check_bindings(key.key)

    def _focus_now(self, widget: Widget) -> None:
        """Focus at once, not after the keys already read (`Widget.focus` waits its turn in the queue):
        the keys typed after `/` go to the filter, those typed after Enter in it to the queue."""
        self.screen.set_focus(widget)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(ReviewPalette(id="--command-palette"))

    # Layout

    def compose(self) -> ComposeResult:
        # kept as attributes: worker messages can arrive while the screen is closing, when queries fail
        self.status_bar = Static(id="status-bar", markup=False)
        self.filter_input = OrderedInput(
            placeholder="/ filter: words label:x flag:y status:pending",
            id="filter",
            compact=True,
            own_keys={"enter": self._submit_filter, "escape": self.action_leave_filter},
        )
        self.queue = QueueView(self.session, id="queue")
        self.detail_header = Static(id="detail-header", markup=False)
        self.proposals_table = ProposalsTable(id="proposals")
        self.proposal_detail = Static(id="proposal-detail", markup=False)
        self.tabs = DetailTabs(id="tabs")
        yield self.status_bar
        with Horizontal(id="body"):
            with Vertical(id="queue-pane"):
                yield self.filter_input
                yield self.queue
            with Vertical(id="detail-pane"):
                yield self.detail_header
                yield self.proposals_table
                yield self.proposal_detail
                yield self.tabs
        yield KeyFooter()

    def on_mount(self) -> None:
        self.filter_input.cursor_blink = self.blink
        self.tabs.config = self.session.config
        self.queue.focus()
        self._check_journal()
        # a watcher runs at once: the queue's cursor and the submission it selects land in the same frame
        self.watch(self.queue, "cursor", self._cursor_moved, init=False)
        self.update_status()
        self.read_input()
        self.evaluate_in_background()
        if self.live_rules:
            self.poll_config()
        if not self.session.config.ok:
            self.tabs.active = "config"
            self.notify(
                "The config has errors: see the Config tab. Decisions wait until it is fixed.",
                severity="error",
                timeout=10,
            )
        self._report_lock()
        if self.skipped_entries:
            self.notify(
                f"{self.skipped_entries} journal lines could not be read and were skipped.",
                severity="warning",
                timeout=10,
            )

    def _report_lock(self) -> None:
        lock = self.lock
        if lock is not None and lock.problem is not None:
            message = f"{lock.problem}. Another app could write this journal too."
            self.notify(message, severity="warning", markup=False, timeout=10)
        elif lock is not None and lock.stale_holder:
            self.notify(
                f"The journal's lock was left by an app that stopped without quitting ({lock.stale_holder}); "
                "this app holds it now.",
                markup=False,
                timeout=8,
            )

    def _check_journal(self) -> None:
        """Say at once when decisions cannot be saved: the reviewer can still look, and decide once fixed."""
        try:
            self.journal.check_writable()
        except JournalError as exc:
            self.journal_problem = str(exc)
            self.notify(
                f"Read-only: {exc}. You can look through the queue; decisions are not saved until the "
                "journal can be written.",
                severity="error",
                markup=False,
                timeout=30,
            )

    def on_unmount(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._first_paint.set()
        self.journal.close()
        gc.unfreeze()  # what _keep_out_of_gc set aside can be collected again once the app is gone

    # Workers

    @work(thread=True, group="read", exit_on_error=False)
    def read_input(self) -> None:
        batch: list[LoadedSubmission] = []
        posted = False
        for loaded in _submissions(self.files):
            if self._stopping.is_set():
                return
            batch.append(loaded)
            if len(batch) >= BATCH_SIZE or not posted:  # the first one alone, so it shows at once
                self.post_message(self.Loaded(batch, False))
                batch, posted = [], True
                self._first_paint.wait(FIRST_PAINT_WAIT)
        self.post_message(self.Loaded(batch, True))

    @work(thread=True, group="evaluate", exit_on_error=False)
    def evaluate_in_background(self) -> None:
        self._first_paint.wait(FIRST_PAINT_WAIT)
        posted = 0.0
        while not self._stopping.is_set():
            if time.monotonic() < self._interacting_until:
                time.sleep(INTERACTION_PAUSE)  # the reviewer is moving: the screen gets the interpreter
                continue
            self._wake.clear()
            done = self.session.evaluate_pending(EVALUATION_BATCH)
            now = time.monotonic()
            if (done and now - posted >= REFRESH_SECONDS) or (not done and posted):
                self.post_message(self.Evaluated())
                posted = now if done else 0.0
            if done:
                time.sleep(0.001)  # let the screen's thread take the interpreter between batches
            else:
                self._wake.wait(1.0)

    @work(thread=True, group="watch", exit_on_error=False)
    def poll_config(self) -> None:
        folder = self.session.config.folder
        last = config_fingerprint(folder)
        while not self._stopping.wait(POLL_SECONDS):
            now = config_fingerprint(folder)
            if now != last:
                last = now
                self.post_message(self.ConfigChanged(analyze(folder)))

    @work(thread=True, group="export", exclusive=True, exit_on_error=False)
    def export_to(self, path: Path) -> None:
        try:
            count = write_jsonl_atomic(path, self.session.export_records())
        except (OSError, ReviewError) as exc:
            message = f"{path}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.post_message(self.Exported(path, 0, message))
            return
        self.post_message(self.Exported(path, count, None))

    # Messages from the workers

    def on_review_app_loaded(self, message: Loaded) -> None:
        if not self.queue.is_mounted:  # the app is closing
            return
        self.session.add(message.batch)
        _keep_out_of_gc()
        self.queue.reload(keep=self.current)
        self._draw_header()
        self._resume()
        self._wake.set()
        if message.finished:
            self.loading = False
            self._report_orphans()
            if not self.session.items:
                self.show(None)
        self.update_status()

    def on_review_app_evaluated(self, message: Evaluated) -> None:
        if not self.queue.is_mounted:  # the app is closing
            return
        _keep_out_of_gc()
        if self.session.sort != "input" or any(t.key != "status" for t in self.session.query.terms):
            self.queue.reload(keep=self.current)
            self._draw_header()
        self.queue.refresh()
        self.update_status()

    def on_review_app_config_changed(self, message: ConfigChanged) -> None:
        if not self.queue.is_mounted:  # the app is closing
            return
        before = self.session.result(self.current) if self.current is not None else None
        self.tabs.config = message.config
        if not self.session.set_config(message.config):
            errors = sum(1 for d in message.config.diagnostics if d.severity == 1)
            self.notify(
                f"The config now has {errors} error(s); the last good rules stay in use. "
                "See the Config tab (7).",
                severity="error",
                timeout=8,
            )
            self.tabs.draw_active()
            self.update_status()
            return
        self._wake.set()
        self.changes_seen += 1
        if self.current is not None:
            self._report_changes(before, self.session.result(self.current))
        self.show(self.current)
        self.update_status()

    def _report_changes(self, before: Result | str | None, after: Result | str | None) -> None:
        if not isinstance(before, Result) or not isinstance(after, Result):
            return
        lines = result_changes(before, after)
        self.tabs.changes = (lines, datetime.now().strftime("%H:%M:%S"))
        count = f"{len(lines)} change(s)" if lines else "no change"
        self.notify(f"Rules reloaded: {count} for this submission. See the Changes tab (6).", timeout=6)

    def on_review_app_exported(self, message: Exported) -> None:
        if not self.queue.is_mounted:  # the app is closing
            return
        if message.error is not None:
            self.notify(f"Export failed: {message.error}", severity="error", markup=False, timeout=10)
        else:
            self.exported.append(message.path)
            self.notify(f"Exported {message.count} results to {message.path}", markup=False)

    def _resume(self) -> None:
        """Put the cursor where the reviewer stopped, once that submission has been read."""
        if self.session.resume_source is None:
            return
        index = self.session.resume_index()
        if index is None:
            if not self.loading or self.session.index_of(self.session.resume_source) is not None:
                self.session.resume_source = None
            return
        self.session.resume_source = None
        if self.queue.cursor == 0:
            self.queue.select_index(index)

    def _report_orphans(self) -> None:
        orphans = self.session.orphan_sources()
        if orphans:
            self.notify(
                f"The journal has decisions for {len(orphans)} submission(s) not in this input; "
                "they are kept in the journal.",
                severity="warning",
                timeout=10,
            )

    # Showing a submission

    def _cursor_moved(self) -> None:
        index = self.queue.current
        if index is not None:
            self.show(index)

    def show(self, index: int | None, keep: str | None = None) -> None:
        if not self.tabs.is_mounted:  # a message that arrived while the app closes
            return
        self.current = index
        if index is None:
            self.detail_header.update(Text(self.empty_message(), "dim"), layout=False)
            self.proposals_table.show([], {})
            self.tabs.show(None)
            self._update_detail()
            return
        session = self.session
        item = session.items[index]
        shown = Shown(
            index,
            item.source,
            item.loaded.submission,
            session.result(index),
            session.decisions(index),
            session.status(index),
        )
        self._interacting_until = time.monotonic() + INTERACTION_PAUSE
        self.proposals_table.show(session.proposals(index), shown.decisions, keep)
        self.tabs.show(shown)
        self._draw_header()
        self._update_detail()
        if self.first_shown_at is None:
            self.first_shown_at = time.perf_counter()
            self.call_after_refresh(self._first_paint.set)

    def _draw_header(self) -> None:
        """Where we are in the queue and the shown submission's outcome (the queue grows while it loads)."""
        shown = self.tabs.shown
        if shown is not None:
            position = f"{self.queue.cursor + 1}/{len(self.session.view)}"
            self.detail_header.update(header_text(shown, position), layout=False)

    @on(DataTable.RowHighlighted, "#proposals")
    def proposal_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_detail()

    def _update_detail(self) -> None:
        proposal = self.proposals_table.current
        decision = None
        if proposal is not None and self.current is not None:
            decision = self.session.decisions(self.current).get(proposal.target)
        text = detail_text(proposal, decision)
        if text != self.proposal_detail.content:  # the table's highlight message repeats what show() drew
            self.proposal_detail.update(text, layout=False)  # a fixed height: no new layout

    def refresh_current(self) -> None:
        keep = self.proposals_table.current
        self.show(self.current, keep.target if keep else None)
        self.queue.refresh()
        self.update_status()

    def update_status(self) -> None:
        self.status_bar.update(self.status_text(), layout=False)

    def status_text(self) -> Text:
        progress = self.session.progress()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("evalkit review  ", "bold")
        self.append_progress(text)
        if progress.errors:
            text.append(f"  {progress.errors} error(s)", "red")
        if self.journal_problem is not None:
            text.append("  read-only: the journal cannot be written", "bold red")
        if self.loading:
            text.append("  reading…", "yellow")
        elif progress.evaluated < progress.total:
            text.append(f"  evaluating {progress.evaluated}/{progress.total}", "yellow")
        config = self.session.config
        text.append("  config ", "dim")
        text.append("ok" if config.ok else "has errors", "green" if config.ok else "bold red")
        text.append(f"  sort {self.session.sort}", "dim")
        self.append_source(text)
        return text

    def empty_message(self) -> str:
        """What the detail pane says when no submission is shown."""
        return "Reading the input…" if self.loading else "No submission matches the filter."

    def append_progress(self, text: Text) -> None:
        """The header's progress (a team's queue shows the reviewer's and the team's instead)."""
        progress = self.session.progress()
        text.append(f"{progress.done}/{progress.total} reviewed", "bold")

    def append_source(self, text: Text) -> None:
        """Where decisions go, at the header's end."""
        text.append(f"  journal {visible(self.journal.path.name, lines=False)}", "dim")

    # Deciding

    def _selected(self) -> tuple[int, Proposal] | None:
        proposal = self.proposals_table.current
        if self.current is None or proposal is None:
            self.notify("Nothing to decide here: no proposal is selected.", severity="warning")
            return None
        return self.current, proposal

    def _apply(self, change: Callable[[], object]) -> bool:
        """Run a decision; report why it could not be made. The screen changes only once it is on disk."""
        try:
            change()
        except ReviewError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return False
        except JournalError as exc:
            self.notify(f"Not saved: {exc}", severity="error", markup=False, timeout=15)
            return False
        self.journal_problem = None  # saved: the journal was made writable since the start
        self.refresh_current()
        return True

    def action_decide(self, action: str) -> None:
        selected = self._selected()
        if selected is None:
            return
        index, proposal = selected
        if self._apply(lambda: self.session.decide(index, proposal.target, action)):
            self.proposals_table.next_undecided(self.session.decisions(index))
            self._announce_done(index)

    def _announce_done(self, index: int) -> None:
        if self.session.status(index) == filters.DONE:
            self.notify("Submission reviewed. ] goes to the next one to review.", timeout=3)

    def action_accept_all(self) -> None:
        if self.current is not None:
            index = self.current
            self._apply(lambda: self.session.accept_remaining(index))

    def action_toggle_done(self) -> None:
        if self.current is not None:
            index = self.current
            self._apply(lambda: self.session.toggle_done(index))

    async def action_edit(self) -> None:
        selected = self._selected()
        if selected is not None:
            await self._edit(*selected)

    async def action_label(self) -> None:
        label = next((p for p in self.proposals_table.proposals if p.kind == LABEL), None)
        if self.current is None or label is None:
            self.notify("No label to set: this submission has no result.", severity="warning")
            return
        await self._edit(self.current, label)

    async def _edit(self, index: int, proposal: Proposal) -> None:
        if not proposal.editable:
            self.notify(
                f"{proposal.target} is accepted or discarded, not edited.", severity="warning", markup=False
            )
            return
        submission = self.session.items[index].loaded.submission
        evaluator = self.session.engine.evaluator
        if submission is None or evaluator is None:
            return
        decision = self.session.decisions(index).get(proposal.target)
        initial = edit_text(proposal, decision.value if decision is not None else proposal.proposed)
        scale = evaluator.plan.scale

        def validate(text: str) -> Any:
            return parse_edit(proposal, text, submission, scale)

        def save(value: Any) -> None:
            if value is not None and self._apply(
                lambda: self.session.decide(index, proposal.target, EDIT, value)
            ):
                self._announce_done(index)

        title = f"Edit {proposal.target} (engine proposes {edit_text(proposal, proposal.proposed)[:40]!r})"
        if proposal.kind == REWRITE:
            await self._open_editor(
                TextScreen("Edit the rewrite · Ctrl+S saves", initial, validate, self.blink), save
            )
        else:
            suggestions = self.session.known_labels() if proposal.kind == LABEL else ()
            await self._open_editor(InputScreen(title, initial, validate, suggestions, self.blink), save)

    async def _open_editor(self, editor: InputScreen | TextScreen, done: Callable[[Any], None]) -> None:
        """Open an editor and return once it has the focus: the keys typed after the one that opened it
        then go to it, in order, instead of to a screen with nothing focused yet, which dropped them."""
        await self.push_screen(editor, done)

    async def action_note(self) -> None:
        if self.current is None:
            return
        index = self.current
        if self.session.status(index) == filters.ERROR:
            self.notify(
                "This submission could not be read or evaluated; there is nothing to note.",
                severity="warning",
            )
            return

        def save(text: Any) -> None:
            if text is not None:
                self._apply(lambda: self.session.set_note(index, text))

        await self._open_editor(
            TextScreen(
                "Note on this submission · Ctrl+S saves (empty removes it)",
                self.session.note(index),
                str,
                self.blink,
            ),
            save,
        )

    def action_undo(self) -> None:
        self._history(self.session.undo, "Nothing to undo.")

    def action_redo(self) -> None:
        self._history(self.session.redo, "Nothing to redo.")

    def _history(self, move: Callable[[], str | None], nothing: str) -> None:
        try:
            source = move()
        except JournalError as exc:
            self.notify(f"Not saved: {exc}", severity="error", markup=False, timeout=15)
            return
        if source is None:
            self.notify(nothing, severity="warning")
            return
        self.journal_problem = None  # saved: the journal was made writable since the start
        index = self.session.index_of(source)
        if index is not None and index != self.current and not self.queue.select_index(index):
            self.notify(f"Changed {source}, which the filter hides.", markup=False)
        self.refresh_current()

    # Moving and finding

    def action_move(self, delta: int) -> None:
        self.queue.action_move(delta)

    def action_unreviewed(self, direction: int) -> None:
        view = self.session.view
        start = self.queue.cursor
        positions = range(start + 1, len(view)) if direction > 0 else range(start - 1, -1, -1)
        for position in positions:
            if self.session.status(view[position]) in (filters.PENDING, filters.PROGRESS):
                self.queue.set_cursor(position)
                return
        self.notify("No submission left to review in that direction.", severity="information")

    def action_filter(self) -> None:
        self._focus_now(self.filter_input)

    def action_leave_filter(self) -> None:
        if self.focused is not None and self.focused.id == "filter":
            self._focus_now(self.queue)

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, lambda: self.apply_filter(event.value))

    def _submit_filter(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self.apply_filter(self.filter_input.value)
        self._focus_now(self.queue)

    def apply_filter(self, text: str) -> None:
        self.session.query = filters.parse_query(text)
        if self.session.query.unknown:
            self.notify(
                f"Unknown filter key in {self.session.query.unknown[0]}; use label:, flag: or status:",
                severity="warning",
                markup=False,
            )
        self._reload_view()

    def set_filter(self, text: str) -> None:
        """Set the filter from a command: the input shows it, so the reviewer can see and change it."""
        self.filter_input.value = text
        self.apply_filter(text)

    def action_sort(self, sort: str | None = None) -> None:
        sorts = filters.SORTS
        self.session.sort = sort or sorts[(sorts.index(self.session.sort) + 1) % len(sorts)]
        self._reload_view()
        self.notify(f"Sorted by {self.session.sort}.", timeout=2)

    def _reload_view(self) -> None:
        self.queue.reload(keep=self.current)
        if not self.session.view:
            self.show(None)
        self._draw_header()  # the submission may stay while its position in the view changes
        self.update_status()

    def action_tab(self, tab_id: str) -> None:
        self.tabs.active = tab_id

    @on(TabbedContent.TabActivated, "#tabs")
    def tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.tabs.draw_active()

    # App

    def action_help(self) -> None:
        self.push_screen(HelpScreen(help_text(self.BINDINGS, self.get_key_display, self.journal.path)))

    async def action_export(self) -> None:
        if self.loading:
            self.notify("Still reading the input; export once it is all read.", severity="warning")
            return

        def validate(text: str) -> Path:
            path = Path(text.strip()).expanduser()
            if not text.strip() or path.is_dir():
                raise ValueError("type the path of a file to write")
            if not path.parent.is_dir():
                raise ValueError(f"the folder {path.parent} does not exist")
            return path

        def start(path: Any) -> None:
            if path is not None:
                self.notify(f"Exporting {len(self.session.items)} results…", timeout=3)
                self.export_to(path)

        await self._open_editor(
            InputScreen(
                "Export reviewed results (JSON Lines) to", str(self.export_path), validate, blink=self.blink
            ),
            start,
        )

    async def action_quit(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._first_paint.set()
        self.exit(0)


def _takes_text(widget: object) -> bool:
    return isinstance(widget, (Input, TextArea))


def _keep_out_of_gc() -> None:
    """Take the objects that exist now out of the cyclic garbage collector's walks.

    The queue read so far and its summaries live as long as the app. Left in, 10,000 submissions are some
    200,000 objects that every full collection walks (about 100 ms), and one falls on a keypress every
    dozen moves. Reference counting still frees whatever is dropped later.
    """
    gc.freeze()


def _submissions(files: list[Path]) -> Iterator[LoadedSubmission]:
    for path in files:
        yield from read_file(path)
