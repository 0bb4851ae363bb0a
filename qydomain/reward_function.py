"""The qydomain scorers as a reward-function file for RL trainers that load one by path (verl's
`reward.custom_reward_function`): it imports evalkit by absolute name, so it also loads as a lone module.

    reward:
      custom_reward_function:
        path: <the output of: python -c "import evalkit.qydomain.reward_function as m; print(m.__file__)">
        name: compute_score

verl calls it two ways, both by keyword: a row at a time, `compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=...)`, returning a float; or, from its batch reward manager, a batch at a time,
`compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=...)`, returning a list of
floats in the batch's order. Any other keyword argument (verl's `reward_kwargs`, what its reward-loop managers
add) is accepted and unused.

A training step must not stop on one row: a row whose `data_source` no scorer handles (a mixed dataset's
gsm8k rows) scores 0.0, and a note naming that data source is logged once per process (logger
`evalkit.qydomain.reward_function`). `evalkit.qydomain.compute_score` itself still raises UnknownDataSource.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from evalkit.qydomain.dispatch import DATA_SOURCES, UnknownDataSource
from evalkit.qydomain.dispatch import compute_score as _strict

__all__ = ["compute_score"]

_log = logging.getLogger(__name__)
_noted: set[str] = set()


def compute_score(
    data_source: Any = None,
    solution_str: Any = None,
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    *,
    data_sources: Iterable[Any] | None = None,
    solution_strs: Iterable[Any] | None = None,
    ground_truths: Iterable[Any] | None = None,
    extra_infos: Iterable[Any] | None = None,
    **_: Any,
) -> float | list[float]:
    """One row's reward, or, given `data_sources` (verl's batch reward manager), the batch's rewards."""
    if data_sources is None:
        return _one(data_source, solution_str, ground_truth, extra_info)
    sources = list(data_sources)
    count = len(sources)
    columns = [_column(values, count) for values in (solution_strs, ground_truths, extra_infos)]
    return [_one(*row) for row in zip(sources, *columns, strict=True)]


def _column(values: Iterable[Any] | None, count: int) -> list[Any]:
    return [None] * count if values is None else list(values)


def _one(data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any) -> float:
    try:
        return _strict(data_source, solution_str, ground_truth, extra_info)
    except UnknownDataSource:
        _note_unknown(data_source)
        return 0.0


def _note_unknown(data_source: Any) -> None:
    name = repr(data_source)
    if name not in _noted:
        _noted.add(name)
        _log.warning("unknown data_source %s scores 0.0 (the scorers know %s)", name, ", ".join(DATA_SOURCES))
