"""One ordered map over chunks of work, for `evalkit eval` and `evalkit score`: in this process, or in
worker processes (services/workers.py) that never outlive the run.

A regular file's work is its byte ranges of whole lines (`LineRange`): the parent only finds where they
start and end (newlines counted in C) and hands them out; each worker reads its range itself, does the work
and renders its output, so that little crosses the process boundary and the parent's share per line stays
near nothing. Results come back in input order, a bounded number of chunks in flight: memory stays flat and
output flows while the input is read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, TypeVar

if TYPE_CHECKING:
    from evalkit.services.workers import Reply

T = TypeVar("T")
R = TypeVar("R")

WINDOW = 4
"""Chunks handed out and not yet yielded, per worker: every worker busy, the input read no further ahead."""
HELD = 2
"""Chunks a worker holds at most: the one it works on and the next, there as soon as it is done."""


class LineRange(NamedTuple):
    """Bytes `start` to `end` of a regular file, whole lines, the first numbered `first`: a worker reads them
    itself. `source` is the path as messages show it."""

    path: str
    source: str
    start: int
    end: int
    first: int


def file_ranges(handle: BinaryIO, path: str, source: str, size: int) -> Iterator[LineRange]:
    """Ranges of about `size` bytes of whole lines of the open regular file `handle`, from where it is, found
    as they are needed (the first is at work while the rest of a large file is unread); raises OSError."""
    from evalkit.services.inputs import line_ranges

    for start, end, first in line_ranges(handle, size):
        yield LineRange(path, source, start, end, first)


def ordered_map(
    tasks: Iterable[T],
    make: Callable[[], Callable[[T], R]],
    jobs: int,
    local: Callable[[T], R] | None = None,
) -> Generator[R, None, None]:
    """`work(task)` for each task, in order. With jobs 1 the work runs here (`local`, else what `make`
    makes); else in `jobs` worker processes (services/workers.py), each running what `make` makes (once per
    worker, loading what it needs; picklable where workers are not forked). An exception the work raises in
    a worker is raised here, at its task's turn. Raises WorkerDied when a worker dies; the workers never
    outlive this generator, whether it ends, fails or is closed."""
    if jobs <= 1:
        work = local if local is not None else make()
        for task in tasks:
            yield work(task)
        return
    yield from _in_workers(tasks, make, jobs)


def _in_workers(tasks: Iterable[T], make: Callable[[], Callable[[T], R]], jobs: int) -> Iterator[R]:
    """Each task goes to the worker holding the fewest (at most HELD: the rest wait here for whichever
    worker is free first, so that the workers finish together); at most WINDOW * jobs tasks are handed out
    and not yet yielded. The replies that come early wait here for their turn."""
    from evalkit.services.workers import running

    with running(jobs, make) as crew:
        early: dict[int, Reply] = {}
        handed = done = 0
        for task in tasks:
            while len((worker := crew.least_busy()).held) >= HELD or handed - done >= WINDOW * jobs:
                if done in early:
                    yield _value(early.pop(done))
                    done += 1
                else:
                    early.update(crew.replies())
            worker.hand(handed, task)
            handed += 1
        while done < handed:
            if done in early:
                yield _value(early.pop(done))
                done += 1
            else:
                early.update(crew.replies())


def _value(reply: Reply) -> Any:
    succeeded, value = reply
    if not succeeded:
        raise value
    return value


SPOOL_MIN_BYTES = 64 * 1024
"""Smaller outputs cross the pipe back to the parent as they are: a file would cost more than it saves."""


class Spooled(NamedTuple):
    """A chunk of output a worker wrote to a file of the run's spool folder: the parent copies it on in the
    kernel (os.sendfile), never reading it itself, and removes it."""

    path: str
    size: int


SPOOL_PREFIX = "evalkit-spool-"


@contextlib.contextmanager
def spool_folder(jobs: int) -> Iterator[str | None]:
    """A folder for the workers' chunks of output while the block runs (none for one process), removed with
    what is left in it however the block ends. Its name says which process made it (services/atomic.py's
    stamped_name): the folders of runs killed outright (SIGKILL) are removed when the next one is made."""
    folder = None
    if jobs > 1:
        with contextlib.suppress(OSError):  # no temporary folder at all: the chunks cross the pipe
            folder = _new_spool_folder()
    if folder is None:
        yield None
        return
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _new_spool_folder() -> str:
    from evalkit.services.atomic import orphans, stamped_name

    temporary = Path(tempfile.gettempdir())
    for orphan in orphans(temporary, SPOOL_PREFIX, ""):
        shutil.rmtree(orphan, ignore_errors=True)
    while True:
        folder = temporary / stamped_name(SPOOL_PREFIX, "")
        try:
            folder.mkdir(0o700)
        except FileExistsError:  # the same four random bytes twice
            continue
        return str(folder)


def spooled(folder: str | None, data: bytes) -> bytes | Spooled:
    """`data` written to a file of `folder` by the worker that made it; `data` itself when there is no
    folder, it is small, or the file cannot be written (a full disk: the parent writes it or says why)."""
    if folder is None or len(data) < SPOOL_MIN_BYTES:
        return data
    path = None
    try:
        handle, path = tempfile.mkstemp(dir=folder)
        with open(handle, "wb") as out:
            out.write(data)
    except OSError:
        if path is not None:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return data
    return Spooled(path, len(data))


def copy_spooled(chunk: Spooled, out: int) -> None:
    """Append a spooled chunk to the file descriptor `out` (at its position: flush what is buffered first)
    and remove it. Raises OSError when `out` cannot be written."""
    with open(chunk.path, "rb") as source:
        offset = 0
        while offset < chunk.size:
            try:
                sent = os.sendfile(out, source.fileno(), offset, chunk.size - offset)
            except OSError as exc:
                if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                    raise
                source.seek(offset)  # a descriptor sendfile does not write to: copy in user space
                _write_all(out, source.read())
                break
            if sent == 0:
                raise OSError(errno.EIO, f"{chunk.path} ended early")
            offset += sent
    os.unlink(chunk.path)
    _write_back(out, chunk.size)


def _write_back(out: int, size: int) -> None:
    """Start writing the `size` bytes just written to `out` to disk, without waiting: the atomic output's
    fsync at the end then waits for the last chunks only, not the whole file, while the workers run."""
    with contextlib.suppress(OSError, AttributeError):  # a pipe, a device; no posix_fadvise here
        end = os.lseek(out, 0, os.SEEK_CUR)
        os.posix_fadvise(out, end - size, size, os.POSIX_FADV_DONTNEED)


def _write_all(out: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(out, view) :]
