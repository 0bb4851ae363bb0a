"""The plot unscrambling scorer: the seed's examples, extraction, sentence splitting and matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.qydomain import plot_unscrambling_process_results, strip_think
from evalkit.qydomain.dispatch import too_large
from evalkit.qydomain.unscrambling import (
    _work_bound,
    matching_work,
    plot_summary,
    score_or_refusal,
    sentences,
)
from tests.budget import examples

PLOT = "The hero wakes up. He fights the dragon. He wins the gold."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The hero wakes up. He fights the dragon. He wins the gold.", 1.0),
        ("The hero wakes up. He wins the gold. He fights the dragon.", 0.3333333333333333),
        ("He wins the gold. He fights the dragon. The hero wakes up.", 0.3333333333333333),
        ("He fights the dragon. The hero wakes up. He wins the gold.", 0.3333333333333333),
    ],
)
def test_seed_examples_are_exact(answer: str, expected: float) -> None:
    assert plot_unscrambling_process_results(PLOT, f"<PLOT_SUMMARY>{answer}</PLOT_SUMMARY>") == expected


def test_seed_walkthrough() -> None:
    answer = "<PLOT_SUMMARY>B. A. C.</PLOT_SUMMARY>"
    assert plot_unscrambling_process_results("A. B. C.", answer) == 0.3333333333333333


def test_text_around_the_tags_is_ignored() -> None:
    answer = "Sure. Here it is. <PLOT_SUMMARY>A. B. C.</PLOT_SUMMARY> Hope that helps. Bye."
    assert plot_unscrambling_process_results("A. B. C.", answer) == 1.0


def test_extraction_is_greedy_from_first_opening_to_last_closing_tag() -> None:
    text = "x<PLOT_SUMMARY>a</PLOT_SUMMARY>b</PLOT_SUMMARY>y"
    assert plot_summary(text) == "a</PLOT_SUMMARY>b"


def test_without_a_closing_tag_everything_after_the_opening_tag_counts() -> None:
    assert plot_summary("intro. <PLOT_SUMMARY>A. B.") == "A. B."
    assert plot_summary("x</PLOT_SUMMARY><PLOT_SUMMARY>A.") == "A."
    assert plot_unscrambling_process_results("A. B. C.", "Intro here. <PLOT_SUMMARY>A. B. C.") == 1.0


def test_without_tags_the_whole_answer_counts() -> None:
    assert plot_unscrambling_process_results("A. B. C.", "A. B. C.") == 1.0
    assert plot_summary("A. B.") == "A. B."


def test_sentences_split_on_full_stops_only() -> None:
    # Split on '!' too, the answer would put "Third" between "First!" and "Second" and score 1/3.
    assert plot_unscrambling_process_results("First! Second. Third.", "Third. First! Second.") == 0.0


def test_pieces_are_stripped_and_empty_ones_dropped() -> None:
    assert plot_unscrambling_process_results("A. B. C.", "  A .\n B.C  .") == 1.0
    assert plot_unscrambling_process_results("A. B. C.", "A.. B. . C.") == 1.0


def test_leftover_markers_are_not_sentences() -> None:
    # Counted as a sentence, either marker would be the one match for "A" and score 1.0.
    assert plot_unscrambling_process_results("A.", "**End of Plot Summary**. </PLOT_SUMMARY>") == 0.0
    assert plot_unscrambling_process_results("A. B.", "A. B. **End of Plot Summary**.") == 1.0


@pytest.mark.parametrize("answer", ["", "...", " . . ", "<PLOT_SUMMARY></PLOT_SUMMARY>", "<PLOT_SUMMARY>"])
def test_an_answer_without_sentences_scores_zero(answer: str) -> None:
    assert plot_unscrambling_process_results("A. B. C.", answer) == 0.0


def test_matching_is_by_edit_distance_not_similarity_ratio() -> None:
    # difflib's ratio pairs "abcd" with "abcdxxxxxx" (1.0 overall); the edit distance prefers "q" (4 < 6).
    assert plot_unscrambling_process_results("abcd. q.", "abcdxxxxxx. q. zzzz.") == 0.5


def test_ties_go_to_the_first_answer_sentence() -> None:
    # "xx" is one edit from both "ax" and "xa"; taking "xa" (index 1) would score 0.0.
    assert plot_unscrambling_process_results("xx. b.", "ax. xa. b.") == 0.5


def test_scores_compare_answer_positions_so_an_inserted_sentence_shifts_the_rest() -> None:
    assert plot_unscrambling_process_results("A. B.", "A. B. Something else entirely.") == 1.0
    assert plot_unscrambling_process_results("A. B.", "A. Something else entirely. B.") == 0.5


@pytest.mark.parametrize(
    ("ground_truth", "answer"),
    [("", "A."), ("...", "A."), ("  ", "A."), (None, "A."), ("A.", None), (1.5, "A.")],
)
def test_malformed_input_scores_zero(ground_truth: object, answer: object) -> None:
    assert plot_unscrambling_process_results(ground_truth, answer) == 0.0


def _reworded(n: int) -> tuple[str, str]:
    truth = [f"Sentence {i} of the plot" for i in range(n)]
    return ". ".join(truth) + ".", "<PLOT_SUMMARY>" + ". ".join(
        s + " again" for s in truth
    ) + ".</PLOT_SUMMARY>"


def test_a_pair_above_the_work_bound_scores_zero_without_matching(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalkit.qydomain import unscrambling

    ground_truth, answer = _reworded(3)
    assert plot_unscrambling_process_results(ground_truth, answer) == 1.0
    work = unscrambling.matching_work(*unscrambling.sentences(ground_truth, answer))
    monkeypatch.setattr(unscrambling, "MAX_MATCHING_WORK", work - 1)
    assert plot_unscrambling_process_results(ground_truth, answer) == 0.0


def test_a_pair_at_the_work_bound_is_scored_though_its_quick_bound_is_above(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evalkit.qydomain import unscrambling

    ground_truth, answer = _reworded(3)
    work = unscrambling.matching_work(*unscrambling.sentences(ground_truth, answer))
    assert unscrambling._work_bound(3, False, ground_truth, answer, 3) > work
    monkeypatch.setattr(unscrambling, "MAX_MATCHING_WORK", work)
    assert plot_unscrambling_process_results(ground_truth, answer) == 1.0


def test_twenty_thousand_distinct_sentences_a_side_are_above_the_bound() -> None:
    from evalkit.qydomain import unscrambling

    truth, answer = unscrambling.sentences(*_reworded(20_000))
    assert unscrambling.matching_work(truth, answer) > unscrambling.MAX_MATCHING_WORK


def test_any_number_of_verbatim_sentences_is_within_the_bound() -> None:
    truth = [f"Sentence {i} of the plot" for i in range(20_000)]
    answer = "<PLOT_SUMMARY>" + ". ".join(truth) + ".</PLOT_SUMMARY>"
    assert plot_unscrambling_process_results(". ".join(truth) + ".", answer) == 1.0


sentences_text = st.lists(
    st.sampled_from(["a", "bc", "Déf", " ", ".", ". ", "\n", "x" * 70, "<PLOT_SUMMARY>", "</PLOT_SUMMARY>"]),
    max_size=30,
).map("".join)


@settings(deadline=None, max_examples=examples(300))
@given(sentences_text, sentences_text)
def test_the_quick_bound_on_the_work_is_never_below_the_work(ground_truth: str, llm_answer: str) -> None:
    """The scorer compares the bound from the texts' lengths with MAX_MATCHING_WORK first, and sums the work
    sentence by sentence only above it: a bound below the work would let a pair through unrefused."""
    truth, answer = sentences(ground_truth, llm_answer)
    verbatim = set(answer)
    matched = all(sentence in verbatim for sentence in truth)
    bound = _work_bound(len(truth), matched, ground_truth, llm_answer, len(answer))
    assert bound >= matching_work(truth, answer)


@settings(deadline=None, max_examples=examples(300))
@given(
    sentences_text,
    st.lists(st.sampled_from(["a. bc", ". ", "<think>a. b.</think>", "x" * 70 + "."]), max_size=5).map(
        "".join
    ),
    sentences_text,
    st.sampled_from([1, 40, 300, 3000, None]),
)
def test_a_score_or_its_refusal_is_the_score_or_too_large_s_reason(
    ground_truth: str, thinking: str, llm_answer: str, limit: int | None
) -> None:
    """What `evalkit score` calls for an unscrambling row (the sentences split once) gives what the scorer
    gives and, for a pair it scores 0 unmatched, the reason `too_large` gives (it splits them again): at
    limits that refuse some pairs and not others."""
    from evalkit.qydomain import dispatch, unscrambling

    saved = unscrambling.MAX_MATCHING_WORK
    answer = thinking + llm_answer
    try:
        if limit is not None:
            unscrambling.MAX_MATCHING_WORK = dispatch.MAX_MATCHING_WORK = limit
        why = too_large("unscrambling", answer, {"label": ground_truth})
        scored = plot_unscrambling_process_results(ground_truth, strip_think(answer))
        assert score_or_refusal(ground_truth, strip_think(answer)) == (scored if why is None else why)
    finally:
        unscrambling.MAX_MATCHING_WORK = dispatch.MAX_MATCHING_WORK = saved
