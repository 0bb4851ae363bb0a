"""A handler that raises answers its default and says so in the client's log, sync or async."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from evalkit.lsp.failsoft import fail_soft


class FakeServer:
    def __init__(self) -> None:
        self.logged: list[types.LogMessageParams] = []

    def window_log_message(self, params: types.LogMessageParams) -> None:
        self.logged.append(params)


@fail_soft([])
def broken(ls: Any, params: Any) -> list[int]:
    raise KeyError(params)


@fail_soft(None)
async def broken_async(ls: Any, params: Any) -> int:
    raise ValueError(params)


@fail_soft(None)
def working(ls: Any, params: int) -> int:
    return params + 1


async def test_failures_answer_the_default_and_are_logged() -> None:
    server = FakeServer()
    assert broken(server, "x") == []
    assert await broken_async(server, "y") is None
    assert working(server, 1) == 2
    assert [(m.type, m.message) for m in server.logged] == [
        (types.MessageType.Error, "evalkit: broken failed; see the server log"),
        (types.MessageType.Error, "evalkit: broken_async failed; see the server log"),
    ]
