"""Comment templates: Jinja2 in an immutable sandbox, checked and compiled once at load.

The sandbox blocks attribute escapes but not resource abuse, so every value a template builds is capped
(template_caps.py); this module allows only a short list of harmless filters and no globals; refuses
loops, macros, variables (`set`, `with`), private names and deep nesting when the template is loaded; and
cuts the rendered output (limits.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

from evalkit.engine import limits

CONTEXT_NAMES = frozenset({"signals", "detail", "corrected"})
SAFE_FILTERS = frozenset(
    {
        "abs",
        "capitalize",
        "count",
        "d",
        "default",
        "first",
        "float",
        "int",
        "join",
        "last",
        "length",
        "lower",
        "max",
        "min",
        "round",
        "string",
        "title",
        "trim",
        "truncate",
        "upper",
        "tojson",
        "sort",
    }
)


class TemplateProblem(ValueError):
    """A template that does not parse, uses names its context lacks, or uses what the sandbox refuses."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@cache
def environment() -> Any:
    from jinja2.compiler import CodeGenerator, Frame
    from jinja2.exceptions import SecurityError
    from jinja2.nodes import Concat
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from evalkit.engine import template_caps as caps  # only Jinja builds values: text and lookups need none

    class CappedCode(CodeGenerator):
        def visit_Concat(self, node: Concat, frame: Frame) -> None:
            self.write("environment.capped_concat((")  # `a ~ b`, which the sandbox does not intercept
            for value in node.nodes:
                self.visit(value, frame)
                self.write(", ")
            self.write("))")

    class CappedSandbox(ImmutableSandboxedEnvironment):
        code_generator_class = CappedCode
        intercepted_binops = frozenset({"*", "**", "+", "-", "/", "//", "%"})
        capped_concat = staticmethod(caps.concat)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            return caps.binop(self.binop_table, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            if caps.call_too_long(__obj, args, kwargs):
                raise SecurityError(
                    f"'{__obj.__name__}' would build a string longer than "
                    f"{limits.MAX_TEMPLATE_SEQUENCE:,} characters"
                )
            return caps.built(super().call(__context, __obj, *args, **kwargs))

    env = CappedSandbox(autoescape=False, finalize=caps.printed)
    env.filters = {
        name: caps.capped_filter(name, function)
        for name, function in env.filters.items()
        if name in SAFE_FILTERS
    }
    env.globals.clear()
    return env


_STATEMENTS = {"Assign": "set", "AssignBlock": "set", "CallBlock": "call", "FromImport": "from"}
"""The tag a refused node stands for, where its name is not the tag's (variables would let a template
double a value at each step: `{% set a = a ~ a %}`)."""

_BLOCK_TAGS = frozenset({"if", "for", "macro", "call", "filter", "with", "block", "autoescape", "set"})


def _too_deep(source: str) -> TemplateProblem | None:
    """Brackets and blocks nested deeper than the limit, found on the tokens before Jinja's parser (which
    recurses on each level) sees them. `{% set x %}...{% endset %}` counts as a block; `{% set x = 1 %}`
    too, which only makes a refused template refused here. Within one tag, each `not`, sign and inline
    `if` counts as a level too: the parser recurses on those as well (`not not ... not x`)."""
    depth = chain = 0
    previous = "block_begin"
    for line, kind, value in environment().lex(source):
        if kind == "whitespace":
            continue
        if kind == "operator" and value in "([{":
            depth += 1
        elif kind == "operator" and value in ")]}":
            depth -= 1
        elif kind == "name" and previous == "block_begin":
            depth += 1 if value in _BLOCK_TAGS else -1 if value.startswith("end") else 0
        elif kind in ("variable_end", "block_end"):
            chain = 0
        elif (kind == "name" and value in ("not", "if")) or (
            value in ("-", "+") and previous in ("operator", "variable_begin", "block_begin", "name_op")
        ):
            chain += 1
        previous = "name_op" if kind == "name" and value in ("not", "if", "else", "and", "or", "in") else kind
        if depth + chain > limits.MAX_TEMPLATE_NESTING:
            return _nested_problem(line)
    return None


def _deepest_node(ast: Any) -> TemplateProblem | None:
    """A tree deeper than the limit (`1+1+...+1` is as deep as it is long; so is a chain of filters): the
    compiler, the code it writes and Python's own compiler all recurse on it. The template and its
    output (or first block) are the two levels every template has; the limit counts from below them."""
    pending = [(ast, -2)]
    while pending:
        node, depth = pending.pop()
        if depth > limits.MAX_TEMPLATE_NESTING:
            return _nested_problem(getattr(node, "lineno", 1))
        pending.extend((child, depth + 1) for child in node.iter_child_nodes())
    return None


def _nested_problem(line: int) -> TemplateProblem:
    return TemplateProblem(
        f"the template nests deeper than {limits.MAX_TEMPLATE_NESTING} levels (brackets, "
        "blocks, operators or filters); split it into simpler expressions",
        line,
    )


def _refused_constructs(ast: Any) -> TemplateProblem | None:
    from jinja2 import nodes

    refused = (
        nodes.For,
        nodes.Macro,
        nodes.CallBlock,
        nodes.Include,
        nodes.Import,
        nodes.FromImport,
        nodes.Extends,
        nodes.Block,
        nodes.Assign,
        nodes.AssignBlock,
        nodes.With,
    )
    for node in ast.find_all(refused):
        tag = _STATEMENTS.get(type(node).__name__, type(node).__name__.lower())
        return TemplateProblem(f"'{tag}' is not allowed in a comment template", node.lineno)
    for node in ast.find_all((nodes.Getattr, nodes.Getitem)):
        name = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(name, str) and name.startswith("_"):
            return TemplateProblem(f"the sandbox refuses the private name '{name}'", node.lineno)
    for node in ast.find_all(nodes.Filter):
        if node.name not in SAFE_FILTERS:
            return TemplateProblem(
                f"the filter '{node.name}' is not available; use one of: {', '.join(sorted(SAFE_FILTERS))}",
                node.lineno,
            )
    return None


class Template:
    """A checked, compiled template: call it with a context to get capped text; it never raises.
    `names` are the context names it reads (a rule explains its conditions up front only for `detail`)."""

    __slots__ = ("names", "render")

    def __init__(self, render: Callable[[dict[str, Any]], str], names: frozenset[str]) -> None:
        self.render, self.names = render, names

    def __call__(self, context: dict[str, Any]) -> str:
        return self.render(context)


_ABSENT = object()
_LOOKUP = re.compile(r"\{\{\s*(signals|detail|corrected)\.([A-Za-z][A-Za-z0-9_]*)\s*\}\}")


def _lookups_only(source: str) -> list[str | tuple[str, str]] | None:
    """The parts of a template that is only text and `{{ name.key }}` lookups, or None for any other.

    Such a template renders the same without Jinja (a dict's key, "" when absent, `str` of the value), at
    a tenth of the cost and without importing Jinja at all. Anything Jinja would read differently is left
    to it: a `{` in the text (another tag), a carriage return or a final newline (Jinja rewrites them), a
    key that is also a dict attribute (`items`: Jinja prefers the attribute)."""
    parts: list[str | tuple[str, str]] = []
    at = 0
    for match in _LOOKUP.finditer(source):
        parts.extend((source[at : match.start()], (match[1], match[2])))
        at = match.end()
    parts.append(source[at:])
    for part in parts:
        if isinstance(part, tuple):
            if hasattr(dict, part[1]):
                return None
        elif "{" in part or "\r" in part:
            return None
    return None if source.endswith("\n") else [part for part in parts if part != ""]


def _render_lookups(
    parts: list[str | tuple[str, str]], fallback: Callable[[dict[str, Any]], str]
) -> Callable[[dict[str, Any]], str]:
    def render(context: dict[str, Any]) -> str:
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
                continue
            mapping = context.get(part[0])
            if not isinstance(mapping, dict):
                return fallback(context)
            value = mapping.get(part[1], _ABSENT)
            out.append("" if value is _ABSENT else str(value))
        return "".join(out)[: limits.MAX_TEMPLATE_OUTPUT]

    return render


@lru_cache(maxsize=1024)
def compile_template(source: str) -> Template:
    """Check and compile a template; the result renders a context to capped text, never raising."""
    parts = _lookups_only(source)
    if parts is None:
        return _through_jinja(source)
    names = frozenset(part[0] for part in parts if isinstance(part, tuple))
    return Template(_render_lookups(parts, lambda context: _through_jinja(source)(context)), names)


@lru_cache(maxsize=1024)
def _through_jinja(source: str) -> Template:
    from jinja2 import TemplateSyntaxError, meta

    env = environment()
    if len(source) > limits.MAX_TEMPLATE_SOURCE:
        raise TemplateProblem(
            f"the template is {len(source):,} characters long; the limit is {limits.MAX_TEMPLATE_SOURCE:,}"
        )
    ast: Any = None
    try:
        problem = _too_deep(source)
        if problem is None:
            ast = env.parse(source)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"template syntax error: {exc.message}", exc.lineno or 1) from None
    except RecursionError:  # a chain the token count does not see (`not not ... not x`)
        raise _nested_problem(1) from None
    except ValueError as exc:  # a number literal past Python's 4,300 digits
        raise TemplateProblem(f"template syntax error: {exc}") from None
    problem = problem or _deepest_node(ast) or _refused_constructs(ast)
    if problem is not None:
        raise problem
    names = frozenset(meta.find_undeclared_variables(ast))
    unknown = sorted(names - CONTEXT_NAMES)
    if unknown:
        from jinja2 import nodes

        line = min((n.lineno for n in ast.find_all(nodes.Name) if n.name in unknown), default=1)
        raise TemplateProblem(
            f"the template uses {', '.join(repr(n) for n in unknown)}, which its context "
            f"lacks (available: {', '.join(sorted(CONTEXT_NAMES))})",
            line,
        )
    try:
        template = env.from_string(ast)
    except (RecursionError, SyntaxError, MemoryError):  # _deepest_node keeps the compilers far from these
        raise _nested_problem(1) from None
    return Template(lambda context: _render(template, context), names)


def _render(template: Any, context: dict[str, Any]) -> str:
    from evalkit.engine import template_caps as caps

    caps.start_render()
    try:
        text = template.render(context)
    except Exception as exc:  # a template must never break an evaluation
        return f"[template error: {exc}]"
    return text[: limits.MAX_TEMPLATE_OUTPUT]
