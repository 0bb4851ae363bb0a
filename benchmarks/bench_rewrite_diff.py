"""Benchmark the rewrite tab's word diff: CPU time against the rewrite's length, before and after.

    .venv/bin/python benchmarks/bench_rewrite_diff.py [--sizes 5000,10000,20000,30000,100000] [--rounds 3]

For each size it makes a prose rewrite of that many characters and a final rewrite that changes about one
word in twenty (words replaced, dropped, inserted), then times:

- `before`: the diff as it was (difflib.SequenceMatcher over the same word tokens, autojunk off), the
  anchor; it is run only up to `--before-max` characters, since it grows with the square of the length
  (issue 33: 100,000 characters froze the app for 86 s);
- `after`: `evalkit.tui.word_diff.word_diff`, the diff now;
- `tab`: everything the rewrite tab builds (`render.rewrite_text`: the diff, then both texts), after;
- `rewritten`: after, on a final rewrite that shares little with the original;
- `repetitive`: after, on one sentence repeated to that length with a word in fifty replaced (issue 32:
  nothing unique to anchor on, so diffed in windows, approximate, with a message);
- `no anchor`: after, the worst case: `a a a ...` against `b b b ...` (every window diffed).

The two are alternated round by round; the minimum CPU time of the rounds is reported, with the wall time
of that round beside it, and the ratio before/after.
"""

from __future__ import annotations

import argparse
import difflib
import random
import time
from collections.abc import Callable

from evalkit.tui import render
from evalkit.tui.word_diff import TOKENS, word_diff


def prose(chars: int, rng: random.Random) -> str:
    vocabulary = [f"{stem}{n}" for stem in ("graph", "node", "edge", "heap") for n in range(800)]
    vocabulary += ["the", "a", "of", "and", "is", "to", "in", "it"] * 400
    words: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(vocabulary) + (". " if rng.random() < 0.06 else " ")
        words.append(word)
        length += len(word)
    return "".join(words)[:chars]


def edited(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < 0.02:
            continue
        out.append("changed" if roll < 0.04 else word)
        if roll > 0.98:
            out.append("inserted")
    return " ".join(out)


def before(original: str, final: str) -> object:
    a, b = TOKENS.findall(original), TOKENS.findall(final)
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()


def timed(work: Callable[[str, str], object], original: str, final: str) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work(original, final)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,10000,20000,30000,100000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before-max", type=int, default=30_000)
    args = parser.parse_args()
    rng = random.Random(33)
    print(
        f"{'chars':>7} {'before cpu (wall)':>20} {'after cpu (wall)':>18} {'ratio':>7} "
        f"{'tab cpu':>8} {'rewritten cpu':>14} {'repetitive cpu':>15} {'no anchor cpu':>14}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        original = prose(size, rng)
        final = edited(original, rng)
        other = prose(size, random.Random(size))
        other = other.replace("graph", "tree").replace("node", "vertex").replace("edge", "arc")
        sentence = "Dijkstra keeps a priority queue of tentative distances and relaxes each edge. "
        repeated = (sentence * (size // len(sentence) + 1))[:size]
        edited_repeated = " ".join("X" if rng.random() < 0.02 else w for w in repeated.split(" "))
        runs: dict[str, list[tuple[float, float]]] = {
            "before": [],
            "after": [],
            "tab": [],
            "rewritten": [],
            "repetitive": [],
            "no anchor": [],
        }
        for _ in range(args.rounds):
            if size <= args.before_max:
                runs["before"].append(timed(before, original, final))
            runs["after"].append(timed(word_diff, original, final))
            runs["tab"].append(timed(render.rewrite_text, original, final))
            runs["rewritten"].append(timed(word_diff, original, other))
            runs["repetitive"].append(timed(word_diff, repeated, edited_repeated))
            runs["no anchor"].append(timed(word_diff, "a " * (size // 2), "b " * (size // 2)))
        best = {name: min(times) if times else None for name, times in runs.items()}
        old, new = best["before"], best["after"]
        assert new is not None and all(
            best[name] is not None for name in ("tab", "rewritten", "repetitive", "no anchor")
        )
        old_text = f"{old[0]:.3f} ({old[1]:.3f})" if old else "not run"
        ratio = f"{old[0] / new[0]:.0f}x" if old and new[0] > 0 else "—"
        print(
            f"{size:>7} {old_text:>20} {f'{new[0]:.3f} ({new[1]:.3f})':>18} {ratio:>7} "
            f"{best['tab'][0]:>8.3f} {best['rewritten'][0]:>14.3f} {best['repetitive'][0]:>15.3f} "
            f"{best['no anchor'][0]:>14.3f}"
        )


if __name__ == "__main__":
    main()
