"""What a comment template may build while it renders: every value an operator, a filter, a method call
or `~` makes is capped (a string's or a container's size, an integer's digits), and so is the work of one
render as a whole.

Jinja's sandbox blocks attribute escapes but not resource abuse. Templates have no loops, macros or
variables (templates.py refuses them at load), so without these caps the worst a template could do is
grow with its own length; with them, one render builds at most MAX_TEMPLATE_WORK characters in all.
Every guard raises SecurityError, which the render turns into `[template error: ...]`.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from typing import Any

from evalkit.engine import limits

_CONTAINERS = (list, tuple, dict, set, frozenset)
_TEXTS = (str, bytes, bytearray)  # `'x'.encode()` gives bytes, which repeat and pad as strings do
_BITS_PER_DIGIT = math.log2(10)


def _refuse(reason: str) -> Exception:
    from jinja2.exceptions import SecurityError

    return SecurityError(reason)


def size(value: Any, budget: int = limits.MAX_TEMPLATE_SEQUENCE) -> int:
    """A value's size: a string's length, an integer's digits, a container's items and what they hold,
    each shared item counted at each use (as `str` would print it). Counting stops once past `budget`, so
    a list that refers to itself or to one item a million times costs no more than the budget."""
    total = 0
    pending = [value]
    while pending and total <= budget:
        item = pending.pop()
        if isinstance(item, _TEXTS):
            total += len(item)
        elif isinstance(item, bool) or not isinstance(item, int):
            total += 1
            if isinstance(item, dict):
                pending.extend(item.keys())
                pending.extend(item.values())
            elif isinstance(item, _CONTAINERS):
                pending.extend(item)
        else:
            total += _digits(item)
    return total


def _digits(number: int) -> int:
    return int(number.bit_length() / _BITS_PER_DIGIT) + 1


class _Work(threading.local):
    left = limits.MAX_TEMPLATE_WORK


_work = _Work()


def start_render() -> None:
    """A render begins with the whole work budget (renders are synchronous, one per thread at a time)."""
    _work.left = limits.MAX_TEMPLATE_WORK


def built(value: Any) -> Any:
    """`value`, once it is known to be within the caps and is charged to this render's work budget."""
    found = size(value)
    if found > limits.MAX_TEMPLATE_SEQUENCE:
        raise _refuse(f"a value would be longer than {limits.MAX_TEMPLATE_SEQUENCE:,} characters or items")
    _work.left -= found + 1
    if _work.left < 0:
        raise _refuse(f"the template builds more than {limits.MAX_TEMPLATE_WORK:,} characters in all")
    return value


def printed(value: Any) -> Any:
    """What `{{ value }}` prints: a container within the caps (a list literal may name one value many
    times); a string or a number as it is, even past the cap: the context handed it in, nothing built it."""
    return built(value) if isinstance(value, _CONTAINERS) else value


def binop(table: dict[str, Callable[[Any, Any], Any]], operator: str, left: Any, right: Any) -> Any:
    """`left operator right`, refused before it is computed when the result would pass a cap."""
    if operator == "**" and _power_too_big(left, right):
        raise _refuse("the power is too large")
    if operator == "*" and _product_too_big(left, right):
        raise _refuse("the product is too large")
    if operator == "+" and size(left) + size(right) > limits.MAX_TEMPLATE_SEQUENCE:
        raise _refuse("the concatenation is too long")
    if operator == "%" and isinstance(left, str) and _printf_too_wide(left, right):
        raise _refuse(f"'%' would build a string longer than {limits.MAX_TEMPLATE_SEQUENCE:,} characters")
    return built(table[operator](left, right))


def concat(values: tuple[Any, ...]) -> str:
    """`a ~ b`: as Jinja joins them, once their total size is within the cap."""
    if size(values) > limits.MAX_TEMPLATE_SEQUENCE:
        raise _refuse("the concatenation is too long")
    return built("".join(map(str, values)))


def _power_too_big(base: Any, exponent: Any) -> bool:
    if not isinstance(base, (int, float)) or not isinstance(exponent, (int, float)):
        return False
    if abs(base) <= 1 or exponent <= 0:
        return False
    return exponent * math.log10(abs(base)) > limits.MAX_TEMPLATE_INTEGER_DIGITS


def _product_too_big(left: Any, right: Any) -> bool:
    if isinstance(left, int) and isinstance(right, int):
        return _digits(left) + _digits(right) > limits.MAX_TEMPLATE_INTEGER_DIGITS + 1
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (*_TEXTS, list, tuple)) and isinstance(count, int):
            return count > 0 and size(sequence) * count > limits.MAX_TEMPLATE_SEQUENCE
    return False


_PRINTF_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?")
_FORMAT_NUMBERS = re.compile(r"\d+")


def _too_big(digits: str) -> bool:
    return digits == "*" or (digits.isdigit() and int(digits) > limits.MAX_TEMPLATE_SEQUENCE)


def _printf_too_wide(fmt: str, values: Any) -> bool:
    """`'%010000000d' % 1` asks for ten million characters; a `*` width comes from the arguments; and
    `'%(a)s%(a)s...' % {'a': ...}` prints one argument once per field."""
    fields = _PRINTF_SPEC.findall(fmt)
    if any(_too_big(width) or _too_big(precision) for width, precision in fields):
        return True
    return len(fmt) + len(fields) * size(values) > limits.MAX_TEMPLATE_SEQUENCE


def _format_too_wide(fmt: str, values: list[Any]) -> bool:
    """`'{:>10000000}'.format(1)`; a nested `{}` in a spec takes its width from the arguments; and
    `'{0}{0}...'.format(...)` prints one argument once per field."""
    from string import Formatter

    try:
        fields = [spec for _, name, spec, _ in Formatter().parse(fmt) if name is not None]
    except ValueError:
        return False  # str.format raises the same error, which the render reports
    for spec in fields:
        if spec and ("{" in spec or any(_too_big(n) for n in _FORMAT_NUMBERS.findall(spec))):
            return True
    return len(fmt) + len(fields) * size(values) > limits.MAX_TEMPLATE_SEQUENCE


def call_too_long(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call on a string (or bytes) would build one longer than the cap."""
    method = getattr(method, "__wrapped__", method)  # the sandbox wraps str.format at attribute access
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, _TEXTS):
        return False
    name, cap = method.__name__, limits.MAX_TEMPLATE_SEQUENCE
    values = list(args) + list(kwargs.values())
    if name in ("ljust", "rjust", "center", "zfill"):
        return bool(values) and isinstance(values[0], int) and values[0] > cap
    if name == "expandtabs":
        tab = values[0] if values and isinstance(values[0], int) else 8
        tabs = owner.count("\t") if isinstance(owner, str) else owner.count(b"\t")
        return tabs * tab + len(owner) > cap
    if name in ("format", "format_map") and isinstance(owner, str):
        return _format_too_wide(owner, values)
    if name == "translate" and values and isinstance(values[0], dict):
        longest = max((size(v) for v in values[0].values()), default=1)
        return len(owner) * max(longest, 1) > cap
    if name == "replace" and len(values) >= 2 and all(isinstance(v, _TEXTS) for v in values[:2]):
        old, new = values[0], values[1]
        hits = owner.count(old) if old else len(owner) + 1
        return len(owner) + hits * len(new) > cap
    if name == "join" and values:
        return _join_too_long(owner, values[0])
    return False


def _join_too_long(separator: str | bytes | bytearray, items: Any) -> bool:
    count = len(items) if isinstance(items, (*_CONTAINERS, *_TEXTS)) else 0  # a string joins its characters
    return size(items) + len(separator) * count > limits.MAX_TEMPLATE_SEQUENCE


def capped_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (the filter `name`) refusing to start on a container past the cap or to build a value
    past it: `|join` multiplies by its separator, `|tojson` by its indent, `|string` prints shared items
    once per use."""
    passed = 1 if hasattr(function, "jinja_pass_arg") else 0  # the environment or context, before the value

    def capped(*args: Any, **kwargs: Any) -> Any:
        value, options = args[passed], args[passed + 1 :]
        if isinstance(value, _CONTAINERS) and size(value) > limits.MAX_TEMPLATE_SEQUENCE:
            raise _refuse(
                f"'{name}' was given more than {limits.MAX_TEMPLATE_SEQUENCE:,} characters or items"
            )
        separator = kwargs.get("d", options[0] if options else "")
        if name == "join" and isinstance(separator, str) and _join_too_long(separator, value):
            raise _refuse(
                f"'join' would build a string longer than {limits.MAX_TEMPLATE_SEQUENCE:,} characters"
            )
        indent = kwargs.get("indent", options[0] if options else None)
        if name == "tojson" and isinstance(indent, int) and indent > _MAX_INDENT:
            raise _refuse(f"'tojson' indents by at most {_MAX_INDENT} spaces")
        return built(function(*args, **kwargs))

    if passed:
        capped.jinja_pass_arg = function.jinja_pass_arg  # type: ignore[attr-defined]
    return capped


_MAX_INDENT = 16
"""`|tojson(indent)` repeats the indent for every item at every level."""
