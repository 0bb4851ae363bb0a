"""The rewrite tab's word diff: it always accounts for both texts, finds small edits in long prose exactly,
and gives up word by word (saying so) only where a large stretch changed with nothing to anchor it."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.tui.word_diff import SMALL, word_diff

WORDS = st.lists(
    st.sampled_from(["a", "b", "the", "heap", " ", "\n", ".", ",", "dijkstra", "  "]), max_size=80
)


def sides(original: str, final: str) -> tuple[str, str]:
    """Both texts rebuilt from the opcodes: equal and removed give the original, equal and added the final."""
    diff = word_diff(original, final)
    before = "".join("".join(diff.before[a1:a2]) for tag, a1, a2, _, _ in diff.opcodes if tag != "insert")
    after = "".join("".join(diff.after[b1:b2]) for tag, _, _, b1, b2 in diff.opcodes if tag != "delete")
    return before, after


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS)
def test_the_opcodes_cover_both_texts_in_order(original: list[str], final: list[str]) -> None:
    a, b = "".join(original), "".join(final)
    assert sides(a, b) == (a, b)
    diff = word_diff(a, b)
    positions = [(0, 0)] + [(a2, b2) for _, _, a2, _, b2 in diff.opcodes]
    starts = [(a1, b1) for _, a1, _, b1, _ in diff.opcodes]
    assert starts == positions[:-1]  # each opcode starts where the last ended


def prose(words: int, seed: int) -> str:
    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(3000)] + ["the", "a", "of", "and"] * 500
    return " ".join(rng.choice(vocabulary) for _ in range(words)) + "."


def test_a_small_edit_in_long_prose_is_found_word_for_word() -> None:
    original = prose(20_000, 1)
    words = original.split(" ")
    words[7_000] = "CHANGED"
    del words[15_000]
    diff = word_diff(original, " ".join(words))
    assert not diff.coarse
    changed = [op for op in diff.opcodes if op[0] != "equal"]
    removed = ["".join(diff.before[a1:a2]) for _, a1, a2, _, _ in changed]
    added = ["".join(diff.after[b1:b2]) for _, _, _, b1, b2 in changed]
    assert "".join(added) == "CHANGED"
    assert len("".join(removed).split()) == 2


def test_a_long_text_rewritten_whole_is_shown_coarse_not_diffed_for_ever() -> None:
    original = " ".join(["a"] * 5_000)  # nothing unique to anchor on, far more than SMALL pairs
    final = " ".join(["b"] * 5_000)
    diff = word_diff(original, final)
    assert len(diff.before) * len(diff.after) > SMALL
    assert diff.coarse
    assert sides(original, final) == (original, final)


def test_repetitive_text_with_a_few_edits_shows_each_edit_where_it_is() -> None:
    sentence = "Dijkstra keeps a priority queue of tentative distances and relaxes each edge. "
    original = sentence * 1_300  # 100,000 characters, no word unique
    words = original.split(" ")
    for position in (500, 5_000, 9_000, 13_000):
        words[position] = "EDITED"
    diff = word_diff(original, " ".join(words))
    assert sides(original, " ".join(words)) == (original, " ".join(words))
    added = ["".join(diff.after[b1:b2]) for tag, _, _, b1, b2 in diff.opcodes if tag != "equal"]
    assert "".join(added).count("EDITED") == 4
    assert sum(len(text) for text in added) < 4 * 200  # each edit shown locally, not the text whole
