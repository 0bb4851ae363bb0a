"""The key bar at the bottom of the screens: Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer unmounts and mounts its key widgets again (a dozen here) every time its screen says the
bindings may have changed: the focus moving from one widget to another, a screen pushed or popped, the
terminal gaining focus. As the review app starts that came three times in a row with the same keys (about
a quarter of the app's start-up CPU), and again on each move between the queue and the proposals, which
show the same keys. This one rebuilds when what it would show differs from what it shows, and once for
any number of such signals that arrive before the rebuild runs.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._shown: tuple[object, ...] | None = None  # what the last compose drew, as _keys() says it
        self._rebuild_pending = False
        self._signalled = False  # a bindings signal came (Footer draws nothing before the first)

    def _keys(self) -> tuple[object, ...]:
        """What the footer's compose draws from: the shown bindings with whether each is enabled and its
        tooltip, and the command palette's key (drawn whether or not its binding is shown)."""
        active = self.screen.active_bindings
        shown = tuple(
            (binding, enabled, tooltip) for _, binding, enabled, tooltip in active.values() if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        return (*shown, None if palette is None else palette[1:])

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:  # Footer rebuilds
            if self._rebuild_pending or (self._signalled and self._keys() == self._shown):
                return  # a rebuild is on its way and reads the keys when it runs, or nothing changed
            self._rebuild_pending = True
        self._signalled = True
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        self._rebuild_pending = False
        await super().recompose()

    def compose(self) -> ComposeResult:
        if self._signalled:  # before the first signal, Footer draws nothing
            self._shown = self._keys()
        yield from super().compose()
