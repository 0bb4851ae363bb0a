"""The typos scorer: the seed's examples, then each parsing rule LiveBench's scorer follows."""

from __future__ import annotations

import time

import pytest

from evalkit.qydomain import typos_process_results
from evalkit.qydomain.typos import between_delimiters, parse_typos_answer


@pytest.mark.parametrize(
    ("ground_truth", "answer", "expected"),
    [
        ("extraordinary", "<solution>extraordinary</solution>", 1),
        ("extraordinary", "<solution>extraordinry</solution>", 0),
        ("hello", "The answer is --- hello --- done", 1),
        ("hello", "The word is hello.", 1),
    ],
)
def test_seed_examples(ground_truth: str, answer: str, expected: int) -> None:
    result = typos_process_results(ground_truth, answer)
    assert result == expected
    assert type(result) is int


def test_the_last_solution_block_wins() -> None:
    answer = "<solution>extraordinary</solution> on second thought <solution>extraordinry</solution>"
    assert typos_process_results("extraordinary", answer) == 0
    assert typos_process_results("extraordinry", answer) == 1


def test_a_solution_block_must_sit_on_one_line() -> None:
    answer = "<solution>first draft\nof it</solution>\nFinal: <solution>the fix</solution>"
    assert parse_typos_answer(answer) == "the fix"
    assert typos_process_results("first draft of it", answer) == 0


def test_a_multi_line_block_alone_falls_back_to_the_whole_answer_without_tags() -> None:
    answer = "<solution>hello\n\nworld</solution>"
    assert parse_typos_answer(answer) == "hello world"
    assert typos_process_results("hello world", answer) == 1


def test_blocks_are_found_left_to_right_without_overlap() -> None:
    assert parse_typos_answer("<solution>a<solution>b</solution>") == "a<solution>b"


def test_delimiters_take_the_last_pair_on_the_first_line_that_has_one() -> None:
    assert between_delimiters("s --- a --- b --- e") == "b"
    assert between_delimiters("one --- only\nx --- y --- z\nw --- v --- u") == "y"
    assert between_delimiters("a ---  --- b") == ""


def test_delimiters_are_used_only_without_a_solution_block() -> None:
    answer = "x --- wrong --- y\n<solution>right</solution>"
    assert parse_typos_answer(answer) == "right"


def test_text_outside_the_delimiters_does_not_count() -> None:
    assert typos_process_results("done", "The answer is --- hello --- done") == 0


def test_stray_tags_are_removed_before_the_fallbacks() -> None:
    assert parse_typos_answer("a</solution>b") == "ab"
    assert typos_process_results("hello world", "<solution>hello world") == 1


def test_lines_are_joined_with_single_spaces_and_empty_lines_dropped() -> None:
    assert parse_typos_answer("  hello\n\nworld \n") == "hello world"
    assert typos_process_results("hello world", "hello\n\nworld") == 1
    assert typos_process_results("hello\nworld", "hello\n\nworld") == 0


def test_the_substring_test_is_case_sensitive() -> None:
    assert typos_process_results("Hello", "<solution>hello there</solution>") == 0
    assert typos_process_results("hello", "<solution>Oh, hello there</solution>") == 1


@pytest.mark.parametrize(
    ("ground_truth", "answer"),
    [("", "anything"), ("   ", "a   b"), ("\n", "a\nb"), (None, "x"), ("x", None), (b"x", b"x"), (1, "1")],
)
def test_malformed_input_scores_zero(ground_truth: object, answer: object) -> None:
    assert typos_process_results(ground_truth, answer) == 0


def test_an_opening_tag_on_every_line_stays_linear() -> None:
    # Each opening's closing tag is the one at the very end: searching for it from every line took
    # seconds (quadratic) where LiveBench's regex takes a millisecond.
    answer = "<solution>\n" * 100_000 + "extraordinary</solution>"
    started = time.perf_counter()
    assert typos_process_results("extraordinary", answer) == 1
    assert time.perf_counter() - started < 1.0
