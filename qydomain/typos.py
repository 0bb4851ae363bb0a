"""Typos: did the answer reproduce the corrected text?

The model is given a passage with typos and asked for the corrected passage. The score is 1 when the ground
truth is a (case-sensitive) substring of the parsed answer, else 0. The answer is parsed as LiveBench's
`typos_process_results` parses it:

1. the last `<solution>…</solution>` that opens and closes on one line;
2. else, with stray `<solution>` / `</solution>` tags removed, the text between ` --- ` delimiters on the
   first line that has two of them;
3. else the whole answer (tags removed);

then its non-empty lines are joined with single spaces.

>>> typos_process_results("extraordinary", "<solution>extraordinary</solution>")
1
>>> typos_process_results("extraordinary", "<solution>extraordinry</solution>")
0
>>> typos_process_results("hello", "The answer is --- hello --- done")
1
"""

from __future__ import annotations

from .guard import malformed_scores_zero
from .tags import blocks_between

_OPEN = "<solution>"
_CLOSE = "</solution>"
_DELIMITER = " --- "


@malformed_scores_zero(0)
def typos_process_results(ground_truth: str, llm_answer: str) -> int:
    """1 if `ground_truth` occurs in the parsed answer, else 0 (0 too for a malformed pair)."""
    return int(ground_truth in parse_typos_answer(llm_answer))


def parse_typos_answer(llm_answer: str) -> str:
    """The part of `llm_answer` the typos scorer compares, on one line."""
    solutions = blocks_between(llm_answer, _OPEN, _CLOSE)  # one-line blocks only, as LiveBench reads them
    if solutions:
        return _one_line(solutions[-1])
    untagged = llm_answer.replace(_OPEN, "").replace(_CLOSE, "")
    return _one_line(between_delimiters(untagged))


def _one_line(text: str) -> str:
    text = text.strip()
    if "\n" not in text:  # the common case: skip building a list of one line
        return text
    return " ".join(line for line in text.split("\n") if line)


def between_delimiters(text: str) -> str:
    """The text between ` --- ` delimiters on the first line that has two, else `text` itself.

    LiveBench finds it with `re.search(r'.* --- (.*?) --- .*', text)`: its greedy prefix picks the last
    delimiter on that line that another one follows, and the lazy group ends at the next delimiter. String
    searches give the same answer without that regex's quadratic backtracking on long lines.
    """
    found = text.find(_DELIMITER)
    while found != -1:
        line_start = text.rfind("\n", 0, found) + 1
        line_end = text.find("\n", found)
        if line_end == -1:
            line_end = len(text)
        last = text.rfind(_DELIMITER, line_start, line_end)
        opening = text.rfind(_DELIMITER, line_start, last)  # the last one ending at or before `last`
        if opening != -1:
            content_start = opening + len(_DELIMITER)
            return text[content_start : text.find(_DELIMITER, content_start, line_end)]
        found = text.find(_DELIMITER, line_end)
    return text
