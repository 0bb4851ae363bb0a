"""`TextView`: read-only text that scrolls, drawn a line at a time (Textual's Line API).

It looks like a `Static` in a `VerticalScroll`, and differs where it matters for moving through the queue:
its own size never depends on its text. A `Static` grows or shrinks with each submission, and Textual then
lays the screen out twice (the `Static`, then its scrolling parent), drawing a frame after each; new text
here only changes the scrollable size, which one layout settles. The text is wrapped once per change of
text, width or style, not once per frame.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual, visualize


class TextView(ScrollView):
    DEFAULT_CSS = """
    TextView {
        overflow-x: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text()
        self._lines: list[Strip] = []

    def update(self, text: Text) -> None:
        """Show `text` (never read as markup), wrapped to the width of the view."""
        self.text = text
        self._wrap()

    def render(self) -> Text:
        return self.text  # what text selection reads; drawing goes through render_line

    def render_line(self, y: int) -> Strip:
        position = y + self.scroll_offset.y
        if position < len(self._lines):
            return self._lines[position]
        return Strip.blank(self.scrollable_content_region.width, self.visual_style.rich_style)

    def _wrap(self) -> None:
        """Wrap beside the scrollbar if the text, so wrapped, is taller than the view; else full width."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # not laid out yet: the first resize wraps
        lines = self._wrapped(width)
        taller = len(lines) > self.content_region.height
        if taller != self.show_vertical_scrollbar and self.styles.scrollbar_gutter != "stable":
            width = self.content_region.width - (self.styles.scrollbar_size_vertical if taller else 0)
            lines = self._wrapped(width)  # narrower text is never shorter: this settles it
        self._lines = lines
        self.virtual_size = Size(width, len(lines))
        self.refresh()

    def _wrapped(self, width: int) -> list[Strip]:
        visual: Visual = visualize(self, self.text, markup=False)
        return Visual.to_strips(self, visual, width, None, self.visual_style)

    def on_resize(self, event: events.Resize) -> None:
        self._wrap()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._wrap()

    def selection_updated(self, selection: Selection | None) -> None:
        self._wrap()
