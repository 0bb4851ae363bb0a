"""The connections scorer: the seed's examples, extraction order, grouping and the count-once rule."""

from __future__ import annotations

import pytest

from evalkit.qydomain import connections_process_results
from evalkit.qydomain.boxed import last_boxed_answer
from evalkit.qydomain.connections import group_words

FRUIT_AND_COLOURS = "Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow"
FOUR_GROUPS = "apple,pear,plum,fig,red,blue,green,pink,cat,dog,cow,hen,one,two,six,ten"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("<solution>Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow</solution>", 1.0),
        ("<solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>", 0.5),
        ("<solution>Red,Apple,Blue,Banana,Green,Pear,Yellow,Grape</solution>", 0.0),
    ],
)
def test_seed_examples(answer: str, expected: float) -> None:
    assert connections_process_results(FRUIT_AND_COLOURS, answer) == expected


def test_groups_match_in_any_order_and_words_in_any_order() -> None:
    answer = "<solution>yellow,GREEN,blue,red,grape,pear,banana,apple</solution>"
    assert connections_process_results(FRUIT_AND_COLOURS, answer) == 1.0


def test_words_are_stripped_and_lower_cased() -> None:
    answer = "<solution> APPLE , banana,PEAR ,grape ,red, Blue,green , yellow</solution>"
    assert connections_process_results(FRUIT_AND_COLOURS, answer) == 1.0


def test_a_final_sigma_lower_cases_as_python_lower_cases_it() -> None:
    # 'ΑΣ'.lower() is 'ας': a word's final capital sigma becomes the final form. The compiled scorer lowered
    # non-ASCII words one character at a time ('ασ'), so 'ΑΣ' in the ground truth matched no 'ας' answered.
    truth = "ΑΣ,b,c,d,e,f,g,h"
    assert connections_process_results(truth, "<solution>ας,b,c,d,e,f,g,h</solution>") == 1.0
    assert connections_process_results(truth, "<solution>ας,b,c,d,x,f,g,h</solution>") == 0.5
    assert connections_process_results("A,AA,B,AAA,AΣ,A,AA", "<solution>A,Aς,AA</solution>") == 0.5
    assert group_words(["ΑΣ ", "b"]) == [frozenset({"ας", "b"})]


def test_a_one_line_block_is_preferred_to_one_spanning_lines() -> None:
    answer = "<solution>w,x,\ny,z</solution>\n<solution>a,b,c,d</solution>"
    assert connections_process_results("a,b,c,d", answer) == 1.0
    assert connections_process_results("w,x,y,z", answer) == 0.0


def test_a_block_spanning_lines_is_read_with_newlines_removed() -> None:
    assert connections_process_results("a,b,c,d", "<solution>a,b,\nc,d</solution>") == 1.0


def test_a_closing_tag_used_as_opening_tag_is_accepted_after_proper_blocks() -> None:
    assert connections_process_results("a,b,c,d", "</solution>a,b,c,d</solution>") == 1.0
    assert connections_process_results("a,b,c,d", "</solution>a,b,\nc,d</solution>") == 1.0
    proper_first = "</solution>w,x,y,z</solution><solution>a,b,c,d</solution>"
    assert connections_process_results("a,b,c,d", proper_first) == 1.0


def test_solution_blocks_are_preferred_to_boxed() -> None:
    answer = "<solution>a,b,c,d</solution> so \\boxed{w,x,y,z}"
    assert connections_process_results("a,b,c,d", answer) == 1.0


def test_boxed_is_read_with_text_closing_braces_backslashes_and_newlines_removed() -> None:
    assert connections_process_results("a,b,c,d", r"\boxed{\text{A, B, C, D}}") == 1.0
    assert connections_process_results("a,b,c,d", r"$\boxed{a,b\\,c,d}$") == 1.0
    assert connections_process_results("a,b,c,d", "\\boxed{a,b,\nc,d}") == 1.0


# LiveBench's last_boxed_only_string, as the reference reads it (issue 24, point 4): the expected scores are
# LiveBench's, worked out by hand from livebench/process_results/util.py and writing/connections/utils.py.
EIGHT = "a,b,c,d,e,f,g,h"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (r"The groups: $\boxed a, b, c, d, e, f, g, h$.", 1.0),
        (r"\boxed a, b, c, d, e, f, g, h", 1.0),  # no `$`: up to the end
        (r"\boxed a, b, c, d, x, f, g, h$ and \boxed{e, f, g, h}", 0.5),  # the space form wins
        (r"\boxed{w} then \boxed a, b, c, d$ then \boxed{e, f, g, h}", 0.5),
    ],
)
def test_the_space_form_is_read_up_to_the_first_dollar(answer: str, expected: float) -> None:
    # evalkit scored these 0: `\boxed` had to open a brace at once
    assert connections_process_results(EIGHT, answer) == expected


def test_escaped_braces_count_as_braces_and_their_opening_brace_stays() -> None:
    # `a\{b\}` is read `a{b` (the closing brace and the backslashes removed, the opening brace kept): the
    # word is not `ab`, so one group of four is lost (evalkit read `ab` and scored 1.0)
    truth = "ab,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q"
    answer = r"\boxed{a\{b\}, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q}"
    assert connections_process_results(truth, answer) == 0.75


def test_nested_braces_keep_their_opening_brace() -> None:
    # `{e}` is read `{e`: its group is lost (evalkit removed every brace and scored 1.0); `\text{…}` goes
    # whole
    assert connections_process_results(EIGHT, r"\boxed{a, b, c, d, {e}, f, g, h}") == 0.5
    assert connections_process_results(EIGHT, r"\boxed{{a, b, c, d}, {e, f, g, h}}") == 0.0
    assert connections_process_results(EIGHT, r"\boxed{\text{a}, \text{b}, c, d, e, f, g, \text{h}}") == 1.0


def test_a_brace_form_with_dollars_and_fbox_reads_as_livebench_reads_it() -> None:
    assert connections_process_results("a,b,c,d", r"\boxed{a, b$, c, d}") == 1.0  # its `$` removed
    assert connections_process_results("boxed,b,c,d", r"\boxed{fbox, b, c, d}") == 1.0  # fbox -> boxed
    # its `$` removed, `\boxed {a, b, c, d}` is taken as the space form: the word `{a` keeps its brace
    assert connections_process_results("a,b,c,d", r"\boxed$ {a, b, c, d}") == 0.0
    assert connections_process_results("{a,b,c,d", r"\boxed$ {a, b, c, d}") == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "\\boxed\n{a,b,c,d}",  # the brace form must start `\boxed{`: LiveBench's assertion fails
        r"\boxed{a,b,c,d",  # no brace closes: LiveBench's remove_boxed(None) raises
        r"\boxed{a,b,c,d} then \boxed",
        r"\boxed}{a,b,c,d}",  # a `}` first counts down to -1: the count never comes back to 0
    ],
)
def test_where_livebench_raises_the_score_is_zero(answer: str) -> None:
    assert connections_process_results("a,b,c,d", answer) == 0.0


def test_only_the_last_boxed_counts() -> None:
    answer = r"first \boxed{a,b,c,d} then \boxed{w,x,y,z}"
    assert connections_process_results("a,b,c,d", answer) == 0.0
    assert connections_process_results("w,x,y,z", answer) == 1.0


def test_last_boxed_answer_balances_nested_braces() -> None:
    assert last_boxed_answer(r"\boxed{a{b}c} tail}") == "a{b}c"
    assert last_boxed_answer(r"\boxed x{a}") == "x{a}"
    assert last_boxed_answer("no box here") is None


def test_an_answer_without_a_solution_scores_zero() -> None:
    assert connections_process_results(FRUIT_AND_COLOURS, FRUIT_AND_COLOURS) == 0.0


def test_a_group_closes_at_four_distinct_words() -> None:
    assert group_words(["a", "A ", "b", "c", "d", "e"]) == [frozenset("abcd"), frozenset("e")]
    assert connections_process_results("a,b,c,d,e,f,g,h", "<solution>a,a,b,c,d,e,f,g,h</solution>") == 1.0


def test_a_repeated_correct_group_counts_once() -> None:
    groups = FOUR_GROUPS.split(",")
    first_group = ",".join(groups[:4])
    repeated = ",".join([first_group] * 4)
    assert connections_process_results(FOUR_GROUPS, f"<solution>{repeated}</solution>") == 0.25
    assert connections_process_results("a,b,c,d,e,f,g,h", "<solution>a,b,c,d,a,b,c,d</solution>") == 0.5


def test_a_ground_truth_repeating_a_group_counts_it_once() -> None:
    assert connections_process_results("a,b,c,d,a,b,c,d", "<solution>a,b,c,d</solution>") == 1.0


def test_several_blocks_are_combined_keeping_the_last_n_words() -> None:
    assert connections_process_results("a,b,c,d", "<solution>a,b</solution> <solution>c,d</solution>") == 1.0
    longer_last = "<solution>x,y</solution><solution>a,b,c,d</solution>"
    assert connections_process_results("a,b,c,d", longer_last) == 1.0


def test_one_block_keeps_all_its_words() -> None:
    assert connections_process_results("a,b,c,d", "<solution>x,y,a,b,c,d</solution>") == 0.0


@pytest.mark.parametrize(
    ("ground_truth", "answer"),
    [("", "<solution></solution>"), (" ", "<solution> </solution>"), (None, "x"), ("a", 3), (["a"], "a")],
)
def test_malformed_input_scores_zero(ground_truth: object, answer: object) -> None:
    assert connections_process_results(ground_truth, answer) == 0.0
