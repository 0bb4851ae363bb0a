"""The submission's detail: a one-line header and tabs for everything the engine saw and proposed.

Only the active tab is drawn when the reviewer moves to another submission; the others are drawn when
opened. That keeps moving through the queue fast whatever the size of the responses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Static, TabbedContent, TabPane

from evalkit.engine.config import Config
from evalkit.engine.result import Result
from evalkit.engine.submission import Response, Submission
from evalkit.tui import render
from evalkit.tui.decisions import Decision
from evalkit.tui.queue_view import short_source
from evalkit.tui.text_view import TextView
from evalkit.tui.visible import visible

TABS = (
    ("overview", "Overview"),
    ("prompt", "Prompt"),
    ("responses", "Responses"),
    ("rules", "Rules"),
    ("rewrite", "Rewrite"),
    ("changes", "Changes"),
    ("config", "Config"),
)
SIDE_BY_SIDE_MAX = 2  # two responses read best side by side; more go in tabs
REWRITE_IN_BACKGROUND = 5_000  # characters (both rewrites) from which the rewrite tab is built in a thread


@dataclass(frozen=True, slots=True)
class Shown:
    """What the detail shows: one submission's data, its result (or why there is none) and decisions."""

    index: int
    source: str
    submission: Submission | None
    result: Result | str | None
    decisions: Mapping[str, Decision]
    status: str

    @property
    def problem(self) -> str | None:
        if isinstance(self.result, str):
            return self.result
        if self.result is None:
            return "no result: the config has errors (see the Config tab)"
        return None


def header_text(shown: Shown, position: str) -> Text:
    """One line: where we are, the status and outcome, the note, then the full source (cut first if long)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{position}  ", "dim")
    text.append(visible(short_source(shown.source), lines=False), "bold")
    text.append(f"  {shown.status}", "dim")
    if isinstance(shown.result, Result):
        score = "—" if shown.result.score is None else f"{shown.result.score:g}"
        label = shown.decisions.get("label")
        final = f" → {label.value or '—'}" if label is not None and label.value != shown.result.label else ""
        text.append(visible(f"  label {shown.result.label or '—'}{final}  score {score}", lines=False))
        flags = sum(1 for on in shown.result.flags.values() if on)
        if flags:
            text.append(f"  ⚑{flags}", "red")
    note = shown.decisions.get("note")
    if note is not None:
        text.append(f"  note: {visible(note.note or '', lines=False)}", "italic")
    if short_source(shown.source) != shown.source:
        text.append(f"  {visible(shown.source, lines=False)}", "dim")
    return text


class DetailTabs(TabbedContent):
    """The tabs of the detail view; `show` draws the active one."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, initial="overview")
        self.views: dict[str, TextView] = {}  # by id: drawing never depends on a query succeeding
        for tab_id, title in TABS:
            self.compose_add_child(TabPane(title, self._pane_body(tab_id), id=tab_id))
        self.shown: Shown | None = None
        self.config: Config | None = None
        self.changes: tuple[list[str], str] | None = None
        self._responses_of: tuple[int, int] | None = None

    def show(self, shown: Shown | None) -> None:
        self.shown = shown
        self.draw_active()

    def draw_active(self) -> None:
        painter = getattr(self, f"_draw_{self.active}", None)
        if painter is not None:
            painter()

    def _pane_body(self, tab_id: str) -> VerticalScroll | TextView:
        if tab_id == "responses":
            self.responses_body = VerticalScroll(id="responses-body")
            return self.responses_body
        name = f"{tab_id}-text"
        self.views[name] = TextView(id=name)
        return self.views[name]

    def _set(self, widget_id: str, text: Text) -> None:
        self.views[widget_id].update(text)

    def _draw_overview(self) -> None:
        self._set("overview-text", _overview_text(self.shown))

    def _draw_prompt(self) -> None:
        shown = self.shown
        if shown is None or shown.submission is None:
            self._set("prompt-text", _problem_text(shown))
            return
        result = shown.result if isinstance(shown.result, Result) else None
        self._set("prompt-text", render.prompt_text(shown.submission, result))

    def _draw_rules(self) -> None:
        shown = self.shown
        if shown is None or not isinstance(shown.result, Result):
            self._set("rules-text", _problem_text(shown))
            return
        self._set("rules-text", render.rules_text(shown.result))

    def _draw_rewrite(self) -> None:
        shown = self.shown
        if shown is None or shown.submission is None or not isinstance(shown.result, Result):
            self._set("rewrite-text", _problem_text(shown))
            return
        original, final = shown.submission.rewrite_preferred, shown.result.rewrite_final
        if len(original) + len(final) < REWRITE_IN_BACKGROUND:
            self._set("rewrite-text", render.rewrite_text(original, final))
            return
        self._set("rewrite-text", Text("Comparing the rewrites…", "dim"))
        self._build_rewrite(shown, original, final)

    @work(thread=True, group="rewrite", exclusive=True, exit_on_error=False)
    def _build_rewrite(self, shown: Shown, original: str, final: str) -> None:
        """Diff a long rewrite off the screen's thread: keys are answered meanwhile."""
        text = render.rewrite_text(original, final)
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            self.app.call_from_thread(self._rewrite_built, shown, text)

    def _rewrite_built(self, shown: Shown, text: Text) -> None:
        if self.shown is shown and self.active == "rewrite":  # else the reviewer moved on: drawn anew there
            self._set("rewrite-text", text)

    def _draw_changes(self) -> None:
        if self.changes is None:
            self._set(
                "changes-text",
                Text(
                    "Edit a file in the config folder: the app re-evaluates and lists "
                    "here what changed for the submission on screen.",
                    "dim",
                ),
            )
            return
        lines, when = self.changes
        self._set("changes-text", render.changes_text(lines, when))

    def _draw_config(self) -> None:
        if self.config is not None:
            self._set("config-text", render.diagnostics_text(self.config))

    def _draw_responses(self) -> None:
        shown = self.shown
        key = (shown.index, id(shown.result)) if shown is not None else None
        if key == self._responses_of:
            return  # already built for this submission and result
        self._responses_of = key
        body = self.responses_body
        body.remove_children()
        if shown is None or shown.submission is None:
            body.mount(Static(_problem_text(shown), markup=False))
            return
        body.mount(_responses_widget(shown.submission, shown.result))


def _overview_text(shown: Shown | None) -> Text:
    """Ranking, ratings and outcome, a blank line apart; or, under a blank line, why there are none."""
    if shown is None or shown.submission is None or not isinstance(shown.result, Result):
        return Text("\n").append_text(_problem_text(shown))
    parts = (
        render.ranking_text(shown.submission, shown.result),
        render.ratings_table(shown.result, shown.decisions),
        render.summary_text(shown.result, shown.decisions),
    )
    for part in parts:
        part.rstrip()
    return Text("\n\n").join(parts)


def _problem_text(shown: Shown | None) -> Text:
    problem = shown.problem if shown is not None else None
    return Text(visible(problem or "No submission to show."), "bold red")


def _rank(ranking: list[Any] | tuple[Any, ...], response_id: Any) -> int | None:
    return list(ranking).index(response_id) if response_id in ranking else None


def _response_column(
    response: Response, submission: Submission, result: Result | str | None
) -> VerticalScroll:
    corrected = result.corrected_ranking if isinstance(result, Result) else submission.ranking
    header = render.response_header(
        response.id,
        _rank(submission.ranking, response.id),
        _rank(corrected, response.id),
        response.meta,
        len(response.text),
    )
    return VerticalScroll(
        Static(header, markup=False, classes="response-header"),
        Static(Text(visible(response.text)), markup=False, classes="response-text"),
        classes="response",
    )


def _responses_widget(submission: Submission, result: Result | str | None) -> Horizontal | TabbedContent:
    columns = [_response_column(r, submission, result) for r in submission.responses]
    if len(columns) <= SIDE_BY_SIDE_MAX:
        return Horizontal(*columns, classes="responses-side")
    panes = [
        TabPane(Content(visible(str(r.id), lines=False)), column, id=f"response-{n}")
        for n, (r, column) in enumerate(zip(submission.responses, columns, strict=False))
    ]
    tabs = TabbedContent(classes="responses-tabs")
    for pane in panes:
        tabs.compose_add_child(pane)
    return tabs
