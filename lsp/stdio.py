"""The stdio transport, read by the event loop itself.

pygls reads stdin on a worker thread, one blocking call per header line and per body, so each message
costs several thread wake-ups; on a busy machine each wake-up can wait for the scheduler, and an edit
can reach the server hundreds of milliseconds after the editor sent it. Here the event loop watches the
pipe and parses messages as bytes arrive (where stdin is not a pipe or socket, a worker thread reads
it in chunks). Frames are split by `framing`, which resynchronises after a bad one, and every message
passes `jsonrpc`'s checks before pygls sees it, so that whatever a client sends gets an answer.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol

from evalkit.lsp.framing import Frame, FrameReader, Skipped
from evalkit.lsp.jsonrpc import (
    INVALID_PARAMS,
    Lifecycle,
    Refusal,
    batch_refusals,
    decode,
    envelope_problem,
    error_frame,
    readable_id,
    unknown_command,
)

logger = logging.getLogger(__name__)
_CHUNK_BYTES = 1 << 16


class Dispatcher:
    """Hands each readable message to pygls, and answers the rest itself (`jsonrpc`)."""

    def __init__(
        self, protocol: JsonRPCProtocol, write: Callable[[bytes], None], commands: Iterable[str] = ()
    ) -> None:
        self._protocol = protocol
        self._write = write
        self._commands = frozenset(commands)
        self.lifecycle = Lifecycle()

    def frames(self, frames: list[Frame]) -> None:
        """Handle the frames read together, in order; a run of edits of one document among them is handed
        on as one `didChange` with all their changes (the protocol applies them in order), so that a
        client replaying a thousand edits costs one handler run per read, not one per edit."""
        edits: dict[str, Any] | None = None
        for frame in frames:
            message = self._message_of(frame)
            if edits is not None and not _merge_edit(edits, message):
                self.message(edits)
                edits = None
            if edits is None and _plain_edit(message):
                edits = message
            elif edits is None and message is not _DONE:
                self.message(message)
        if edits is not None:
            self.message(edits)

    def _message_of(self, frame: Frame) -> Any:
        """The frame's message, or _DONE once it is answered or skipped."""
        if isinstance(frame, Skipped):
            logger.warning("skipped %d bytes that were not a frame: %s", frame.size, frame.reason)
            return _DONE
        message = decode(frame.data)
        if isinstance(message, Refusal):
            self._refuse(message)
        elif isinstance(message, list) and message:
            self._write(error_frame(batch_refusals(message)))
        else:
            return message
        return _DONE

    def message(self, message: Any) -> None:
        refusal = envelope_problem(message)
        if refusal is None and "method" in message:
            is_request = "id" in message
            refusal = self.lifecycle.refusal(message["method"], readable_id(message), is_request)
            refusal = refusal or unknown_command(message, self._commands)
        if refusal is not None:
            self._refuse(refusal)
            return
        try:
            structured = self._protocol.structure_message(message)
        except JsonRpcException as error:
            self._refuse(_params_refusal(message, error))
            return
        self._protocol.handle_message(structured)

    def _refuse(self, refusal: Refusal) -> None:
        logger.warning("refused a message: %s", refusal.message)
        if refusal.answer:
            self._write(error_frame(refusal.response()))


_MAX_UINTEGER = 2**31 - 1
_DONE = object()  # a frame already answered or skipped


def _plain_edit(message: Any) -> bool:
    """Whether `message` is a well-formed `didChange` whose changes may join another's."""
    if not isinstance(message, dict) or message.get("method") != "textDocument/didChange" or "id" in message:
        return False
    params = message.get("params")
    document = params.get("textDocument") if isinstance(params, dict) else None
    changes = params.get("contentChanges") if isinstance(params, dict) else None
    return (
        message.get("jsonrpc") == "2.0"
        and isinstance(document, dict)
        and isinstance(document.get("uri"), str)
        and _is_uinteger(document.get("version"))
        and isinstance(changes, list)
        and all(_plain_change(change) for change in changes)
    )


def _plain_change(change: Any) -> bool:
    if not isinstance(change, dict) or not isinstance(change.get("text"), str):
        return False
    where = change.get("range")
    if where is None:
        return "rangeLength" not in change
    return (
        isinstance(where, dict)
        and all(isinstance(where.get(end), dict) for end in ("start", "end"))
        and all(
            _is_uinteger(where[end].get(unit)) for end in ("start", "end") for unit in ("line", "character")
        )
    )


def _is_uinteger(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_UINTEGER


def _merge_edit(edits: dict[str, Any], message: Any) -> bool:
    """Add `message`'s changes to `edits` when it is a plain edit of the same document."""
    if not _plain_edit(message):
        return False
    document, params = edits["params"]["textDocument"], message["params"]
    if params["textDocument"]["uri"] != document["uri"]:
        return False
    edits["params"]["contentChanges"] = [*edits["params"]["contentChanges"], *params["contentChanges"]]
    document["version"] = params["textDocument"]["version"]
    return True


def _without_pygls_tracebacks(record: logging.LogRecord) -> bool:
    """pygls logs a traceback for each message whose params it cannot read; the dispatcher logs one
    line for it and answers the client, so the traceback says nothing more."""
    return not record.getMessage().startswith("Unable to deserialize message")


def _params_refusal(message: dict[str, Any], error: JsonRpcException) -> Refusal:
    method = message.get("method")
    is_request = "id" in message and method is not None
    cause = error.__cause__ or error
    return Refusal(
        readable_id(message), INVALID_PARAMS, f"Invalid params for {method}: {cause}"[:2000], is_request
    )


def _stdin_is_a_pipe() -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _chunks(loop: asyncio.AbstractEventLoop) -> Callable[[], Awaitable[bytes]]:
    """A function reading the next bytes of stdin (b"" at its end): from the event loop when stdin is a
    pipe or socket, else from a worker thread."""
    if _stdin_is_a_pipe():
        stream = asyncio.StreamReader(limit=_CHUNK_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), sys.stdin.buffer)
        return functools.partial(stream.read, _CHUNK_BYTES)
    fd = sys.stdin.fileno()
    return lambda: loop.run_in_executor(None, os.read, fd, _CHUNK_BYTES)


async def _serve(server: LanguageServer) -> None:
    logging.getLogger(JsonRPCProtocol.__module__).addFilter(_without_pygls_tracebacks)
    writer = StdoutWriter(sys.stdout.buffer)
    server.protocol.set_writer(writer)
    dispatcher = Dispatcher(server.protocol, writer.write, server.protocol.fm.commands)
    frames = FrameReader()
    read = await _chunks(asyncio.get_running_loop())
    while chunk := await read():
        dispatcher.frames(frames.feed(chunk))


def serve_stdio(server: LanguageServer) -> int:
    """Serve LSP on stdin/stdout until the client exits or closes the pipe. Returns the exit code the
    protocol asks for: 0 after `shutdown` then `exit`, 1 for an `exit` without `shutdown`."""
    # Everything imported so far (pygls, lsprotocol, cattrs, the engine) lives as long as the server:
    # moved out of the collector's reach, a full collection does not walk it, so a re-check after a
    # keystroke does not pay for walking the whole server every few times.
    gc.freeze()
    code = 0
    try:
        asyncio.run(_serve(server))
    except BrokenPipeError:
        logger.error("the client closed the connection")
    except KeyboardInterrupt:
        pass
    except SystemExit as exit_:  # pygls's `exit` handler: 1 when no `shutdown` came first
        code = exit_.code if isinstance(exit_.code, int) else 0
    finally:
        server.shutdown()
    return code
