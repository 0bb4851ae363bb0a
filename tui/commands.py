"""The command palette's review commands: every key's action, plus one filter per label, flag and status.

Names built from data (labels and flags come from the rules) are shown as plain `Content`, never as
markup, so a flag called `[/x]` cannot break the palette.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from evalkit.tui import filters
from evalkit.tui.visible import visible

if TYPE_CHECKING:
    from evalkit.tui.app import ReviewApp


class Command(NamedTuple):
    name: str
    help: str
    run: Callable[[], object]


class ReviewCommands(Provider):
    @property
    def review_app(self) -> ReviewApp:
        return self.app  # type: ignore[return-value]

    def commands(self) -> Iterator[Command]:
        yield from palette_commands(self.review_app)

    async def discover(self) -> Hits:
        for command in self.commands():
            name = visible(command.name, lines=False)
            yield DiscoveryHit(Content(name), command.run, text=name, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            name = visible(command.name, lines=False)
            score = matcher.match(name)
            if score > 0:
                display = Content(name) if "[" in name else matcher.highlight(name)
                yield Hit(score, display, command.run, text=name, help=command.help)


class ReviewPalette(CommandPalette):
    """Textual's palette, whose page keys do nothing while its list has no room: Textual's own page move
    raises KeyError there (a terminal a few rows high, or a list not laid out yet), which ended the app."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "page(1)", "Next page", show=False),
        Binding("pageup", "page(-1)", "Previous page", show=False),
    ]

    def action_page(self, direction: int) -> None:
        commands = self.query_one(CommandList)
        if commands.scrollable_content_region.height < 1 or not commands.option_count:
            return
        if direction > 0:
            commands.action_page_down()
        else:
            commands.action_page_up()


def palette_commands(app: ReviewApp) -> Iterator[Command]:
    """Every key's action (by the binding's description), then a filter per status, label and flag in the
    queue, and a sort per order."""
    for binding in app.BINDINGS:
        if isinstance(binding, Binding) and binding.description and binding.id != "queue.leave_filter":
            key = binding.key.split(",")[0]
            yield Command(binding.description, f"key {key}", _runner(app, binding.action))
    yield Command("Clear the filter", "show every submission", lambda: app.set_filter(""))
    for status in filters.STATUSES:
        yield Command(
            f"Filter status: {status}", "show submissions with this status", _setter(app, f"status:{status}")
        )
    for label in _labels_in_queue(app):
        yield Command(
            f"Filter label: {label}", "show submissions with this label", _setter(app, f"label:{label}")
        )
    for flag in _flags_in_queue(app):
        yield Command(
            f"Filter flag: {flag}", "show submissions with this flag set", _setter(app, f"flag:{flag}")
        )
    for sort in filters.SORTS:
        yield Command(f"Sort by {sort}", "order the queue", _sorter(app, sort))


def _labels_in_queue(app: ReviewApp) -> list[str]:
    session = app.session
    found = {item.summary.label for item in session.items if item.summary and item.summary.label}
    return sorted(found | set(session.known_labels()))


def _flags_in_queue(app: ReviewApp) -> list[str]:
    return sorted({flag for item in app.session.items if item.summary for flag in item.summary.flags})


def _runner(app: ReviewApp, action: str) -> Callable[[], object]:
    return lambda: app.run_action(action)


def _setter(app: ReviewApp, text: str) -> Callable[[], object]:
    return lambda: app.set_filter(text)


def _sorter(app: ReviewApp, sort: str) -> Callable[[], object]:
    return lambda: app.action_sort(sort)
