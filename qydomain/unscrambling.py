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

from .guard import malformed_scores_zero

_OPEN = "<PLOT_SUMMARY>"
_CLOSE = "</PLOT_SUMMARY>"
# Pieces that models leave behind around the summary; they are not sentences of the plot.
_NOT_SENTENCES = frozenset({_CLOSE, "**End of Plot Summary**"})


MAX_MATCHING_WORK = 300_000_000
"""Units of `matching_work`: 0.5 s of matching on this project's machine, 1.1 s when it is busy
(benchmarks/bench_unscrambling_bound.py)."""
_BLOCK = 64  # characters rapidfuzz's bit-parallel Levenshtein compares at once
_PER_PAIR = 32  # the cost of a comparison beyond its characters, in the same units
_PER_ORDERING_BLOCK = 4  # the ordering distance compares integers: cheaper per block than characters


@malformed_scores_zero(0.0)
def plot_unscrambling_process_results(ground_truth: str, llm_answer: str) -> float:
    """The ordering score in [0, 1] (0.0 for a malformed pair, an answer without sentences, or a pair whose
    matching would exceed MAX_MATCHING_WORK)."""
    truth, answer = sentences(ground_truth, llm_answer)
    if not truth or not answer or matching_work(truth, answer) > MAX_MATCHING_WORK:
        return 0.0
    n = len(truth)
    distance = Levenshtein.distance(list(range(n)), answer_ordering(truth, answer))
    return max(0.0, (n - distance) / n)


def sentences(ground_truth: str, llm_answer: str) -> tuple[list[str], list[str]]:
    """The ground truth's sentences and those of the answer's summary."""
    return split_sentences(ground_truth), split_sentences(plot_summary(llm_answer), drop=_NOT_SENTENCES)


def matching_work(truth: list[str], answer: list[str]) -> int:
    """What scoring the pair costs, in the units of MAX_MATCHING_WORK."""
    verbatim = set(answer)
    queries = sum(-(-len(sentence) // _BLOCK) for sentence in truth if sentence not in verbatim)
    ordering = len(truth) * -(-len(truth) // _BLOCK)
    return queries * sum(len(sentence) + _PER_PAIR for sentence in answer) + ordering * _PER_ORDERING_BLOCK


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
    return [sentence for piece in text.split(".") if (sentence := piece.strip()) and sentence not in drop]


def answer_ordering(truth: list[str], answer: list[str]) -> list[int]:
    """For each ground-truth sentence, the index of the closest answer sentence (the first on ties).

    A sentence the answer repeats verbatim is at distance 0, which nothing beats: its first copy is the
    match, found by lookup. The others go to rapidfuzz's extractOne, which scans `answer` in C with the best
    distance so far as a cutoff and keeps the first of equally close candidates.
    """
    first_copy = {sentence: index for index, sentence in reversed(list(enumerate(answer)))}
    return [
        first_copy[sentence] if sentence in first_copy else _closest(sentence, answer) for sentence in truth
    ]


def _closest(sentence: str, answer: list[str]) -> int:
    match = extractOne(sentence, answer, scorer=Levenshtein.distance)
    return match[2] if match is not None else 0  # never None: `answer` is not empty
