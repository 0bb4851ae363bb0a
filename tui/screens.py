"""Modal screens: help, a one-line editor (ratings, ranking, label, export path) and a text editor (rewrite,
note). Editors check the value before closing and say what is wrong; Escape closes without a change."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Static, TextArea

from evalkit.tui.footer import KeyFooter
from evalkit.tui.visible import visible

Validate = Callable[[str], Any]  # returns the value, or raises ValueError with a message for the reviewer


OwnKeys = dict[str, Callable[[], object]]  # keys a text field's screen handles, in the field's order


async def _in_order(widget: OrderedInput | OrderedTextArea, event: events.Key) -> None:
    """Handle a key in the text field's own queue, in the order the keys came.

    Left to Textual, a binding (Backspace, Enter) or a screen's key (Ctrl+S, Escape) runs only once the
    key has bubbled up to the app, while a character is typed as soon as the field reads it: in a burst
    (`BSpace BSpace BSpace 3 Enter`) the 3 went in first and the wrong rating was saved. Here they run
    in turn. A key that reaches the field after it lost the focus (its editor closed: the keys typed
    after Enter) goes back to the app, which gives it to whatever has the focus now."""
    handled = True
    if widget.app.focused is not widget:
        widget.app.post_message(events.Key(event.key, event.character))
    elif event.key in widget.own_keys:
        widget.own_keys[event.key]()
    elif bindings := widget._bindings.key_to_bindings.get(event.key):
        await widget.run_action(bindings[0].action)
    else:
        handled = False  # a character: the field's own handler, next in Textual's dispatch, types it
    if handled:
        event.stop()
        event.prevent_default()


class OrderedInput(Input):
    """An Input whose keys are handled in the order they came (see `_in_order`)."""

    def __init__(self, *args: Any, own_keys: OwnKeys | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.own_keys = own_keys or {}

    async def _on_key(self, event: events.Key) -> None:
        await _in_order(self, event)


class OrderedTextArea(TextArea):
    """A TextArea whose keys are handled in the order they came (see `_in_order`)."""

    def __init__(self, *args: Any, own_keys: OwnKeys | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.own_keys = own_keys or {}

    async def _on_key(self, event: events.Key) -> None:
        await _in_order(self, event)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")
    ]

    def __init__(self, help_text: Text) -> None:
        super().__init__()
        self.help_text = help_text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "evalkit review: keys and filters"
            body.border_subtitle = "Esc closes"
            yield Static(self.help_text, markup=False)


class _EditorScreen(ModalScreen[Any]):
    """Shared by the editors: a title, the editor, a line for what is wrong, and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="edit.cancel")]

    HINT = ""

    def __init__(self, title: str, validate: Validate) -> None:
        super().__init__()
        self.title_text = title
        self.validate = validate

    def editor(self) -> Input | TextArea:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-box") as box:
            box.border_title = Content(visible(self.title_text, lines=False))  # may quote a submission
            yield self.editor()
            yield Static(Text(self.HINT, "dim"), id="edit-hint", markup=False)
            yield Static("", id="edit-error", markup=False)
        yield KeyFooter()

    def submit(self, text: str) -> None:
        try:
            value = self.validate(text)
        except ValueError as exc:
            error = self.query_one("#edit-error", Static)
            error.update(Text(visible(str(exc)), "bold red"))
            error.display = True
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class InputScreen(_EditorScreen):
    """Edit one line; Enter saves."""

    HINT = "Enter saves · Esc cancels"

    def __init__(
        self,
        title: str,
        initial: str,
        validate: Validate,
        suggestions: Iterable[str] = (),
        blink: bool = True,
    ) -> None:
        super().__init__(title, validate)
        self.initial = initial
        self.suggestions = list(suggestions)
        self.blink = blink

    def editor(self) -> Input:
        suggester = SuggestFromList(self.suggestions, case_sensitive=False) if self.suggestions else None
        editor = OrderedInput(self.initial, id="edit-input", suggester=suggester, select_on_focus=False)
        editor.own_keys.update(enter=lambda: self.submit(editor.value), escape=self.action_cancel)
        return editor

    def on_mount(self) -> None:
        for editor in self.query(Input):  # none once keys typed ahead closed the editor before this ran
            editor.cursor_blink = self.blink


class TextScreen(_EditorScreen):
    """Edit free text over several lines; Ctrl+S saves (Enter is a new line)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]
    HINT = "Ctrl+S saves · Esc cancels · Enter is a new line"

    def __init__(self, title: str, initial: str, validate: Validate, blink: bool = True) -> None:
        super().__init__(title, validate)
        self.initial = initial
        self.blink = blink

    def editor(self) -> TextArea:
        own_keys: OwnKeys = {"ctrl+s": self.action_save, "escape": self.action_cancel}
        return OrderedTextArea(
            self.initial, id="edit-text", soft_wrap=True, tab_behavior="focus", own_keys=own_keys
        )

    def on_mount(self) -> None:
        for editor in self.query(TextArea):  # none once keys typed ahead closed the editor before this ran
            editor.cursor_blink = self.blink

    def action_save(self) -> None:
        self.submit(self.query_one(TextArea).text)
