"""The queue: a virtual list of submissions drawn a line at a time (Textual's Line API).

Only the visible rows are ever rendered, so ten thousand submissions cost what forty do; a ListView would
build a widget per row. Rows come from the session's current view (filtered and sorted); the cursor is a
position in that view (`cursor`, a reactive the app watches), and `current` is the submission under it.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from evalkit.tui import filters
from evalkit.tui.model import ReviewSession
from evalkit.tui.visible import visible

GLYPHS = {filters.PENDING: "○", filters.PROGRESS: "◐", filters.DONE: "●", filters.ERROR: "✗"}
LABEL_WIDTH = 13
SCORE_WIDTH = 5
FLAGS_WIDTH = 4


def short_source(source: str) -> str:
    """The file name, with `:line` for a JSONL line: enough to tell rows apart in a narrow column."""
    path, colon, line = source.rpartition(":")
    if colon and line.isdigit() and path:
        return f"{PurePath(path).name}:{line}"
    return PurePath(source).name or source


class QueueView(ScrollView):
    """One line per submission: status, name, label, score and the number of flags."""

    can_focus = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "queue--cursor",
        "queue--pending",
        "queue--progress",
        "queue--done",
        "queue--error",
        "queue--muted",
    }

    # no repaint of its own: watch_cursor repaints just the two rows that changed
    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

    def __init__(self, session: ReviewSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session

    @property
    def current(self) -> int | None:
        """The submission index under the cursor, or None for an empty view."""
        view = self.session.view
        return view[self.cursor] if 0 <= self.cursor < len(view) else None

    def reload(self, keep: int | None = None) -> None:
        """Recompute the view; keep the cursor on submission `keep` when it is still there."""
        view = self.session.refresh_view()
        self.virtual_size = Size(self.size.width, len(view))
        position = view.index(keep) if keep is not None and keep in view else min(self.cursor, len(view) - 1)
        self.set_cursor(max(position, 0), notify=keep is None or keep not in view)
        self.refresh()

    def set_cursor(self, position: int, notify: bool = True) -> None:
        if notify:
            self.cursor = position
        else:
            self.set_reactive(QueueView.cursor, position)
        self.scroll_to_cursor()

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_rows(old, new)

    def _refresh_rows(self, *positions: int) -> None:
        """Repaint just these rows (a scroll repaints everything by itself)."""
        top, width = self.scroll_offset.y, self.size.width
        self.refresh(*(Region(0, position - top, width, 1) for position in positions))

    def scroll_to_cursor(self) -> None:
        if self.is_mounted:
            self.scroll_to_region(
                Region(0, self.cursor, 1, 1), animate=False, force=True, x_axis=False, immediate=True
            )

    def select_index(self, index: int) -> bool:
        """Move the cursor to submission `index`; False when the filter hides it."""
        if index not in self.session.view:
            return False
        self.cursor = self.session.view.index(index)
        self.scroll_to_cursor()
        return True

    def action_move(self, delta: int) -> None:
        if self.session.view:
            self.cursor = min(max(self.cursor + delta, 0), len(self.session.view) - 1)
            self.scroll_to_cursor()

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(self.scrollable_content_region.height - 1, 1))

    def action_jump(self, position: int) -> None:
        self.action_move((position if position >= 0 else len(self.session.view)) - self.cursor)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            position = offset.y + self.scroll_offset.y
            if position < len(self.session.view):
                self.cursor = position

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.session.view))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        position = y + self.scroll_offset.y
        base = self.rich_style
        if position >= len(self.session.view):
            return Strip.blank(width, base)
        text = self._row_text(self.session.view[position])
        if position == self.cursor:
            text.stylize(self.get_component_rich_style("queue--cursor"))
        segments = list(text.render(self.app.console))
        return Strip(Segment.apply_style(segments, base)).crop_extend(0, width, base)

    def _row_text(self, index: int) -> Text:
        session = self.session
        item = session.items[index]
        status = session.status(index)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(f"{GLYPHS[status]} ", self._style(f"queue--{status}"))
        name_width = max(
            self.scrollable_content_region.width - 2 - LABEL_WIDTH - SCORE_WIDTH - FLAGS_WIDTH, 8
        )
        text.append(_fit(visible(short_source(item.source), lines=False), name_width))
        if status == filters.ERROR:
            error = item.loaded.error or (item.summary.error if item.summary else "") or "error"
            text.append(
                _fit(f" {visible(error, lines=False)}", LABEL_WIDTH + SCORE_WIDTH + FLAGS_WIDTH),
                self._style("queue--error"),
            )
            return text
        if item.summary is None:
            waiting = " …" if session.engine.evaluator is not None else " no config"
            text.append(_fit(waiting, LABEL_WIDTH), self._style("queue--muted"))
            return text
        text.append(_fit(f" {visible(session.final_label(index) or '—', lines=False)}", LABEL_WIDTH))
        score = item.summary.score
        text.append(f"{'—' if score is None else f'{score:g}':>{SCORE_WIDTH}}")
        flags = len(session.final_flags(index))
        text.append(f"{f' ⚑{flags}' if flags else '':<{FLAGS_WIDTH}}", self._style("queue--error"))
        return text

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)


def _fit(text: str, width: int) -> str:
    """Pad or cut to exactly `width` cells, marking a cut with an ellipsis."""
    if cell_len(text) > width:
        return set_cell_size(text, max(width - 1, 0)) + "…"
    return set_cell_size(text, width)
