"""Chunks run on a pool of Ray actors, one per CPU of the cluster, and taken back in input order.

What a cluster does to a run is handled here, each wait bounded:
- an actor that dies (its process killed, its node lost) is dropped and its chunks are handed to others
  (a chunk is retried ATTEMPTS times at most: one that kills every worker it meets stops the run);
- a result lost with its node is computed again;
- workers that cannot start (evalkit missing on the nodes, say) stop the run after ATTEMPTS tries;
- a node that joins gets actors (the pool follows the cluster's CPUs, looked at every RESIZE_S s);
- no chunk finished for STALL_S (no CPU left to start a worker on, say) stops the run with a message.
Nothing is written twice: a chunk's result is taken once, in order, whichever attempt gave it.
"""

from __future__ import annotations

import heapq
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError, RayTaskError

from evalkit.ray._chunks import ChunkWorker, Done, Job, Task

STALL_S = float(os.environ.get("EVALKIT_RAY_STALL_S", "300"))
"""Seconds without a chunk finished (or a worker started) before the run stops: a bound, not a pace."""
POLL_S = 0.5
RESIZE_S = 5.0
"""How often the pool looks at the cluster's CPUs (a call to the head that costs the driver about 8 ms)."""
GET_S = 60.0
ATTEMPTS = 3
PER_ACTOR = 2
"""Chunks an actor holds at once: the one it works on and the next, so that it never waits for the driver."""


class RunFailed(Exception):
    """The run cannot finish: one message saying why."""


class Stats(NamedTuple):
    chunks: int
    records: int
    task_cpu: float  # worker CPU seconds inside the chunks' work
    worker_cpu: float  # worker processes' CPU seconds, Ray's threads included (measure=True), else 0
    actors: int  # actors started, replacements included


class _Actor:
    __slots__ = ("chunks", "handle", "ready", "started")

    def __init__(self, handle: Any, ready: Any) -> None:
        self.handle, self.ready = handle, ready  # ready: the ref of its first call, until it answers
        self.chunks: set[int] = set()
        self.started = time.monotonic()


class Pool:
    """The run's actors and chunks in flight."""

    def __init__(self, job: Job, options: dict[str, Any] | None = None) -> None:
        self._remote = ray.remote(ChunkWorker).options(
            num_cpus=1, max_restarts=0, max_task_retries=0, **(options or {})
        )
        self._job = job
        self.actors: dict[Any, _Actor] = {}  # by the ref that answers for it: a ready probe or a chunk
        self.live: list[_Actor] = []
        self.started = 0

    def target(self) -> int:
        return max(1, int(ray.cluster_resources().get("CPU", 0)))

    def grow(self, count: int) -> None:
        for _ in range(count):
            handle: Any = self._remote.remote(self._job)
            actor = _Actor(handle, handle.cpu.remote())
            self.actors[actor.ready] = actor
            self.live.append(actor)
            self.started += 1

    def drop(self, actor: _Actor) -> None:
        if actor in self.live:
            self.live.remove(actor)
            ray.kill(actor.handle, no_restart=True)

    def ready(self) -> list[_Actor]:
        return [a for a in self.live if a.ready is None]

    def close(self, measure: bool) -> float:
        cpu = 0.0
        if measure:
            ready = self.ready()
            try:
                cpu = sum(ray.get([a.handle.cpu.remote() for a in ready], timeout=GET_S))
            except RayError:
                cpu = 0.0
        for actor in list(self.live):
            self.drop(actor)
        return cpu


def run_chunks(
    job: Job,
    tasks: Iterable[Task],
    take: Callable[[Done], None],
    *,
    measure: bool = False,
    describe: Callable[[Task], str] = repr,
) -> Stats:
    """Run every task on the cluster and `take` each result in input order. Raises RunFailed."""
    pool = Pool(job)
    try:
        return _Run(pool, iter(tasks), take, describe).loop(measure)
    finally:
        pool.close(measure=False)


class _Run:
    def __init__(
        self, pool: Pool, tasks: Iterator[Task], take: Callable[[Done], None], describe: Callable[[Task], str]
    ) -> None:
        self.pool, self.tasks, self.take, self.describe = pool, tasks, take, describe
        self.todo: dict[int, tuple[Task, int]] = {}  # index: (task, attempts made), until taken
        self.again: list[int] = []  # indices to hand out again (a heap: the earliest first)
        self.flying: dict[Any, tuple[int, _Actor]] = {}
        self.results: dict[int, Done] = {}
        self.next_index = self.next_take = 0
        self.exhausted = False
        self.records = 0
        self.task_cpu = 0.0
        self.progress_at = time.monotonic()
        self.why_stalled = "no worker has started"
        self.failed_starts = 0
        self.any_started = False

    def loop(self, measure: bool) -> Stats:
        self.pool.grow(self.pool.target())
        resized = time.monotonic()
        while not (self.exhausted and not self.todo):
            self._hand_out()
            waiting = list(self.flying) + [a.ready for a in self.pool.live if a.ready is not None]
            ready, _ = ray.wait(waiting, num_returns=1, timeout=POLL_S) if waiting else ([], [])
            for ref in ready:
                self._answered(ref)
            now = time.monotonic()
            if now - resized > RESIZE_S:
                self._resize()
                resized = now
            if now - self.progress_at > STALL_S:
                raise RunFailed(f"no progress on the Ray cluster for {STALL_S:.0f} s ({self.why_stalled})")
        worker_cpu = self.pool.close(measure)
        return Stats(self.next_take, self.records, self.task_cpu, worker_cpu, self.pool.started)

    def _hand_out(self) -> None:
        actors = self.pool.ready()
        window = self.next_take + max(8, 4 * len(actors))
        for actor in sorted(actors, key=lambda a: len(a.chunks)):
            while len(actor.chunks) < PER_ACTOR:
                index = self._next(window)
                if index is None:
                    return
                task, attempts = self.todo[index]
                self.todo[index] = (task, attempts + 1)
                ref = actor.handle.run.remote(index, task)
                self.flying[ref] = (index, actor)
                actor.chunks.add(index)

    def _next(self, window: int) -> int | None:
        if self.again:
            return heapq.heappop(self.again)
        if self.exhausted or self.next_index >= window:
            return None
        task = next(self.tasks, None)
        if task is None:
            self.exhausted = True
            return None
        index, self.next_index = self.next_index, self.next_index + 1
        self.todo[index] = (task, 0)
        return index

    def _answered(self, ref: Any) -> None:
        if ref not in self.flying:
            self._started(ref)
            return
        index, actor = self.flying.pop(ref)
        actor.chunks.discard(index)
        try:
            done = ray.get(ref, timeout=GET_S)
        except RayTaskError as failed:  # evalkit's own code raised: the same would happen again
            raise RunFailed(f"a worker failed on {self._where(index)}: {_first_line(failed.cause)}") from None
        except RayActorError as lost:
            why = f"a worker was lost: {_first_line(lost)}"
            self._retry(index, why)
            self._lost(actor, why)
            return
        except (RayError, GetTimeoutError) as lost:  # the result was lost with its node, or cannot be had
            self._retry(index, f"a result was lost: {_first_line(lost)}")
            return
        self._finished(done)

    def _started(self, ref: Any) -> None:
        actor = self.pool.actors.pop(ref, None)
        if actor is None:
            return
        try:
            ray.get(ref, timeout=GET_S)
        except RayError as failed:
            self.why_stalled = f"a worker could not start: {_first_line(failed)}"
            self.pool.drop(actor)
            self.failed_starts += 1
            if self.failed_starts >= ATTEMPTS and not self.any_started:  # the same would happen again
                raise RunFailed(f"no worker could start on the cluster: {_cause(failed)}") from None
            return
        actor.ready = None
        self.any_started = True
        self.progress_at = time.monotonic()

    def _lost(self, actor: _Actor, why: str) -> None:
        self.why_stalled = why
        self.pool.drop(actor)
        for ref, (index, owner) in list(self.flying.items()):
            if owner is actor:
                del self.flying[ref]
                self._retry(index, why)
        actor.chunks.clear()

    def _retry(self, index: int, why: str) -> None:
        attempts = self.todo[index][1]
        if attempts >= ATTEMPTS:
            raise RunFailed(f"{self._where(index)} failed {attempts} times; the last time {why}")
        heapq.heappush(self.again, index)

    def _finished(self, done: Done) -> None:
        if done.number not in self.todo or done.number in self.results:
            return  # a result had already come for it
        self.results[done.number] = done
        self.progress_at = time.monotonic()
        while self.next_take in self.results:
            done = self.results.pop(self.next_take)
            del self.todo[self.next_take]
            self.take(done)
            self.records += done.records
            self.task_cpu += done.cpu
            self.next_take += 1

    def _resize(self) -> None:
        """Actors for the CPUs a joining node brings; one that never started is given up."""
        now = time.monotonic()
        for actor in [a for a in self.pool.live if a.ready is not None and now - a.started > STALL_S]:
            self.pool.actors.pop(actor.ready, None)
            self.pool.drop(actor)
        missing = self.pool.target() - len(self.pool.live)
        if missing > 0:
            self.pool.grow(missing)

    def _where(self, index: int) -> str:
        return self.describe(self.todo[index][0])


def _cause(error: BaseException) -> str:
    """What raised in a worker, from Ray's report of it: the traceback's last `SomeError: ...` line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    raised = [line for line in lines if re.match(r"^[\w.]+(Error|Exception): ", line)]
    return raised[-1] if raised else _first_line(error)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
