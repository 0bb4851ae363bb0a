"""Laws the scorers keep on any input, and oracles for the parts rewritten for speed.

Texts are drawn both freely and from the tokens the parsers look for, so that tags, delimiters and braces
meet in every arrangement.
"""

from __future__ import annotations

import math
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalkit.qydomain import (
    compute_score,
    connections_process_results,
    plot_unscrambling_process_results,
    score,
    strip_think,
    typos_process_results,
)
from evalkit.qydomain.tags import blocks_between
from evalkit.qydomain.typos import between_delimiters
from evalkit.qydomain.unscrambling import answer_ordering, plot_summary
from tests.budget import examples

TOKENS = [
    "<solution>", "</solution>", " --- ", "<PLOT_SUMMARY>", "</PLOT_SUMMARY>", "**End of Plot Summary**",
    "\\boxed{", "\\boxed", "\\text{", "{", "}", "\\", "$", "<think>", "</think>",
    ",", ".", "\n", " ", "a", "B", "é", "\U0001f600", "\ud800",
]  # fmt: skip
tokens_text = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)
any_text = st.one_of(st.text(), tokens_text)
anything = st.one_of(any_text, st.none(), st.integers(), st.binary(), st.lists(st.text(max_size=3)))
# A busy machine must not fail a test about values: no deadline per example.
relaxed = settings(deadline=None)
thorough = settings(relaxed, max_examples=examples(200))
SCORERS = (typos_process_results, connections_process_results, plot_unscrambling_process_results)

# Plain words and sentences: no separators, no tags, nothing the parsers would cut.
word_character = st.characters(blacklist_characters=",.\n<>", blacklist_categories=("Cs",))
word = st.text(alphabet=word_character, min_size=1)
clean_word = word.map(str.strip).filter(bool)


@relaxed
@given(any_text, any_text)
@example("a,b,c,d", "a,b</solution>")  # a closing tag that closes no block: the answer is looked for boxed
def test_every_score_is_in_the_unit_interval_and_typos_scores_are_zero_or_one(
    ground_truth: str, answer: str
) -> None:
    for scorer in SCORERS:
        assert 0 <= scorer(ground_truth, answer) <= 1
    assert typos_process_results(ground_truth, answer) in (0, 1)


@relaxed
@given(anything, anything, anything)
def test_nothing_raises_on_any_input(ground_truth: object, answer: object, data_source: object) -> None:
    for scorer in SCORERS:
        scorer(ground_truth, answer)
    for name in ("typos", "connections", "unscrambling"):
        score(name, answer, {"label": ground_truth})  # type: ignore[arg-type]
        score(name, answer, ground_truth)  # type: ignore[arg-type]
        compute_score(name, answer, ground_truth)  # type: ignore[arg-type]


@st.composite
def connections_puzzle(draw: st.DrawFn) -> tuple[list[list[str]], str]:
    """k distinct groups of four distinct (normalised) words, and an answer built from any words."""
    words = draw(st.lists(clean_word.map(str.lower), min_size=4, max_size=24, unique_by=str.lower))
    groups = [words[start : start + 4] for start in range(0, len(words) - len(words) % 4, 4)]
    pool = [*words, "zz"]
    answer_words = draw(st.lists(st.sampled_from(pool), max_size=28))
    form = draw(st.sampled_from(["<solution>{}</solution>", "\\boxed{{{}}}", "{}"]))
    answer = form.format(",".join(answer_words))
    return groups, answer


@relaxed
@given(connections_puzzle())
def test_a_connections_score_is_a_multiple_of_one_over_k(puzzle: tuple[list[list[str]], str]) -> None:
    groups, answer = puzzle
    k = len(groups)
    result = connections_process_results(",".join(",".join(group) for group in groups), answer)
    assert math.isclose(result * k, round(result * k), abs_tol=1e-9)


@relaxed
@given(st.lists(clean_word, min_size=1, max_size=16))
def test_connections_ground_truth_itself_scores_one(words: list[str]) -> None:
    ground_truth = ",".join(words)
    assert connections_process_results(ground_truth, f"<solution>{ground_truth}</solution>") == 1.0


@relaxed
@given(clean_word.filter(lambda text: " --- " not in text))
def test_typos_ground_truth_itself_scores_one(ground_truth: str) -> None:
    assert typos_process_results(ground_truth, f"<solution>{ground_truth}</solution>") == 1
    assert typos_process_results(ground_truth, ground_truth) == 1


@relaxed
@given(st.lists(clean_word, min_size=1, max_size=12, unique=True), st.booleans())
def test_unscrambling_ground_truth_itself_scores_one(sentences: list[str], tagged: bool) -> None:
    ground_truth = ". ".join(sentences) + "."
    answer = f"<PLOT_SUMMARY>{ground_truth}</PLOT_SUMMARY>" if tagged else ground_truth
    assert plot_unscrambling_process_results(ground_truth, answer) == 1.0


@relaxed
@given(st.lists(st.sampled_from(["a", "b", "-", " ", " --- ", "\n", "\r"]), max_size=30).map("".join))
def test_between_delimiters_agrees_with_livebench_regex(text: str) -> None:
    match = re.search(r".* --- (.*?) --- .*", text)
    assert between_delimiters(text) == (match.group(1) if match else text)


@relaxed
@given(tokens_text, st.sampled_from([("<solution>", "</solution>"), ("</solution>", "</solution>")]))
def test_blocks_between_agrees_with_the_lazy_regex(text: str, tags: tuple[str, str]) -> None:
    opening, closing = tags
    assert blocks_between(text, opening, closing) == re.findall(f"{opening}(.*?){closing}", text)


@relaxed
@given(tokens_text)
def test_strip_think_agrees_with_the_regex(text: str) -> None:
    assert strip_think(text) == re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL)


@relaxed
@given(tokens_text)
def test_plot_summary_agrees_with_livebench_regexes(text: str) -> None:
    match = re.search(r"<PLOT_SUMMARY>(.*)</PLOT_SUMMARY>", text, re.DOTALL) or re.search(
        r"<PLOT_SUMMARY>(.*)", text, re.DOTALL
    )
    assert plot_summary(text) == (match.group(1) if match else text)


def _edit_distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, item in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, other in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (item != other))
    return row[-1]


short_sentence = st.text(alphabet="abc ", min_size=1, max_size=6).map(str.strip).filter(bool)


def answer_ordering_takes_the_first_closest_sentence(truth: list[str], answer: list[str]) -> None:
    expected = []
    for sentence in truth:
        distances = [_edit_distance(list(sentence), list(candidate)) for candidate in answer]
        expected.append(distances.index(min(distances)))
    assert answer_ordering(truth, answer) == expected


def unscrambling_score_follows_the_formula(truth: list[str], answer: list[str]) -> None:
    n = len(truth)
    ordering = [str(index) for index in answer_ordering(truth, answer)]
    distance = _edit_distance([str(index) for index in range(n)], ordering)
    result = plot_unscrambling_process_results(". ".join(truth) + ".", ". ".join(answer) + ".")
    assert result == max(0.0, (n - distance) / n)


@thorough
@given(st.lists(short_sentence, min_size=1, max_size=8), st.lists(short_sentence, min_size=1, max_size=8))
def test_answer_ordering_takes_the_first_closest_sentence_and_the_score_follows_the_formula(
    truth: list[str], answer: list[str]
) -> None:
    """The two laws above on the same 200 pairs (drawing them is most of the cost)."""
    answer_ordering_takes_the_first_closest_sentence(truth, answer)
    unscrambling_score_follows_the_formula(truth, answer)
