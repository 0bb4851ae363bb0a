"""YAML text -> plain data plus the position of every node, with the safety limits applied first.

The event stream is scanned before any tree is built, so alias bombs and absurd nesting are refused in
milliseconds; then the tree is composed and turned into plain data, recording each node's span and
refusing duplicate keys (PyYAML would silently keep the last one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from evalkit.engine import limits
from evalkit.engine.diagnostics import Diagnostic, FILE_START, Span, error

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

JsonPath = tuple[str | int, ...]


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


def _span(node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def _mark_span(mark: Any) -> Span:
    return Span.point(mark.line + 1, mark.column + 1) if mark is not None else FILE_START


def _scan_limits(text: str, path: str) -> Diagnostic | None:
    """Refuse too deep nesting and alias expansion before a tree is built."""
    anchored: dict[str, int] = {}
    stack: list[list[Any]] = [[None, 0]]
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([event.anchor, 0])
            if len(stack) > limits.MAX_YAML_DEPTH:
                return error(path, _mark_span(event.start_mark), "yaml-too-deep",
                             f"nesting deeper than {limits.MAX_YAML_DEPTH} levels is refused")
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
            stack[-1][1] += anchored.get(event.anchor, 1)
        if stack[-1][1] > limits.MAX_YAML_NODES or stack[0][1] > limits.MAX_YAML_NODES:
            return error(path, _mark_span(event.start_mark), "yaml-too-large",
                         f"the document expands to more than {limits.MAX_YAML_NODES:,} nodes "
                         "(aliases included) and is refused")
    return None


class _Builder:
    """Turns a composed node tree into plain data, recording spans and duplicate keys."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.spans: dict[JsonPath, NodeSpans] = {}
        self.diagnostics: list[Diagnostic] = []
        self._constructor = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, at: JsonPath, key: Span | None = None) -> Any:
        self.spans[at] = NodeSpans(_span(node), key)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, at)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*at, i)) for i, item in enumerate(node.value)]
        return self._constructor.construct_object(node)

    def _mapping(self, node: yaml.MappingNode, at: JsonPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node)
            if key in out:
                self.diagnostics.append(error(
                    self.path, _span(key_node), "duplicate-key",
                    f"duplicate key '{key}' (first at line {self.spans[(*at, key)].key.line})"))  # type: ignore[union-attr]
                continue
            out[key] = self.build(value_node, (*at, key), _span(key_node))
        return out

    def _key(self, key_node: yaml.Node) -> str:
        if isinstance(key_node, yaml.ScalarNode):
            return str(key_node.value)
        return yaml.serialize(key_node).strip()


def parse_yaml(text: str, path: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Parse one YAML document with every safety limit; problems come back as diagnostics."""
    if len(text) > limits.MAX_YAML_BYTES:
        return None, [error(path, FILE_START, "file-too-large",
                            f"file is {len(text):,} characters; the limit is {limits.MAX_YAML_BYTES:,}")]
    try:
        refused = _scan_limits(text, path)
        if refused is not None:
            return None, [refused]
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_error(exc, path)]
    except yaml.YAMLError as exc:
        return None, [error(path, FILE_START, "yaml-syntax", str(exc))]
    if root is None:
        return YamlDocument(path, text, None), []
    builder = _Builder(path)
    try:
        data = builder.build(root, ())
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_error(exc, path)]
    return YamlDocument(path, text, data, builder.spans), builder.diagnostics


def _syntax_error(exc: yaml.MarkedYAMLError, path: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or "invalid YAML"
    if exc.context and exc.context not in problem:
        problem = f"{problem} ({exc.context})"
    return error(path, _mark_span(mark), "yaml-syntax", problem)
