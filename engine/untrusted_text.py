"""How text evalkit did not write (file and folder names, rule ids, labels, submission text, git's errors)
is shown in each output: `shown_as(text, form)`, the one function every face calls for such text.

The forms, and what each guarantees whatever the text holds:

- `terminal`: one line for a terminal or a CI log. No control character reaches it raw (C0, DEL, C1,
  so no ESC sequence: no OSC 52 clipboard write, no OSC 8 link, no colour): each is written as an escape,
  `\\x1b`, `\\n`, `\\r`; nor a character that reorders a line (bidirectional overrides and isolates) or
  ends it (U+2028, U+2029), nor a byte that is not UTF-8 (`\\xNN`, as `shown` writes file names). So no
  line break comes from the text, and its start cannot be a CI runner's command: a leading `::` (GitHub
  Actions' `::error`, `::add-mask::`, `::stop-commands::`) or `##[` is escaped, and so is `##vso[` (Azure
  Pipelines reads it anywhere in a line).
- `github`, `github-property`: the message and a property (`file=`) of a GitHub Actions annotation:
  `terminal`, then the runner's own escapes (`%25`, `%0D`, `%0A`; `%3A` and `%2C` in a property).
- `markdown`: inline Markdown text, in a paragraph, a heading or a table cell: nothing renders but the
  text itself. Markdown's punctuation is backslash-escaped (no emphasis, link, image, code span, table
  cell break), `<` and `&` are entities (no HTML, no entity), a block marker at the start is escaped (no
  heading, list or quote; leading spaces, which would make a code block, are left out), and GitHub's
  @mentions and bare URLs are broken by a zero-width space after `@`, inside `://` and after `www`, so
  that no one is notified and nothing links.
- `markdown-code`: a code span in a Markdown table cell: a fence of more backticks than the text holds in a
  row, the cell's `|` escaped; nothing inside renders.
- `markdown-block`: a fenced code block: its lines kept, their control characters escaped as `terminal`
  escapes them, fenced by more backticks than any line holds.
- `html`: HTML text or attribute value: control characters escaped as `terminal` escapes them, then
  HTML's own escapes.
- `screen`, `screen-line`: text in the reviewer app (a full-screen terminal app, tui/visible.py). Every
  control character escaped as `terminal` escapes it, but `screen` keeps a multi-line text's lines (a
  newline, and "\\r\\n" as one) and its tabs, and `screen-line` (a name, an id, a one-line field) escapes
  tabs too (`\\t`), so that one value stays on one line. No CI runner reads the app's screen: a leading
  `::` is shown as it is.

JSON needs none: every JSON output escapes control characters itself.
"""

from __future__ import annotations

import re
from typing import Literal

from evalkit.engine.text import shown

Form = Literal[
    "terminal", "github", "github-property", "markdown", "markdown-code", "markdown-block", "html", "screen",
    "screen-line",
]  # fmt: skip

UNSEEN = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
"""What no form shows raw beside tab and newline (a regex class's inside): control characters, those that
reorder or end a line, and lone surrogates (undecodable bytes). tui/visible.py's ControlFilter drops them."""
_UNSEEN = re.compile(f"[\n{UNSEEN}]")
_UNSEEN_ON_SCREEN = re.compile(f"\r\n|[{UNSEEN}]")
_UNSEEN_IN_A_FIELD = re.compile(f"[\t\n{UNSEEN}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CI_COMMAND_START = re.compile(r"\s*(?::(?=:)|#(?=#\[))")
"""A line that starts so is a command to GitHub Actions' runner (`::name ...::`, `##[name]`)."""
_CI_COMMAND_ANYWHERE = re.compile(r"#(?=#vso\[)", re.IGNORECASE)
"""Azure Pipelines reads `##vso[...]` anywhere in a line."""

_MARKDOWN_PUNCTUATION = str.maketrans(
    {**{c: "\\" + c for c in "\\`*_[]!|~#"}, "<": "&lt;", ">": "&gt;", "&": "&amp;"}
)
_MARKDOWN_BLOCK_START = re.compile(r"(?:[-+](?=\s|$)|-(?=[-\s]*$)|=(?==*\s*$)|\d{1,9}(?=[.)](?:\s|$)))")
"""A start that would make the line a list item, a thematic break (`---`) or a setext heading's underline
(`#`, `*`, `_`, `>` and backticks are always escaped): the text is escaped just before the match's end
(after a list number's digits)."""
_LIVE_ON_GITHUB = re.compile(r"@|:(?=//)|www(?=\.)", re.IGNORECASE)
"""Where GitHub would start a mention (`@name`), an email or URL autolink (`a@b.c`, `https://`, `www.`)."""
_ZERO_WIDTH_SPACE = "\u200b"
_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def shown_as(text: object, form: Form = "terminal") -> str:
    """`text` (str() of anything else) as `form` shows it (see the module's docstring)."""
    value = text if isinstance(text, str) else str(text)
    return _FORMS[form](value)


def _visible(text: str) -> str:
    """Every character `_UNSEEN` names written as an escape."""
    if text.isascii() and text.isprintable():
        return text
    return _UNSEEN.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    character = found.group()
    code = ord(character)
    if character in _NAMED:
        return _NAMED[character]
    if 0xD800 <= code <= 0xDFFF:
        return shown(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _screen(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    return _UNSEEN_ON_SCREEN.sub(_escape_on_screen, text)


def _escape_on_screen(found: re.Match[str]) -> str:
    return "\n" if found.group() == "\r\n" else _escape(found)


def _screen_line(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    return _UNSEEN_IN_A_FIELD.sub(_escape, text)


def _terminal(text: str) -> str:
    line = _visible(text)
    if "##" not in line and "::" not in line:  # the common case: nothing a runner reads
        return line
    line = _CI_COMMAND_ANYWHERE.sub("\\\\x23", line)
    start = _CI_COMMAND_START.match(line)
    if start is not None:
        line = line[: start.end() - 1] + f"\\x{ord(line[start.end() - 1]):02x}" + line[start.end() :]
    return line


def _github(text: str) -> str:
    return _terminal(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github(text).replace(":", "%3A").replace(",", "%2C")


def _markdown(text: str) -> str:
    # leading spaces would make an indented code block at a line's start (and show nowhere else)
    escaped = _visible(text).translate(_MARKDOWN_PUNCTUATION).lstrip(" \t")
    start = _MARKDOWN_BLOCK_START.match(escaped)
    if start is not None:
        at = start.end() if escaped[start.end() - 1].isdigit() else start.end() - 1
        escaped = escaped[:at] + "\\" + escaped[at:]
    return _LIVE_ON_GITHUB.sub(_broken, escaped)


def _broken(found: re.Match[str]) -> str:
    return found.group() + _ZERO_WIDTH_SPACE


def _markdown_code(text: str) -> str:
    inner = _visible(text).replace("|", "\\|")
    fence = "`" * (_longest_run(inner, "`") + 1)
    # CommonMark takes one space off each end of a span that starts and ends with one (and holds more)
    ends = (inner[:1], inner[-1:])
    padding = " " if "`" in ends or (ends == (" ", " ") and inner.strip(" ")) else ""
    return f"{fence}{padding}{inner or ' '}{padding}{fence}"  # `` is no span: an empty text is a space


def _markdown_block(text: str) -> str:
    lines = [_visible(line) for line in re.split("\r\n|\r|\n", text)]
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    return "\n".join([f"{fence}text", *lines, fence])


def _longest_run(text: str, character: str) -> int:
    runs = re.findall(f"{re.escape(character)}+", text)
    return max(map(len, runs), default=0)


def _html(text: str) -> str:
    return _visible(text).translate(_HTML)


_FORMS = {
    "terminal": _terminal,
    "github": _github,
    "github-property": _github_property,
    "markdown": _markdown,
    "markdown-code": _markdown_code,
    "markdown-block": _markdown_block,
    "html": _html,
    "screen": _screen,
    "screen-line": _screen_line,
}
