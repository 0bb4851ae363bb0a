"""Worker processes for `eval --jobs` and `score --jobs` that never outlive the run.

A worker dies with its parent however the parent ends: on Linux the kernel kills it (PR_SET_PDEATHSIG), and
everywhere a watchdog thread notices the parent is gone. Workers leave Ctrl+C and SIGTERM to the parent, which
stops them when the pool's block ends early (an error, an interruption, a reader that went away). A worker
that dies mid-run ends the run with WorkerDied, one message rather than a BrokenProcessPool traceback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # imported where a pool is made: a third of the cold start of a one-file `evalkit eval`
    from concurrent.futures import Future, ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
WATCHDOG_INTERVAL_S = 1.0
STOP_GRACE_S = 5.0
POLL_S = 0.5
T = TypeVar("T")


class WorkerDied(Exception):
    """A worker process ended before its work was done (killed, or out of memory)."""


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


@contextlib.contextmanager
def worker_pool(
    jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers are stopped when the block ends by an exception (`_stop`); a worker
    that died raises WorkerDied."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except BrokenProcessPool:
        _quiet_teardown()
        _unstick(pool)
        raise WorkerDied("a worker process died (killed, or out of memory?); try fewer --jobs") from None
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def result_of(future: Future[T], pool: ProcessPoolExecutor) -> T:
    """`future.result()`, raising BrokenProcessPool also when a worker died handing a result back: the pool's
    own thread then waits for the rest of that result forever, and would never say the pool is broken."""
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing.connection import wait

    while True:
        try:
            return future.result(timeout=POLL_S)
        except TimeoutError:
            if wait(_sentinels(pool), timeout=0):  # a worker ended: during a run, only by being killed
                raise BrokenProcessPool("a worker process died") from None


def _sentinels(pool: ProcessPoolExecutor) -> list[Any]:
    return [process.sentinel for process in list((getattr(pool, "_processes", None) or {}).values())]


def _quiet_teardown() -> None:
    """Once a worker has died the run ends with one message (WorkerDied). The pool's own thread and its
    pipes' finalizers may then fail on the pipes `_unstick` closes ("Exception in thread ...", "Exception
    ignored in ..."): that is the teardown of a pool already given up, not news for the user."""
    import threading

    threading.excepthook = lambda args: None
    sys.unraisablehook = lambda unraisable: None


def _unstick(pool: ProcessPoolExecutor) -> None:
    """Kill every worker and close this process's end of the result pipe, so that the pool's thread, should
    it wait for the rest of a result cut in half, reads its end and ends (the interpreter waits for it)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError):
            process.kill()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()
    pool.shutdown(wait=False, cancel_futures=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and let each worker end the chunk it holds (a fraction of a second);
    kill those still busy after STOP_GRACE_S. Killing at once could cut a result in half in the pool's
    pipe, where the pool's own thread would wait for the rest forever (and the interpreter for it, at
    exit)."""
    from multiprocessing.connection import wait

    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public way before Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + STOP_GRACE_S
    running = {process.sentinel: process for process in processes}
    while running and time.monotonic() < deadline:
        for ended in wait(list(running), timeout=deadline - time.monotonic()):
            running.pop(ended)
    for process in running.values():
        with contextlib.suppress(OSError):
            process.kill()


def _start_worker(parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole process group: the parent acts
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(parent)
    if initializer is not None:
        initializer(*initargs)


def _die_with(parent: int) -> None:
    """End this worker when `parent` ends. PR_SET_PDEATHSIG follows the process that started the worker:
    the parent itself (fork), or a fork server that ends with it (Python 3.14's default)."""
    born_of_parent = os.getppid() == parent
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if born_of_parent and os.getppid() != parent:  # the parent died before the line above took effect
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
