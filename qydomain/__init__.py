"""qydomain: reward functions for three LiveBench-style writing tasks.

- typos: is the corrected passage in the answer? 0 or 1.
- connections: how many of the puzzle's groups of four did the answer find? k/n.
- unscrambling: how close is the answer's sentence order to the plot's? [0, 1].

They run millions of times in RL and evaluation pipelines, so they are exact, fast and never raise on
malformed input (it scores 0). `score` and `compute_score` dispatch on the data source; only an unknown
data source raises, `UnknownDataSource`.

>>> score("typos", "<think>hmm</think><solution>extraordinary</solution>", {"label": "extraordinary"})
1.0
"""

from .connections import connections_process_results
from .dispatch import (
    DATA_SOURCES,
    UnknownDataSource,
    compute_score,
    connections_score_fn,
    score,
    strip_think,
    typos_score_fn,
    unscrambling_score_fn,
)
from .typos import typos_process_results
from .unscrambling import plot_unscrambling_process_results

__all__ = [
    "DATA_SOURCES",
    "UnknownDataSource",
    "compute_score",
    "connections_process_results",
    "connections_score_fn",
    "plot_unscrambling_process_results",
    "score",
    "strip_think",
    "typos_process_results",
    "typos_score_fn",
    "unscrambling_score_fn",
]
