"""The scorers as reward functions: `(model_output, extra_info)` wrappers, `score` and `compute_score`.

Each wrapper reads the ground truth from `extra_info["label"]`, removes the model's complete
`<think>…</think>` blocks (reasoning models think out loud before answering, as evaluation harnesses
expect), and returns a float. Like the scorers, the wrappers never raise on malformed data: a missing
label or a non-string output scores 0.0. Only an unknown data source raises, `UnknownDataSource`,
because that is a mistake in the caller's configuration, not in one row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .connections import connections_process_results
from .typos import typos_process_results
from .unscrambling import (
    MAX_MATCHING_WORK,
    matching_work,
    plot_unscrambling_process_results,
    score_or_refusal,
    sentences,
    too_large_message,
)

ScoreFn = Callable[[str, Mapping[str, Any]], float]

_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"


class UnknownDataSource(ValueError):
    """`score` or `compute_score` was given a data source that no scorer handles."""

    def __init__(self, data_source: object) -> None:
        known = ", ".join(DATA_SOURCES)
        super().__init__(f"unknown data_source {data_source!r}: expected one of {known}")
        self.data_source = data_source


def strip_think(text: str) -> str:
    """`text` without its complete `<think>…</think>` blocks; an unclosed `<think>` stays.

    The same as `re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL)`, in linear time.
    """
    if not isinstance(text, str) or _THINK_OPEN not in text:
        return text
    kept: list[str] = []
    position = 0
    while (start := text.find(_THINK_OPEN, position)) != -1:
        end = text.find(_THINK_CLOSE, start + len(_THINK_OPEN))
        if end == -1:
            break
        kept.append(text[position:start])
        position = end + len(_THINK_CLOSE)
    kept.append(text[position:])
    return "".join(kept)


def _label(extra_info: Mapping[str, Any] | None) -> object:
    if type(extra_info) is dict:  # what JSON rows give: skips the Mapping ABC's slower check
        return extra_info.get("label")
    return extra_info.get("label") if isinstance(extra_info, Mapping) else None


def typos_score_fn(model_output: str, extra_info: Mapping[str, Any]) -> float:
    """1.0 if the answer contains the corrected text `extra_info["label"]`, else 0.0."""
    return float(typos_process_results(_label(extra_info), strip_think(model_output)))


def connections_score_fn(model_output: str, extra_info: Mapping[str, Any]) -> float:
    """The share of the groups in `extra_info["label"]` that the answer found."""
    return connections_process_results(_label(extra_info), strip_think(model_output))


def unscrambling_score_fn(model_output: str, extra_info: Mapping[str, Any]) -> float:
    """How close the answer's sentence order is to the plot in `extra_info["label"]`."""
    return plot_unscrambling_process_results(_label(extra_info), strip_think(model_output))


SCORERS: dict[str, ScoreFn] = {
    "typos": typos_score_fn,
    "connections": connections_score_fn,
    "unscrambling": unscrambling_score_fn,
}
DATA_SOURCES: tuple[str, ...] = tuple(sorted(SCORERS))
PAIR_SCORERS: dict[str, Callable[[object, object], float]] = {
    "typos": typos_process_results,
    "connections": connections_process_results,
    "unscrambling": plot_unscrambling_process_results,
}
"""What each wrapper calls: `SCORERS[source](output, extra_info)` is
`float(PAIR_SCORERS[source](extra_info["label"], strip_think(output)))`."""
ROW_SCORERS: dict[str, Callable[[object, object], float | str]] = {
    "typos": typos_process_results,
    "connections": connections_process_results,
    "unscrambling": score_or_refusal,
}
"""What `evalkit score` calls for a well-formed row: PAIR_SCORERS, but for a pair scored 0 without being
scored, the reason `too_large` gives (a string), found as the pair is scored rather than by splitting it
again."""


def scorer_for(data_source: str) -> ScoreFn:
    """The wrapper for `data_source`; raises UnknownDataSource for any other value."""
    try:
        return SCORERS[data_source]
    except (KeyError, TypeError):  # TypeError: an unhashable value, e.g. a list read from JSON
        raise UnknownDataSource(data_source) from None


def too_large(data_source: str, model_output: str, extra_info: Mapping[str, Any]) -> str | None:
    """Why a pair scored 0 without being scored (its work would exceed the scorer's bound), or None."""
    label = _label(extra_info)
    if data_source != "unscrambling" or not isinstance(label, str):
        return None
    truth, answer = sentences(label, strip_think(model_output))
    work = matching_work(truth, answer)
    if work <= MAX_MATCHING_WORK:
        return None
    return too_large_message(len(truth), len(answer), work)


def score(data_source: str, model_output: str, extra_info: Mapping[str, Any]) -> float:
    """Score one output with the scorer for `data_source` ("typos", "connections" or "unscrambling")."""
    return scorer_for(data_source)(model_output, extra_info)


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
) -> float:
    """The reward-function signature RL trainers (verl and the like) call.

    The output is scored against `ground_truth` (the trainer's `reward_model.ground_truth`). Rows in the
    seed's data format carry their ground truth only as `extra_info["label"]`, and trainers then pass an
    empty or null `ground_truth`: the label is used in its place.
    """
    if not (isinstance(ground_truth, str) and ground_truth):
        label = _label(extra_info)
        ground_truth = label if isinstance(label, str) else ground_truth
    return score(data_source, solution_str, {"label": ground_truth})
