"""Where `--ray`'s output goes: stdout, one ordered file (JSONL, or Parquet for a `.parquet` name), or a
folder of parts that the workers write themselves, ordered by a manifest.

A folder (`--out` an existing folder, or a name ending in `/`) holds `part-*.jsonl` files (`.parquet` for a
folder named `*.parquet`) and `manifest.json`, which lists the parts in input order with their records and
bytes: the parts' lines in that order are the single file's lines. The manifest is written last,
atomically, so a folder shows the previous complete run until the new one is complete: then the parts the
new manifest does not list are removed. A run that fails removes its own parts; a driver killed outright
leaves parts no manifest lists, which the next run into the folder removes.

Every output can be given up from another thread (`discard`): the driver's watchdog does that when the
cluster's head is lost and the main thread may be stuck in Ray.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from evalkit.ray._chunks import JSONL, PARQUET

if TYPE_CHECKING:
    import pyarrow as pa

    from evalkit.ray._chunks import Done

MANIFEST = "manifest.json"
PART_PREFIX = "part-"


def is_folder(out: str | None) -> bool:
    return out is not None and (out.endswith(("/", os.sep)) or os.path.isdir(out))


def form_of(out: str | None) -> str:
    return PARQUET if out is not None and out.rstrip("/" + os.sep).endswith(".parquet") else JSONL


class Output:
    """An output the driver writes chunk by chunk, in order (`take`), then `commit`s or `discard`s."""

    parts: str | None = None  # the folder workers write parts into
    stamp = ""

    def take(self, done: Done) -> None:
        raise NotImplementedError

    def commit(self, command: str) -> None:
        """The run is complete: make the output what readers see."""

    def discard(self) -> None:
        """The run failed: leave no trace (safe from any thread, more than once)."""


class StreamOutput(Output):
    """JSONL to an open binary stream (stdout's real descriptor)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def take(self, done: Done) -> None:
        assert isinstance(done.output, bytes)
        self.stream.write(done.output)

    def commit(self, command: str) -> None:
        self.stream.flush()


class FileOutput(Output):
    """One file, written into a hidden temporary file beside it and renamed over it when complete."""

    def __init__(self, path: str, schema: pa.Schema | None) -> None:
        from evalkit.services.outputs.atomic import _remove_orphans, _special, stamped_name

        self.target = Path(path)
        self.special = _special(self.target)  # /dev/null, a pipe: written in place, as atomic_output does
        hidden = stamped_name(f".{self.target.name}.", ".tmp")
        self.temp = self.target if self.special else self.target.with_name(hidden)
        self._writer: Any = None
        self._stack = contextlib.ExitStack()
        if not self.special:
            _remove_orphans(self.target)
        self._handle = self._stack.enter_context(open(self.temp, "wb" if self.special else "xb"))  # noqa: SIM115
        if schema is not None:
            import pyarrow.parquet as pq

            self._writer = self._stack.enter_context(pq.ParquetWriter(self._handle, schema))

    def take(self, done: Done) -> None:
        if self._writer is None:
            assert isinstance(done.output, bytes)
            self._handle.write(done.output)
        else:
            self._writer.write_table(done.output)

    def commit(self, command: str) -> None:
        self._stack.close()
        if self.special:
            return
        with open(self.temp, "rb") as handle:
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            self._keep_mode()
        os.replace(self.temp, self.target)

    def _keep_mode(self) -> None:
        import stat

        os.chmod(self.temp, stat.S_IMODE(os.stat(self.target).st_mode))

    def discard(self) -> None:
        if not self.special:
            self.temp.unlink(missing_ok=True)


class FolderOutput(Output):
    """Parts the workers write into the folder, and the manifest that orders them."""

    def __init__(self, path: str, form: str) -> None:
        from evalkit.services.outputs.atomic import stamped_name

        self.folder = Path(path)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.parts = str(self.folder.absolute())
        self.form = form
        self.stamp = stamped_name(PART_PREFIX, "")
        self.entries: list[dict[str, Any]] = []

    def take(self, done: Done) -> None:
        if done.part is not None:
            self.entries.append({"file": done.part, "records": done.records, "bytes": done.size})

    def commit(self, command: str) -> None:
        from evalkit.services.outputs.atomic import write_text_atomic

        manifest = {
            "evalkit": command,
            "format": self.form,
            "records": sum(entry["records"] for entry in self.entries),
            "parts": self.entries,
        }
        write_text_atomic(self.folder / MANIFEST, json.dumps(manifest, indent=1) + "\n")
        kept = {entry["file"] for entry in self.entries}
        for stale in self._ours(lambda name: name not in kept):
            stale.unlink(missing_ok=True)

    def discard(self) -> None:
        for part in self._ours(lambda name: self.stamp in name):
            part.unlink(missing_ok=True)

    def _ours(self, keep: Any) -> Iterator[Path]:
        """The folder's parts and parts' temporary files for which `keep(name)` holds."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name.startswith((PART_PREFIX, "." + PART_PREFIX)) and keep(name):
                yield self.folder / name


def read_parts(folder: str | Path) -> Iterator[Path]:
    """The parts of an `--out` folder in order, as its manifest lists them."""
    manifest = json.loads(Path(folder, MANIFEST).read_text(encoding="utf-8"))
    for entry in manifest["parts"]:
        yield Path(folder, entry["file"])
