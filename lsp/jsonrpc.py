"""What the server answers to a message it cannot serve, as JSON-RPC 2.0 and the LSP say.

pygls drops a message it cannot read (invalid JSON, a body that is not a request, params that do not
fit the method) without a word, so the client waits for an answer that never comes. Every frame's body
passes `Gate.admit` first: a request gets an error response (`id: null` when its id cannot be read), a
notification is logged, and the server goes on. The gate also keeps the session's lifecycle: before
`initialize` a request gets -32002 (ServerNotInitialized); after `shutdown`, -32600 (InvalidRequest).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import attrs

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

Id = int | str | None


@dataclass(frozen=True, slots=True)
class Refusal:
    """An error to answer (`answer`: False for a notification, which is never answered), and why."""

    id: Id
    code: int
    message: str
    answer: bool = True

    def response(self) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}


def error_frame(responses: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """A frame of the base protocol holding `responses`."""
    body = json.dumps(responses, ensure_ascii=True).encode("ascii")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def decode(body: bytes) -> Any | Refusal:
    """The JSON value of a frame's body, or the parse error to answer."""
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as error:
        return Refusal(None, PARSE_ERROR, f"Parse error: the body is not UTF-8 (byte {error.start})")
    except RecursionError:
        return Refusal(None, PARSE_ERROR, "Parse error: the JSON is nested too deeply to read")
    except ValueError as error:  # json.JSONDecodeError, or an integer too long to convert
        return Refusal(None, PARSE_ERROR, f"Parse error: {error}")


def readable_id(message: dict[str, Any]) -> Id:
    """The message's id when it is one JSON-RPC allows (a string or an integer), else None."""
    found = message.get("id")
    return (
        found if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)) else None
    )


def envelope_problem(message: Any) -> Refusal | None:
    """Why `message` is not a JSON-RPC 2.0 request, notification or response (None when it is one)."""
    if not isinstance(message, dict):
        kind = "an empty batch" if message == [] else type(message).__name__
        return Refusal(None, INVALID_REQUEST, f"Invalid Request: a message is an object, not {kind}")
    has_id = "id" in message
    id_ = readable_id(message)
    if has_id and id_ is None and message["id"] is not None:
        return Refusal(None, INVALID_REQUEST, "Invalid Request: an id is a string or an integer")
    if message.get("jsonrpc") != "2.0":
        return Refusal(id_, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', has_id)
    if "method" not in message:
        if has_id and ("result" in message) != ("error" in message):
            return None  # a response to one of the server's requests
        return Refusal(id_, INVALID_REQUEST, 'Invalid Request: no "method"')
    if not isinstance(message["method"], str):
        return Refusal(id_, INVALID_REQUEST, 'Invalid Request: "method" must be a string', has_id)
    if message.get("params") is not None and not isinstance(message["params"], dict | list):  # null: none
        return Refusal(id_, INVALID_PARAMS, "Invalid params: params are an object or an array", has_id)
    if has_id and message["method"] in NOTIFICATIONS:  # pygls would take it for the notification, unanswered
        return Refusal(id_, INVALID_REQUEST, f"Invalid Request: {message['method']} is a notification")
    return None


def _notifications() -> frozenset[str]:
    from lsprotocol import types

    return frozenset(
        method
        for method, (message, *_) in types.METHOD_TO_TYPES.items()
        if "id" not in {field.name for field in attrs.fields(message)}
    )


NOTIFICATIONS = _notifications()
"""The methods the LSP defines as notifications: sent with an id, they are a request no handler answers."""


def unknown_command(message: dict[str, Any], commands: frozenset[str]) -> Refusal | None:
    """The answer to `workspace/executeCommand` of a command the server does not have (pygls answers it
    too, but logs a traceback for each)."""
    params = message.get("params")
    command = params.get("command") if isinstance(params, dict) else None
    if message["method"] != "workspace/executeCommand" or not isinstance(command, str) or command in commands:
        return None
    known = ", ".join(sorted(commands))
    return Refusal(
        readable_id(message),
        INVALID_PARAMS,
        f"Invalid params: no command {command!r} (known: {known})",
        "id" in message,
    )


def batch_refusals(batch: list[Any]) -> list[dict[str, Any]]:
    """The answer to a non-empty batch: the LSP has no batches, so each element is refused."""
    return [
        Refusal(
            readable_id(item) if isinstance(item, dict) else None,
            INVALID_REQUEST,
            "Invalid Request: the Language Server Protocol has no batches; send each message on its own",
        ).response()
        for item in batch
    ]


class Lifecycle:
    """Where the session is: before `initialize`, serving, or after `shutdown`."""

    def __init__(self) -> None:
        self.initialized = False
        self.shut_down = False

    def refusal(self, method: str, id_: Id, is_request: bool) -> Refusal | None:
        """The answer the session's state gives `method` before any handler sees it (None: serve it)."""
        if method == "exit":
            return None
        if self.shut_down:
            return Refusal(id_, INVALID_REQUEST, f"Invalid Request: {method} after shutdown", is_request)
        if method == "initialize":
            if self.initialized:
                return Refusal(
                    id_, INVALID_REQUEST, "Invalid Request: initialize was sent already", is_request
                )
            self.initialized = True
            return None
        if not self.initialized:
            return Refusal(
                id_, SERVER_NOT_INITIALIZED, f"ServerNotInitialized: {method} before initialize", is_request
            )
        if method == "shutdown":
            self.shut_down = True
        return None
