"""Where a position is in a YAML document, read from the text itself.

A half-typed document does not parse, so completion, hover and the code lenses cannot wait for a
parser. This module reads each line's indentation, `- ` item markers and `key:` prefix, and keeps the
stack of open keys and items from the top of the file down, which gives the key path of any line
(`("rating_rules", 2, "when")`). It understands block mappings and sequences (also a sequence at its
key's own column), comments, block scalars (`|`, `>`), and flow collections, on one line or several
(`dimension_gt: { accuracy: 4.5 }`, `- {id: a, when: {...}}`, `rating_rules: [{id: a}, {id: b}]`),
whose keys it indexes with their paths as it does block keys. It never raises: text it does not
understand adds no structure.
A config file holds one document: what follows a second `---` (or a `...`) is put under a path of its
own, `("(document 2)", ...)`, which no schema knows, so that it is never taken for the first document's.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from evalkit.engine.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH

KeyPath = tuple[str | int, ...]

# A mapping key: quoted, or plain up to the first ":" followed by a blank (so "a: b: c" has key "a").
_KEY = re.compile(
    r"""("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{}\[\],&*!|>%@`-][^#]*?|-[^\s#][^#]*?)[ \t]*:(?=[ \t]|$)"""
)
_START = re.compile(r"( *)((?:-(?:[ \t]+|$))*)")  # indentation, then any `- ` item markers
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*")
_DOCUMENT_MARKER = re.compile(r"(?:---|\.\.\.)(?:[ \t]|$)")
_WORD_CHARACTER = r"""[^\s,\[\]{}:#"'*&!|>]"""
"""A character of a key or a plain value's word: any but space, YAML's flow and comment indicators, quotes,
and the alias, anchor, tag and block scalar marks (a rule id may hold dots or emoji)."""
_WORD_BEFORE = re.compile(_WORD_CHARACTER + "*$")
_WORD_AFTER = re.compile(_WORD_CHARACTER + "*")
_ALIAS_NODE = re.compile(r"\*[^\s,\[\]{}]+(?=[ \t]*(?:#.*)?$)")  # a whole node that is an alias
_ANCHOR = re.compile(r"&[^\s,\[\]{}]+[ \t]+")  # an anchor before the node it names


_BRACKET = re.compile(r"[\[\]{}]")


def within_engine_limits(text: str) -> bool:
    """Whether the engine may accept `text`: not longer than its limit, and not nested deeper in flow
    collections (counted by brackets, so a bracket in a quoted string or a comment may count too: the
    bound errs towards refusing only past the engine's own limit of nesting)."""
    if len(text) > MAX_YAML_BYTES + 1:  # + 1: a byte order mark
        return False
    if text.count("[") + text.count("{") <= MAX_YAML_DEPTH:
        return True
    depth = deepest = 0
    for bracket in _BRACKET.finditer(text):
        depth = depth + 1 if bracket.group() in "[{" else max(0, depth - 1)
        deepest = max(deepest, depth)
    return deepest <= MAX_YAML_DEPTH


class Element(NamedTuple):
    """A structural token at the start of a line: a `- ` item marker, or a `key:`."""

    kind: Literal["key", "item"]
    column: int
    name: str = ""
    value: str = ""  # a key's inline value, comment removed
    value_column: int = 0


class Frame(NamedTuple):
    """An open key or item; items carry their index in the sequence."""

    column: int
    segment: str | int
    opens_block: bool  # a key without an inline value: its sequence may sit at the key's own column


@dataclass(frozen=True, slots=True)
class WordAt:
    """The word under a position: a key (its path ends with the key) or a value (the value's path)."""

    path: KeyPath
    is_key: bool
    word: str
    line: int
    start: int
    end: int


class KeyLine(NamedTuple):
    line: int
    element: Element
    path: KeyPath  # the key's full path, its own name last


class AliasLine(NamedTuple):
    """An alias written as a block node (`key: *name`, `- *name`): the path of the node it stands for."""

    line: int
    column: int
    path: KeyPath


@dataclass(frozen=True, slots=True)
class Cursor:
    """What is being typed at a position.

    kind "key": a key of the mapping at `path`; `existing` are the keys it already has.
    kind "value": the value at `path` (for a list item, the path ends with its index).
    """

    kind: Literal["key", "value"]
    path: KeyPath
    line: int
    word: str
    word_start: int
    word_end: int
    existing: frozenset[str] = frozenset()
    in_flow: bool = False
    after_item: bool = False  # the word directly follows this line's `- ` marker


def strip_comment(text: str) -> str:
    """The line without its `# comment` (a `#` inside quotes or a word is not a comment)."""
    if "#" not in text:
        return text
    quote, previous, i = "", " ", 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"" and previous in " \t[{,":
            quote = char
        elif char == "#" and previous in " \t":
            return text[:i]
        previous = char
        i += 1
    return text


def unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        return key[1:-1]
    return key


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def line_elements(text: str) -> list[Element]:
    """The item markers and the key that start a line, left to right."""
    text = strip_comment(text.rstrip("\r\n"))
    start = _START.match(text)
    indent, markers = start.group(1), start.group(2)  # type: ignore[union-attr]  # always matches
    elements = [Element("item", len(indent) + i) for i, char in enumerate(markers) if char == "-"]
    column = start.end()  # type: ignore[union-attr]
    match = _KEY.match(text, column)
    if match:
        value_column = match.end()
        value = text[value_column:]
        stripped = value.lstrip(" \t")
        name = unquote(match.group(1).rstrip())
        elements.append(
            Element("key", column, name, stripped.rstrip(), value_column + len(value) - len(stripped))
        )
    return elements


def top_level_keys(lines: Iterable[str]) -> Iterator[str]:
    """The keys written at the start of a line, in order, read only as far as asked."""
    for line in lines:
        if line[:1] not in ("", " ", "\t", "#", "-"):
            elements = line_elements(line)
            if elements and elements[0].kind == "key":
                yield elements[0].name


def _closes(top: Frame, element: Element) -> bool:
    """Whether a new element ends the open frame `top` (a sibling or something less indented)."""
    if top.column != element.column:
        return top.column > element.column
    return not (element.kind == "item" and not isinstance(top.segment, int) and top.opens_block)


def place(frames: list[Frame], element: Element) -> None:
    """Close what `element` ends, then open it."""
    sibling = None
    while frames and _closes(frames[-1], element):
        popped = frames.pop()
        if popped.column == element.column:
            sibling = popped
    if element.kind == "item":
        index = sibling.segment + 1 if sibling is not None and isinstance(sibling.segment, int) else 0
        frames.append(Frame(element.column, index, True))
    else:
        frames.append(Frame(element.column, element.name, not element.value))


def _path(frames: Sequence[Frame]) -> KeyPath:
    return tuple(frame.segment for frame in frames)


class StructureIndex:
    """Every line's open keys and items, and every key with its path, for one document version.

    Lines are read lazily, only as far as a question needs: a completion near the top of a long file
    reads only the lines above it. Built from a previous version of the same document, the index keeps
    what it had read above the first changed line.
    """

    _read: int  # lines read so far
    _before: list[tuple[Frame, ...]]  # by line: the open keys and items before it
    _scalar_before: list[int | None]  # by line: the column of a block scalar being read, if any
    _flow_before: list[tuple[FlowLevel, ...]]  # by line: the flow collections open before it
    _keys: list[KeyLine]
    _key_lines: list[int]

    def __init__(self, lines: Sequence[str], previous: StructureIndex | None = None) -> None:
        self.lines = [line.rstrip("\r\n") for line in lines]
        start = min(_first_difference(previous.lines, self.lines), previous._read) if previous else 0
        if previous is not None and start > 0:
            self._before = previous._before[
                : start + 1
            ]  # the state before line `start`: reading resumes there
            self._scalar_before = previous._scalar_before[: start + 1]
            self._flow_before = previous._flow_before[: start + 1]
            self._keys = previous._keys[: bisect_left(previous._key_lines, start)]
        else:
            start, self._before, self._scalar_before, self._keys = 0, [()], [None], []
            self._flow_before = [()]
        self._read = start
        self._frames = list(self._before[start])
        self._segments = [frame.segment for frame in self._frames]
        self._scalar_column = self._scalar_before[start]
        self._flow = list(self._flow_before[start])
        self._key_lines = [key.line for key in self._keys]

    def _read_to(self, end: int) -> None:
        """Read lines up to (not including) `end`."""
        while self._read < min(end, len(self.lines)):
            self._read_line(self._read)
            self._read += 1
            self._before.append(tuple(self._frames))
            self._scalar_before.append(self._scalar_column)
            self._flow_before.append(tuple(self._flow))

    def _read_line(self, number: int) -> None:
        text = self.lines[number]
        if self._flow and _closes_flow(text, self._flow[0].holder):
            self._flow.clear()  # a half-typed `[` left open: the block goes on below it
        if self._flow:  # a flow collection goes on from a line above: the whole line is inside it
            self._add_flow_keys(number, 0, ())
            return
        if self._scalar_column is not None and (not text.strip() or _indent(text) > self._scalar_column):
            return
        self._scalar_column = None
        frames, segments = self._frames, self._segments
        if _DOCUMENT_MARKER.match(text):
            if frames:  # not the first document's own `---`
                _next_document(frames)
                segments[:] = [frame.segment for frame in frames]
            return
        elements = line_elements(text)
        for element in elements:
            place(frames, element)
            del segments[len(frames) - 1 :]
            segments.append(frames[-1].segment)
            if element.kind == "key":
                self._keys.append(KeyLine(number, element, tuple(segments)))
                self._key_lines.append(number)
                if _BLOCK_SCALAR.fullmatch(element.value):
                    self._scalar_column = element.column
        start = _flow_start(text, elements) if "{" in text or "[" in text else None
        if start is not None:
            self._add_flow_keys(number, start, tuple(segments), frames[-1].column if frames else -1)

    def _add_flow_keys(self, number: int, start: int, base: KeyPath, holder: int = -1) -> None:
        for key in scan_flow(self.lines[number], start, self._flow, number, base, holder):
            self._keys.append(key)
            self._key_lines.append(number)

    @property
    def keys(self) -> list[KeyLine]:
        """Every key of the document with its path, in file order."""
        self._read_to(len(self.lines))
        return self._keys

    def children(self, path: KeyPath, near: int) -> list[KeyLine]:
        """The keys directly under `path`, whose block includes line `near`: reads on until it closes."""
        depth = len(path)
        line = max(near, 0)
        while line < len(self.lines):
            self._read_to(line + 1)
            in_flow = bool(self._flow_before[line + 1])  # its keys are on the lines below: read on
            if _path(self._before[line + 1][:depth]) != path and line >= near and not in_flow:
                break
            line += 1
        return [key for key in self._keys if len(key.path) == depth + 1 and key.path[:depth] == path]

    def frames_before(self, line: int) -> list[Frame]:
        line = min(max(line, 0), len(self.lines))
        self._read_to(line)
        return list(self._before[line])

    def in_block_scalar(self, line: int, typing_at: int | None = None) -> bool:
        """Whether `line` is the content of a block scalar. A blank line continues the scalar, unless
        `typing_at` (the column where text would start) is not indented past the scalar's key: text
        typed there ends the scalar."""
        if not 0 <= line < len(self.lines):
            return False
        self._read_to(line)
        column = self._scalar_before[line]
        text = self.lines[line]
        if column is None:
            return False
        if text.strip():
            return _indent(text) > column
        return typing_at is None or typing_at > column

    def text(self, line: int) -> str:
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def scalar(self, key: KeyLine) -> str:
        """A key's inline value as text, quotes removed."""
        return unquote(key.element.value)

    def flow_before(self, line: int) -> tuple[FlowLevel, ...]:
        """The flow collections opened on lines above `line` and still open where it begins."""
        if not 0 <= line < len(self.lines):
            return ()
        self._read_to(line)
        return self._flow_before[line]

    def aliases(self) -> list[AliasLine]:
        """Every alias written as the whole value of a block key or item, in file order."""
        self._read_to(len(self.lines))
        found = []
        for number, text in enumerate(self.lines):
            if "*" not in text or self._flow_before[number] or self.in_block_scalar(number):
                continue
            elements = line_elements(text)
            column = _node_start(text, elements)
            alias = _ALIAS_NODE.match(text, column) if elements and column is not None else None
            if alias is not None:
                found.append(AliasLine(number, column, _path(self._before[number + 1])))
        return found

    def keys_on(self, line: int) -> list[KeyLine]:
        """The keys written on `line`, left to right."""
        self._read_to(line + 1)
        at = bisect_left(self._key_lines, line)
        found = []
        while at < len(self._keys) and self._keys[at].line == line:
            found.append(self._keys[at])
            at += 1
        return found


class FlowLevel(NamedTuple):
    """A flow collection open at a point of the text: a mapping (`{`) or a sequence (`[`)."""

    is_map: bool
    path: KeyPath
    entry: int = 0  # a sequence's entries before the current one
    key: str | None = None  # a mapping's key whose value is being read
    token: int = 0  # where the current entry began on the line being read
    holder: int = -1  # the column of the block key or item holding the outermost collection


_FLOW_OPENERS = "{["
_FLOW_SIGNIFICANT = re.compile(r"[{}\[\],:'\"]")
_BLANKS = re.compile(r"[ \t]*")
_SCALAR_END = re.compile(r"[,}\]]")


def _node_start(text: str, elements: Sequence[Element]) -> int:
    """The column where the node of a block line (whose `elements` are given) begins: a key's value, the
    content after the `- ` markers, or the line's content when it has neither."""
    if elements and elements[-1].kind == "key":
        return elements[-1].value_column
    column = elements[-1].column + 1 if elements else 0
    return column + len(text[column:]) - len(text[column:].lstrip(" \t"))


def _flow_start(text: str, elements: Sequence[Element]) -> int | None:
    """The column where a flow collection begins on a block line (`[` under its key too), after an
    anchor (`- &shared {id: a}`), else None."""
    column = _node_start(text, elements)
    anchor = _ANCHOR.match(text, column)
    column = anchor.end() if anchor is not None else column
    return column if text[column : column + 1] in ("{", "[") else None


def _closes_flow(text: str, holder: int) -> bool:
    """Whether a line inside a flow collection is rather the block's next line: YAML indents a flow
    collection's lines past the block node holding it (a closing bracket excepted)."""
    content = text.lstrip(" ")
    if not content or content[0] in "#}]":
        return False
    return len(text) - len(content) <= holder


def scan_flow(
    text: str, start: int, levels: list[FlowLevel], line: int, base: KeyPath, holder: int = -1
) -> Iterator[KeyLine]:
    """The keys of the flow collections on `text` from column `start` on, each with its path (`base`,
    the path of the block node holding the outermost collection, at column `holder`); `levels` (the
    collections open at `start`) is left with those still open at the end of the line. Quotes are read
    to their end on the line; a comment ends the line."""
    body = strip_comment(text)
    if levels:
        levels[-1] = levels[-1]._replace(token=start)
    i = start
    while (found := _FLOW_SIGNIFICANT.search(body, i)) is not None:
        i = found.start()
        char = body[i]
        if char in "'\"":
            i = _quote_end(body, i)
            continue
        if char in _FLOW_OPENERS:
            path = _child_path(levels[-1]) if levels else base
            levels.append(FlowLevel(char == "{", path, token=i + 1, holder=holder))
        elif char in "}]" and levels:
            levels.pop()
            if not levels:
                return
        elif char == "," and levels:
            top = levels[-1]
            levels[-1] = FlowLevel(top.is_map, top.path, top.entry + 1, None, i + 1, top.holder)
        elif char == ":" and levels and levels[-1].is_map and levels[-1].key is None and _ends_key(body, i):
            top = levels[-1]
            key = _flow_key(body, i, top, line)
            levels[-1] = FlowLevel(top.is_map, top.path, top.entry, key.element.name, top.token, top.holder)
            yield key
        i += 1


def _quote_end(text: str, at: int) -> int:
    """The column after the quoted scalar that starts at `at` (the line's end if it is not closed)."""
    quote, i = text[at], at + 1
    while i < len(text):
        if text[i] == "\\" and quote == '"':
            i += 2
            continue
        if text[i] == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return len(text)


def _ends_key(text: str, at: int) -> bool:
    """Whether the `:` at `at` ends a flow mapping's key (followed by a blank, an indicator or the end,
    or right after a quoted key)."""
    return text[at + 1 : at + 2] in ("", " ", "\t", ",", "}", "]") or text[at - 1 : at] in ("'", '"')


def _child_path(level: FlowLevel) -> KeyPath:
    return (
        (*level.path, level.key if level.key is not None else "")
        if level.is_map
        else (*level.path, level.entry)
    )


def _flow_key(text: str, colon: int, level: FlowLevel, line: int) -> KeyLine:
    """The key that the `:` at `colon` ends, with its inline scalar value (none for a collection)."""
    written = text[level.token : colon]
    column = level.token + len(written) - len(written.lstrip())
    name = unquote(written.strip())
    value_column = _BLANKS.match(text, colon + 1).end()  # type: ignore[union-attr]  # always matches
    first = text[value_column : value_column + 1]
    if first in ("'", '"'):
        end = _quote_end(text, value_column)
    elif first in ("{", "["):
        end = value_column
    else:
        found = _SCALAR_END.search(text, value_column)
        end = found.start() if found is not None else len(text)
    value = text[value_column:end].rstrip()
    return KeyLine(line, Element("key", column, name, value, value_column), (*level.path, name))


def _next_document(frames: list[Frame]) -> None:
    """Close everything and open the next document: a frame at a negative column (-N for document N),
    which no line closes."""
    number = 1 - frames[0].column if frames[0].column < 0 else 2
    frames[:] = [Frame(-number, f"(document {number})", True)]


def _first_difference(old: Sequence[str], new: Sequence[str]) -> int:
    """The first line where two versions differ (the shorter length when one extends the other)."""
    for number, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return number
    return min(len(old), len(new))


@dataclass(frozen=True, slots=True)
class _Word:
    line: int
    text: str
    start: int
    end: int


def cursor_at(index: StructureIndex, line: int, column: int) -> Cursor | None:
    """What is being typed at (line, column), both 0-based; None inside a comment or a block scalar."""
    text = index.text(line)
    prefix = text[:column]
    if index.in_block_scalar(line, column):
        return None
    if strip_comment(prefix) != prefix:
        return None
    word_start = _WORD_BEFORE.search(prefix).start()  # type: ignore[union-attr]  # always matches
    open_flow = index.flow_before(line)
    if open_flow:  # the line goes on inside a `{` or `[` opened above it
        word = _Word(line, prefix[word_start:], word_start, _WORD_AFTER.match(text, column).end())  # type: ignore[union-attr]
        return _in_open_flow(index, open_flow, prefix, word)
    frames = index.frames_before(line)
    elements = line_elements(prefix)
    for element in elements:
        place(frames, element)
    word = _Word(line, prefix[word_start:], word_start, _WORD_AFTER.match(text, column).end())  # type: ignore[union-attr]
    if elements and elements[-1].kind == "key":
        return _in_value(frames, prefix, elements[-1].value_column, word)
    content = elements[-1].column + 1 if elements else 0
    while content < len(prefix) and prefix[content] in " \t":
        content += 1
    if prefix[content:word_start].strip():
        return _in_value(frames, prefix, content, word)
    return _in_key(index, frames, word, after_item=bool(elements))


def _in_key(index: StructureIndex, frames: list[Frame], word: _Word, after_item: bool) -> Cursor:
    place(frames, Element("key", word.start, word.text))
    parent = _path(frames[:-1])
    existing = frozenset(k.element.name for k in index.children(parent, word.line) if k.line != word.line)
    return Cursor("key", parent, word.line, word.text, word.start, word.end, existing, after_item=after_item)


def _in_value(frames: list[Frame], prefix: str, value_column: int, word: _Word) -> Cursor:
    base = _path(frames)
    value = prefix[value_column:]
    if value[:1] in ("{", "["):
        found = _in_flow(value, base)
        if found is not None:
            kind, path, existing = found
            return Cursor(kind, path, word.line, word.text, word.start, word.end, existing, in_flow=True)
    return Cursor("value", base, word.line, word.text, word.start, word.end)


def _in_open_flow(
    index: StructureIndex, levels: tuple[FlowLevel, ...], prefix: str, word: _Word
) -> Cursor | None:
    """The cursor on a line that begins inside flow collections (`levels`) opened on the lines above."""
    found = _in_flow(prefix, (), levels)
    if found is None:
        return None
    kind, path, existing = found
    if kind == "key":  # the keys the mapping has on its other lines too
        existing |= {key.element.name for key in index.children(path, word.line) if key.line != word.line}
    return Cursor(kind, path, word.line, word.text, word.start, word.end, existing, in_flow=True)


def _in_flow(
    text: str, base: KeyPath, open_levels: tuple[FlowLevel, ...] = ()
) -> tuple[Literal["key", "value"], KeyPath, frozenset[str]] | None:
    """Inside a flow collection that is still open at the end of `text` (one opened on it, or one of
    `open_levels`, opened above it): whether a key or a value is being typed, its path, and the keys the
    innermost mapping already has (on this line). Read by scan_flow, as the index reads flows."""
    levels = list(open_levels)
    keys = [key.path for key in scan_flow(text, 0, levels, 0, base)]
    if not levels:
        return None
    top = levels[-1]
    if top.is_map and top.key is None:
        return "key", top.path, frozenset(str(path[-1]) for path in keys if path[:-1] == top.path)
    return "value", _child_path(top), frozenset()


def target_at(index: StructureIndex, line: int, column: int) -> WordAt | None:
    """The key or value word at (line, column), with its path; None between words."""
    text = index.text(line)
    start = _WORD_BEFORE.search(text[:column]).start()  # type: ignore[union-attr]  # always matches
    end = _WORD_AFTER.match(text, column).end()  # type: ignore[union-attr]
    if start < end:
        flow = _flow_target(index, line, start, end)
        if flow is not None or index.flow_before(line):
            return flow
    cursor = cursor_at(index, line, end) if start < end else None
    if cursor is None:
        return None
    word = text[start:end]
    if cursor.kind == "key" and text[end:].lstrip().startswith(":"):
        return WordAt((*cursor.path, word), True, word, line, start, end)
    return WordAt(cursor.path, False, word, line, start, end)


def _flow_target(index: StructureIndex, line: int, start: int, end: int) -> WordAt | None:
    """The word from `start` to `end` as a flow mapping's key or its scalar value, if it is one."""
    word = index.text(line)[start:end]
    for key in index.keys_on(line):
        element = key.element
        if element.column <= start and end <= element.column + len(element.name) + 2:
            return WordAt(key.path, True, word, line, start, end)
        scalar = element.value and element.value[0] not in _FLOW_OPENERS  # a collection's keys come after
        if scalar and element.value_column <= start and end <= element.value_column + len(element.value):
            return WordAt(key.path, False, word, line, start, end)
    return None
