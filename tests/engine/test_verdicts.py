"""The test of all rules at once (`compile_verdicts`: every rule's needles searched first, in one pass) says
exactly what each rule's conditions say one by one on fresh signals (`Block.test`) and what their explanation
reports (`held`), for any `when` and any submission, short or long."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.engine import DIMENSIONS
from evalkit.engine.conditions import CONDITIONS, NEEDLE_ALPHABET, compile_verdicts, compile_when
from evalkit.engine.context import Signals
from evalkit.engine.needles import SHORT_TEXT
from evalkit.engine.submission import parse_submission
from tests.budget import examples

WORDS = st.text(alphabet=NEEDLE_ALPHABET, max_size=4)  # case folding, regex metacharacters
RATINGS = st.floats(min_value=-1, max_value=6, allow_nan=False)


def whens(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Any `when` of every condition the records hold, each value drawn from its record's strategy; `any_of`
    nests `depth` deep."""
    nested = whens(depth - 1) if depth else None
    drawn = {name: kind.values(st, nested) for name, kind in CONDITIONS.items()}
    leaves = {name: values for name, values in drawn.items() if values is not None}
    return st.dictionaries(st.sampled_from(sorted(leaves)), st.none(), max_size=4).flatmap(
        lambda keys: st.fixed_dictionaries({key: leaves[key] for key in keys})
    )


def test_every_condition_is_drawn_and_any_of_only_while_it_may_nest() -> None:
    assert {name for name, kind in CONDITIONS.items() if kind.values(st, whens(0)) is not None} == set(
        CONDITIONS
    )
    assert {name for name, kind in CONDITIONS.items() if kind.values(st, None) is None} == {"any_of"}


submissions = st.fixed_dictionaries(
    {
        "prompt": st.just("P"),
        "responses": st.lists(
            st.fixed_dictionaries({"id": st.sampled_from("ab"), "text": WORDS}), min_size=1, max_size=3
        ),
        "ranking": st.just([]),
        "ratings": st.fixed_dictionaries(dict.fromkeys(DIMENSIONS, RATINGS)),
        "rewrite_preferred": WORDS,
    }
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(whens(), max_size=5), submissions, st.sampled_from(["", "é" * SHORT_TEXT, "z" * SHORT_TEXT]))
def test_verdicts_agree_with_each_condition(
    rules: list[dict[str, Any]], data: dict[str, Any], filler: str
) -> None:
    """`filler` makes a long text (searched by parts, the rewrite's results shared with the whole text's)."""
    data["rewrite_preferred"] += filler
    submission = parse_submission(data)
    blocks = [compile_when(when) for when in rules]
    signals = Signals.of(submission)
    verdicts = compile_verdicts(blocks)(signals)
    assert verdicts == tuple(block.test(Signals.of(submission)) for block in blocks)
    for verdict, block in zip(verdicts, blocks, strict=False):
        assert verdict == all(seen["held"] for seen in block.explain(signals, exhaustive=True).values())
        assert type(verdict) is bool


def test_nesting_deeper_than_the_parser_takes_still_tests() -> None:
    when: dict[str, Any] = {"min_total_length": 1}
    for _ in range(150):  # YAML depth caps configs far below this; the Python API does not
        when = {"any_of": [when]}
    block = compile_when(when)
    signals = Signals.of(
        parse_submission(
            {
                "prompt": "P",
                "responses": [{"id": "a", "text": "abc"}],
                "ranking": ["a"],
                "ratings": dict.fromkeys(DIMENSIONS, 3.0),
            }
        )
    )
    assert compile_verdicts([block])(signals) == (True,)


def test_no_response_is_an_empty_one_in_a_short_text_as_in_a_long_one() -> None:
    """A Submission built with no response (the Python API allows it; parsing does not): the text searched
    is an empty response, a newline and the rewrite, lowered whole when short as by parts when long."""
    from evalkit.engine.submission import Submission

    block = compile_when({"response_contains_any": ["\nab"]})
    for rewrite in ("ab", "ab" + "z" * SHORT_TEXT):
        submission = Submission("P", (), (), dict.fromkeys(DIMENSIONS, 3.0), rewrite_preferred=rewrite)
        assert compile_verdicts([block])(Signals.of(submission)) == (True,)
