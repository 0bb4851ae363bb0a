"""The callable classes Ray Data runs in its actors (`evalkit.ray.EvaluateBatch`, `evalkit.ray.ScoreBatch`,
public for `Dataset.map_batches`): each compiles its config (or loads its scorers) once, in `__init__`, and
then serves every batch it is given.

A batch arrives in any of Ray Data's batch formats (a pyarrow Table, a pandas DataFrame, a dict of numpy
arrays) and the output is a pyarrow Table. Rows either carry a `text` column (a submission's or a
dataset row's JSON text, as the file reader and `ray.data.read_text` give them) or are the object itself,
one column a field. Each output row holds `record`: the very JSON object the local command writes for that
row.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from evalkit.qydomain.records import RowError, score_json_line
from evalkit.ray._files import row_text
from evalkit.services.run.batch import Outcome, RawItem, jsonl_line

EVALUATED_SCHEMA = pa.schema(
    [("source", pa.string()), ("label", pa.string()), ("error", pa.string()), ("record", pa.large_string())]
)
SCORED_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("data_source", pa.string()),
        ("score", pa.float64()),
        ("error", pa.string()),
        ("record", pa.large_string()),
    ]
)


def config_files(folder: str | Path | None) -> dict[str, bytes]:
    """The config folder's YAML files by name, to send to the actors: a worker node need not have the
    folder, and the config hash (over the same bytes) comes out the same."""
    from evalkit.engine.config import default_config_dir

    root = Path(folder) if folder is not None else default_config_dir()
    return {path.name: path.read_bytes() for path in sorted(root.glob("*.y*ml")) if path.is_file()}


def as_table(batch: Any) -> pa.Table:
    """A batch in whichever format Ray Data gave it, as a pyarrow Table."""
    if isinstance(batch, pa.Table):
        return batch
    if isinstance(batch, dict):
        return pa.table({name: pa.array(list(column)) for name, column in batch.items()})
    return pa.Table.from_pandas(batch, preserve_index=False)


def _texts(batch: pa.Table) -> Iterator[tuple[Any, Any, str | None, str | None]]:
    """(source, text, suffix, error) for each row of a batch, whichever form its rows take. The text is as
    the column holds it (str or bytes); a row of columns JSON cannot hold comes with an error instead."""
    columns = batch.column_names
    count = batch.num_rows
    sources = batch.column("source").to_pylist() if "source" in columns else [None] * count
    if "text" not in columns:
        fields = batch.drop_columns([c for c in ("source",) if c in columns])
        for source, row in zip(sources, fields.to_pylist(), strict=False):
            text, error = row_text(row)
            yield source, text, None, error
        return
    suffixes = batch.column("suffix").to_pylist() if "suffix" in columns else [None] * count
    errors = batch.column("error").to_pylist() if "error" in columns else [None] * count
    yield from zip(sources, batch.column("text").to_pylist(), suffixes, errors, strict=False)


def _as_text(value: object) -> tuple[str | None, str | None]:
    """A submission's text from a text column, or (None, why)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            return None, f"the text is not UTF-8 (byte {exc.start + 1})"
    if isinstance(value, str):
        return value, None
    return None, f"the text column holds {type(value).__name__}, not text"


class EvaluateBatch:
    """Evaluates submissions with one Evaluator, compiled when the actor starts.

        dataset.map_batches(EvaluateBatch, fn_constructor_args=(config_files("my_config/"),), concurrency=2)

    `config`: the config's files by name (`config_files`, read on the driver: workers need not have the
    folder), a config folder (read on the worker), or None for the shipped default config."""

    def __init__(self, config: Mapping[str, bytes] | str | Path | None = None) -> None:
        from evalkit.engine.config import analyze
        from evalkit.services.run.batch import BatchEvaluator, Want

        files = config if isinstance(config, Mapping) else config_files(config)
        with tempfile.TemporaryDirectory(prefix="evalkit-config-") as folder:
            for name, raw in files.items():
                Path(folder, name).write_bytes(raw)
            analyzed = analyze(folder)
        if analyzed.plan is None:
            problems = "; ".join(d.format() for d in analyzed.diagnostics)
            raise ValueError(f"the config has errors: {problems}")
        self._batch = BatchEvaluator(analyzed, Want(result=True))

    def __call__(self, batch: Any) -> pa.Table:
        rows = []
        for source, value, suffix, error in _texts(as_table(batch)):
            outcome = self._outcome(source, value, suffix, error)
            rows.append(
                {
                    "source": source,
                    "label": outcome.label,
                    "error": outcome.error,
                    "record": jsonl_line(outcome, "result")[:-1],  # the line `evalkit eval` writes
                }
            )
        return pa.Table.from_pylist(rows, schema=EVALUATED_SCHEMA)

    def _outcome(self, source: Any, value: Any, suffix: str | None, error: str | None) -> Outcome:
        text = None
        if error is None:
            text, error = _as_text(value)
        if text is None:
            return Outcome(source, error=error)
        return self._batch.run(RawItem(source, text, suffix or ".json"))


class ScoreBatch:
    """Scores dataset rows with the qydomain scorers: `dataset.map_batches(ScoreBatch, concurrency=2)`."""

    def __call__(self, batch: Any) -> pa.Table:
        rows = []
        for source, value, _, error in _texts(as_table(batch)):
            raw = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
            try:
                if error is not None or not isinstance(raw, bytes):
                    raise RowError("unreadable", error or f"the text column holds {type(raw).__name__}")
                row = score_json_line(raw)
            except RowError as problem:
                entry = {"source": source, "error": {"code": problem.code, "message": str(problem)}}
                rows.append(
                    {
                        "source": source,
                        "data_source": None,
                        "score": None,
                        "error": str(problem),
                        "record": json.dumps(entry),
                    }
                )
            else:
                rows.append(
                    {
                        "source": source,
                        "data_source": row.data_source,
                        "score": row.score,
                        "error": None,
                        "record": row.line.decode("utf-8"),
                    }
                )
        return pa.Table.from_pylist(rows, schema=SCORED_SCHEMA)
