"""The help screen's text: the keys by group, from the bindings themselves, then the filter's syntax."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from rich.text import Text
from textual.binding import Binding, BindingType

from evalkit.tui.bindings import with_prefix
from evalkit.tui.detail import TABS
from evalkit.tui.visible import visible

HELP_GROUPS = (("review", "Decide"), ("queue", "Move and find"), ("tabs", "Show"), ("app", "App"))

FILTER_HELP = """\
The filter is words and key:value terms, all of which must hold:
  label:good  flag:low_accuracy  status:pending|progress|done|error
  -flag:too_short (a leading - negates)   dijkstra (a word in the source or prompt)
The view is recomputed when the filter or sort changes; s cycles the sort."""


def help_text(bindings: Iterable[BindingType], key_display: Callable[[Binding], str], journal: Path) -> Text:
    """`key_display` shows a key as the app does (App.get_key_display); `journal` is where decisions go."""
    bindings = list(bindings)
    text = Text()
    for prefix, title in HELP_GROUPS:
        text.append(f"{title}\n", "bold")
        if prefix == "tabs":
            _help_line(text, "1 … 7", ", ".join(title for _, title in TABS))
        for binding in with_prefix(bindings, prefix) if prefix != "tabs" else ():
            keys = ", ".join(key_display(Binding(key, "")) for key in binding.key.split(","))
            _help_line(text, keys, binding.tooltip or binding.description)
        if prefix == "queue":
            _help_line(text, "↑ ↓ PgUp…", "move in the queue (Home, End and the mouse too)")
        if prefix == "app":
            _help_line(text, "^p", "command palette: every action, filters by label, flag, status")
            _help_line(text, "tab", "move the focus: queue, filter, proposals, tabs")
        text.append("\n")
    text.append(FILTER_HELP + "\n\n")
    text.append("Every decision is written to the journal at once: ")
    text.append(visible(str(journal), lines=False), "bold")
    text.append("\nReopening with the same journal resumes where you stopped.\n")
    return text


def _help_line(text: Text, keys: str, description: str) -> None:
    text.append(f"  {keys:<10}", "bold cyan")
    text.append(f"{description}\n")
