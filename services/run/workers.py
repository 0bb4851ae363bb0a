"""Worker processes for `eval --jobs` and `score --jobs` that never outlive the run.

Each worker is a process this module starts itself (forked on Linux: it inherits the parent's imports, and
starts in milliseconds) with one pipe to the parent. The parent hands it chunks of work down the pipe and
reads the replies, in the order it handed them; it waits on every pipe and every process's sentinel at
once, so it knows which worker holds which chunk and sees a dead worker the moment it dies. No thread of
the parent's takes part. A worker may keep a chunk of output it made (`hold`) until the parent tells it
where in an output file it goes (`Crew.place`), and writes it there between chunks; the pool's end
(`Crew.synced`) waits for every such write.

A worker dies with its parent however the parent ends: on Linux the kernel kills it (PR_SET_PDEATHSIG);
everywhere a watchdog thread notices the parent is gone, and the pipe's end tells the worker the parent
closed it. Workers leave Ctrl+C and SIGTERM to the parent, which stops them when the pool's block ends
(`running`): each finishes the chunk it holds and writes every chunk the parent placed (and no other),
within STOP_GRACE_S, or is killed. A worker that ends with exit code 0 wrote every chunk it was told to
place; one that did not may have left a hole (services/run/pool.py's `cut_at_hole`). A worker that dies
mid-run ends the run with WorkerDied, one message rather than a traceback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # imported where a pool is made: a third of the cold start of a one-file `evalkit eval`
    import queue
    import threading
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # from glibc's <malloc.h>
KEPT_HEAP_BYTES = 32 * 1024 * 1024
"""Memory a worker keeps for its next chunk rather than return it to the kernel (and fault it in again)."""
WATCHDOG_INTERVAL_S = 1.0
STOP_GRACE_S = 5.0

Reply = tuple[bool, Any]
"""A worker's answer for a chunk: (True, what the work returned) or (False, the exception it raised)."""
DIED = "a worker process died (killed, or out of memory?); try fewer --jobs"


class WorkerDied(Exception):
    """A worker process ended before its work was done (killed, or out of memory)."""

    def __init__(self, message: str = DIED) -> None:
        super().__init__(message)


class Held(NamedTuple):
    """A chunk of output a worker keeps (`hold`) until the parent says where in the output file it goes
    (`Crew.place`): the worker then writes it there itself, so that the parent never touches its bytes."""

    worker: int  # the pid of the worker holding it
    key: int
    size: int


class Place(NamedTuple):
    """The parent's word to a worker: write the chunk it holds as `key` at `offset` of the file `fd` (the
    worker's copy of the parent's descriptor, inherited when it was forked)."""

    key: int
    fd: int
    offset: int


class Sync(NamedTuple):
    """Handed to each worker once its last chunk is placed: it answers once every chunk it was told to
    place is written, with the first write that failed (an OSError), if one did."""


class PlacingFailed(OSError):
    """A worker could not write a chunk it held into the output file `fd`: the parent names that output."""

    def __init__(self, fd: int, errno: int, strerror: str) -> None:
        super().__init__(errno, strerror)
        self.fd = fd

    def __reduce__(self) -> tuple[Any, ...]:
        return PlacingFailed, (self.fd, self.errno, self.strerror)


def cores() -> int:
    """The processor cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def capped_jobs(asked: int, command: str) -> int:
    """`asked`, or the number of cores when it is more (more workers only share the same cores and each
    holds its own copy of the config); says so once on stderr."""
    available = cores()
    if asked <= available:
        return asked
    print(
        f"{command}: --jobs {asked} is more than the {available} cores here; using {available}",
        file=sys.stderr,
    )
    return available


class Worker:
    """One worker process, the parent's end of its pipe, and the numbers of the chunks it holds (handed and
    not yet answered), oldest first: the worker answers in the order it was handed them."""

    __slots__ = ("answered", "connection", "handed", "held", "process")

    def __init__(self, process: BaseProcess, connection: Connection) -> None:
        self.process, self.connection = process, connection
        self.held: deque[int] = deque()
        self.handed = self.answered = 0  # chunks handed to it and answered by it, ever

    def hand(self, number: int, task: Any) -> None:
        """Send chunk `number` to the worker. Raises WorkerDied when it is gone."""
        self.send(task)
        self.held.append(number)
        self.handed += 1

    def send(self, message: Any) -> None:
        """`message` down the pipe. Raises WorkerDied when the worker is gone."""
        try:
            self.connection.send(message)
        except OSError:  # the worker's end is closed: it died (not BrokenPipeError for the caller's stdout)
            raise WorkerDied from None


class Crew:
    """The workers of one run."""

    def __init__(self, workers: list[Worker]) -> None:
        self.workers = workers
        self._by_handle: dict[Any, Worker] = {}
        self._by_pid = {worker.process.pid: worker for worker in workers}
        self.placed = False
        for worker in workers:
            self._by_handle[worker.connection] = worker
            self._by_handle[worker.process.sentinel] = worker

    def place(self, chunk: Held, fd: int, offset: int) -> None:
        """Tell the worker holding `chunk` to write it at `offset` of `fd`; it does so between chunks, the
        parent does not wait: once it answers a chunk handed after this word, the write is done (it reads
        its pipe in order). Raises WorkerDied when it is gone."""
        self._by_pid[chunk.worker].send(Place(chunk.key, fd, offset))
        self.placed = True

    def worker(self, pid: int) -> Worker:
        return self._by_pid[pid]

    def synced(self, number: int) -> None:
        """Wait until every worker has written every chunk it was told to place (chunks numbered from
        `number` on carry the word); raises PlacingFailed for a write that failed, WorkerDied."""
        if not self.placed:
            return
        for worker in self.workers:
            worker.hand(number, Sync())
            number += 1
        answered, failure = 0, None
        while answered < len(self.workers):
            for _, (_, value) in self.replies():
                answered += 1
                failure = failure or value
        if failure is not None:
            raise failure

    def least_busy(self) -> Worker:
        return min(self.workers, key=lambda worker: len(worker.held))

    def replies(self) -> list[tuple[int, Reply]]:
        """Waits for at least one reply; returns every one that has come, with its chunk's number. Raises
        WorkerDied as soon as a worker has ended (during a run, only by being killed)."""
        ready, ended = self._ready()
        if ended:
            raise WorkerDied
        got = []
        for worker in ready:
            try:
                reply = worker.connection.recv()
            except (EOFError, OSError):  # it died answering: half a reply is no reply
                raise WorkerDied from None
            got.append((worker.held.popleft(), reply))
            worker.answered += 1
        return got

    def _ready(self) -> tuple[list[Worker], bool]:
        """Waits for a reply or a worker's end: the workers with a reply to read, and whether one ended."""
        from multiprocessing.connection import wait

        handles = wait(list(self._by_handle))
        workers = [self._by_handle[handle] for handle in handles if not isinstance(handle, int)]
        return workers, len(workers) < len(handles)


@contextlib.contextmanager
def running(jobs: int, make: Callable[[], Callable[[Any], Any]], method: str | None = None) -> Iterator[Crew]:
    """`jobs` workers, each running what `make` makes on every chunk it is handed (`make` is called once per
    worker; picklable where workers are not forked), started by `method` (by default fork on Linux, else
    the platform's default). When the block ends the workers end: each finishes the chunk it holds within
    STOP_GRACE_S or is killed; at once when one of them died."""
    workers = _start(jobs, make, method)
    try:
        yield Crew(workers)
    except WorkerDied:
        _stop(workers, grace=0.0)
        raise
    except BaseException:
        _stop(workers, grace=STOP_GRACE_S)
        raise
    _stop(workers, grace=STOP_GRACE_S)


def _start(jobs: int, make: Callable[[], Callable[[Any], Any]], method: str | None) -> list[Worker]:
    import multiprocessing

    if method is None and sys.platform.startswith("linux"):
        method = "fork"  # no new interpreter, no imports again: the parent's modules are the worker's
    context = multiprocessing.get_context(method)
    forked = context.get_start_method() == "fork"
    workers: list[Worker] = []
    try:
        for _ in range(jobs):
            ours, theirs = context.Pipe()
            # a forked worker inherits the parent's ends of its own pipe and of earlier workers' pipes: it
            # closes them, so that its pipe ends for the others when the parent closes it or dies
            inherited = [ours, *(worker.connection for worker in workers)] if forked else []
            process = context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(theirs, os.getpid(), make, inherited), daemon=True, name="evalkit-worker"
            )
            try:
                process.start()
            finally:
                theirs.close()
            workers.append(Worker(process, ours))
    except BaseException:
        _stop(workers, grace=0.0)
        raise
    return workers


def _stop(workers: list[Worker], grace: float) -> None:
    """Close every pipe (a worker ends once it has answered the chunk it holds), wait up to `grace` seconds
    for the workers to end, kill those that have not, and reap them all."""
    from multiprocessing.connection import wait

    for worker in workers:
        worker.connection.close()
    running = {worker.process.sentinel: worker.process for worker in workers}
    deadline = time.monotonic() + grace
    while running and (left := deadline - time.monotonic()) > 0:
        for ended in wait(list(running), timeout=left):
            running.pop(ended)  # type: ignore[arg-type]
    for process in running.values():
        with contextlib.suppress(OSError):
            process.kill()
    for worker in workers:
        worker.process.join(STOP_GRACE_S)


_STOP = object()
"""What a worker's inbox gets when its pipe ends: no more chunks."""


def _serve(
    connection: Connection,
    parent: int,
    make: Callable[[], Callable[[Any], Any]],
    inherited: list[Connection],
) -> None:
    """A worker's life: chunks in, replies out, in order, until the pipe ends."""
    import queue
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole process group: the parent acts
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(parent)
    _keep_freed_memory()
    for other in inherited:
        other.close()
    work = _made(make)
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    stopping = threading.Event()
    # a thread of the worker's own reads its pipe all the time, so the parent never waits to hand a chunk
    # to a worker that waits to hand back a reply
    threading.Thread(target=_receive, args=(connection, inbox, stopping), daemon=True).start()
    while (task := inbox.get()) is not _STOP:
        if isinstance(task, Place):  # here, between chunks (a thread of its own would take turns for the GIL)
            _place(task)
            continue
        if stopping.is_set():  # the run is over: only the chunks the parent placed are still written
            continue
        if isinstance(task, Sync):  # every Place before it is carried out
            reply: Reply = (True, _failed[0] if _failed else None)
        else:
            try:
                reply = (True, work(task))
            except Exception as exc:  # the parent raises it, at this chunk's turn
                reply = (False, exc)
            if _failed:  # a chunk could not be placed: the run ends at this chunk's turn
                reply = (False, _failed[0])
        try:
            connection.send_bytes(_pickled(reply))
        except OSError:  # the parent closed its end: the run is over
            stopping.set()
    if _failed:  # a chunk the parent placed is not in the output: the exit code says so (pool.cut_at_hole)
        sys.exit(1)


def _made(make: Callable[[], Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """What `make` makes; when it fails, work that raises what it raised, so the parent says it."""
    try:
        return make()
    except Exception as exc:
        failure = exc

        def fail(task: Any) -> Any:
            raise failure

        return fail


_held: dict[int, bytes] = {}
"""A worker's chunks of output held (`hold`) until the parent says where they go, by key."""
_keys = iter(range(sys.maxsize))
_failed: list[PlacingFailed] = []
"""The first write of a chunk held that failed; nothing more is written once one has."""


def hold(data: bytes) -> Held:
    """Keep `data` in this worker until the parent says where it goes (Place); in a worker only."""
    key = next(_keys)
    _held[key] = data
    return Held(os.getpid(), key, len(data))


def _place(order: Place) -> None:
    """Write the chunk held as `order.key` where the parent said, then start writing it to disk without
    waiting (as `pool.copy_spooled` does for the chunks it copies)."""
    data = _held.pop(order.key)
    if _failed:
        return
    view, offset = memoryview(data), order.offset
    try:
        while view:
            written = os.pwrite(order.fd, view, offset)
            view, offset = view[written:], offset + written
    except OSError as exc:
        _failed.append(PlacingFailed(order.fd, exc.errno or 0, exc.strerror or str(exc)))
        return
    with contextlib.suppress(OSError, AttributeError):  # no posix_fadvise here
        os.posix_fadvise(order.fd, order.offset, len(data), os.POSIX_FADV_DONTNEED)


def _receive(connection: Connection, inbox: queue.SimpleQueue[Any], stopping: threading.Event) -> None:
    try:
        while True:
            inbox.put(connection.recv())
    except Exception:  # the end of the pipe: the parent closed it (the run is over, or stopping) or died
        stopping.set()
        inbox.put(_STOP)


def _pickled(reply: Reply) -> bytes:
    """`reply` pickled as Connection.recv reads it; an exception that cannot be pickled is sent as a
    RuntimeError with its type and message."""
    import pickle

    try:
        return pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        failed = reply[1] if not reply[0] else exc
        return pickle.dumps((False, RuntimeError(f"{type(failed).__name__}: {failed}")))


def _keep_freed_memory() -> None:
    """glibc's malloc, left to itself, hands each chunk's memory back to the kernel and faults it in again
    for the next: a worker then took four times the page faults of one process on the same lines, a tenth
    of its time in the kernel. Large blocks come from the heap and the heap keeps KEPT_HEAP_BYTES free."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc: its own malloc, left as it is
            import ctypes

            libc = ctypes.CDLL(None)
            libc.mallopt(M_MMAP_THRESHOLD, KEPT_HEAP_BYTES // 4)
            libc.mallopt(M_TRIM_THRESHOLD, KEPT_HEAP_BYTES)


def _die_with(parent: int) -> None:
    """End this worker when `parent` ends: PR_SET_PDEATHSIG on Linux, a watchdog thread everywhere."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    import threading

    threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watchdog").start()


def _watch(parent: int) -> None:
    while _alive(parent):
        time.sleep(WATCHDOG_INTERVAL_S)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: the number was reused, the parent is gone
        return False
    return True
