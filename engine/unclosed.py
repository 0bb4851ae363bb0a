"""A `[`, `{` or quoted string left open while typing: where it began and the end of what was typed in it.

PyYAML reads past such a construct into the lines below, looking for its end, and fails there, lines
away from where the author types. A construct that began on a line should close before the first later
line indented no further than that one (where the next key or item starts): `find_unclosed` finds the
construct that the parser was still in, or that ran past such a line, so that the syntax error can be
marked from its opening to what was typed in it.

Only the text from a top-level line at most `SCAN_WINDOW` characters before the error is scanned, so
that an error at the end of a large file costs no second pass over all of it; a construct that swallowed
more than that is left where the parser put it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import yaml

SCAN_WINDOW = 64_000
_LINE_BREAK = re.compile(r"[\r\n]")
_BLOCK_INDENT = re.compile(r"(?: |-(?= ))*")
_TOP_LEVEL_LINE = re.compile(r"(?:\r\n?|\n)(?=[^\s#])")
_FLOW_KINDS = {
    yaml.FlowSequenceStartToken: "flow sequence '['",
    yaml.FlowMappingStartToken: "flow mapping '{'",
}
_FLOW_ENDS = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)


@dataclass(frozen=True, slots=True)
class Unclosed:
    what: str  # "flow sequence '['", "flow mapping '{'" or "quoted string"
    start: int  # the offset of its opening bracket or quote
    typed_end: int  # the offset after what was typed in it


class _Token(NamedTuple):
    kind: type[yaml.Token]
    quoted: bool
    start: int  # offsets in the whole text
    end: int
    column: int


def find_unclosed(text: str, exc: yaml.MarkedYAMLError, loader: type) -> Unclosed | None:
    """The construct left open that made the parser fail at `exc`, when it failed on a later line than
    what was typed in it; None when the error is where it says."""
    problem = exc.problem_mark
    if problem is None:
        return None
    began = exc.context_mark
    if "quoted scalar" in (exc.context or "") and began is not None:  # never closed
        return _swallowing(text, "quoted string", began.index, began.column, problem.index)
    tokens = _tokens_before(text, problem.index, loader)
    candidates = (
        _open_flow(text, tokens, problem.index),
        _quoted_past_its_block(text, tokens, problem.index),
    )
    found = [unclosed for unclosed in candidates if unclosed is not None]
    return max(found, key=lambda u: u.start) if found else None  # the later one is where typing is


def _tokens_before(text: str, end: int, loader: type) -> list[_Token]:
    """The tokens before `end`, from a top-level line at most SCAN_WINDOW characters before it."""
    start = 0
    if end > SCAN_WINDOW:
        line = _TOP_LEVEL_LINE.search(text, end - SCAN_WINDOW, end)
        start = line.end() if line is not None else end
    tokens: list[_Token] = []
    try:
        for token in yaml.scan(text[start:], Loader=loader):
            if isinstance(token, yaml.StreamEndToken) or start + token.start_mark.index >= end:
                break
            mark = token.start_mark
            tokens.append(
                _Token(
                    type(token),
                    getattr(token, "style", None) in ("'", '"'),
                    start + mark.index,
                    start + token.end_mark.index,
                    mark.column,
                )
            )
    except yaml.YAMLError:
        pass  # a scanner error further on: the tokens so far say what is open
    return tokens


def _open_flow(text: str, tokens: list[_Token], until: int) -> Unclosed | None:
    """The innermost flow collection still open at `until`."""
    opened: list[int] = []
    for number, token in enumerate(tokens):
        if token.kind in _FLOW_ENDS and opened:
            opened.pop()
        elif token.kind in _FLOW_KINDS:
            opened.append(number)
    if not opened:
        return None
    opening = tokens[opened[-1]]
    inside = [(t.start, t.end) for t in tokens[opened[-1] :]]
    return _swallowing(text, _FLOW_KINDS[opening.kind], opening.start, opening.column, until, inside)


def _quoted_past_its_block(text: str, tokens: list[_Token], until: int) -> Unclosed | None:
    """The last quoted string, when it ran on past a line where its block ended: its closing quote is
    another string's opening one, lines below."""
    token = next((t for t in reversed(tokens) if t.kind is yaml.ScalarToken and t.quoted), None)
    if token is None or not _LINE_BREAK.search(text, token.start, token.end):
        return None
    found = _swallowing(text, "quoted string", token.start, token.column, until)
    return found if found is not None and found.typed_end < token.end else None


def _swallowing(
    text: str, what: str, index: int, column: int, until: int, inside: list[tuple[int, int]] | None = None
) -> Unclosed | None:
    """`what`, opened at offset `index` (at `column` of its line), as typed up to the first later line
    indented no further than its own, when the parser went on to a later line (`until`)."""
    # the block the construct is in starts after the line's spaces and sequence dashes: in `  - id: "x`
    # the item's keys stand at column 4, and the next key (`    when:`) ends the quote's line
    block = _BLOCK_INDENT.match(text, index - column, index)
    indent = block.end() - block.start() if block is not None else 0
    dedent = re.compile(f"(?:\r\n?|\n)(?= {{0,{indent}}}[^ \r\n#])").search(text, index, until)
    cut = cut_end = dedent.start() if dedent is not None else until
    while cut_end > index and text[cut_end - 1].isspace():
        cut_end -= 1
    typed_end = max((min(end, cut_end) for start, end in inside or () if start < cut), default=cut_end)
    if not _LINE_BREAK.search(text, typed_end, until):
        return None
    return Unclosed(what, index, typed_end)
