"""Comment templates: Jinja2 in an immutable sandbox, checked and compiled once at load.

The sandbox blocks attribute escapes but not resource abuse, so this module also caps `*`, `**`, `+` and
`%`, and the string methods that build long strings from short ones (`ljust`, `format`, `replace`, ...);
allows only a short list of harmless filters and no globals; refuses loops, macros and private names when
the template is loaded; and cuts the rendered output (limits.py).
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from typing import Any, Callable

from evalkit.engine import limits

CONTEXT_NAMES = frozenset({"signals", "detail", "corrected"})
SAFE_FILTERS = frozenset({
    "abs", "capitalize", "count", "d", "default", "first", "float", "int", "join", "last", "length",
    "lower", "max", "min", "round", "string", "title", "trim", "truncate", "upper", "tojson", "sort",
})


class TemplateProblem(ValueError):
    """A template that does not parse, uses names its context lacks, or uses what the sandbox refuses."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def _capped_binop(env: Any, context: Any, operator: str, left: Any, right: Any) -> Any:
    from jinja2.exceptions import SecurityError

    if operator == "**" and _power_too_big(left, right):
        raise SecurityError("the power is too large")
    if operator == "*" and _repeat_too_long(left, right):
        raise SecurityError("the repeated sequence is too long")
    if operator == "+" and isinstance(left, (str, list)) and isinstance(right, (str, list)):
        if len(left) + len(right) > limits.MAX_TEMPLATE_SEQUENCE:
            raise SecurityError("the concatenation is too long")
    if operator == "%" and isinstance(left, str) and _printf_too_wide(left):
        raise SecurityError("the format's width or precision is too large")
    return env.binop_table[operator](left, right)


_PRINTF_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?")
_FORMAT_NUMBERS = re.compile(r"\d+")


def _too_big(digits: str) -> bool:
    return digits == "*" or (digits.isdigit() and int(digits) > limits.MAX_TEMPLATE_SEQUENCE)


def _printf_too_wide(fmt: str) -> bool:
    """`'%010000000d' % 1` asks for ten million characters; a `*` width comes from the arguments."""
    return any(_too_big(width) or _too_big(precision) for width, precision in _PRINTF_SPEC.findall(fmt))


def _format_too_wide(fmt: str) -> bool:
    """`'{:>10000000}'.format(1)`; a nested `{}` in a spec takes its width from the arguments."""
    from string import Formatter

    try:
        fields = list(Formatter().parse(fmt))
    except ValueError:
        return False  # str.format raises the same error, which the render reports
    for _, _, spec, _ in fields:
        if spec and ("{" in spec or any(_too_big(n) for n in _FORMAT_NUMBERS.findall(spec))):
            return True
    return False


def _call_too_long(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call on a string would build one longer than the cap."""
    method = getattr(method, "__wrapped__", method)  # the sandbox wraps str.format at attribute access
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, str):
        return False
    name, cap = method.__name__, limits.MAX_TEMPLATE_SEQUENCE
    values = list(args) + list(kwargs.values())
    if name in ("ljust", "rjust", "center", "zfill"):
        return bool(values) and isinstance(values[0], int) and values[0] > cap
    if name == "expandtabs":
        size = values[0] if values and isinstance(values[0], int) else 8
        return owner.count("\t") * size + len(owner) > cap
    if name in ("format", "format_map"):
        return _format_too_wide(owner)
    if name == "replace" and len(values) >= 2 and all(isinstance(v, str) for v in values[:2]):
        old, new = values[0], values[1]
        hits = owner.count(old) if old else len(owner) + 1
        return len(owner) + hits * len(new) > cap
    if name == "join" and values:
        items = values[0] if isinstance(values[0], (list, tuple)) else []
        total = sum(len(i) for i in items if isinstance(i, str)) + len(owner) * len(items)
        return total > cap
    return False


def _power_too_big(base: Any, exponent: Any) -> bool:
    if not isinstance(base, (int, float)) or not isinstance(exponent, (int, float)):
        return False
    if abs(base) <= 1 or exponent <= 0:
        return False
    return exponent * math.log10(abs(base)) > limits.MAX_TEMPLATE_POWER_DIGITS


def _repeat_too_long(left: Any, right: Any) -> bool:
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (str, list, tuple)) and isinstance(count, int):
            return len(sequence) * count > limits.MAX_TEMPLATE_SEQUENCE
    return False


@cache
def environment() -> Any:
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class CappedSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            return _capped_binop(self, context, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            if _call_too_long(__obj, args, kwargs):
                raise SecurityError(f"'{__obj.__name__}' would build a string longer than "
                                    f"{limits.MAX_TEMPLATE_SEQUENCE} characters")
            return super().call(__context, __obj, *args, **kwargs)

    env = CappedSandbox(autoescape=False)
    env.filters = {name: f for name, f in env.filters.items() if name in SAFE_FILTERS}
    env.globals.clear()
    return env


def _refused_constructs(ast: Any) -> TemplateProblem | None:
    from jinja2 import nodes

    refused = (nodes.For, nodes.Macro, nodes.CallBlock, nodes.Include, nodes.Import, nodes.FromImport,
               nodes.Extends, nodes.Block)
    for node in ast.find_all(refused):
        return TemplateProblem(f"'{type(node).__name__.lower()}' is not allowed in a comment template", node.lineno)
    for node in ast.find_all((nodes.Getattr, nodes.Getitem)):
        name = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(name, str) and name.startswith("_"):
            return TemplateProblem(f"the sandbox refuses the private name '{name}'", node.lineno)
    for node in ast.find_all(nodes.Filter):
        if node.name not in SAFE_FILTERS:
            return TemplateProblem(f"the filter '{node.name}' is not available; use one of: "
                                   f"{', '.join(sorted(SAFE_FILTERS))}", node.lineno)
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
        parts.extend((source[at:match.start()], (match[1], match[2])))
        at = match.end()
    parts.append(source[at:])
    for part in parts:
        if isinstance(part, tuple):
            if hasattr(dict, part[1]):
                return None
        elif "{" in part or "\r" in part:
            return None
    return None if source.endswith("\n") else [part for part in parts if part != ""]


def _render_lookups(parts: list[str | tuple[str, str]], fallback: Callable[[dict[str, Any]], str]
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
    try:
        ast = env.parse(source)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"template syntax error: {exc.message}", exc.lineno or 1) from None
    problem = _refused_constructs(ast)
    if problem is not None:
        raise problem
    names = frozenset(meta.find_undeclared_variables(ast))
    unknown = sorted(names - CONTEXT_NAMES)
    if unknown:
        from jinja2 import nodes

        line = min((n.lineno for n in ast.find_all(nodes.Name) if n.name in unknown), default=1)
        raise TemplateProblem(f"the template uses {', '.join(repr(n) for n in unknown)}, which its context "
                              f"lacks (available: {', '.join(sorted(CONTEXT_NAMES))})", line)
    template = env.from_string(ast)
    return Template(lambda context: _render(template, context), names)


def _render(template: Any, context: dict[str, Any]) -> str:
    try:
        text = template.render(context)
    except Exception as exc:  # a template must never break an evaluation
        return f"[template error: {exc}]"
    return text[: limits.MAX_TEMPLATE_OUTPUT]
