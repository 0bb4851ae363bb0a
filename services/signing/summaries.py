"""The `summary` of a signed run's predicate, read back from the output it wrote (so the summary is of the
very bytes signed): counts, labels, flags and errors for results; rows and errors for scores; the totals of
a diff.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def _objects(path: Path) -> Iterator[Any]:
    """The JSON values of a JSON Lines file, a line at a time (constant memory), or the one value of a JSON
    file whose first line is no JSON value (a single result, pretty)."""
    with path.open("rb") as handle:
        first = handle.readline()
        while first and not first.strip():
            first = handle.readline()
        try:
            value = json.loads(first) if first else None
        except ValueError:
            yield from _document(first + handle.read())
            return
        if first:
            yield value
        yield from _lines(handle)


def _document(data: bytes) -> Iterator[Any]:
    try:
        value = json.loads(data)
    except ValueError:
        yield from _lines(data.splitlines())
        return
    yield value


def _lines(lines: Iterable[bytes]) -> Iterator[Any]:
    for line in lines:
        if line.strip():
            try:
                yield json.loads(line)
            except ValueError:
                yield {"error": "not JSON"}


def results(path: Path) -> dict[str, Any]:
    """eval's results and the reviewer's export: submissions, errors, each label and flag counted."""
    labels: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    count = errors = 0
    for item in _objects(path):
        if not isinstance(item, dict):
            continue
        count += 1
        if "error" in item:
            errors += 1
            continue
        labels[str(item.get("label"))] += 1
        flags.update(str(flag) for flag in item.get("flags") or [])
    return {"submissions": count, "errors": errors, "labels": dict(labels), "flags": dict(flags)}


def scores(path: Path) -> dict[str, Any]:
    """score's output: rows, errors, rows by data source."""
    sources: Counter[str] = Counter()
    count = errors = 0
    for item in _objects(path):
        count += 1
        if not isinstance(item, dict) or "error" in item:
            errors += 1
            continue
        sources[str(item.get("data_source"))] += 1
    return {"rows": count, "errors": errors, "data_sources": dict(sources)}


def diff(path: Path) -> dict[str, Any]:
    """diff's JSON: its top-level numbers (submissions, changed...) and each side's config."""
    for item in _objects(path):
        if isinstance(item, dict):
            totals: dict[str, Any] = {
                k: v for k, v in item.items() if isinstance(v, int | float | str | bool)
            }
            for side in ("base", "head"):
                if isinstance(item.get(side), dict):
                    totals[side] = {k: item[side].get(k) for k in ("ref", "config_hash")}
            return totals
    return {}
