"""The debouncer: a burst of schedules runs the work once, for the last one; a failure is logged."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.lsp.debounce import Debouncer


async def test_a_burst_runs_only_the_last_work() -> None:
    ran: list[int] = []
    debouncer = Debouncer("test")

    def work(number: int):  # type: ignore[no-untyped-def]
        async def run() -> None:
            ran.append(number)

        return run

    for number in range(5):
        task = debouncer.schedule("key", 0, work(number))
    await task
    assert ran == [4]
    assert debouncer.pending("key") is None


async def test_a_delay_waits_for_quiet_and_cancel_stops_it() -> None:
    ran: list[str] = []

    async def work() -> None:
        ran.append("ran")

    debouncer = Debouncer("test")
    debouncer.schedule("key", 0.05, work)
    debouncer.cancel_all()
    await asyncio.sleep(0.1)
    assert ran == []


async def test_a_failing_work_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> None:
        raise ValueError("boom")

    task = Debouncer("check").schedule("folder", 0, broken)
    with pytest.raises(ValueError):
        await task
    await asyncio.sleep(0)
    assert "check for folder failed" in caplog.text
