"""Plot unscrambling: how close is the answer's sentence order to the original plot's?

The answer is the text inside `<PLOT_SUMMARY>…</PLOT_SUMMARY>` (first opening tag to last closing tag),
else everything after an opening tag, else the whole answer. Both texts are split into sentences on '.'
alone; pieces are stripped, and empty pieces (and, in the answer, the stray pieces `</PLOT_SUMMARY>` and
`**End of Plot Summary**`) are dropped.

Each of the n ground-truth sentences is matched to the answer sentence at the smallest Levenshtein distance
(the first one on ties), giving an ordering O of answer indices. With d the Levenshtein distance between
[0, 1, …, n-1] and O, the score is max(0, (n - d) / n). Unlike LiveBench, the match is by edit distance,
not by difflib's similarity ratio.

The work is bounded: `matching_work` counts what the matching costs (the characters compared, 64 at a time
as rapidfuzz does, for each ground-truth sentence the answer does not repeat verbatim, against every
answer sentence; and the ordering distance), and a pair above MAX_MATCHING_WORK (about half a second)
scores 0 without being matched: `evalkit score` reports it as a `too-large` error entry. Plot summaries
of over a thousand distinct sentences a side are refused; any number of verbatim sentences costs little.

>>> plot_unscrambling_process_results(
...     "The hero wakes up. He fights the dragon. He wins the gold.",
...     "<PLOT_SUMMARY>The hero wakes up. He wins the gold. He fights the dragon.</PLOT_SUMMARY>")
0.3333333333333333
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import extractOne

from .guard import malformed, malformed_scores_zero

_OPEN = "<PLOT_SUMMARY>"
_CLOSE = "</PLOT_SUMMARY>"
# Pieces that models leave behind around the summary; they are not sentences of the plot.
_NOT_SENTENCES = frozenset({_CLOSE, "**End of Plot Summary**"})


MAX_MATCHING_WORK = 300_000_000
"""Units of `matching_work`: 0.5 s of matching on this project's machine, 1.1 s when it is busy
(benchmarks/bench_unscrambling_bound.py)."""
_BLOCK = 64  # characters rapidfuzz's bit-parallel Levenshtein compares at once
_PER_PAIR = 32  # the cost of a comparison beyond its characters, in the same units
_NEAR = 3  # edits: rapidfuzz's fastest cutoffs (mbleven) go up to 3
_PER_ORDERING_BLOCK = 4  # the ordering distance compares integers: cheaper per block than characters


@malformed_scores_zero(0.0)
def plot_unscrambling_process_results(ground_truth: str, llm_answer: str) -> float:
    """The ordering score in [0, 1] (0.0 for a malformed pair, an answer without sentences, or a pair whose
    matching would exceed MAX_MATCHING_WORK)."""
    scored = _score_or_refusal(ground_truth, llm_answer)
    return scored if isinstance(scored, float) else 0.0


def score_or_refusal(ground_truth: object, llm_answer: object) -> float | str:
    """plot_unscrambling_process_results's score, or, for a pair it scores 0 without matching it (its work
    would exceed MAX_MATCHING_WORK), why: `too_large_message`. The sentences are split once either way."""
    if isinstance(ground_truth, str) and isinstance(llm_answer, str) and not malformed(ground_truth):
        return _score_or_refusal(ground_truth, llm_answer)
    return 0.0


def too_large_message(truth: int, answer: int, work: int) -> str:
    """Why a pair of `truth` plot sentences against `answer` in the answer, of matching_work `work`, above
    MAX_MATCHING_WORK, scores 0 without being matched."""
    return (
        f"too large to score: {truth:,} plot sentences against {answer:,} in the answer would "
        f"take {work / MAX_MATCHING_WORK:,.1f} times the matching limit (about half a second)"
    )


def _score_or_refusal(ground_truth: str, llm_answer: str) -> float | str:
    truth = split_sentences(ground_truth)
    answer = split_sentences(plot_summary(llm_answer), drop=_NOT_SENTENCES)
    if not truth or not answer:
        if truth and (work := _work(len(truth), truth, answer)) > MAX_MATCHING_WORK:  # the ordering's share
            return too_large_message(len(truth), 0, work)
        return 0.0
    ordering = _verbatim_ordering(truth, answer)
    n = len(truth)
    matched = None not in ordering
    # The sentences are disjoint pieces of the texts: a bound on matching_work from their lengths spares
    # summing it sentence by sentence, but for pairs near the limit.
    if _work_bound(n, matched, ground_truth, llm_answer, len(answer)) > MAX_MATCHING_WORK:
        unmatched = [sentence for sentence, index in zip(truth, ordering, strict=True) if index is None]
        work = _work(n, unmatched, answer)
        if work > MAX_MATCHING_WORK:
            return too_large_message(n, len(answer), work)
    if not matched:
        _match_the_rest(truth, answer, ordering)
    expected = list(range(n))
    if ordering == expected:  # the common right answer: distance 0
        return 1.0
    distance = Levenshtein.distance(expected, ordering)
    return max(0.0, (n - distance) / n)


def sentences(ground_truth: str, llm_answer: str) -> tuple[list[str], list[str]]:
    """The ground truth's sentences and those of the answer's summary."""
    return split_sentences(ground_truth), split_sentences(plot_summary(llm_answer), drop=_NOT_SENTENCES)


def matching_work(truth: list[str], answer: list[str]) -> int:
    """What scoring the pair costs, in the units of MAX_MATCHING_WORK."""
    verbatim = set(answer)
    return _work(len(truth), [sentence for sentence in truth if sentence not in verbatim], answer)


def _work(n: int, unmatched: list[str], answer: list[str]) -> int:
    """matching_work for n ground-truth sentences of which `unmatched` are not in the answer verbatim."""
    ordering = n * -(-n // _BLOCK) * _PER_ORDERING_BLOCK
    if not unmatched:
        return ordering
    queries = sum(-(-len(sentence) // _BLOCK) for sentence in unmatched)
    return queries * (sum(map(len, answer)) + _PER_PAIR * len(answer)) + ordering


def _work_bound(n: int, matched: bool, ground_truth: str, llm_answer: str, answer_sentences: int) -> int:
    """At least `_work` of the pair's sentences: each unmatched one's blocks are at most its length over
    _BLOCK plus one, and all of them lie in the ground truth; the answer's sentences lie in the answer."""
    ordering = n * -(-n // _BLOCK) * _PER_ORDERING_BLOCK
    if matched:
        return ordering
    queries = len(ground_truth) // _BLOCK + n
    return queries * (len(llm_answer) + _PER_PAIR * answer_sentences) + ordering


def plot_summary(llm_answer: str) -> str:
    """The summary part of the answer: the same as LiveBench's greedy, DOTALL tag regexes."""
    start = llm_answer.find(_OPEN)
    if start == -1:
        return llm_answer
    content_start = start + len(_OPEN)
    end = llm_answer.rfind(_CLOSE, content_start)
    return llm_answer[content_start:] if end == -1 else llm_answer[content_start:end]


def split_sentences(text: str, drop: frozenset[str] = frozenset()) -> list[str]:
    """The stripped, non-empty pieces of `text` between full stops, less those in `drop`."""
    pieces = list(filter(None, map(str.strip, text.split("."))))
    if not drop or drop.isdisjoint(pieces):  # the common case: no leftover marker to drop
        return pieces
    return [piece for piece in pieces if piece not in drop]


def answer_ordering(truth: list[str], answer: list[str]) -> list[int]:
    """For each ground-truth sentence, the index of the closest answer sentence (the first on ties)."""
    ordering = _verbatim_ordering(truth, answer)
    if None in ordering:
        _match_the_rest(truth, answer, ordering)
    return ordering  # type: ignore[return-value]  # every None was replaced


def _verbatim_ordering(truth: list[str], answer: list[str]) -> list[int | None]:
    """The index of each ground-truth sentence's first verbatim copy in the answer, None where there is none.

    A sentence the answer repeats verbatim is at distance 0, which nothing beats: its first copy is the
    match, found by lookup (where a sentence repeats, the dict is built from the last index to the first, so
    the first copy wins)."""
    first_copy = dict(zip(answer, range(len(answer)), strict=True))  # each one's last copy: its only one?
    if len(first_copy) < len(answer):
        first_copy = dict(zip(reversed(answer), range(len(answer) - 1, -1, -1), strict=True))
    return list(map(first_copy.get, truth))


def _match_the_rest(truth: list[str], answer: list[str], ordering: list[int | None]) -> None:
    """Fill in the closest answer sentence (the first on ties) where `ordering` has no verbatim copy.

    A sentence is first matched among the answer sentences within _NEAR edits (a typo or two), where its
    distance to each is bounded by their difference in length: those whose length differs by less than the
    best distance so far are compared (most answer sentences differ by more), with rapidfuzz's fastest
    cutoffs (mbleven, up to 3 edits). When none is that near, rapidfuzz's extractOne scans `answer` in C,
    keeping the first of equally close candidates, with the distance to a likely match as its cutoff: the
    answer sentence after the previous match (answers mostly keep runs of the plot in order). A cutoff
    rejects a candidate beyond it after a few characters, and the result is the same as without whenever
    some candidate is within it."""
    lengths = list(map(len, answer))
    last = len(answer) - 1
    previous = -1
    for position, index in enumerate(ordering):
        if index is None:
            index = _near(truth[position], answer, lengths)
            if index is None:
                index = _closest(truth[position], answer, min(previous + 1, last))
            ordering[position] = index
        previous = index


def _near(sentence: str, answer: list[str], lengths: list[int]) -> int | None:
    """The first closest answer sentence within _NEAR edits of `sentence`, which none repeats verbatim (all
    are at least 1 away), or None."""
    size = len(sentence)
    best: int | None = None
    beyond = _NEAR + 1  # the best distance so far, or more than _NEAR
    for index, length in enumerate(lengths):
        if abs(length - size) < beyond:  # else at least `beyond` edits away: no closer
            distance = Levenshtein.distance(sentence, answer[index], score_cutoff=beyond - 1)
            if distance < beyond:
                best, beyond = index, distance
                if distance == 1:  # nothing is closer
                    break
    return best


def _closest(sentence: str, answer: list[str], guess: int) -> int:
    cutoff = Levenshtein.distance(sentence, answer[guess])
    match = extractOne(sentence, answer, scorer=Levenshtein.distance, score_cutoff=cutoff)
    return guess if match is None else match[2]  # never None: `guess` is within the cutoff
