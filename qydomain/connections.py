r"""Connections: did the answer sort the puzzle's words into the right groups of four?

The ground truth lists the words group by group, comma-separated. The answer's words are found as
LiveBench's `connections_process_results` finds them, trying in order:

1. every `<solution>…</solution>` on one line; then the same with the answer's newlines removed;
2. every `</solution>…</solution>` (a closing tag written for the opening one), likewise;
3. the answer in the last `\boxed` as LiveBench's `last_boxed_only_string` reads it (`boxed.py`: the space
   form `\boxed a,b$`, else the brace form, nested braces and all), with `\text{`, closing braces,
   backslashes and newlines removed (an opening brace that is not `\text{`'s stays, as in LiveBench).

Several solution blocks are read as one list of which the last N words count (N: words in the ground
truth). Words are stripped and lower-cased, then grouped in order: a group closes once it holds four
distinct words. The score is the share of ground-truth groups found among the answer's groups, each
counted once (unlike LiveBench, a group repeated in the answer does not count twice), so it is one of
0, 1/k, …, 1 for k distinct ground-truth groups.

>>> connections_process_results("Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow",
...     "<solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>")
0.5
"""

from __future__ import annotations

from collections.abc import Iterable

from .boxed import last_boxed_answer
from .guard import malformed_scores_zero
from .tags import blocks_between

GROUP_SIZE = 4
_CLOSE = "</solution>"
# Blocks sit on one line; one spanning lines is found by the newline-free retry, as in LiveBench.
_TAG_PAIRS = (("<solution>", _CLOSE), (_CLOSE, _CLOSE))
# LiveBench's order: `\text{` goes before its backslash would be removed on its own.
_BOXED_NOISE = ("\\text{", "}", "\\", "\n")
_MOST_GROUPS = 64  # ground truths of more groups than this take the general way
_GROUP_NUMBERS = tuple(index // GROUP_SIZE for index in range(_MOST_GROUPS * GROUP_SIZE))


@malformed_scores_zero(0.0)
def connections_process_results(ground_truth: str, llm_answer: str) -> float:
    """The share of ground-truth groups the answer got right (0.0 for a malformed pair)."""
    blocks = _solution_blocks(llm_answer)
    if not blocks:
        return 0.0
    truth_words = _normalised(ground_truth)
    if len(blocks) == 1:
        answer_words = _normalised(blocks[0])
    else:  # normalising is word by word: the last N words normalised are the last N normalised
        answer_words = _normalised(",".join(blocks))[-len(truth_words) :]
    if answer_words == truth_words:  # every group found, in order: compared in C, nothing hashed
        return 1.0
    share = _share_of_full_groups(truth_words, answer_words)
    if share is not None:
        return share
    truth = set(_grouped(truth_words))
    return len(truth.intersection(_grouped(answer_words))) / len(truth)


def _share_of_full_groups(truth_words: list[str], answer_words: list[str]) -> float | None:
    """The score when both sides are whole groups of distinct words (most answers), else None.

    Then each side's groups are its words four by four, and an answer group is a ground-truth group when its
    four words all belong to that group: each answer word is mapped to its group's number, and the answer's
    groups that map to four equal numbers are counted (compiled: dictionary lookups in a loop), without
    building a set of words per group."""
    count = len(truth_words)
    if count % GROUP_SIZE or len(answer_words) % GROUP_SIZE or count > len(_GROUP_NUMBERS):
        return None
    group_of = dict(zip(truth_words, _GROUP_NUMBERS, strict=False))
    if len(group_of) < count or len(set(answer_words)) < len(answer_words):  # a word repeated
        return None
    # Four distinct answer words of one ground-truth group are that whole group: no other answer group can
    # be it too, so each one found counts once without a set of the groups found.
    found = 0
    for start in range(0, len(answer_words), GROUP_SIZE):
        number = group_of.get(answer_words[start], -1)
        if (
            number != -1
            and group_of.get(answer_words[start + 1], -1) == number
            and group_of.get(answer_words[start + 2], -1) == number
            and group_of.get(answer_words[start + 3], -1) == number
        ):
            found += 1
    return found / (count // GROUP_SIZE)


def _solution_blocks(llm_answer: str) -> list[str]:
    if _CLOSE in llm_answer:  # every tag pattern needs a closing tag: skip them all cheaply
        for opening, closing in _TAG_PAIRS:
            blocks = blocks_between(llm_answer, opening, closing) or blocks_between(
                llm_answer.replace("\n", ""), opening, closing
            )
            if blocks:
                return blocks
    boxed = last_boxed_answer(llm_answer)
    return [] if boxed is None else [_without_boxed_noise(boxed)]


def _without_boxed_noise(text: str) -> str:
    for noise in _BOXED_NOISE:
        text = text.replace(noise, "")
    return text


def group_words(words: Iterable[str]) -> list[frozenset[str]]:
    """Normalised words in order, in groups that close at GROUP_SIZE distinct words."""
    return _grouped(list(map(str.lower, map(str.strip, words))))


def _normalised(text: str) -> list[str]:
    """The comma-separated words of `text`, each stripped and lower-cased."""
    if text.isascii():  # ASCII lower-cases letter by letter: the whole text at once, then each word stripped
        return list(map(str.strip, text.lower().split(",")))
    # Unicode's final sigma looks at neighbours ('AΣ' -> 'aς'): `str.lower` through map is CPython's method,
    # where mypyc compiles `word.lower()` on a str to a lowering one character at a time ('aσ').
    return list(map(str.lower, map(str.strip, text.split(","))))


def _grouped(words: list[str]) -> list[frozenset[str]]:
    """Normalised words in order, in groups that close at GROUP_SIZE distinct words."""
    if len(set(words)) == len(words):  # the common case, no word repeated: every GROUP_SIZE words a group
        return [frozenset(words[start : start + GROUP_SIZE]) for start in range(0, len(words), GROUP_SIZE)]
    groups: list[set[str]] = [set()]
    for word in words:
        if len(groups[-1]) == GROUP_SIZE:
            groups.append(set())
        groups[-1].add(word)
    return [frozenset(group) for group in groups]
