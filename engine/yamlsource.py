"""YAML text -> plain data plus the position of every node, with the safety limits applied first.

The careful path scans the event stream before any tree is built, so alias bombs, recursive aliases and
absurd nesting are refused in milliseconds; then the tree is composed and turned into plain data,
recording each node's span, merging `<<` keys as PyYAML does, and refusing duplicate keys (PyYAML would
silently keep the last).

The scan is a third of the work, and a document short enough that it cannot reach the node limit without
aliases, and that cannot nest deep enough to hurt libyaml's composer (which recurses in C), does not need
it first: it is composed at once, its aliases are sized before it is built, and its limits are checked
while it is turned into data. At the first sign of trouble (too deep, too many nodes, any error) the
document goes through the careful path, which reports the problem exactly as before; the fast path only
ever returns what the careful path would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from evalkit.engine import limits
from evalkit.engine.diagnostics import FILE_START, Diagnostic, Span, error
from evalkit.engine.positions import LineMap, split_lines
from evalkit.engine.unclosed import find_unclosed

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

JsonPath = tuple[str | int, ...]
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(slots=True)
class NodeSpans:
    """Where a node is: its value's span and, for a mapping entry, its key's span."""

    value: Span
    key: Span | None = None


@dataclass(slots=True)
class YamlDocument:
    path: str
    text: str
    data: Any
    spans: dict[JsonPath, NodeSpans] = field(default_factory=dict)
    _lines: list[str] | None = field(default=None, repr=False, compare=False)

    def lines(self) -> list[str]:
        """The text's lines (without their ends), numbered as the spans number them from 1."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def value_span(self, path: JsonPath) -> Span:
        """The span of the node at `path`, or of its nearest ancestor that exists."""
        return self._nearest(path).value

    def key_span(self, path: JsonPath) -> Span:
        """The span of the key naming `path` (the value's span for list items and the root)."""
        spans = self._nearest(path)
        return spans.key or spans.value

    def _nearest(self, path: JsonPath) -> NodeSpans:
        while path and path not in self.spans:
            path = path[:-1]
        return self.spans.get(path) or NodeSpans(FILE_START)


def _span(node: yaml.Node, lines: LineMap) -> Span:
    start, end = node.start_mark, node.end_mark
    if end.index < lines.marks_exact_below:  # the common case, as cheap as reading the marks
        return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
    return Span(*lines.mark(start), *lines.mark(end))


def _mark_span(mark: Any, lines: LineMap) -> Span:
    return Span.point(*lines.mark(mark)) if mark is not None else FILE_START


def _too_deep(path: str, mark: Any, lines: LineMap) -> Diagnostic:
    return error(
        path,
        _mark_span(mark, lines),
        "yaml-too-deep",
        f"nesting deeper than {limits.MAX_YAML_DEPTH} levels is refused",
    )


def _scan_limits(text: str, path: str, lines: LineMap) -> Diagnostic | None:
    """Refuse too deep nesting and alias expansion before a tree is built."""
    anchored: dict[str, int] = {}
    stack: list[list[Any]] = [[None, 0]]
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([event.anchor, 0])
            if len(stack) - 1 > limits.MAX_YAML_DEPTH:  # the first entry stands for the stream
                return _too_deep(path, event.start_mark, lines)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, count = stack.pop()
            if anchor is not None:
                anchored[anchor] = count + 1
            stack[-1][1] += count + 1
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                anchored[event.anchor] = 1
            stack[-1][1] += 1
        elif isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in stack):
                # the composer accepts an alias to an enclosing node; walking the tree would never end
                return error(
                    path,
                    _mark_span(event.start_mark, lines),
                    "recursive-alias",
                    f"the alias *{event.anchor} refers to a node that contains it",
                )
            if event.anchor not in anchored:
                return error(
                    path,
                    _mark_span(event.start_mark, lines),
                    "yaml-syntax",
                    f"the alias *{event.anchor} refers to no anchor (&{event.anchor}) defined before it",
                )
            stack[-1][1] += anchored[event.anchor]
        if stack[-1][1] > limits.MAX_YAML_NODES or stack[0][1] > limits.MAX_YAML_NODES:
            return error(
                path,
                _mark_span(event.start_mark, lines),
                "yaml-too-large",
                f"the document expands to more than {limits.MAX_YAML_NODES:,} nodes "
                "(aliases included) and is refused",
            )
    return None


_SAFE_COMPOSER_DEPTH = 2_000
"""Far below the nesting at which libyaml's composer exhausts the C stack (tens of thousands)."""


def _shallow_for_sure(text: str) -> bool:
    """Whether the document certainly nests less than _SAFE_COMPOSER_DEPTH. Each flow level needs a bracket,
    and block levels need indentation: a nested block collection starts further right than its parent,
    or at the same column once (a sequence under a key), so block nesting is at most twice the longest
    line."""
    brackets = text.count("[") + text.count("{")
    if brackets >= _SAFE_COMPOSER_DEPTH:
        return False
    longest = max(map(len, split_lines(text)), default=0)
    return brackets + 2 * longest + 2 < _SAFE_COMPOSER_DEPTH


_ANCHOR = re.compile(r"(?:^|[\s\[{,:])&")
"""Where an anchor may begin: YAML's `&name` starts a node, after a line start, a space, `[`, `{`, `,` or
the `:` after a quoted key in flow (`{"key":&name ...}`).
Without one a document has no alias (an alias needs an anchor before it), and the fast path need not count
what aliases expand to; a `&` in a plain scalar is a false alarm that only costs the count."""


class _Unchecked(Exception):
    """The fast path met a limit, or might have: the careful path decides and reports."""


class _Builder:
    """Turns a composed node tree into plain data, recording spans and duplicate keys. With `checking`, it
    also enforces the nesting and size limits itself (the tree was not scanned first). A node that aliases
    bring to several places is built at each, and its problems are reported once."""

    def __init__(self, path: str, lines: LineMap, checking: bool = False) -> None:
        self.path, self.lines = path, lines
        self.spans: dict[JsonPath, NodeSpans] = {}
        self.diagnostics: list[Diagnostic] = []
        self._reported: set[Diagnostic] = set()
        self._constructor = yaml.constructor.SafeConstructor()
        # aliases are walked again where they are used, so these count what the scan counts, or more
        self._max_depth = limits.MAX_YAML_DEPTH if checking else None
        self._nodes_left = limits.MAX_YAML_NODES if checking else None

    def build(self, node: yaml.Node, at: JsonPath, key: Span | None = None, depth: int = 0) -> Any:
        if self._nodes_left is not None:
            self._nodes_left -= 1
            if self._nodes_left < 0:
                raise _Unchecked
        self.spans[at] = NodeSpans(_span(node, self.lines), key)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, at, depth + 1)
        if isinstance(node, yaml.SequenceNode):
            self._enter(depth + 1)
            return [self.build(item, (*at, i), None, depth + 1) for i, item in enumerate(node.value)]
        try:
            return self._constructor.construct_object(node)
        except ValueError:  # an integer of more digits than Python converts (4,300: int_max_str_digits)
            self._report(
                error(
                    self.path,
                    _span(node, self.lines),
                    "number-too-large",
                    "expected a number within a float's range (about ±1.8e308), found "
                    f"an integer of {len(str(node.value).lstrip('+-'))} digits",
                )
            )
            return None

    def _enter(self, depth: int) -> None:
        if self._max_depth is not None and depth > self._max_depth:  # also where an alias refers to itself
            raise _Unchecked

    def _mapping(self, node: yaml.MappingNode, at: JsonPath, depth: int) -> dict[str, Any]:
        self._enter(depth)
        out = self._merged(node, at, depth)
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self._key(key_node)
            if key in seen:
                self._report(self._duplicate_key(key, key_node, self.spans[(*at, key)].key))
                continue
            seen.add(key)
            out[key] = self.build(value_node, (*at, key), _span(key_node, self.lines), depth)
        return out

    def _merged(self, node: yaml.MappingNode, at: JsonPath, depth: int) -> dict[str, Any]:
        """The entries of YAML merge keys (`<<: *base`), as PyYAML's loader merges them: the mapping's own
        keys override them, and an earlier merged mapping overrides a later one."""
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                continue
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in reversed(sources):  # so that the earlier mappings' values and spans win
                if isinstance(source, yaml.MappingNode):
                    out.update(self._mapping(source, at, depth + 1))
            bad = next((source for source in sources if not isinstance(source, yaml.MappingNode)), None)
            if bad is not None:  # one merge key, one problem, however many of its values are no mapping
                self._report(self._bad_merge(key_node, bad))
        return out

    def _report(self, diagnostic: Diagnostic) -> None:
        if diagnostic not in self._reported:
            self._reported.add(diagnostic)
            self.diagnostics.append(diagnostic)

    def _duplicate_key(self, key: str, key_node: yaml.Node, first: Span | None) -> Diagnostic:
        """At the second `key`, naming where the first is (its column too when both are on one line)."""
        span = _span(key_node, self.lines)
        where = (
            ""
            if first is None
            else f"{first.line}:{first.column}"
            if first.line == span.line
            else str(first.line)
        )
        return error(self.path, span, "duplicate-key", f"duplicate key '{key}' (first at line {where})")

    def _bad_merge(self, key_node: yaml.Node, source: yaml.Node) -> Diagnostic:
        """At the `<<` that merges what is no mapping, naming where that is when an alias brought it from
        elsewhere (its anchor's line)."""
        key, found = _span(key_node, self.lines), _span(source, self.lines)
        message = "a merge key '<<' takes a mapping or a list of mappings"
        if found.line != key.line:
            message += f"; it merges the value at line {found.line}:{found.column}"
        return error(self.path, key, "yaml-syntax", message)

    def _key(self, key_node: yaml.Node) -> str:
        if isinstance(key_node, yaml.ScalarNode):
            return str(key_node.value)
        return yaml.serialize(key_node).strip()


def parse_yaml(text: str, path: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Parse one YAML document with every safety limit; problems come back as diagnostics."""
    text = text.removeprefix("\ufeff")  # libyaml's marks do not count a byte order mark; PyYAML's do
    if len(text) > limits.MAX_YAML_BYTES:
        return None, [
            error(
                path,
                FILE_START,
                "file-too-large",
                f"file is {len(text):,} characters; the limit is {limits.MAX_YAML_BYTES:,}",
            )
        ]
    if len(text) < limits.MAX_YAML_NODES and _shallow_for_sure(text):
        # each node takes a character or more, so a shorter text reaches the node limit only through
        # aliases, which the fast path counts before it builds; a longer one is scanned first, so that
        # 200,000 nodes are refused in the scan's 0.2 s, not after 1.6 s of building them
        try:
            return _parse_fast(text, path)
        except (_Unchecked, yaml.YAMLError):
            pass  # the careful path finds it again and reports it
    return _parse_careful(text, path)


def _parse_fast(text: str, path: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Compose at once, check the limits while building; raises at the first problem of any kind."""
    root = yaml.compose(text, Loader=_Loader)
    if root is None:
        return YamlDocument(path, text, None), []
    if _ANCHOR.search(text) and _expands_beyond_limit(root):
        raise _Unchecked  # refused by the scan in microseconds, not after building 200,000 nodes
    builder = _Builder(path, LineMap(text), checking=True)
    data = builder.build(root, ())
    return YamlDocument(path, text, data, builder.spans), builder.diagnostics


def _expands_beyond_limit(root: yaml.Node) -> bool:
    """Whether the tree, each alias counted as a copy of what it refers to, has more than MAX_YAML_NODES
    nodes. Aliases share their node, so counting each node once with its expanded size takes time in the
    size of the text, however far the aliases expand."""
    sizes: dict[int, int] = {}
    entered: set[int] = set()
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, children_done = pending.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if not children_done and children:
            if id(node) in entered:
                return True  # an alias to an enclosing node: the careful path reports it
            entered.add(id(node))
            pending.append((node, True))
            pending.extend((child, False) for child in children if id(child) not in sizes)
            continue
        sizes[id(node)] = 1 + sum(sizes.get(id(child), 0) for child in children)
        if sizes[id(node)] > limits.MAX_YAML_NODES:
            return True
    return False


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _parse_careful(text: str, path: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Scan the limits, then compose and build; every problem becomes a diagnostic."""
    lines = LineMap(text)
    try:
        refused = _scan_limits(text, path, lines)
        if refused is not None:
            return None, [refused]
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_error(exc, path, text, lines)]
    except yaml.reader.ReaderError as exc:
        return None, [_reader_error(exc, path, text, lines)]
    except yaml.YAMLError as exc:
        return None, [error(path, FILE_START, "yaml-syntax", str(exc).replace("\n", " "))]
    if root is None:
        return YamlDocument(path, text, None), []
    builder = _Builder(path, lines)
    try:
        data = builder.build(root, ())
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_error(exc, path, text, lines)]
    return YamlDocument(path, text, data, builder.spans), builder.diagnostics


def _reader_error(exc: yaml.reader.ReaderError, path: str, text: str, lines: LineMap) -> Diagnostic:
    """A character YAML refuses (a control character such as NUL), at its line and column. libyaml gives
    its position in bytes, PyYAML in characters; the reader stops at the first such character, which
    is therefore the first of its kind in the text."""
    character = exc.character if isinstance(exc.character, int) else ord(exc.character)
    at = text.find(chr(character))
    return error(
        path,
        Span.point(*lines.position(max(at, 0))),
        "yaml-syntax",
        f"the character U+{character:04X} is not allowed in YAML ({exc.reason})",
    )


_SINGLE_DOCUMENT = "expected a single document in the stream"
SECOND_DOCUMENT = (
    "a second YAML document starts here; evalkit reads one document a file "
    "(remove this `---` line, or put what follows in a file of its own)"
)


def _first_too_deep(text: str, path: str, lines: LineMap) -> Diagnostic | None:
    """Where the nesting first goes deeper than the limit, read by the pure-Python parser (which has no
    nesting limit of its own, and stops here at the limit's depth, far below Python's recursion limit)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > limits.MAX_YAML_DEPTH:
                    return _too_deep(path, event.start_mark, lines)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return None
    return None


def _syntax_error(exc: yaml.MarkedYAMLError, path: str, text: str, lines: LineMap) -> Diagnostic:
    """At the parser's position; the context (what was being parsed) says where that began. A `[`, `{` or
    quote left open (`[1,` being typed) is marked where it began, up to what was typed in it."""
    mark = exc.problem_mark or exc.context_mark
    if "maximum nesting depth" in (exc.problem or ""):
        # PyYAML 6.0.4's scanner has a nesting limit of its own (1,000), met while it looks ahead of the
        # events: the first level too deep is found again without it
        return _first_too_deep(text, path, lines) or _too_deep(path, mark, lines)
    if exc.context == _SINGLE_DOCUMENT and mark is not None:  # PyYAML: "but found another document"
        return error(path, _mark_span(mark, lines), "yaml-syntax", SECOND_DOCUMENT)
    problem = exc.problem or "invalid YAML"
    unclosed = find_unclosed(text, exc, _Loader)
    if unclosed is not None:
        where = "line {}:{}".format(*lines.mark(mark))
        return error(
            path,
            Span(*lines.position(unclosed.start), *lines.position(unclosed.typed_end)),
            "yaml-syntax",
            f"the {unclosed.what} is not closed ({problem} at {where})",
        )
    began = exc.context_mark
    if exc.context and exc.context not in problem:
        where = ""
        if began is not None and mark is not None and began.index != mark.index:
            where = " that began at line {}:{}".format(*lines.mark(began))
        problem = f"{problem} ({exc.context}{where})"
    if mark is not None and text[mark.index : mark.index + 1] == "\t":
        problem += "; YAML cannot indent with tabs: use spaces"
    return error(path, _mark_span(mark, lines), "yaml-syntax", problem)
