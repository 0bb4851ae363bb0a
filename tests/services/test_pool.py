"""The ordered map of `eval --jobs` and `score --jobs` over worker processes (services/run/pool.py,
services/run/workers.py): results in input order; a worker's exception raised in the parent at its task's
turn; a worker killed mid-chunk, an exception, a generator closed early or a worker that will not finish
all end with no worker process left, as the process table shows right after.

The work runs in real worker processes; each worker writes its pid to a folder when it starts, so that the
test knows every worker there was, also one that died.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.services.run import workers
from evalkit.services.run.pool import ordered_map
from evalkit.services.run.workers import WorkerDied, running


def in_process_table(pid: int) -> bool:
    """Whether `pid` is a process at all, a zombie (ended, not reaped) included."""
    return Path(f"/proc/{pid}").exists()


class Work:
    """What each worker runs on a task (an int): `task * task`, with the failures a test asks for."""

    def __init__(self, folder: Path, kill_at: int = -1, raise_at: int = -1, sleep_at: int = -1) -> None:
        self.folder, self.kill_at, self.raise_at, self.sleep_at = folder, kill_at, raise_at, sleep_at

    def __call__(self) -> Callable[[int], int]:
        (self.folder / str(os.getpid())).touch()
        return self.run

    def run(self, task: int) -> int:
        if task == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would, mid-chunk
        if task == self.raise_at:
            raise ValueError(f"task {task} is bad")
        if task == self.sleep_at:
            time.sleep(120)
        return task * task


def worker_pids(folder: Path) -> list[int]:
    return [int(path.name) for path in folder.iterdir()]


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "pids"
    folder.mkdir()
    yield folder
    for pid in worker_pids(folder):  # a test that failed must not leave one behind
        if in_process_table(pid):
            os.kill(pid, signal.SIGKILL)


@settings(max_examples=15, deadline=None)
@given(tasks=st.lists(st.integers(0, 1000), max_size=60), jobs=st.integers(2, 3))
def test_results_come_in_input_order(
    tmp_path_factory: pytest.TempPathFactory, tasks: list[int], jobs: int
) -> None:
    folder = tmp_path_factory.mktemp("pids")
    threads = set(threading.enumerate())
    results = []
    for result in ordered_map(iter(tasks), Work(folder), jobs):
        assert set(threading.enumerate()) == threads  # no thread of the pool's in this process
        results.append(result)
    assert results == [task * task for task in tasks]
    assert not any(in_process_table(pid) for pid in worker_pids(folder))


@pytest.mark.parametrize("jobs", [2, 3])
def test_the_tasks_are_read_no_further_ahead_than_the_window(pids: Path, jobs: int) -> None:
    """Memory stays flat whatever the input's size: at most WINDOW tasks a worker are read and not yet
    answered (concurrent.futures' Executor.map reads every task before the first result, and keeps every
    result until it is taken: benchmarks/bench_pool_stdlib.py)."""
    from evalkit.services.run.pool import WINDOW

    read = 0

    def tasks() -> Iterator[int]:
        nonlocal read
        for task in range(300):
            read += 1
            yield task

    for taken, result in enumerate(ordered_map(tasks(), Work(pids), jobs), start=1):
        assert result == (taken - 1) ** 2
        assert read - taken <= WINDOW * jobs  # the task being handed out, and those in flight before it
    assert read == 300


def test_a_worker_killed_mid_chunk_ends_the_run_with_worker_died(pids: Path) -> None:
    got = []
    with pytest.raises(WorkerDied, match="a worker process died"):
        for result in ordered_map(iter(range(40)), Work(pids, kill_at=9), 2):
            got.append(result)
    assert got == [task * task for task in range(len(got))] and len(got) <= 9
    assert len(worker_pids(pids)) == 2
    assert not any(in_process_table(pid) for pid in worker_pids(pids))


def test_an_exception_in_a_worker_is_raised_here_at_its_tasks_turn(pids: Path) -> None:
    got = []
    with pytest.raises(ValueError, match=r"^task 7 is bad$"):
        for result in ordered_map(iter(range(40)), Work(pids, raise_at=7), 2):
            got.append(result)
    assert got == [task * task for task in range(7)]
    assert not any(in_process_table(pid) for pid in worker_pids(pids))


class Unpicklable(Exception):
    def __reduce__(self) -> object:
        raise TypeError("not to be pickled")


class RaisesUnpicklable:
    def __call__(self) -> Callable[[int], int]:
        return self.run

    def run(self, task: int) -> int:
        raise Unpicklable("a lock inside")


def test_an_exception_that_cannot_be_pickled_is_named_by_its_type_and_message() -> None:
    with pytest.raises(RuntimeError, match=r"^Unpicklable: a lock inside$"):
        list(ordered_map(iter(range(3)), RaisesUnpicklable(), 2))


class FailsToStart:
    def __call__(self) -> Callable[[int], int]:
        raise FileNotFoundError("the config is gone")


def test_a_worker_that_cannot_make_its_work_raises_why_here() -> None:
    with pytest.raises(FileNotFoundError, match="the config is gone"):
        list(ordered_map(iter(range(3)), FailsToStart(), 2))


def test_closing_the_generator_early_stops_the_workers(pids: Path) -> None:
    results = ordered_map(iter(range(1000)), Work(pids), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 4]
    results.close()
    assert len(worker_pids(pids)) == 2
    assert not any(in_process_table(pid) for pid in worker_pids(pids))


def test_a_worker_that_does_not_finish_its_chunk_is_killed_after_the_grace(
    pids: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "STOP_GRACE_S", 0.5)
    results = ordered_map(iter(range(100)), Work(pids, sleep_at=1), 2)
    assert next(results) == 0
    results.close()  # chunk 1 is held by a worker asleep for two minutes
    assert not any(in_process_table(pid) for pid in worker_pids(pids))


class Echo:
    """Returns what it is handed: large tasks and large replies at once."""

    def __call__(self) -> Callable[[bytes], bytes]:
        return lambda task: task


def test_large_chunks_both_ways_do_not_wedge_parent_and_worker() -> None:
    # the parent hands a worker a chunk larger than a pipe holds while the worker hands back one as large
    tasks = [bytes([n]) * (3 * 1024 * 1024) for n in range(12)]
    assert list(ordered_map(iter(tasks), Echo(), 2)) == tasks


class Square:
    def __call__(self) -> Callable[[int], int]:
        return lambda task: task * task


def test_workers_started_afresh_where_fork_is_not_available() -> None:
    with running(2, Square(), method="spawn") as crew:
        for number in range(6):
            crew.least_busy().hand(number, number)
        replies: dict[int, tuple[bool, object]] = {}
        while len(replies) < 6:
            replies.update(crew.replies())
        pids = [worker.process.pid for worker in crew.workers]
    assert replies == {number: (True, number * number) for number in range(6)}
    assert not any(pid is not None and in_process_table(pid) for pid in pids)


class Holds:
    """Renders task `n` as `n` bytes of the letter `n % 26`, held by the worker (pool.HOLD) when large."""

    def __call__(self) -> Callable[[int], object]:
        from evalkit.services.run.pool import HOLD, spooler

        keep = spooler(HOLD)
        return lambda task: keep(bytes([97 + task % 26]) * task)


def expected_output(tasks: list[int]) -> bytes:
    return b"".join(bytes([97 + task % 26]) * task for task in tasks)


@settings(max_examples=10, deadline=None)
@given(
    tasks=st.lists(st.sampled_from([0, 10, 70_000, 300_000]), max_size=24),
    jobs=st.integers(2, 3),
    head=st.binary(max_size=100),
)
def test_chunks_workers_hold_are_written_by_them_in_order_where_the_parent_says(
    tmp_path_factory: pytest.TempPathFactory, tasks: list[int], jobs: int, head: bytes
) -> None:
    from evalkit.services.run.pool import Spooled, place
    from evalkit.services.run.workers import Held

    out = tmp_path_factory.mktemp("held") / "out"
    with open(out, "wb") as handle:
        handle.write(head)  # written by the parent before, buffered: placing goes after it
        for chunk in ordered_map(iter(tasks), Holds(), jobs):
            assert not isinstance(chunk, Spooled)
            if isinstance(chunk, Held):
                handle.flush()
                place(chunk, handle.fileno())
            else:  # a small chunk crosses the pipe, and the parent writes it
                handle.write(chunk)
        handle.flush()  # what the parent wrote itself; the map has ended: every chunk held is written
        assert out.read_bytes() == head + expected_output(tasks)


@pytest.mark.parametrize("chunks", [2, 6])  # each worker's last: only the pool's end can say it failed
def test_a_chunk_a_worker_cannot_write_where_told_raises_placing_failed_naming_the_descriptor(
    tmp_path: Path, chunks: int
) -> None:
    from evalkit.services.run.pool import place
    from evalkit.services.run.workers import PlacingFailed

    (tmp_path / "read-only").write_bytes(b"")
    with open(tmp_path / "read-only", "rb") as handle:
        with pytest.raises(PlacingFailed) as failed:
            for chunk in ordered_map(iter([70_000] * chunks), Holds(), 2):
                place(chunk, handle.fileno())  # the worker's pwrite fails: EBADF
        assert failed.value.fd == handle.fileno()
        assert failed.value.strerror == "Bad file descriptor"
