"""One ordered map over chunks of work, for `evalkit eval` and `evalkit score`: in this process, or in
worker processes (services/workers.py) that never outlive the run.

A regular file's work is its byte ranges of whole lines (`LineRange`): the parent only finds where they
start and end (newlines counted in C) and hands them out; each worker reads its range itself, does the work
and renders its output, so that little crosses the process boundary and the parent's share per line stays
near nothing. Results come back in input order, a bounded number of chunks in flight: memory stays flat and
output flows while the input is read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

if TYPE_CHECKING:  # imported where a pool is made: the cold start of a one-file run does without them
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

WINDOW = 4
"""Chunks in flight per worker: every worker busy, the input read no further ahead."""


@dataclass(frozen=True, slots=True)
class LineRange:
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
    makes); else in `jobs` worker processes, each running what `make` (picklable: a worker makes its own,
    loading what it needs once) makes, WINDOW chunks in flight per worker. Raises WorkerDied when a worker
    dies; the workers never outlive this generator, whether it ends, fails or is closed."""
    if jobs <= 1:
        work = local if local is not None else make()
        for task in tasks:
            yield work(task)
        return
    from evalkit.services.workers import result_of, worker_pool

    with worker_pool(jobs, _start, (make,)) as pool:
        pending: deque[Future[R]] = deque()
        for task in tasks:
            pending.append(pool.submit(_work, task))
            if len(pending) >= WINDOW * jobs:
                yield result_of(pending.popleft(), pool)
        while pending:
            yield result_of(pending.popleft(), pool)


_worker: Callable[[Any], Any] | None = None


def _start(make: Callable[[], Callable[[Any], Any]]) -> None:
    global _worker
    _worker = make()


def _work(task: Any) -> Any:
    assert _worker is not None
    return _worker(task)
