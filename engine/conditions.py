"""The conditions of a rule's `when`: one table, each entry compiles its YAML value once.

A compiled condition has two faces, `test(signals) -> bool` and `explain(signals) -> detail`, what it
observed, computed only for rules that fired or when an explanation is asked for; and it names the needles
it searches for, so that `compile_verdicts` searches those of every rule in one pass over a long text
before the rules test. Adding a condition means one entry in CONDITIONS plus its schema in
`schemas/rules.schema.json`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import TYPE_CHECKING, Any, Final

from evalkit.engine.context import Detail, Signals
from evalkit.engine.needles import Needles
from evalkit.engine.regex import compile_pattern

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic
    from evalkit.engine.yamlsource import YamlDocument

Test = Callable[[Signals], bool]
Explain = Callable[[Signals], Detail]


Searches = tuple[tuple[str, tuple[str, ...]], ...]
"""The lower-cased needles a condition looks for, and where: `("text", ...)` for the responses and the
rewrite, `("rewrite", ...)` for the rewrite alone."""


class Condition:
    def __init__(self, name: str, test: Test, explain: Explain, searches: Searches) -> None:
        self.name, self.test, self.explain, self.searches = name, test, explain, searches


def _found(needles: list[str], lowered: list[str], haystack: Container[str]) -> list[str]:
    return [n for n, low in zip(needles, lowered, strict=False) if low in haystack]


def _any_in(lowered: list[str], haystack: Container[str]) -> bool:
    return any(low in haystack for low in lowered)


Compiled = tuple[Test, Explain, Searches]


def _contains_any(needles: list[str]) -> Compiled:
    compiled = Needles.of(needles)
    lowered = compiled.lowered

    def explain(s: Signals) -> Detail:
        found = _found(needles, lowered, s.text.found(compiled))
        return {"held": bool(found), "found": found}

    return (
        (lambda s: _any_in(lowered, s.text.found(compiled))),
        explain,
        (("text", tuple(lowered)),),
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
        (("text", tuple(lowered)),),
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
        (("rewrite", tuple(lowered)),),
    )


def _regex_any(patterns: list[str]) -> Compiled:
    compiled = [(p, compile_pattern(p)) for p in patterns]

    def test(s: Signals) -> bool:
        for pattern, regex in compiled:  # noqa: SIM110 - compiled, any() would build a generator
            if s.match(pattern, regex) is not None:
                return True
        return False

    def explain(s: Signals) -> Detail:
        for pattern, regex in compiled:
            match = regex.text_of(s.match(pattern, regex))
            if match is not None:
                return {"held": True, "pattern": pattern, "match": match[:200]}
        return {"held": False, "pattern": None}

    return test, explain, ()


def regex_problems(doc: YamlDocument) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.regex import PatternError
    from evalkit.engine.semantic import _condition_blocks, _list, rule_entries

    out = []
    for at, rule in rule_entries(doc.data):
        for block_at, block in _condition_blocks(rule.get("when"), (*at, "when")):
            for index, pattern in enumerate(_list(block.get("rewrite_regex_any"))):
                if not isinstance(pattern, str):
                    continue
                try:
                    compile_pattern(pattern)
                except PatternError as exc:
                    span = doc.value_span((*block_at, "rewrite_regex_any", index))
                    out.append(error(doc.path, span, "bad-regex", f"RE2 cannot compile '{pattern}': {exc}"))
    return out


def _min_length(value: Any) -> Compiled:
    minimum = int(value)  # a JSON Schema integer may be written 120.0; `Any`: compiled, a big int stays one

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total >= minimum, "length_total": s.length_total, "min": minimum}

    return (lambda s: s.length_total >= minimum), explain, ()


def _max_length(value: Any) -> Compiled:
    maximum = int(value)

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total <= maximum, "length_total": s.length_total, "max": maximum}

    return (lambda s: s.length_total <= maximum), explain, ()


def length_bounds(doc: YamlDocument) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.semantic import _condition_blocks, _is_number, rule_entries

    out = []
    for at, rule in rule_entries(doc.data):
        for block_at, block in _condition_blocks(rule.get("when"), (*at, "when")):
            low, high = block.get("min_total_length"), block.get("max_total_length")
            if _is_number(low) and _is_number(high) and low > high:
                out.append(
                    error(
                        doc.path,
                        doc.value_span((*block_at, "min_total_length")),
                        "impossible-length",
                        f"min_total_length {low} is above max_total_length {high}: the rule can never fire",
                    )
                )
    return out


def _dimension_compare(thresholds: dict[str, float], greater: bool) -> Compiled:
    items = [(dim, float(limit)) for dim, limit in thresholds.items()]  # YAML reads 4 as an int

    def test(s: Signals) -> bool:
        if greater:
            return all(s.ratings[dim] > limit for dim, limit in items)
        return all(s.ratings[dim] < limit for dim, limit in items)

    def explain(s: Signals) -> Detail:
        values = {dim: s.ratings[dim] for dim, _ in items}
        held = all((values[dim] > limit) if greater else (values[dim] < limit) for dim, limit in items)
        return {"held": held, "values": values, "thresholds": thresholds}

    return test, explain, ()


def _any_of(blocks: list[dict[str, Any]]) -> Compiled:
    compiled = [compile_when(block) for block in blocks]

    def explain(s: Signals) -> Detail:
        details = [block.explain(s, exhaustive=True) for block in compiled]
        held = any(all(seen["held"] for seen in detail.values()) for detail in details)
        return {"held": held, "blocks": details}

    return (
        (lambda s: any(block.test(s) for block in compiled)),
        explain,
        tuple([search for block in compiled for search in block.searches()]),
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


COST: Final = {
    "dimension_gt": 0,
    "dimension_lt": 0,
    "min_total_length": 0,
    "max_total_length": 0,
    "response_contains_any": 1,
    "not_contains_any": 1,
    "preferred_rewrite_missing_substring": 1,
    "any_of": 2,
    "rewrite_regex_any": 3,
}
"""The order in which a block tests its conditions: a comparison of numbers before a search of the text,
a search for needles before an `any_of` of them and a regex. A block holds when all its conditions do, and
they read only the signals, so the first that fails settles it whatever the order: the cheap ones first
spare most rules' searches (the explanation keeps the order of the config)."""


class Block:
    """Conditions that must all hold (a rule's `when`, or one block of `any_of`)."""

    __slots__ = ("_tests", "conditions")

    def __init__(self, conditions: tuple[Condition, ...]) -> None:
        self.conditions = conditions
        tested = sorted(conditions, key=lambda condition: COST.get(condition.name, 3))
        self._tests = tuple([condition.test for condition in tested])

    def test(self, s: Signals) -> bool:
        for test in self._tests:  # noqa: SIM110 - compiled, all() would build a generator
            if not test(s):
                return False
        return True

    def explain(self, s: Signals, exhaustive: bool = False) -> Detail:
        """What each condition observed; stops at the first failure unless `exhaustive`."""
        detail: Detail = {}
        for condition in self.conditions:
            observed = condition.explain(s)
            detail[condition.name] = observed
            if not observed["held"] and not exhaustive:
                break
        return detail

    def searches(self) -> Searches:
        return tuple([search for condition in self.conditions for search in condition.searches])


def compile_when(when: dict[str, Any] | None) -> Block:
    return Block(tuple(Condition(name, *CONDITIONS[name](value)) for name, value in (when or {}).items()))


class Verdicts:
    """Every rule's test on one submission (`verdicts(s)[i]` is `blocks[i].test(s)`). The needles of all the
    rules are searched first, in one pass over each part of a long text (the rewrite with its own needles and
    the text's, then the responses with the text's); each condition's own search then finds them searched.
    Conditions read only the signals and the original ratings, never what earlier rules did, so all of a
    config's rules are tested before any acts."""

    __slots__ = ("_blocks", "_rewrite", "_text")

    def __init__(self, blocks: Sequence[Block]) -> None:
        self._blocks = tuple(blocks)
        needles: dict[str, dict[str, None]] = {"text": {}, "rewrite": {}}
        for block in self._blocks:
            for where, lowered in block.searches():
                needles[where].update(dict.fromkeys(lowered))
        text, rewrite = list(needles["text"]), list(needles["rewrite"])
        self._rewrite = Needles(rewrite + text) if rewrite else None
        self._text = Needles(text) if text else None

    def __call__(self, s: Signals) -> tuple[bool, ...]:
        if self._rewrite is not None:
            s.rewrite.found(self._rewrite)
        if self._text is not None:
            s.text.found(self._text)
        return tuple([block.test(s) for block in self._blocks])


def compile_verdicts(blocks: Sequence[Block]) -> Callable[[Signals], tuple[bool, ...]]:
    return Verdicts(blocks)
