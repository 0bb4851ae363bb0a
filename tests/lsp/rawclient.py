"""A raw JSON-RPC client of the real server over stdio, for what pytest-lsp cannot send: broken frames,
bodies that are not JSON, messages that break the protocol. It writes bytes as given and reads the
server's frames on a thread."""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from pygls.uris import from_fs_path

SERVER_COMMAND = [sys.executable, "-m", "evalkit", "lsp"]
TIMEOUT_S = 30.0


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    def __init__(self) -> None:
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        self._final_log = ""
        self.process = subprocess.Popen(
            SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self._ids = itertools.count(1000)
        self._received: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        stream = self.process.stdout
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if line == b"" or length is None:
                self._received.put(None)
                return
            self._received.put(json.loads(stream.read(length)))

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(frame(message))

    def request(self, method: str, params: Any = None) -> int:
        id_ = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return id_

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def next_response(self, timeout: float = TIMEOUT_S) -> dict[str, Any]:
        """The next response the server sends (its notifications are kept in `notifications`)."""
        while True:
            message = self._received.get(timeout=timeout)
            assert message is not None, f"the server closed its output; its log:\n{self.log()}"
            if "method" in message:
                self.notifications.append(message)
                if "id" in message:  # a request of the server's: answer it as an editor would
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            return message

    def call(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request and wait for its response."""
        id_ = self.request(method, params)
        response = self.next_response()
        assert response.get("id") == id_, response
        return response

    def initialize(self, root: Path | None = None, options: dict[str, Any] | None = None) -> None:
        params = {
            "processId": None,
            "rootUri": from_fs_path(str(root)) if root else None,
            "capabilities": {},
            "initializationOptions": {"diagnosticsDelayMs": 0, "dryRunDelayMs": 0, **(options or {})},
        }
        assert "result" in self.call("initialize", params)
        self.notify("initialized", {})

    def open(self, path: Path, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        assert uri is not None
        content = path.read_text(encoding="utf-8") if text is None else text
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": content}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def hover(self, uri: str, line: int, character: int) -> dict[str, Any]:
        position = {"line": line, "character": character}
        return self.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})

    def diagnostics(self, uri: str, timeout: float = TIMEOUT_S) -> list[dict[str, Any]]:
        """The next diagnostics published for `uri` (waiting for them while nothing else comes)."""
        while True:
            message = self._received.get(timeout=timeout)
            assert message is not None, f"the server closed its output; its log:\n{self.log()}"
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return list(message["params"]["diagnostics"])

    def log(self) -> str:
        """What the server wrote to stderr (its log) so far."""
        if self._stderr.closed:
            return self._final_log
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def close(self) -> int:
        """End the session properly when the server still listens; returns its exit code."""
        try:
            if self.process.poll() is None:
                self.send(frame_message("shutdown", 999_999))
                self.send({"jsonrpc": "2.0", "method": "exit"})
            return self.process.wait(timeout=TIMEOUT_S)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.process.kill()
            return self.process.wait()
        finally:
            self._final_log = self.log()
            self._stderr.close()


def frame_message(method: str, id_: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method}
