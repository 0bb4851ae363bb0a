"""The command palette's review commands: every key's action, plus one filter per label, flag and status.

Names built from data (labels and flags come from the rules) are shown as plain `Content`, never as
markup, so a flag called `[/x]` cannot break the palette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple
from collections.abc import Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

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
        yield from self.review_app.palette_commands()

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(Content(command.name), command.run, text=command.name, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.name)
            if score > 0:
                display = Content(command.name) if "[" in command.name else matcher.highlight(command.name)
                yield Hit(score, display, command.run, text=command.name, help=command.help)
