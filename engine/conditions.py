"""The conditions of a rule's `when`: one table, each entry compiles its YAML value once.

A compiled condition has three faces: `test(signals) -> bool`; `explain(signals) -> detail`, what it
observed, computed only for rules that fired or when an explanation is asked for; and `source`, the same
test as a Python expression, from which `compile_verdicts` builds one function that tests every rule of a
config in a single call (the fast path every evaluation takes). Adding a condition means one entry in
CONDITIONS plus its schema in `schemas/rules.schema.json`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from evalkit.engine.context import Detail, Signals
from evalkit.engine.needles import Needles
from evalkit.engine.regex import compile_pattern

Test = Callable[[Signals], bool]
Explain = Callable[[Signals], Detail]


class Constants:
    """Names for the values a generated test reads: the generated source holds only these names and the
    locals below, never text from a config."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.needles: dict[str, dict[str, None]] = {"text": {}, "rewrite": {}}

    def __call__(self, value: Any) -> str:
        name = f"k{len(self.values)}"
        self.values[name] = value
        return name

    def found_in(self, where: str, needle: str) -> str:
        """`needle in text` (or `rewrite`), for a lower-cased needle: the local is the set of needles found
        there, all of a config's needles searched in one pass."""
        self.needles[where][needle] = None
        return f"{self(needle)} in {where}"


Source = Callable[[Constants], str]
"""Writes the condition as an expression over the locals `text` (the needles found in the responses and
rewrite), `rewrite` (the needles found in the rewrite), `length` and `ratings`, and `s`, the signals."""


def _either(terms: list[str]) -> str:
    return f"({' or '.join(terms)})" if terms else "False"


def _every(terms: list[str]) -> str:
    return f"({' and '.join(terms)})" if terms else "True"


class Condition:
    def __init__(self, name: str, test: Test, explain: Explain, source: Source) -> None:
        self.name, self.test, self.explain, self.source = name, test, explain, source


def _found(needles: list[str], lowered: list[str], haystack: Container[str]) -> list[str]:
    return [n for n, low in zip(needles, lowered, strict=False) if low in haystack]


def _any_in(lowered: list[str], haystack: Container[str]) -> bool:
    return any(low in haystack for low in lowered)


Compiled = tuple[Test, Explain, Source]


def _contains_any(needles: list[str]) -> Compiled:
    compiled = Needles.of(needles)
    lowered = compiled.lowered

    def explain(s: Signals) -> Detail:
        found = _found(needles, lowered, s.text.found(compiled))
        return {"held": bool(found), "found": found}

    return (
        (lambda s: _any_in(lowered, s.text.found(compiled))),
        explain,
        lambda k: _either([k.found_in("text", low) for low in lowered]),
    )


def _not_contains_any(needles: list[str]) -> Compiled:
    compiled = Needles.of(needles)
    lowered = compiled.lowered

    def explain(s: Signals) -> Detail:
        found = _found(needles, lowered, s.text.found(compiled))
        return {"held": not found, "found": found}

    return (
        (lambda s: not _any_in(lowered, s.text.found(compiled))),
        explain,
        lambda k: f"not {_either([k.found_in('text', low) for low in lowered])}",
    )


def _rewrite_missing(needles: list[str]) -> Compiled:
    compiled = Needles.of(needles)
    lowered = compiled.lowered

    def explain(s: Signals) -> Detail:
        present = _found(needles, lowered, s.rewrite.found(compiled))
        return {"held": not present, "present": present}

    return (
        (lambda s: not _any_in(lowered, s.rewrite.found(compiled))),
        explain,
        lambda k: f"not {_either([k.found_in('rewrite', low) for low in lowered])}",
    )


def _regex_any(patterns: list[str]) -> Compiled:
    compiled = [(p, compile_pattern(p)) for p in patterns]

    def explain(s: Signals) -> Detail:
        for pattern, regex in compiled:
            match = regex.first(s.rewrite_bytes())
            if match is not None:
                return {"held": True, "pattern": pattern, "match": match[:200]}
        return {"held": False, "pattern": None}

    return (
        (lambda s: any(regex.found(s.rewrite_bytes()) for _, regex in compiled)),
        explain,
        lambda k: _either([f"{k(regex.found)}(s.rewrite_bytes())" for _, regex in compiled]),
    )


def _min_length(value: Any) -> Compiled:
    minimum = int(value)  # a JSON Schema integer may be written 120.0; `Any`: compiled, a big int stays one

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total >= minimum, "length_total": s.length_total, "min": minimum}

    return (lambda s: s.length_total >= minimum), explain, lambda k: f"length >= {k(minimum)}"


def _max_length(value: Any) -> Compiled:
    maximum = int(value)

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total <= maximum, "length_total": s.length_total, "max": maximum}

    return (lambda s: s.length_total <= maximum), explain, lambda k: f"length <= {k(maximum)}"


def _dimension_compare(thresholds: dict[str, float], greater: bool) -> Compiled:
    items = [(dim, float(limit)) for dim, limit in thresholds.items()]  # YAML reads 4 as an int
    operator = ">" if greater else "<"

    def test(s: Signals) -> bool:
        if greater:
            return all(s.ratings[dim] > limit for dim, limit in items)
        return all(s.ratings[dim] < limit for dim, limit in items)

    def explain(s: Signals) -> Detail:
        values = {dim: s.ratings[dim] for dim, _ in items}
        held = all((values[dim] > limit) if greater else (values[dim] < limit) for dim, limit in items)
        return {"held": held, "values": values, "thresholds": thresholds}

    def source(k: Constants) -> str:
        return _every([f"ratings[{k(dim)}] {operator} {k(limit)}" for dim, limit in items])

    return test, explain, source


def _any_of(blocks: list[dict[str, Any]]) -> Compiled:
    compiled = [compile_when(block) for block in blocks]

    def explain(s: Signals) -> Detail:
        details = [block.explain(s, exhaustive=True) for block in compiled]
        held = any(all(seen["held"] for seen in detail.values()) for detail in details)
        return {"held": held, "blocks": details}

    return (
        (lambda s: any(block.test(s) for block in compiled)),
        explain,
        lambda k: _either([block.source(k) for block in compiled]),
    )


CONDITIONS: dict[str, Callable[[Any], Compiled]] = {
    "response_contains_any": _contains_any,
    "not_contains_any": _not_contains_any,
    "preferred_rewrite_missing_substring": _rewrite_missing,
    "rewrite_regex_any": _regex_any,
    "min_total_length": _min_length,
    "max_total_length": _max_length,
    "any_of": _any_of,
    "dimension_gt": lambda value: _dimension_compare(value, greater=True),
    "dimension_lt": lambda value: _dimension_compare(value, greater=False),
}


class Block:
    """Conditions that must all hold (a rule's `when`, or one block of `any_of`)."""

    def __init__(self, conditions: tuple[Condition, ...]) -> None:
        self.conditions = conditions

    def test(self, s: Signals) -> bool:
        return all(condition.test(s) for condition in self.conditions)

    def explain(self, s: Signals, exhaustive: bool = False) -> Detail:
        """What each condition observed; stops at the first failure unless `exhaustive`."""
        detail: Detail = {}
        for condition in self.conditions:
            observed = condition.explain(s)
            detail[condition.name] = observed
            if not observed["held"] and not exhaustive:
                break
        return detail

    def source(self, constants: Constants) -> str:
        return _every([condition.source(constants) for condition in self.conditions])


def compile_when(when: dict[str, Any] | None) -> Block:
    return Block(tuple(Condition(name, *CONDITIONS[name](value)) for name, value in (when or {}).items()))


class _Verdicts:
    """`compile_verdicts`' function, generated and compiled on its first call: checking a config (the
    language server re-checks on every keystroke, `evalkit check` never evaluates) does not pay for it."""

    __slots__ = ("_blocks", "_function")

    def __init__(self, blocks: Sequence[Block]) -> None:
        self._blocks = tuple(blocks)
        self._function: Callable[[Signals], tuple[bool, ...]] | None = None

    def __call__(self, signals: Signals) -> tuple[bool, ...]:
        if self._function is None:
            self._function = _generate(self._blocks)
        return self._function(signals)


def compile_verdicts(blocks: Sequence[Block]) -> Callable[[Signals], tuple[bool, ...]]:
    """One function that tests every block on a submission's signals: `verdicts(s)[i]` is
    `blocks[i].test(s)`. Conditions read only the signals and the original ratings, never what earlier
    rules did, so all of a config's rules are tested at once, without a call per rule or condition."""
    return _Verdicts(blocks)


def _generate(blocks: tuple[Block, ...]) -> Callable[[Signals], tuple[bool, ...]]:
    constants = Constants()
    tests = "".join(f"{block.source(constants)}, " for block in blocks)
    # the rewrite is searched for the text's needles too, in the same pass: the text's search finds them
    # there already searched and reads only the responses
    text, rewrite = list(constants.needles["text"]), list(constants.needles["rewrite"])
    searches = ""
    if rewrite:
        searches += f"    rewrite = s.rewrite.found({constants(Needles(rewrite + text))})\n"
    if text:
        searches += f"    text = s.text.found({constants(Needles(text))})\n"
    source = (
        f"def verdicts(s):\n{searches}    length, ratings = s.length_total, s.ratings\n    return ({tests})\n"
    )
    namespace = dict(constants.values)
    try:
        exec(compile(source, "<evalkit rules>", "exec"), namespace)
    except (SyntaxError, RecursionError, MemoryError):  # nesting beyond what the parser takes
        return lambda s: tuple(block.test(s) for block in blocks)
    return namespace["verdicts"]
