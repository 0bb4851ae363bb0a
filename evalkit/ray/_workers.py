"""The callable classes Ray Data runs in its actors: each compiles its config (or loads its scorers) once,
in `__init__`, and then serves every batch it is given.

A batch arrives as a pyarrow Table. Rows either carry a `text` column (a submission's or a dataset row's
JSON text, as the file reader and `ray.data.read_text` give them) or are the object itself, one column a
field. Each output row holds `record`: the very JSON object the local command writes for that row.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping

import pyarrow as pa

from evalkit.ray._files import without_nulls

EVALUATED_SCHEMA = pa.schema([("source", pa.string()), ("label", pa.string()), ("error", pa.string()),
                              ("record", pa.large_string())])
SCORED_SCHEMA = pa.schema([("source", pa.string()), ("data_source", pa.string()), ("score", pa.float64()),
                           ("error", pa.string()), ("record", pa.large_string())])


def config_files(folder: str | None) -> dict[str, bytes]:
    """The config folder's YAML files by name, to send to the actors: a worker node need not have the
    folder, and the config hash (over the same bytes) comes out the same."""
    from evalkit.engine.config import default_config_dir

    root = Path(folder) if folder is not None else default_config_dir()
    return {path.name: path.read_bytes() for path in sorted(root.glob("*.y*ml")) if path.is_file()}


def _texts(batch: pa.Table) -> Iterator[tuple[Any, Any, str | None, str | None]]:
    """(source, text, suffix, error) for each row of a batch, whichever form its rows take."""
    columns = batch.column_names
    sources = batch.column("source").to_pylist() if "source" in columns else [None] * batch.num_rows
    if "text" not in columns:
        objects = batch.drop_columns([c for c in ("source",) if c in columns]).to_pylist()
        texts = [json.dumps(without_nulls(row), ensure_ascii=False) for row in objects]
        yield from ((source, text, None, None) for source, text in zip(sources, texts))
        return
    texts = batch.column("text").to_pylist()
    suffixes = batch.column("suffix").to_pylist() if "suffix" in columns else [None] * batch.num_rows
    errors = batch.column("error").to_pylist() if "error" in columns else [None] * batch.num_rows
    yield from zip(sources, texts, suffixes, errors)


class EvaluateBatch:
    """Evaluates submissions with one Evaluator, compiled when the actor starts."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        from evalkit.engine.batch import BatchEvaluator, Want
        from evalkit.engine.config import analyze

        with tempfile.TemporaryDirectory(prefix="evalkit-config-") as folder:
            for name, raw in files.items():
                Path(folder, name).write_bytes(raw)
            config = analyze(folder)
        if config.plan is None:
            problems = "; ".join(d.format() for d in config.diagnostics)
            raise ValueError(f"the config has errors: {problems}")
        self._batch = BatchEvaluator(config, Want(result=True))

    def __call__(self, batch: pa.Table) -> pa.Table:
        from evalkit.commands._eval_run import _rendered
        from evalkit.engine.batch import Outcome, RawItem

        rows = []
        for source, text, suffix, error in _texts(batch):
            if error is None and isinstance(text, bytes):
                text = text.decode("utf-8", "replace")
            outcome = (Outcome(source, error=error) if error is not None or text is None
                       else self._batch.run(RawItem(source, text, suffix or ".json")))
            rows.append({"source": source, "label": outcome.label, "error": outcome.error,
                         "record": _rendered(outcome, "result", True)[:-1]})
        return pa.Table.from_pylist(rows, schema=EVALUATED_SCHEMA)


class ScoreBatch:
    """Scores dataset rows with the qydomain scorers."""

    def __call__(self, batch: pa.Table) -> pa.Table:
        from evalkit.qydomain.records import RowError, score_json_line

        rows = []
        for source, text, _, error in _texts(batch):
            raw = text.encode() if isinstance(text, str) else text
            try:
                if error is not None or raw is None:
                    raise RowError("unreadable", error or "no text")
                row = score_json_line(raw)
            except RowError as problem:
                entry = {"source": source, "error": {"code": problem.code, "message": str(problem)}}
                rows.append({"source": source, "data_source": None, "score": None,
                             "error": str(problem), "record": json.dumps(entry)})
            else:
                rows.append({"source": source, "data_source": row.data_source, "score": row.score,
                             "error": None, "record": row.line.decode("utf-8")})
        return pa.Table.from_pylist(rows, schema=SCORED_SCHEMA)
