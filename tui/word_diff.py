"""A word diff in bounded time, for the rewrite tab.

`difflib.SequenceMatcher` alone is quadratic on prose (every space token matches every other): 30,000
characters took 4 s of CPU, 100,000 froze the app for 86 s. Here it only ever sees small pieces. Each
range is first trimmed of its common start and end; then the words that occur once on each side and in
the same order (the longest increasing run of them, as patience diff does) anchor it, and the gaps
between anchors are diffed the same way, a few levels deep. A gap that is still large and has no anchor
(repetitive text, or one rewritten whole) is cut into windows paired by position, and the diff says it
is approximate there. Each level costs time linear in the text and the pieces left to `SequenceMatcher`
are at most `SMALL` token pairs, so the whole costs O(n·(levels + √SMALL)).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

TOKENS = re.compile(r"\s+|\w+|[^\w\s]")
SMALL = 4_096  # token pairs below which difflib diffs a range exactly
WINDOW = 32  # tokens a side of the windows a range without anchors is cut into (difflib is ~cubic in it)
LEVELS = 6  # anchoring passes before a range without anchors is shown whole

Opcode = tuple[str, int, int, int, int]  # as difflib's: tag, a1, a2, b1, b2


@dataclass
class WordDiff:
    before: list[str]
    after: list[str]
    opcodes: list[Opcode] = field(default_factory=list)
    coarse: bool = False  # some range had nothing to anchor it: there the alignment is approximate


def word_diff(original: str, final: str) -> WordDiff:
    diff = WordDiff(TOKENS.findall(original), TOKENS.findall(final))
    _diff_range(diff, 0, len(diff.before), 0, len(diff.after), LEVELS)
    diff.opcodes = _merged(diff.opcodes)
    return diff


def _merged(opcodes: list[Opcode]) -> list[Opcode]:
    """Neighbours of one kind as one opcode: an anchor and the equal words around it are one run."""
    merged: list[Opcode] = []
    for opcode in opcodes:
        if merged and merged[-1][0] == opcode[0]:
            tag, a1, _, b1, _ = merged[-1]
            merged[-1] = (tag, a1, opcode[2], b1, opcode[4])
        else:
            merged.append(opcode)
    return merged


def _diff_range(diff: WordDiff, a1: int, a2: int, b1: int, b2: int, levels: int) -> None:
    a, b, out = diff.before, diff.after, diff.opcodes
    start = _common_start(a, b, a1, a2, b1, b2)
    if start:
        out.append(("equal", a1, a1 + start, b1, b1 + start))
        a1, b1 = a1 + start, b1 + start
    end = _common_end(a, b, a1, a2, b1, b2)
    _diff_middle(diff, a1, a2 - end, b1, b2 - end, levels)
    if end:
        out.append(("equal", a2 - end, a2, b2 - end, b2))


def _diff_middle(diff: WordDiff, a1: int, a2: int, b1: int, b2: int, levels: int) -> None:
    if a1 == a2 or b1 == b2:
        _changed(diff, a1, a2, b1, b2)
    elif (a2 - a1) * (b2 - b1) <= SMALL:
        matcher = difflib.SequenceMatcher(a=diff.before[a1:a2], b=diff.after[b1:b2], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            diff.opcodes.append((tag, a1 + i1, a1 + i2, b1 + j1, b1 + j2))
    else:
        anchors = _anchors(diff.before, diff.after, a1, a2, b1, b2) if levels else []
        if not anchors:
            _diff_windows(diff, a1, a2, b1, b2)
            return
        for i, j in anchors:
            _diff_range(diff, a1, i, b1, j, levels - 1)
            diff.opcodes.append(("equal", i, i + 1, j, j + 1))
            a1, b1 = i + 1, j + 1
        _diff_range(diff, a1, a2, b1, b2, levels - 1)


def _diff_windows(diff: WordDiff, a1: int, a2: int, b1: int, b2: int) -> None:
    """A large range with nothing to anchor it (repetitive text, or a text rewritten whole), diffed as
    windows of at most `WINDOW` tokens a side, paired by position: each edit still shows where it is,
    though the alignment is approximate. Time: (tokens / WINDOW) windows of WINDOW² pairs each."""
    diff.coarse = True
    count = -(-max(a2 - a1, b2 - b1) // WINDOW)
    for n in range(count):
        i1, i2 = a1 + (a2 - a1) * n // count, a1 + (a2 - a1) * (n + 1) // count
        j1, j2 = b1 + (b2 - b1) * n // count, b1 + (b2 - b1) * (n + 1) // count
        _diff_range(diff, i1, i2, j1, j2, 0)


def _changed(diff: WordDiff, a1: int, a2: int, b1: int, b2: int) -> None:
    if a1 < a2 or b1 < b2:
        tag = "replace" if a1 < a2 and b1 < b2 else ("delete" if a1 < a2 else "insert")
        diff.opcodes.append((tag, a1, a2, b1, b2))


def _common_start(a: Sequence[str], b: Sequence[str], a1: int, a2: int, b1: int, b2: int) -> int:
    count = 0
    while a1 + count < a2 and b1 + count < b2 and a[a1 + count] == b[b1 + count]:
        count += 1
    return count


def _common_end(a: Sequence[str], b: Sequence[str], a1: int, a2: int, b1: int, b2: int) -> int:
    count = 0
    while a2 - count > a1 and b2 - count > b1 and a[a2 - count - 1] == b[b2 - count - 1]:
        count += 1
    return count


def _anchors(a: Sequence[str], b: Sequence[str], a1: int, a2: int, b1: int, b2: int) -> list[tuple[int, int]]:
    """Pairs (i, j) of tokens found once in a[a1:a2] and once in b[b1:b2], the longest run increasing in
    both (patience sorting: O(k log k) for k such tokens)."""
    in_a, in_b = Counter(a[a1:a2]), Counter(b[b1:b2])
    where_b = {b[j]: j for j in range(b1, b2) if in_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(a1, a2) if in_a[a[i]] == 1 and a[i] in where_b]
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (increasing in i) whose j also increase."""
    tails: list[int] = []  # tails[k]: the smallest j ending an increasing run of length k + 1
    ends: list[int] = []  # the index in pairs of that run's last pair
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
        back[n] = ends[k - 1] if k else -1
    run, n = [], ends[-1] if ends else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]
