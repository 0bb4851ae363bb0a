"""The conditions of a rule's `when`: one record each (`ConditionKind`), all in CONDITIONS.

A record is the whole of a condition but its schema: how its YAML value compiles, once, into a test and an
explanation; its cost; the signals it reads; its cross-value check (what the schema cannot say, reported by
`evalkit check` and the editor) with the codes it reports; what its explanation shows; and the hypothesis
strategy of its values, which the property tests draw from. The rest derives from the records: the order a
block tests its conditions, engine/semantic.py's checks, diagnostics.describe's meanings, the property tests
and the completion test; tests/engine/test_registry.py holds the records, the schema's keys and the docs to
one set of names.

A compiled condition has two faces, `test(signals) -> bool` and `explain(signals) -> detail`, what it
observed, computed only for rules that fired or when an explanation is asked for; and it names the needles
it searches for, so that `compile_verdicts` searches those of every rule in one pass over a long text
before the rules test.

Adding a condition (CONTRIBUTING.md, "Adding a condition"): its record here, its key in
`schemas/rules.schema.json` (`$defs.conditions`, with its description and an example), its tests, a line in
CHANGELOG.md; then `python3 docs/generate.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import TYPE_CHECKING, Any

from evalkit.engine.context import Detail, Signals
from evalkit.engine.needles import Needles
from evalkit.engine.regex import compile_pattern
from evalkit.engine.submission import DIMENSIONS

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic
    from evalkit.engine.yamlsource import JsonPath, YamlDocument

Test = Callable[[Signals], bool]
Explain = Callable[[Signals], Detail]


Searches = tuple[tuple[str, tuple[str, ...]], ...]
"""The lower-cased needles a condition looks for, and where: `("text", ...)` for the responses and the
rewrite, `("rewrite", ...)` for the rewrite alone."""

Compiled = tuple[Test, Explain, Searches]

Check = Callable[["YamlDocument", "JsonPath", dict[str, Any]], list["Diagnostic"]]
"""A cross-value check: given a document, where a mapping is in it and the mapping (a block of conditions,
a rule's actions), the problems of the values it holds. It guards every type it reads: it also runs on a
document that failed schema validation (engine/semantic.py)."""

Strategy = Callable[[Any, Any], Any]
"""The hypothesis strategy of a condition's or an action's values, made from hypothesis's `strategies`
module and the strategy of a nested `when` (None at the depth limit, where a condition that nests returns
None and is left out). The engine does not import hypothesis: the tests hand it in."""


class ConditionKind:
    """One condition: its name (its key in `when`) and

    - `compile_value`: its YAML value, compiled once into its test, its explanation and its needles;
    - `cost`: when a block tests it, cheapest first (`Block`): 0 compares numbers, 1 searches needles,
      2 nests blocks, 3 runs regexes;
    - `reads`: the attributes of `Signals` it reads;
    - `explains`: what its explanation shows beside `held` (docs/reference/files.md);
    - `values`: the hypothesis strategy of its values (tests/engine/test_verdicts.py);
    - `check`, `problems`: its cross-value check on a block that holds it, and each diagnostic code the
      check reports with its meaning (diagnostics.describe).
    """

    __slots__ = ("check", "compile_value", "cost", "explains", "name", "problems", "reads", "values")

    def __init__(
        self,
        name: str,
        compile_value: Callable[[Any], Compiled],
        *,
        cost: int,
        reads: tuple[str, ...],
        explains: str,
        values: Strategy,
        check: Check | None = None,
        problems: dict[str, str] | None = None,
    ) -> None:
        self.name, self.compile_value, self.cost, self.reads = name, compile_value, cost, reads
        self.explains, self.values, self.check = explains, values, check
        self.problems: dict[str, str] = problems or {}


class Condition:
    """A condition compiled from its value: what a `Block` tests and explains."""

    def __init__(self, name: str, test: Test, explain: Explain, searches: Searches) -> None:
        self.name, self.test, self.explain, self.searches = name, test, explain, searches


# --- needles: response_contains_any, not_contains_any, preferred_rewrite_missing_substring ------------


NEEDLE_ALPHABET = "aAbß\u0130é ({[.?$"
"""The characters the property tests write needles and texts with: case folding (ß, İ, é) and regex
metacharacters."""


def _needles(st: Any, when: Any) -> Any:
    return st.lists(st.text(alphabet=NEEDLE_ALPHABET, max_size=4), max_size=3)


def _found(needles: list[str], lowered: list[str], haystack: Container[str]) -> list[str]:
    return [n for n, low in zip(needles, lowered, strict=False) if low in haystack]


def _any_in(lowered: list[str], haystack: Container[str]) -> bool:
    return any(low in haystack for low in lowered)


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


RESPONSE_CONTAINS_ANY = ConditionKind(
    "response_contains_any",
    _contains_any,
    cost=1,
    reads=("text",),
    explains="`found`: the listed substrings that appear.",
    values=_needles,
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


NOT_CONTAINS_ANY = ConditionKind(
    "not_contains_any",
    _not_contains_any,
    cost=1,
    reads=("text",),
    explains="`found`: the listed substrings that appear.",
    values=_needles,
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


PREFERRED_REWRITE_MISSING_SUBSTRING = ConditionKind(
    "preferred_rewrite_missing_substring",
    _rewrite_missing,
    cost=1,
    reads=("rewrite",),
    explains="`present`: the listed substrings the rewrite holds.",
    values=_needles,
)


# --- rewrite_regex_any ---------------------------------------------------------------------------------


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


def _bad_regexes(doc: YamlDocument, at: JsonPath, block: dict[str, Any]) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.regex import PatternError

    patterns = block["rewrite_regex_any"]
    out = []
    for index, pattern in enumerate(patterns if isinstance(patterns, list) else []):
        if not isinstance(pattern, str):
            continue
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            span = doc.value_span((*at, "rewrite_regex_any", index))
            out.append(error(doc.path, span, "bad-regex", f"RE2 cannot compile '{pattern}': {exc}"))
    return out


REWRITE_REGEX_ANY = ConditionKind(
    "rewrite_regex_any",
    _regex_any,
    cost=3,
    reads=("rewrite_preferred",),
    explains="`pattern` and `match` (its first 200 characters): the first pattern that matched.",
    values=lambda st, when: st.lists(
        st.sampled_from(["a", "^a", "b$", "(a+)+$", "[aé]{2}", "\\.", "(?i)ss", ""]), max_size=3
    ),
    check=_bad_regexes,
    problems={"bad-regex": "A pattern RE2 cannot compile."},
)


# --- lengths: min_total_length, max_total_length -------------------------------------------------------


def _lengths(st: Any, when: Any) -> Any:
    return st.integers(0, 30)


def _min_length(value: Any) -> Compiled:
    minimum = int(value)  # a JSON Schema integer may be written 120.0; `Any`: compiled, a big int stays one

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total >= minimum, "length_total": s.length_total, "min": minimum}

    return (lambda s: s.length_total >= minimum), explain, ()


def _impossible_length(doc: YamlDocument, at: JsonPath, block: dict[str, Any]) -> list[Diagnostic]:
    from evalkit.engine.diagnostics import error
    from evalkit.engine.semantic import is_number

    low, high = block.get("min_total_length"), block.get("max_total_length")
    if not (is_number(low) and is_number(high) and low > high):
        return []
    return [
        error(
            doc.path,
            doc.value_span((*at, "min_total_length")),
            "impossible-length",
            f"min_total_length {low} is above max_total_length {high}: the rule can never fire",
        )
    ]


MIN_TOTAL_LENGTH = ConditionKind(
    "min_total_length",
    _min_length,
    cost=0,
    reads=("length_total",),
    explains="`length_total` and `min`.",
    values=_lengths,
    check=_impossible_length,
    problems={"impossible-length": "min_total_length above max_total_length: the rule can never fire."},
)


def _max_length(value: Any) -> Compiled:
    maximum = int(value)

    def explain(s: Signals) -> Detail:
        return {"held": s.length_total <= maximum, "length_total": s.length_total, "max": maximum}

    return (lambda s: s.length_total <= maximum), explain, ()


MAX_TOTAL_LENGTH = ConditionKind(
    "max_total_length",
    _max_length,
    cost=0,
    reads=("length_total",),
    explains="`length_total` and `max`.",
    values=_lengths,
)  # checked against min_total_length by MIN_TOTAL_LENGTH's check


# --- any_of --------------------------------------------------------------------------------------------


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


ANY_OF = ConditionKind(
    "any_of",
    _any_of,
    cost=2,
    reads=(),
    explains="`blocks`: each block's conditions, each with what it saw (every block is explained).",
    values=lambda st, when: None if when is None else st.lists(when, max_size=3),
)


# --- dimensions: dimension_gt, dimension_lt ------------------------------------------------------------


def _thresholds(st: Any, when: Any) -> Any:
    ratings = st.floats(min_value=-1, max_value=6, allow_nan=False)
    return st.dictionaries(st.sampled_from(DIMENSIONS), ratings, max_size=2)


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


DIMENSION_GT = ConditionKind(
    "dimension_gt",
    lambda value: _dimension_compare(value, greater=True),
    cost=0,
    reads=("ratings",),
    explains="`values`: the named dimensions' original ratings; `thresholds`.",
    values=_thresholds,
)

DIMENSION_LT = ConditionKind(
    "dimension_lt",
    lambda value: _dimension_compare(value, greater=False),
    cost=0,
    reads=("ratings",),
    explains="`values`: the named dimensions' original ratings; `thresholds`.",
    values=_thresholds,
)


CONDITIONS: dict[str, ConditionKind] = {
    kind.name: kind
    for kind in (
        RESPONSE_CONTAINS_ANY,
        NOT_CONTAINS_ANY,
        PREFERRED_REWRITE_MISSING_SUBSTRING,
        REWRITE_REGEX_ANY,
        MIN_TOTAL_LENGTH,
        MAX_TOTAL_LENGTH,
        ANY_OF,
        DIMENSION_GT,
        DIMENSION_LT,
    )
}
"""Every condition, in the order of schemas/rules.schema.json's `$defs.conditions` (the editor offers them in
that order)."""


class Block:
    """Conditions that must all hold (a rule's `when`, or one block of `any_of`).

    They are tested cheapest first (each record's `cost`): a comparison of numbers before a search of the
    text, a search for needles before an `any_of` of them and a regex. A block holds when all its conditions
    do, and they read only the signals, so the first that fails settles it whatever the order: the cheap ones
    first spare most rules' searches (the explanation keeps the order of the config)."""

    __slots__ = ("_tests", "conditions")

    def __init__(self, conditions: tuple[Condition, ...]) -> None:
        self.conditions = conditions
        tested = sorted(conditions, key=lambda condition: CONDITIONS[condition.name].cost)
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
    return Block(
        tuple(Condition(name, *CONDITIONS[name].compile_value(value)) for name, value in (when or {}).items())
    )


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
