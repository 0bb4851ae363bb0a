"""engine/untrusted_text.py's forms, as laws over any text: a terminal or a CI log gets one line with no
control character and no runner command; Markdown (parsed by markdown-it, CommonMark with GFM's tables)
renders the text and nothing else; a code span keeps it whole; HTML escapes it."""

from __future__ import annotations

import html
import re

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evalkit.engine.untrusted_text import shown_as

HOSTILE = st.lists(
    st.one_of(
        st.sampled_from(list("\x1b\x07\x9b\r\n\t\x00\x7f\u2028\u202e\u2066`|*_[]()!<>&#@:/.-+=~\\ ")),
        st.sampled_from(["::", "##[", "##vso[", "https://", "www.", "@alice", "<img src=x>", "1. ", "- "]),
        st.characters(codec="utf-8"),
        st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),  # a byte of a name that is not UTF-8
    ),
    max_size=30,
).map("".join)
UNSEEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
COMMAND_START = re.compile(r"\s*(::|##\[)")
GFM = MarkdownIt("commonmark").enable("table")
ZERO_WIDTH_SPACE = "\u200b"


def visible(text: str) -> str:
    """The text as every form shows it before its own escapes (read back from the HTML form)."""
    return html.unescape(shown_as(text, "html"))


@given(HOSTILE)
@example("\x1b]52;c;SGVsbG8=\x07")  # OSC 52: a clipboard write
@example("\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\")  # OSC 8: a hyperlink
@example("  ::add-mask::secret")
@example("ok\r::error::forged")
@example("a ##vso[task.setvariable variable=x]1")
def test_a_terminal_gets_one_line_without_controls_or_runner_commands(text: str) -> None:
    line = shown_as(text)
    assert UNSEEN.search(line) is None
    assert COMMAND_START.match(line) is None
    assert "##vso[" not in line.lower()
    assert shown_as(line) == line  # showing twice changes nothing: a message may hold a shown name


@given(HOSTILE)
@example("a,b:c%d\r\ne")
def test_a_github_annotation_property_holds_no_separator(text: str) -> None:
    value = shown_as(text, "github-property")
    assert not set(value) & set(",:\r\n") and UNSEEN.search(value) is None


@given(HOSTILE)
@example("`<img src=https://x/y.png>` [l](https://x) ![i](https://x/i.png)")
@example("# heading")
@example("\t\x1b")  # an indented code block
@example("\xa0")
@example("---")  # a thematic break
@example("-- -")
@example("    - item")
@example("- item")
@example("12. item")
@example("> quote")
@example("a@b.com @alice https://x.y www.example.com")
@example("&amp; &#64;")
@example("*a* _b_ ~~c~~")
def test_markdown_renders_the_text_and_nothing_else(text: str) -> None:
    tokens = GFM.parse(shown_as(text, "markdown"))
    inline = [token for token in tokens if token.type == "inline"]
    assert [token.type for token in tokens if token.type != "inline"] in (
        [],
        ["paragraph_open", "paragraph_close"],
    )
    children = [child for token in inline for child in token.children or []]
    assert {child.type for child in children} <= {"text"}
    rendered = "".join(child.content for child in children)
    # a paragraph drops the whitespace around it (markdown-it: any Unicode space, as str.strip)
    assert (
        rendered.replace(ZERO_WIDTH_SPACE, "").strip() == visible(text).replace(ZERO_WIDTH_SPACE, "").strip()
    )
    assert re.search(r"@[A-Za-z0-9]|://|(?<![A-Za-z0-9])www\.", rendered, re.IGNORECASE) is None


@given(HOSTILE, HOSTILE)
@example("a\rb | c", "x`y``z")
@example("", " ")
def test_a_table_row_keeps_its_cells_and_a_code_span_its_text(text: str, code: str) -> None:
    row = f"| {shown_as(text, 'markdown')} | {shown_as(code, 'markdown-code')} |"
    tokens = GFM.parse(f"| a | b |\n| --- | --- |\n{row}\n")
    body = [t.type for t in tokens[tokens.index(next(t for t in tokens if t.type == "tbody_open")) :]]
    assert body.count("tr_open") == 1 and body.count("td_open") == 2
    cells = [t for t in tokens if t.type == "inline"][2:]
    (span,) = [child for child in cells[1].children or [] if child.type == "code_inline"]
    assert span.content == (visible(code) or " ")


@given(HOSTILE)
@example("```\n# not a heading\n````")
def test_a_fenced_block_keeps_every_line_inside(text: str) -> None:
    tokens = GFM.parse(shown_as(text, "markdown-block"))
    assert [token.type for token in tokens] == ["fence"]
    lines = re.split("\r\n|\r|\n", text)
    assert tokens[0].content == "".join(visible(line) + "\n" for line in lines)


@given(HOSTILE)
def test_html_is_text(text: str) -> None:
    shown = shown_as(text, "html")
    assert not set(shown) & set("<>\"'") and UNSEEN.search(shown) is None


@given(HOSTILE)
@example("a\r\nb\rc\td\u2028e")
def test_the_reviewer_apps_screen_keeps_lines_and_shows_every_other_control_as_an_escape(text: str) -> None:
    from evalkit.engine.untrusted_text import UNSEEN as NOT_RAW

    screen = shown_as(text, "screen")
    assert re.search(f"[{NOT_RAW}]", screen) is None
    assert screen.count("\n") == text.count("\n")  # "\r\n" is one newline; a lone "\r" is an escape
    field = shown_as(text, "screen-line")
    assert re.search(f"[\t\n{NOT_RAW}]", field) is None
    assert shown_as(field, "screen-line") == field
