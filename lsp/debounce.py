"""Debounced background work on the event loop: at most one run per key.

pygls has no debounce and keeps running work the client no longer wants, so each config folder gets
one pending task per kind of work; scheduling again cancels the task that has not finished. A failing
task is logged, never raised into the event loop: the server must keep answering.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

logger = logging.getLogger(__name__)

Work = Callable[[], Awaitable[None]]


class Debouncer:
    def __init__(self, name: str) -> None:
        self._name = name
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}

    def schedule(self, key: Hashable, delay_s: float, work: Work) -> asyncio.Task[None]:
        """Run `work` after `delay_s` of quiet, cancelling the run already pending for `key`."""
        self.cancel(key)
        task = asyncio.ensure_future(self._after(delay_s, work))
        self._tasks[key] = task
        task.add_done_callback(lambda done: self._finished(key, done))
        return task

    def pending(self, key: Hashable) -> asyncio.Task[None] | None:
        return self._tasks.get(key)

    def cancel(self, key: Hashable) -> None:
        task = self._tasks.pop(key, None)
        if task is not None:
            task.cancel()

    def cancel_all(self) -> None:
        for key in list(self._tasks):
            self.cancel(key)

    @staticmethod
    async def _after(delay_s: float, work: Work) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        await work()

    def _finished(self, key: Hashable, task: asyncio.Task[None]) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]
        if not task.cancelled() and task.exception() is not None:
            logger.error("%s for %s failed", self._name, key, exc_info=task.exception())
