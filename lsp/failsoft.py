"""Handlers that fail soft: an unexpected error is logged (to the server log and the client's log
window) and answered with an empty result, so that no input can take the server down or leave a
request unanswered."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])


def fail_soft(default: Any) -> Callable[[F], F]:
    """Answer `default` instead of an error when a handler fails, and log why."""

    def decorate(handler: F) -> F:
        def report(ls: LanguageServer) -> Any:
            logger.exception("%s failed", handler.__name__)
            ls.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error, f"evalkit: {handler.__name__} failed; see the server log"
                )
            )
            return default

        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def guarded_async(ls: LanguageServer, *args: Any) -> Any:
                try:
                    return await handler(ls, *args)
                except Exception:
                    return report(ls)

            return guarded_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def guarded(ls: LanguageServer, *args: Any) -> Any:
            try:
                return handler(ls, *args)
            except Exception:
                return report(ls)

        return guarded  # type: ignore[return-value]

    return decorate
