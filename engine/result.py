"""The outcome of evaluating one submission, with the seed's field names.

The result object's contract: README, "Evaluating submissions".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, cast

if TYPE_CHECKING:
    from evalkit.engine.conditions import Block
    from evalkit.engine.context import Signals
    from evalkit.engine.plan import RulePlan


class FiredRule:
    """A rule that fired, with the records of its actions. What its conditions observed (`detail`) is
    known when an action needed it (a comment template reads it), else worked out each time it is read:
    most results are written once, and the explaining is skipped for those never asked."""

    __slots__ = ("_block", "_detail", "_signals", "actions", "id", "type")

    def __init__(
        self,
        rule_id: str,
        rule_type: str,
        detail: dict[str, Any] | None,
        actions: list[dict[str, Any]],
        block: Block | None = None,
        signals: Signals | None = None,
    ) -> None:
        self.id, self.type, self.actions = rule_id, rule_type, actions
        self._detail, self._block, self._signals = detail, block, signals

    @property
    def detail(self) -> dict[str, Any]:
        if self._detail is not None:
            return self._detail
        if self._block is None or self._signals is None:
            return {}
        return self._block.explain(self._signals)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "detail": self.detail, "actions": self.actions}


class SkippedRule:
    """A rule that did not fire. What its conditions observed is worked out only when asked for
    (the explain view, the TUI), so the common case of a rule that does not fire stays cheap."""

    __slots__ = ("_block", "_detail", "_signals", "_stopped_by", "id", "type")

    def __init__(
        self,
        rule_id: str,
        rule_type: str,
        block: Block | None,
        signals: Signals | None,
        stopped_by: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.id, self.type = rule_id, rule_type
        self._block, self._signals, self._stopped_by = block, signals, stopped_by
        self._detail = detail  # known already (rewrite rules), else worked out when asked for

    @property
    def detail(self) -> dict[str, Any]:
        if self._detail is not None:
            return self._detail
        if self._block is None or self._signals is None or self._stopped_by is not None:
            return {}
        return self._block.explain(self._signals, exhaustive=True)

    @property
    def failed(self) -> str | None:
        return _first_failed(self.detail)

    @property
    def reason(self) -> str:
        return self._reason(self.failed)

    def _reason(self, failed: str | None) -> str:
        if self._stopped_by is not None:
            return f"not run: '{self._stopped_by}' fired first and stop_after_first is set"
        return f"condition '{failed}' did not hold"

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail
        failed = _first_failed(detail)
        return {
            "id": self.id,
            "type": self.type,
            "failed": failed,
            "observed": detail.get(failed) if failed else None,
            "reason": self._reason(failed),
            "detail": detail,
        }


def _first_failed(detail: dict[str, Any]) -> str | None:
    return next((name for name, seen in detail.items() if not seen["held"]), None)


class Ratings:
    """What a result's `corrected_ratings` is made of: each dimension's original rating, its corrected one,
    the pull's rationale and the rules that adjusted it. A Result keeps these and builds the mapping when
    it is first read: `evalkit eval` writes it without building it (`ratings_members`)."""

    __slots__ = ("corrected", "moved_by", "original", "rationale")

    def __init__(
        self,
        original: dict[str, float],
        corrected: dict[str, float],
        rationale: dict[str, str],
        moved_by: dict[str, list[str]],
    ) -> None:
        self.original, self.corrected = original, corrected
        self.rationale, self.moved_by = rationale, moved_by

    def entries(self) -> dict[str, dict[str, Any]]:
        originals: dict[str, Any] = self.original  # Any: compiled, each float stays the object it is
        return {name: self.entry(name, original) for name, original in originals.items()}

    def entry(self, name: str, original: Any) -> dict[str, Any]:
        rules = self.moved_by.get(name)
        rationale = self.rationale[name]
        corrected: dict[str, Any] = self.corrected
        return {
            "original": original,
            "updated": corrected[name],
            "rationale": f"{rationale}; adjusted by {', '.join(rules)}" if rules else rationale,
            "adjusted_by": rules or [],
        }


MEMBERS_KEPT: Final = 4096
"""Members a `ratings_members` cache keeps written for a dimension; past that it drops them and writes them
again (and so for the dimensions kept)."""

Members = dict[str, dict[Any, tuple[Any, str, bytes]]]
"""What `ratings_members` keeps: dimension -> the original rating, or the original rating and the rules that
adjusted it -> (the corrected rating, the rationale, the member's text)."""


def ratings_members(ratings: Ratings, cache: Members, write: Callable[[dict[str, Any]], bytes]) -> bytes:
    """The members of `corrected_ratings` as JSON text, the text between its braces: `write` (json.dumps
    in UTF-8, or what writes the same) writes each member as the object `{name: entry}` of it alone, and
    its text without the braces is kept in `cache`, so that a member seen before (a dimension's rating
    takes few values: 4.0, 4.5, ...) is looked up, not built and written: by its dimension, then by its
    original rating (and the rules that adjusted it, if any did), and used where its corrected rating and
    rationale are those kept. A rating that is 0 (0.0 and -0.0 are one key of a dict, and are written
    apart) or not a float is written each time."""
    parts: list[bytes] = []
    # typed Any, not float: compiled, a float read from them stays the object it is (not unboxed and boxed)
    originals: dict[str, Any] = ratings.original
    corrected: dict[str, Any] = ratings.corrected
    rationale, moved_by = ratings.rationale, ratings.moved_by
    for name, given in originals.items():
        updated = corrected[name]
        why = rationale[name]
        known: dict[Any, tuple[Any, str, bytes]] | None = None
        key: Any = None
        written: bytes | None = None
        if type(given) is float and type(updated) is float and given != 0.0 and updated != 0.0:
            known = cache.get(name)
            if known is None:
                if len(cache) >= DIMENSIONS_KEPT:
                    cache.clear()
                known = cache[name] = {}
            rules = moved_by.get(name)
            key = (given, tuple(rules)) if rules else given
            seen = known.get(key)
            if seen is not None and seen[0] == updated and seen[1] == why:
                written = seen[2]
        if written is None:
            written = write({name: ratings.entry(name, given)})[1:-1]
            if known is not None:
                if len(known) >= MEMBERS_KEPT:
                    known.clear()
                known[key] = (updated, why, written)
        parts.append(written)
    return b", ".join(parts)


DIMENSIONS_KEPT: Final = 64


class Result:
    """The seed's result object (`to_dict`) and what explains it. A plain class, as the engine's others
    (engine/plan.py says why): results compare by `to_dict()`."""

    def __init__(
        self,
        corrected_ratings: dict[str, dict[str, Any]] | Ratings,
        corrected_ranking: list[Any],
        ranking_feedback: str,
        rewrite_final: str,
        prompt_feedback: str,
        global_summary: str,
        comments: list[str],
        fired_rules: list[FiredRule],
        score: float | None,
        flags: dict[str, bool],
        label: str | None,
        meta: dict[str, Any],
        not_fired: list[SkippedRule | RulePlan] | None = None,
        signals: Signals | None = None,
        ranking_issues: dict[str, list[Any]] | None = None,
        prompt_checks: list[dict[str, Any]] | None = None,
    ) -> None:
        self._ratings: Ratings | None = None
        self._corrected_ratings: dict[str, dict[str, Any]] | None = None
        if isinstance(corrected_ratings, Ratings):
            self._ratings = corrected_ratings
        else:
            self._corrected_ratings = corrected_ratings
        self.corrected_ranking = corrected_ranking
        self.ranking_feedback, self.rewrite_final = ranking_feedback, rewrite_final
        self.prompt_feedback, self.global_summary = prompt_feedback, global_summary
        self.comments, self.fired_rules, self.score = comments, fired_rules, score
        self.flags, self.label, self.meta = flags, label, meta
        self.not_fired: list[SkippedRule | RulePlan] = [] if not_fired is None else not_fired
        """The rules that did not fire, in order. One whose conditions failed stays its plan, made a
        SkippedRule only where `skipped_rules` is read (the explain view, the TUI, dry runs): most results
        are never asked."""
        self.signals = signals
        self.ranking_issues: dict[str, list[Any]] = {} if ranking_issues is None else ranking_issues
        self.prompt_checks: list[dict[str, Any]] = [] if prompt_checks is None else prompt_checks
        """Every prompt check that failed (`prompt_feedback` gives the first one's text only)."""

    @property
    def corrected_ratings(self) -> dict[str, dict[str, Any]]:
        """Each dimension's original and corrected rating, the rationale and the rules that adjusted it:
        built at the first read, the same mapping after that."""
        built = self._corrected_ratings
        if built is None:
            assert self._ratings is not None
            built = self._corrected_ratings = self._ratings.entries()
        return built

    @property
    def unbuilt_ratings(self) -> Ratings | None:
        """What `corrected_ratings` is made of, while it is not built (and so not changed by a reader)."""
        return self._ratings if self._corrected_ratings is None else None

    @property
    def skipped_rules(self) -> list[SkippedRule]:
        signals = self.signals
        return [
            entry
            if isinstance(entry, SkippedRule)
            else SkippedRule(entry.id, entry.type, entry.when, signals)
            for entry in self.not_fired
        ]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"corrected_ratings": self.corrected_ratings}
        data.update(self.to_dict_after_ratings())
        return data

    def to_dict_after_ratings(self) -> dict[str, Any]:
        """`to_dict()` without its first member, `corrected_ratings`, in the same order."""
        return {
            "corrected_ranking": self.corrected_ranking,
            "ranking_feedback": self.ranking_feedback,
            "rewrite_final": self.rewrite_final,
            "prompt_feedback": self.prompt_feedback,
            "global_summary": self.global_summary,
            "comments": self.comments,
            "fired_rules": [rule.to_dict() for rule in self.fired_rules],
            "score": self.score,
            "flags": self.flags,
            "label": self.label,
            "meta": self.meta,
        }

    def explain(self) -> dict[str, Any]:
        """The --explain-json view: every rule, fired or not, with what each condition observed, and every
        prompt check that failed."""
        return {
            "fired_rules": [rule.to_dict() for rule in self.fired_rules],
            "not_fired": [rule.to_dict() for rule in self.skipped_rules],
            "prompt_checks": self.prompt_checks,
            "score": self.score,
            "flags": self.flags,
            "label": self.label,
            "meta": self.meta,
        }


PLAIN_DEPTH: Final = 64
"""Nesting beyond which `plain_json` says no (a result nests five deep): the careful encoder decides."""


def plain_json(value: object, depth: int = 0) -> bool:
    """Whether a fast JSON encoder (msgspec) writes `value` as json.dumps writes it: only dicts with string
    keys, lists, tuples, strings, ints, bools, None and floats that are 0 or between 1e-4 and 1e16 in
    magnitude, each of exactly these types. Outside that range Python's repr writes an exponent (`1e-05`,
    `1e+16`) where msgspec writes `0.00001` or `1e16`; NaN and infinities json.dumps writes as no other
    encoder does. Walking a result (about 70 values) costs half what searching its encoded bytes for such
    numbers does. Compiled by mypyc with the result (setup.py); services/run/batch.py's encoder asks it.
    (A container's scalars are decided in its loop, not by a call each: most members are scalars.)"""
    kind = type(value)
    if kind is dict:
        if depth >= PLAIN_DEPTH:
            return False
        for key, item in cast(dict[Any, Any], value).items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str or kind is bool or kind is int or item is None:
                continue
            if kind is float:
                if not _plain_float(item):
                    return False
            elif not plain_json(item, depth + 1):
                return False
        return True
    if kind is list:
        if depth >= PLAIN_DEPTH:
            return False
        for item in cast(list[Any], value):
            kind = type(item)
            if kind is str or kind is bool or kind is int or item is None:
                continue
            if kind is float:
                if not _plain_float(item):
                    return False
            elif not plain_json(item, depth + 1):
                return False
        return True
    if kind is str or kind is bool or kind is int or value is None:
        return True
    if kind is float:
        return _plain_float(cast(float, value))
    if kind is tuple:
        return plain_json(list(cast(tuple[Any, ...], value)), depth)
    return False


def _plain_float(value: float) -> bool:
    """Written alike by repr and msgspec: 0, or a magnitude from 1e-4 up to 1e16 (NaN is neither)."""
    size = abs(value)
    return size == 0.0 or 1e-4 <= size < 1e16
