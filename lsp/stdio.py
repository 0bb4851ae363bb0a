"""The stdio transport, read by the event loop itself.

pygls reads stdin on a worker thread, one blocking call per header line and per body, so each message
costs several thread wake-ups; on a busy machine each wake-up can wait for the scheduler, and an edit
can reach the server hundreds of milliseconds after the editor sent it. Here the event loop watches the
pipe and parses
messages as bytes arrive. Where stdin is not a pipe or socket (a terminal, a file, Windows), pygls's
own reader is used.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import stat
import sys
import threading

from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)


class _PipeReader:
    """An asyncio stream with the reader interface pygls's message loop expects (b"" at the end)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, size: int) -> bytes:
        try:
            return await self._stream.readexactly(size)
        except asyncio.IncompleteReadError:
            return b""


def _stdin_is_a_pipe() -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _serve(server: LanguageServer) -> None:
    stream = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), sys.stdin.buffer)
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    await run_async(
        stop_event=threading.Event(),
        reader=_PipeReader(stream),
        protocol=server.protocol,
        logger=logger,
        error_handler=server.report_server_error,
    )


def serve_stdio(server: LanguageServer) -> int:
    """Serve LSP on stdin/stdout until the client exits or closes the pipe. Returns the exit code the
    protocol asks for: 0 after `shutdown` then `exit`, 1 for an `exit` without `shutdown`."""
    # Everything imported so far (pygls, lsprotocol, cattrs, the engine) lives as long as the server:
    # moved out of the collector's reach, a full collection does not walk it, so a re-check after a
    # keystroke does not pay for walking the whole server every few times.
    gc.freeze()
    code = 0
    try:
        if _stdin_is_a_pipe():
            asyncio.run(_serve(server))
        else:
            server.start_io()
    except BrokenPipeError:
        logger.error("the client closed the connection")
    except KeyboardInterrupt:
        pass
    except SystemExit as exit_:  # pygls's `exit` handler: 1 when no `shutdown` came first
        code = exit_.code if isinstance(exit_.code, int) else 0
    finally:
        server.shutdown()
    return code
