"""What pygls 2's own stdio transport does with a bad frame, beside evalkit's (lsp/stdio.py): the reason
evalkit reads stdio itself (issue 31), and the reproduction for the upstream note (docs/upstream/pygls.md).

    .venv/bin/python benchmarks/repro_pygls_transport.py

Each server (a bare pygls `LanguageServer` on `start_io()`, and `evalkit lsp`) is sent, on a fresh
process, one bad frame and then a well-formed `initialize` request (id 2), and the script prints what came
back within a few seconds:

- a body that is not JSON: JSON-RPC 2.0 answers it with a Parse error (-32700, id null);
- a Content-Length larger than the body that follows: the reader must not take the next frames as the
  rest of this body (a client that miscounts once must not leave the server deaf for good);
- a Content-Length that is not a number: the frame is skipped and the next one read;
- a request whose params do not fit its method: JSON-RPC answers Invalid params (-32602) for its id.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE_PYGLS = """
from pygls.lsp.server import LanguageServer
LanguageServer("bare", "0").start_io()
"""

INITIALIZE = {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}


def frame(body: bytes, length: int | str | None = None) -> bytes:
    return f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


CASES = {
    "a body that is not JSON": frame(b"{not json"),
    "a Content-Length past the body": frame(b"{}", 100_000),
    "a Content-Length that is not a number": frame(b"{}", "x"),
    "after initialize (id 0), a request (id 1) whose params do not fit": frame(
        b'{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}'
    )
    + frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}')
    + frame(b'{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {"position": 3}}'),
}


def answers(command: list[str], sent: bytes, wait: float = 4.0) -> list[dict]:
    """The JSON-RPC messages a server wrote within `wait` seconds of being sent `sent`."""
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    assert process.stdin is not None and process.stdout is not None
    received = bytearray()
    reader = threading.Thread(target=lambda: _read_into(process.stdout, received), daemon=True)
    reader.start()
    process.stdin.write(sent)
    process.stdin.flush()
    time.sleep(wait)
    process.kill()
    process.wait()
    reader.join(1)
    return _messages(bytes(received))


def _read_into(stream: object, received: bytearray) -> None:
    fd = stream.fileno()  # type: ignore[attr-defined]
    while chunk := os.read(fd, 65536):
        received.extend(chunk)


def _messages(data: bytes) -> list[dict]:
    messages = []
    while b"\r\n\r\n" in data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        messages.append(json.loads(rest[:length]))
        data = rest[length:]
    return messages


def summary(messages: list[dict]) -> str:
    said = []
    for message in messages:
        if "error" in message:
            said.append(f"error {message['error'].get('code')} for id {message.get('id')}")
        elif message.get("id") in (0, 2):
            said.append(f"initialize (id {message['id']}) answered")
    return "; ".join(said) or "nothing at all"


def main() -> None:
    servers = {
        "pygls's transport": [sys.executable, "-c", BARE_PYGLS],
        "evalkit lsp": [sys.executable, "-m", "evalkit", "lsp"],
    }
    good = frame(json.dumps(INITIALIZE).encode())
    for case, bad in CASES.items():
        print(f"{case}, then initialize:")
        for name, command in servers.items():
            print(f"  {name:<18} {summary(answers(command, bad + good))}")


if __name__ == "__main__":
    main()
