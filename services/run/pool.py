"""One ordered map over chunks of work, for `evalkit eval` and `evalkit score`: in this process, or in
worker processes (services/run/workers.py) that never outlive the run.

A regular file's work is its byte ranges of whole lines (`LineRange`): the parent only finds where they
start and end (newlines counted in C) and hands them out; each worker reads its range itself, does the work
and renders its output, so that little crosses the process boundary and the parent's share per line stays
near nothing. Results come back in input order, a bounded number of chunks in flight: memory stays flat and
output flows while the input is read.

A worker's chunk of output reaches the output one of three ways. Small, it crosses the pipe. Larger, when
the outputs are regular files open before the workers start (`eval --out`, stdout redirected with `>`),
the worker holds it (HOLD) and, once the parent has said where it goes (`place`: the parent only counts its
bytes and moves its file position past them), writes it there itself: nobody copies it again. Else (a
pipe, a device, a file opened to append) it spools it to a file the parent copies on in the
kernel (`copy_spooled`).

A run that ends early (Ctrl+C, SIGTERM, a worker killed) leaves the workers' chunks the parent had placed
written by the workers that end well, and maybe holes where those that did not were to write: the command
then cuts its stdout at the first such chunk (`cut_at_hole`), so that what is left is a prefix of the
whole run's output, and says where it ends.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    from io import BufferedIOBase

    from evalkit.services.run.workers import Crew, Held, Reply, Worker

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


def file_ranges(handle: BufferedIOBase, path: str, source: str, size: int) -> Iterator[LineRange]:
    """Ranges of whole lines of the open regular file `handle`, from where it is, found as they are needed
    (the first is at work while the rest of a large file is unread): up to a few times `size` bytes, and
    smaller and smaller near the end, so that the workers finish together (inputs.guided_size); raises
    OSError."""
    from evalkit.services.inputs.read import line_ranges

    for start, end, first in line_ranges(handle, size, os.fstat(handle.fileno()).st_size):
        yield LineRange(path, source, start, end, first)


def ordered_map(
    tasks: Iterable[T],
    make: Callable[[], Callable[[T], R]],
    jobs: int,
    local: Callable[[T], R] | None = None,
) -> Generator[R, None, None]:
    """`work(task)` for each task, in order. With jobs 1 the work runs here (`local`, else what `make`
    makes); else in `jobs` worker processes (workers.py), each running what `make` makes (once per
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
    from evalkit.services.run.workers import running

    _placed.clear()
    _unfinished.clear()
    crew = None
    try:
        with running(jobs, make) as crew:
            for worker in crew.workers:
                _placing[worker.process.pid] = crew
            try:
                yield from _handed_out(crew, tasks, jobs)
            finally:
                for worker in crew.workers:
                    _placing.pop(worker.process.pid, None)
    finally:  # the workers have ended (`running`): those that did not end well may have left holes
        for worker in crew.workers if crew is not None else []:
            if worker.process.exitcode is None:  # a second Ctrl+C cut `running`'s wait short
                with contextlib.suppress(OSError):
                    worker.process.kill()
                worker.process.join()
            if worker.process.exitcode != 0:
                _unfinished.add(worker.process.pid)


_placing: dict[int | None, Crew] = {}
"""The crew of the pool running, by its workers' pids: where `place` finds the worker holding a chunk."""


class Placed:
    """A chunk placed into an output file: where, by which worker, and how many chunks that worker had
    been handed then (it has written the chunk once it answers one more)."""

    __slots__ = ("handed", "offset", "worker")

    def __init__(self, offset: int, worker: Worker) -> None:
        self.offset, self.worker, self.handed = offset, worker, worker.handed

    def maybe_unwritten(self) -> bool:
        """Whether the chunk may be a hole: its worker did not end well and never answered a chunk handed
        after it was told to write this one."""
        return self.worker.process.pid in _unfinished and self.worker.answered <= self.handed


_placed: dict[int, list[Placed]] = {}
"""The chunks placed into each output file of the last pool, by descriptor."""
_unfinished: set[int | None] = set()
"""The workers of the last pool that did not end well (killed, or a write failed): their chunks not known
to be written may be holes."""


def _handed_out(crew: Crew, tasks: Iterable[T], jobs: int) -> Iterator[Any]:
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
    crew.synced(handed)  # the chunks held by workers placed in the output as told: all written now


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

HOLD = "<held by the worker>"
"""What spool_folder gives for `hold`, in place of a folder: each worker keeps its chunks of output (no
file, no copy) and writes each into the output itself once the parent says where (`place`)."""


@contextlib.contextmanager
def spool_folder(jobs: int, hold: bool = False) -> Iterator[str | None]:
    """A folder for the workers' chunks of output while the block runs (none for one process), removed with
    what is left in it however the block ends. Its name says which process made it (outputs/atomic.py's
    stamped_name): the folders of runs killed outright (SIGKILL) are removed when the next one is made.
    `hold`: every output the chunks go to is a regular file of the caller's, open before the workers start
    (an atomic output's temporary file): the workers hold their chunks and write them there themselves
    (HOLD, where workers are forked: they share the parent's descriptors)."""
    folder = None
    if jobs > 1 and hold and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            _remove_orphans()
        yield HOLD
        return
    if jobs > 1:
        with contextlib.suppress(OSError):  # no temporary folder at all: the chunks cross the pipe
            folder = _new_spool_folder()
    if folder is None:
        yield None
        return
    try:
        yield folder
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def stdout_is_a_file() -> bool:
    """Whether stdout is a regular file written at its position (`> out.jsonl`, not `>>`, where every write
    goes to the end): workers can write their chunks into it at the offsets the parent gives, as into an
    atomic output's temporary file (`spool_folder(jobs, hold=True)`); not a terminal, a pipe or a device."""
    try:
        import fcntl
        import stat

        fd = sys.stdout.fileno()
        return stat.S_ISREG(os.fstat(fd).st_mode) and not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
    except (ImportError, AttributeError, ValueError, OSError):  # replaced (no descriptor), closed; Windows
        return False


def _remove_orphans() -> None:
    import tempfile

    from evalkit.services.outputs.atomic import orphans

    for orphan in orphans(Path(tempfile.gettempdir()), SPOOL_PREFIX, ""):
        import shutil  # (2 ms, with its compression modules: only for a run killed outright)

        shutil.rmtree(orphan, ignore_errors=True)


def _new_spool_folder() -> str:
    import tempfile

    from evalkit.services.outputs.atomic import stamped_name

    temporary = Path(tempfile.gettempdir())
    _remove_orphans()
    while True:
        folder = temporary / stamped_name(SPOOL_PREFIX, "")
        try:
            folder.mkdir(0o700)
        except FileExistsError:  # the same four random bytes twice
            continue
        return str(folder)


def spooler(folder: str | None) -> Callable[[bytes], bytes | Spooled | Held]:
    """What a worker does with each chunk of output it makes, given what spool_folder gave: `spooled` to
    `folder`, or, for HOLD, keep the chunk (services/run/workers.py's `hold`) unless it is small."""
    if folder != HOLD:
        return functools.partial(spooled, folder)
    from evalkit.services.run.workers import hold

    return lambda data: data if len(data) < SPOOL_MIN_BYTES else hold(data)


def spooled(folder: str | None, data: bytes) -> bytes | Spooled:
    """`data` written to a file of `folder` by the worker that made it; `data` itself when there is no
    folder, it is small, or the file cannot be written (a full disk: the parent writes it or says why)."""
    if folder is None or len(data) < SPOOL_MIN_BYTES:
        return data
    import tempfile

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


def place(chunk: Held, out: int) -> None:
    """Append a chunk a worker holds to the regular file `out`, at its position (flush what is buffered
    first): the worker writes it there while the parent moves on past it; the pool's end waits until every
    chunk is written (raising PlacingFailed, an OSError, for one that could not be). Raises WorkerDied."""
    offset = os.lseek(out, 0, os.SEEK_CUR)
    crew = _placing[chunk.worker]
    placed = _placed.setdefault(out, [])
    placed.append(Placed(offset, crew.worker(chunk.worker)))  # first: a Ctrl+C may come at any point
    with _signals_deferred():
        crew.place(chunk, out, offset)
        os.lseek(out, chunk.size, os.SEEK_CUR)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Ctrl+C and SIGTERM held back until the block ends (the parent has one thread). Telling a worker to
    write a chunk and moving past it are one step: a Ctrl+C between the two left the parent's position
    before a chunk a worker that ended well did write, and the output was said to end there, a chunk
    short of where it did (tests/cli/test_processes.py, about one run in a few hundred)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # Windows has no signal masks
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def cut_at_hole(stream: IO[Any]) -> int | None:
    """After a pool that placed chunks into `stream`'s regular file ended early (interrupted, a worker
    killed): what the file holds made a prefix of the whole run's output. What the parent holds is written
    first; then the file is cut at the first chunk a worker that did not end well was told to place (it
    may never have been written: a hole of NUL bytes a reader would take for data), and written on from
    there. Returns where the output now ends, or None when no chunk was placed into it."""
    fd = stream.fileno()
    placed = _placed.pop(fd, None)
    if not placed:
        return None
    with contextlib.suppress(OSError, ValueError):  # a full disk: the cut below still makes a prefix
        stream.flush()
    end = os.lseek(fd, 0, os.SEEK_CUR)
    holes = [chunk.offset for chunk in placed if chunk.maybe_unwritten()]
    if holes and min(holes) < end:
        end = min(holes)
        os.ftruncate(fd, end)
        os.lseek(fd, end, os.SEEK_SET)
    return end


def cut_stdout() -> str | None:
    """`cut_at_hole` of stdout, and what to say of where it ends (None when no chunk was placed into it, or
    it cannot be cut: a full disk, a closed stream)."""
    try:
        end = cut_at_hole(sys.stdout)
    except (OSError, ValueError):
        return None
    if end is None:
        return None
    return (
        f"stdout ends at byte {end:,}, after a whole line: the run's output up to there; the rest was not "
        "written"
    )


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
