"""Agreement between reviewers: Krippendorff's alpha over the items that two or more reviewers decided.

The statistic comes from the `krippendorff` package (with numpy), an optional extra: `pip install
'evalkit[stats]'`. Without it, `Alpha.note` says so and everything else in `evalkit stats` still works.
Alpha is undefined when every reviewer gave every item the same value (no variation to agree on); the
note says that too.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["interval", "nominal"]
MISSING_LIBRARY = "needs the krippendorff package: pip install 'evalkit[stats]'"


@dataclass(frozen=True, slots=True)
class Alpha:
    level: Level
    items: int  # items decided by two or more reviewers
    value: float | None = None
    note: str | None = None  # why there is no value

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "items": self.items, "alpha": self.value, "note": self.note}


def alpha(level: Level, by_reviewer: Sequence[Mapping[Hashable, Any]]) -> Alpha:
    """Alpha over the items that at least two of the reviewers' {item: value} maps share."""
    counts: dict[Hashable, int] = {}
    for values in by_reviewer:
        for item in values:
            counts[item] = counts.get(item, 0) + 1
    shared = [item for item, count in counts.items() if count >= 2]
    if not shared:
        return Alpha(level, 0, note="no item was decided by two reviewers")
    try:
        _import_numpy_without_blas_threads()
        import krippendorff
        import numpy
    except ImportError:
        return Alpha(level, len(shared), note=MISSING_LIBRARY)
    codes = _codes(level, by_reviewer)
    data = numpy.array(
        [[codes(values[item]) if item in values else numpy.nan for item in shared] for values in by_reviewer],
        dtype=float,
    )
    try:
        value = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:
        return Alpha(level, len(shared), note="undefined: every shared item got one and the same value")
    return Alpha(level, len(shared), value)


def alpha_of_units(level: Level, units: Mapping[Hashable, Sequence[Any]]) -> Alpha:
    """The same alpha from each item's values (one per reviewer who decided it), over the items with two
    or more: built from value counts, items x distinct values, rather than reviewers x items, which for a
    team's queue (50 reviewers, 100,000 items, 3 each) is mostly empty cells."""
    shared = [values for values in units.values() if len(values) >= 2]
    if not shared:
        return Alpha(level, 0, note="no item was decided by two reviewers")
    try:
        _import_numpy_without_blas_threads()
        import krippendorff
        import numpy
    except ImportError:
        return Alpha(level, len(shared), note=MISSING_LIBRARY)
    domain = sorted(
        {value for values in shared for value in values}, key=float if level != "nominal" else str
    )
    column = {value: number for number, value in enumerate(domain)}
    counts = numpy.zeros((len(shared), len(domain)))
    rows = [row for row, values in enumerate(shared) for _ in values]
    numpy.add.at(counts, (rows, [column[value] for values in shared for value in values]), 1)
    numbers = numpy.array(domain if level != "nominal" else range(len(domain)), dtype=float)
    try:
        value = float(
            krippendorff.alpha(value_counts=counts, value_domain=numbers, level_of_measurement=level)
        )
    except ValueError:
        return Alpha(level, len(shared), note="undefined: every shared item got one and the same value")
    return Alpha(level, len(shared), value)


def _codes(level: Level, by_reviewer: Sequence[Mapping[Hashable, Any]]) -> Any:
    """Numbers as they are for interval data; for nominal data, each distinct value its own number."""
    if level != "nominal":
        return float
    names = sorted({str(value) for values in by_reviewer for value in values.values()})
    index = {name: number for number, name in enumerate(names)}
    return lambda value: float(index[str(value)])


BLAS_THREADS = "OPENBLAS_NUM_THREADS"


def _import_numpy_without_blas_threads() -> None:
    """Import numpy with its BLAS (OpenBLAS) on the calling thread only, unless the user chose otherwise:
    at import it starts a thread per core, which alpha over a few thousand numbers never uses, and which
    cost more CPU than the import itself (`evalkit stats` over two journals: 194 -> 140 ms of CPU on 2
    cores). The variable is read once, when the library loads, and is put back as it was: programs this
    process starts later get the environment it was given."""
    if "numpy" in sys.modules or BLAS_THREADS in os.environ:
        return
    os.environ[BLAS_THREADS] = "1"
    try:
        importlib.import_module("numpy")  # loads OpenBLAS, which reads the variable now
    finally:
        del os.environ[BLAS_THREADS]
