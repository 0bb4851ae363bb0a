"""Input files as a Ray Dataset of text rows, read the way the local commands read them.

`evalkit eval --ray` and `evalkit score --ray` take JSONL, Parquet and (for eval) JSON/YAML files, or folders
of them. Each file becomes rows with a `source` (`path:line` for JSONL, `path:row` for Parquet, the path for a
single-submission file) and the row's text; a line that cannot be read carries an `error` instead, as it does
locally. The reading reuses the engine's own reader (`raw_items`), so sources and read errors are the local
run's, byte for byte.

The files are read on the driver's node (`supports_distributed_reads` is False): a CLI user's files are on
the machine they run evalkit on, while the evaluation itself spreads over the cluster.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata

from evalkit.services.inputs.read import SUBMISSION_SUFFIXES, TOOL_OUTPUTS

PARQUET = ".parquet"
EVAL_SUFFIXES = (*SUBMISSION_SUFFIXES, PARQUET)
SCORE_SUFFIXES = (".jsonl", PARQUET)
READ_TASKS = 2  # at most: reading costs little next to evaluating, and a folder of small files needs no more
BLOCK_ROWS = 4096  # rows per block a read task yields: small enough to stream, large enough to amortise


def input_files(paths: Iterable[str], suffixes: tuple[str, ...]) -> list[Path]:
    """The files to read, in order: a folder's files with one of `suffixes`, sorted by name (without the
    review journals kept beside submissions); a file as given."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.iterdir()
                    if p.suffix in suffixes and p.is_file() and not p.name.endswith(TOOL_OUTPUTS)
                )
            )
        else:
            files.append(path)
    return files


def without_nulls(value: Any) -> Any:
    """A Parquet row as JSON would have given it: Arrow writes a key absent from some rows as null."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def row_text(row: dict[str, Any]) -> tuple[str | None, str | None]:
    """A row of columns as the JSON text of one object, or (None, why) for a row JSON cannot hold."""
    try:
        return json.dumps(without_nulls(row), ensure_ascii=False), None
    except (TypeError, ValueError) as exc:
        return None, f"the row has a value JSON cannot hold: {exc}"


def parquet_rows(path: Path) -> Iterator[tuple[str, str | None, str | None]]:
    """(`path:row`, the row as JSON text, None), or (where, None, why) for a row JSON cannot hold."""
    import pyarrow.parquet as pq

    number = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BLOCK_ROWS):
        for row in batch.to_pylist():
            number += 1
            yield (f"{path}:{number}", *row_text(row))


def submission_rows(path: Path) -> Iterator[dict[str, Any]]:
    """`evalkit eval`'s rows for one file: source, text, suffix (the text's format) and error."""
    from evalkit.services.run.batch import Outcome, raw_items

    if path.suffix == PARQUET:
        for source, text, problem in parquet_rows(path):
            yield {"source": source, "text": text, "suffix": ".json", "error": problem}
        return
    for item in raw_items([str(path)]):
        if isinstance(item, Outcome):
            yield {"source": item.source, "text": None, "suffix": None, "error": item.error}
        else:
            yield {"source": item.source, "text": item.text, "suffix": item.suffix, "error": None}


def dataset_rows(path: Path) -> Iterator[dict[str, Any]]:
    """`evalkit score`'s rows for one file: source and the line's raw bytes (blank lines skipped, counted
    in the line numbers), as the local command reads them."""
    if path.suffix == PARQUET:
        for source, text, problem in parquet_rows(path):
            yield {"source": source, "text": None if text is None else text.encode(), "error": problem}
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield {"source": f"{path}:{number}", "text": raw, "error": None}


RowReader = Callable[[Path], Iterator[dict[str, Any]]]


def _blocks(files: list[tuple[Path, str]], read_rows: RowReader, schema: pa.Schema) -> Iterator[pa.Table]:
    """Read each file by its absolute path (a worker's working folder is not the user's) and give its rows
    the sources the local run gives them, which start with the path as the user wrote it."""
    rows: list[dict[str, Any]] = []
    for path, shown in files:
        cut = len(str(path))
        for row in read_rows(path):
            row["source"] = shown + row["source"][cut:]
            rows.append(row)
            if len(rows) == BLOCK_ROWS:
                yield pa.Table.from_pylist(rows, schema=schema)
                rows = []
    if rows:
        yield pa.Table.from_pylist(rows, schema=schema)


class InputFiles(Datasource):
    """The inputs of one run, read in order: files are split into contiguous groups, one read task each."""

    def __init__(self, files: list[Path], read_rows: RowReader, schema: pa.Schema) -> None:
        super().__init__()
        self._files = [(path.absolute(), str(path)) for path in files]
        self._read_rows = read_rows
        self._schema = schema

    def get_name(self) -> str:
        return "EvalkitInputs"

    def estimate_inmemory_data_size(self) -> int | None:
        return sum(path.stat().st_size for path, _ in self._files if path.is_file())

    @property
    def supports_distributed_reads(self) -> bool:
        return False

    def get_read_tasks(
        self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None
    ) -> list[ReadTask]:
        groups = max(1, min(parallelism, len(self._files), READ_TASKS))
        size = -(-len(self._files) // groups)
        tasks = []
        for start in range(0, len(self._files), size):
            group = self._files[start : start + size]
            metadata = BlockMetadata(
                num_rows=None,
                size_bytes=None,
                exec_stats=None,
                input_files=tuple(shown for _, shown in group),
            )
            tasks.append(ReadTask(self._reader(group), metadata, schema=self._schema))
        return tasks

    def _reader(self, group: list[tuple[Path, str]]) -> Callable[[], Iterator[pa.Table]]:
        read_rows, schema = self._read_rows, self._schema
        return lambda: _blocks(group, read_rows, schema)


SUBMISSION_SCHEMA = pa.schema(
    [("source", pa.string()), ("text", pa.large_string()), ("suffix", pa.string()), ("error", pa.string())]
)
DATASET_SCHEMA = pa.schema([("source", pa.string()), ("text", pa.large_binary()), ("error", pa.string())])
