"""The process's exit code, as the protocol asks: 0 after `shutdown` then `exit`, 1 for an `exit` that
no `shutdown` preceded (the client did not end the session properly)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SERVER_COMMAND = [sys.executable, "-m", "evalkit", "lsp"]


def _message(method: str, id: int | None = None, params: object = None) -> bytes:
    body: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        body["id"] = id
    if params is not None:
        body["params"] = params
    data = json.dumps(body).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


@pytest.mark.parametrize(("shutdown_first", "code"), [(True, 0), (False, 1)])
def test_exit_code_says_whether_the_session_was_shut_down(shutdown_first: bool, code: int) -> None:
    messages = [
        _message("initialize", 1, {"processId": None, "rootUri": None, "capabilities": {}}),
        _message("initialized", params={}),
    ]
    if shutdown_first:
        messages.append(_message("shutdown", 2))
    messages.append(_message("exit"))
    done = subprocess.run(SERVER_COMMAND, input=b"".join(messages), capture_output=True, timeout=60)
    assert done.returncode == code, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
