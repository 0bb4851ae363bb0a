"""Each scorer, optimised for speed, against a straightforward implementation of the seed's spec
(tests/qydomain/reference.py: slow and obviously right). The scorers must give the same score, float for
float, on generated inputs built to reach their shortcuts (answers that repeat the plot verbatim, sentences a
typo or two away, ties, words repeated, words in other cases and with spaces around them) and on the seed's
examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.qydomain import (
    connections_process_results,
    plot_unscrambling_process_results,
    typos_process_results,
)
from tests.budget import examples
from tests.qydomain.reference import reference_connections, reference_typos, reference_unscrambling

# A busy machine must not fail a test about values: no deadline per example.
thorough = settings(deadline=None, max_examples=examples(300))

# ---------------------------------------------------------------- inputs

letters = st.text(alphabet="abcdé ", min_size=1, max_size=14).map(str.strip).filter(bool)


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """`text` after a few one-character edits (maybe none): distances fall either side of cutoffs."""
    for _ in range(draw(st.integers(0, 5))):
        index = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        character = draw(st.sampled_from("abcdé"))
        if kind == "insert":
            text = text[:index] + character + text[index:]
        elif kind == "delete":
            text = text[:index] + text[index + 1 :]
        else:
            text = text[:index] + character + text[index + 1 :]
    return text.strip() or "a"


@st.composite
def plot_pair(draw: st.DrawFn) -> tuple[str, str]:
    """A plot and an answer: the plot's sentences reordered, some edited, some dropped, repeated or added."""
    plot = draw(st.lists(letters, min_size=1, max_size=12))
    answer = [draw(edited(sentence)) if draw(st.booleans()) else sentence for sentence in plot]
    answer = draw(st.permutations(answer))[: draw(st.integers(1, len(answer) + 1))]
    answer += draw(st.lists(st.sampled_from([*plot, "zz", "**End of Plot Summary**"]), max_size=3))
    form = draw(st.sampled_from(["<PLOT_SUMMARY>{}</PLOT_SUMMARY>", "<PLOT_SUMMARY>{}", "{}", "x. {} y"]))
    return ". ".join(plot) + ".", form.format(". ".join(answer) + draw(st.sampled_from([".", "", ". ."])))


@st.composite
def connections_pair(draw: st.DrawFn) -> tuple[str, str]:
    """A ground truth and an answer of words from it, in any case, order and spacing, some repeated."""
    # ASCII words take the scorer's whole-text lower-casing (with \x1c, a space to str.strip), others go word
    # by word (Σ lower-cases by what follows it); words of a group all distinct take its shortcut.
    alphabet = draw(st.sampled_from(["abAB \t\x1c", "abAB é\tÉßΣ"]))
    words = draw(st.lists(st.text(alphabet=alphabet, min_size=1, max_size=4), min_size=1, max_size=20))
    chosen = draw(st.lists(st.sampled_from([*words, "x"]), max_size=24))
    shown = [draw(st.sampled_from([word, word.upper(), f" {word} ", word.title()])) for word in chosen]
    listed = ",".join(shown) if not shown else draw(st.sampled_from([",", ", "])).join(shown)
    form = draw(
        st.sampled_from(
            ["<solution>{}</solution>", "a</solution>{}</solution>", "\\boxed{{\\text{{{}}}}}", "{}",
             "<solution>{}</solution>\n<solution>{}</solution>"]
        )
    )  # fmt: skip
    return ",".join(words), form.format(listed, listed)


@st.composite
def whole_groups_pair(draw: st.DrawFn) -> tuple[str, str]:
    """A ground truth of whole groups of distinct words and an answer made of them (the scorer's shortcuts):
    the same words in order, or groups and words swapped, some words unknown, repeated or missing."""
    word = st.text(alphabet="abcAB", min_size=1, max_size=3)
    words = draw(st.lists(word, min_size=4, max_size=24, unique=True))
    words = words[: len(words) // 4 * 4]
    answer = list(words)
    for _ in range(draw(st.integers(0, 4))):
        i, j = draw(st.integers(0, len(answer) - 1)), draw(st.integers(0, len(answer) - 1))
        answer[i], answer[j] = answer[j], answer[i]
    if draw(st.booleans()):
        answer[draw(st.integers(0, len(answer) - 1))] = draw(st.sampled_from(["zz", *words]))
    answer = answer[: draw(st.sampled_from([len(answer), len(answer) - 4, len(answer) - 1]))]
    shown = [draw(st.sampled_from([word, word.upper(), f" {word} "])) for word in answer]
    return ",".join(words), "<solution>" + ", ".join(shown) + "</solution>"


@st.composite
def boxed_pair(draw: st.DrawFn) -> tuple[str, str]:
    """A ground truth and a `\\boxed` answer of its words, mostly right, in the forms and with the pieces
    LiveBench's reading treats apart: the space and brace forms, `$`, nested and escaped braces, `\\text{`,
    `fbox`, newlines, and noise before and after (another `\\boxed`, stray braces)."""
    letters = ["a", "b", "c", "d", "e", "f", "g", "h", "fbox"]
    words = draw(st.lists(st.sampled_from(letters), min_size=8, max_size=8, unique=True))
    words = words[: draw(st.sampled_from([4, 8]))]
    answer = list(words)
    for _ in range(draw(st.integers(0, 2))):
        i, j = draw(st.integers(0, len(answer) - 1)), draw(st.integers(0, len(answer) - 1))
        answer[i], answer[j] = answer[j], answer[i]
    wraps = ["{}", "{}", "{}", "\\text{{{}}}", "{{{}}}", "\\{{{}\\}}", "{}$", "$ {}", "{}\n", "\\fbox{{{}}}"]
    shown = [draw(st.sampled_from(wraps)).format(word) for word in answer]
    listed = draw(st.sampled_from([",", ", "])).join(shown)
    forms = ["\\boxed{{{}}}", "${{\\boxed{{{}}}}}$", "\\boxed {}$", "\\boxed {}", "\\boxed\n{{{}}}",
             "\\boxed{{\\text{{{}}}}}", "\\boxed$ {{{}}}", "\\fbox{{{}}}"]  # fmt: skip
    noise = st.sampled_from(["", "so ", "\\boxed ", "\\boxed{x} ", "$", "}", "{", "\\boxed", " \\fbox "])
    return ",".join(words), draw(noise) + draw(st.sampled_from(forms)).format(listed) + draw(noise)


@st.composite
def typos_pair(draw: st.DrawFn) -> tuple[str, str]:
    passage = draw(st.text(alphabet="ab \n-", min_size=1, max_size=20))
    shown = draw(edited(passage)) if draw(st.booleans()) else passage
    form = draw(st.sampled_from(["<solution>{}</solution>", "x --- {} --- y", "{}", "<solution>{}"]))
    return passage, form.format(shown)


# ---------------------------------------------------------------- the laws


@thorough
@given(plot_pair())
def test_unscrambling_matches_the_reference(pair: tuple[str, str]) -> None:
    result = plot_unscrambling_process_results(*pair)
    assert result == reference_unscrambling(*pair)
    assert 0.0 <= result <= 1.0


@thorough
@given(connections_pair())
def test_connections_matches_the_reference(pair: tuple[str, str]) -> None:
    result = connections_process_results(*pair)
    assert result == reference_connections(*pair)
    assert 0.0 <= result <= 1.0


@thorough
@given(boxed_pair())
def test_connections_reads_boxed_answers_as_the_reference_does(pair: tuple[str, str]) -> None:
    assert connections_process_results(*pair) == reference_connections(*pair)


@thorough
@given(whole_groups_pair())
def test_connections_of_whole_groups_match_the_reference(pair: tuple[str, str]) -> None:
    assert connections_process_results(*pair) == reference_connections(*pair)


@thorough
@given(typos_pair())
def test_typos_matches_the_reference(pair: tuple[str, str]) -> None:
    assert typos_process_results(*pair) == reference_typos(*pair)


def test_long_reworded_sentences_beyond_the_near_cutoff_match_the_reference() -> None:
    """Sentences of 60 to 200 characters (rapidfuzz compares 64 at a time) edited beyond the first pass's
    cutoff, with the likely match (the sentence after the previous match) wrong on purpose."""
    plot = [" ".join(f"w{i}{j}" for j in range(12 + 3 * i)) for i in range(8)]
    answer = [sentence.replace("w", "v", 1 + i % 5) for i, sentence in enumerate(plot)]
    answer = answer[::-1]
    pair = (". ".join(plot) + ".", "<PLOT_SUMMARY>" + ". ".join(answer) + ".</PLOT_SUMMARY>")
    assert plot_unscrambling_process_results(*pair) == reference_unscrambling(*pair)


UNSCRAMBLING_PLOT = "The hero wakes up. He fights the dragon. He wins the gold."
CONNECTIONS_TRUTH = "Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow"


@pytest.mark.parametrize(
    ("scorer", "reference", "ground_truth", "answer", "expected"),
    [
        (typos_process_results, reference_typos, "extraordinary", "<solution>extraordinary</solution>", 1),
        (typos_process_results, reference_typos, "extraordinary", "<solution>extraordinry</solution>", 0),
        (typos_process_results, reference_typos, "hello", "The answer is --- hello --- done", 1),
        (typos_process_results, reference_typos, "hello", "The word is hello.", 1),
        (connections_process_results, reference_connections, CONNECTIONS_TRUTH,
         "<solution>Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow</solution>", 1.0),
        (connections_process_results, reference_connections, CONNECTIONS_TRUTH,
         "<solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>", 0.5),
        (connections_process_results, reference_connections, CONNECTIONS_TRUTH,
         "<solution>Red,Apple,Blue,Banana,Green,Pear,Yellow,Grape</solution>", 0.0),
        (plot_unscrambling_process_results, reference_unscrambling, UNSCRAMBLING_PLOT,
         f"<PLOT_SUMMARY>{UNSCRAMBLING_PLOT}</PLOT_SUMMARY>", 1.0),
        (plot_unscrambling_process_results, reference_unscrambling, UNSCRAMBLING_PLOT,
         "<PLOT_SUMMARY>The hero wakes up. He wins the gold. He fights the dragon.</PLOT_SUMMARY>",
         0.3333333333333333),
        (plot_unscrambling_process_results, reference_unscrambling, UNSCRAMBLING_PLOT,
         "<PLOT_SUMMARY>He wins the gold. He fights the dragon. The hero wakes up.</PLOT_SUMMARY>",
         0.3333333333333333),
        (plot_unscrambling_process_results, reference_unscrambling, UNSCRAMBLING_PLOT,
         "<PLOT_SUMMARY>He fights the dragon. The hero wakes up. He wins the gold.</PLOT_SUMMARY>",
         0.3333333333333333),
        (plot_unscrambling_process_results, reference_unscrambling, "A. B. C.",
         "<PLOT_SUMMARY>B. A. C.</PLOT_SUMMARY>", 0.3333333333333333),
    ],
)  # fmt: skip
def test_the_seed_examples_agree_with_the_reference(
    scorer: object, reference: object, ground_truth: str, answer: str, expected: float
) -> None:
    assert scorer(ground_truth, answer) == reference(ground_truth, answer) == expected  # type: ignore[operator]
