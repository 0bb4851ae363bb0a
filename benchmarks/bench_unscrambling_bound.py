"""Benchmark: the plot unscrambling scorer's bound on work (qydomain.unscrambling.MAX_MATCHING_WORK).

For plots of n distinct 12-word sentences a side (every answer sentence reworded, the costly case), prints
the estimated work, the time the matching takes with the bound lifted (up to 4,000 sentences; beyond it
grows with n squared) and the time with the bound in place. Target: no pair takes more than 2 s with the
bound; 20,000 sentences a side (over 60 s unbounded) is refused at once. Exits 1 when missed.

    .venv/bin/python benchmarks/bench_unscrambling_bound.py
"""

from __future__ import annotations

import random
import sys
import time

from evalkit.qydomain import unscrambling
from evalkit.qydomain.unscrambling import matching_work, plot_unscrambling_process_results, sentences

WORDS = [
    "the",
    "hero",
    "dragon",
    "gold",
    "wakes",
    "fights",
    "wins",
    "village",
    "king",
    "queen",
    "sword",
    "castle",
    "night",
    "river",
    "forest",
]
SIZES = (500, 1000, 1200, 1500, 4000, 20000)
UNBOUNDED_UP_TO = 4000
TARGET_S = 2.0


def pair(rng: random.Random, n: int) -> tuple[str, str]:
    truth = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(n)]
    answer = [sentence + " again" for sentence in truth]
    rng.shuffle(answer)
    return ". ".join(truth) + ".", "<PLOT_SUMMARY>" + ". ".join(answer) + ".</PLOT_SUMMARY>"


def timed(ground_truth: str, answer: str, bound: int) -> tuple[float, float]:
    saved, unscrambling.MAX_MATCHING_WORK = unscrambling.MAX_MATCHING_WORK, bound
    try:
        start = time.perf_counter()
        value = plot_unscrambling_process_results(ground_truth, answer)
        return time.perf_counter() - start, value
    finally:
        unscrambling.MAX_MATCHING_WORK = saved


def main() -> int:
    rng = random.Random(13)
    bound = unscrambling.MAX_MATCHING_WORK
    print(f"bound: {bound:,} units")
    print(f"{'sentences':>10} {'work':>16} {'unbounded':>10} {'bounded':>9}  outcome")
    worst = 0.0
    for n in SIZES:
        ground_truth, answer = pair(rng, n)
        work = matching_work(*sentences(ground_truth, answer))
        unbounded = f"{timed(ground_truth, answer, sys.maxsize)[0]:.2f} s" if n <= UNBOUNDED_UP_TO else "-"
        seconds, value = timed(ground_truth, answer, bound)
        worst = max(worst, seconds)
        outcome = "refused (0.0)" if work > bound else f"scored {value:.4f}"
        print(f"{n:>10,} {work:>16,} {unbounded:>10} {seconds:>7.2f} s  {outcome}")
    print(f"worst bounded time: {worst:.2f} s (target < {TARGET_S} s)")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
