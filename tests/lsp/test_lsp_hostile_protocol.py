"""A hostile or careless client, over stdio with a raw writer (pytest-lsp cannot send broken frames or
bodies): every message gets the answer JSON-RPC 2.0 and the LSP prescribe, a bad frame is skipped up to
the next header, and the server keeps serving after each attack."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.rawclient import RawClient, frame

HOVER_NOWHERE = {
    "textDocument": {"uri": "file:///nowhere/rules.yaml"},
    "position": {"line": 0, "character": 0},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawClient]:
    client = RawClient()
    client.initialize(tmp_path_factory.mktemp("hostile"))
    yield client
    assert client.close() == 0, client.log()
    assert "Traceback" not in client.log()


def still_serving(server: RawClient) -> None:
    response = server.call("textDocument/hover", HOVER_NOWHERE)
    assert response == {"jsonrpc": "2.0", "id": response["id"], "result": None}


def request(method: Any, params: Any = None, id_: Any = 7) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def raw_frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def hover_at(position: Any) -> bytes:
    return request(
        "textDocument/hover", {"textDocument": {"uri": "file:///x/rules.yaml"}, "position": position}
    )


ATTACKS = {
    "invalid JSON": (raw_frame(b'{"jsonrpc": "2.0", "id": 7, "method":'), -32700, None),
    "not UTF-8": (raw_frame(b'{"jsonrpc": "2.0", "id": 7, "method": "\xff"}'), -32700, None),
    "100,000 deep": (raw_frame(b"[" * 100_000 + b"]" * 100_000), -32700, None),
    "a number": (raw_frame(b"42"), -32600, None),
    "null": (raw_frame(b"null"), -32600, None),
    "an empty batch": (raw_frame(b"[]"), -32600, None),
    "no method": (raw_frame(b'{"jsonrpc": "2.0", "id": 7}'), -32600, 7),
    "a method that is a number": (request(42), -32600, 7),
    "an id that is a list": (request("textDocument/hover", HOVER_NOWHERE, [7]), -32600, None),
    "JSON-RPC 1.0": (raw_frame(b'{"jsonrpc": "1.0", "id": 7, "method": "shutdown"}'), -32600, 7),
    "an unknown method": (request("evalkit/noSuchMethod", {}), -32601, 7),
    "params that are a string": (request("textDocument/hover", "x"), -32602, 7),
    "a document that is a number": (
        request("textDocument/hover", {"textDocument": 5, "position": {"line": 0, "character": 0}}),
        -32602,
        7,
    ),
    "no position": (
        request("textDocument/hover", {"textDocument": {"uri": "file:///x/rules.yaml"}}),
        -32602,
        7,
    ),
    "a negative character": (hover_at({"line": 0, "character": -1}), -32602, 7),
    "a character of 2^64": (hover_at({"line": 0, "character": 2**64}), -32602, 7),
    "a notification sent as a request": (
        request("textDocument/didClose", {"textDocument": HOVER_NOWHERE["textDocument"]}),
        -32600,
        7,
    ),
    "an unknown command": (request("workspace/executeCommand", {"command": "nope"}), -32602, 7),
    "a string id": (request("evalkit/noSuchMethod", {}, "seven"), -32601, "seven"),
}


@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_every_bad_message_is_answered_and_the_server_goes_on(server: RawClient, attack: str) -> None:
    data, code, id_ = ATTACKS[attack]
    server.send_bytes(data)
    response = server.next_response()
    assert response["id"] == id_ and response["error"]["code"] == code, response
    assert "result" not in response
    still_serving(server)


def test_a_batch_is_refused_element_by_element(server: RawClient) -> None:
    server.send_bytes(
        raw_frame(json.dumps([json.loads(request("shutdown").split(b"\r\n\r\n")[1]), 3]).encode())
    )
    response = server.next_response()  # type: ignore[assignment]
    assert isinstance(response, list)
    assert [(r["id"], r["error"]["code"]) for r in response] == [(7, -32600), (None, -32600)]
    still_serving(server)


def test_a_bad_notification_gets_no_answer(server: RawClient) -> None:
    server.send_bytes(
        frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 3}})
    )
    still_serving(server)  # the next response is the hover's: nothing answered the notification


def good_requests(count: int) -> tuple[bytes, list[int]]:
    ids = list(range(500, 500 + count))
    return b"".join(request("textDocument/hover", HOVER_NOWHERE, i) for i in ids), ids


HOVER_BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": HOVER_NOWHERE}
).encode()
BAD_FRAMES = {
    "a length 40 bytes too long": (b"Content-Length: %d\r\n\r\n" % (len(HOVER_BODY) + 40) + HOVER_BODY, [9]),
    "a length 40 bytes too short": (
        b"Content-Length: %d\r\n\r\n" % (len(HOVER_BODY) - 40) + HOVER_BODY,
        [None],
    ),
    "a lower-case header name": (b"content-length: %d\r\n\r\n" % len(HOVER_BODY) + HOVER_BODY, [9]),
    "LF-only header lines": (
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\nContent-Length: %d\n\n" % len(HOVER_BODY)
        + HOVER_BODY,
        [9],
    ),
    "a negative length": (b"Content-Length: -5\r\n\r\n" + HOVER_BODY, []),
    "a length that is not a number": (b"Content-Length: many\r\n\r\n" + HOVER_BODY, []),
    "no length": (b"Content-Type: application/json\r\n\r\n" + HOVER_BODY, []),
    "a length past the limit": (b"Content-Length: 99999999999\r\n\r\n" + HOVER_BODY, []),
    "junk between frames": (b"hello\r\n\r\n\x00\xff garbage" + HOVER_BODY, []),
}


@pytest.mark.parametrize("attack", BAD_FRAMES, ids=list(BAD_FRAMES))
def test_after_a_bad_frame_the_server_reads_the_next_one(server: RawClient, attack: str) -> None:
    bad, answered = BAD_FRAMES[attack]
    good, ids = good_requests(20)
    server.send_bytes(bad + good)
    responses = [server.next_response() for _ in range(len(answered) + len(ids))]
    assert [r["id"] for r in responses] == answered + ids
    assert [r.get("result", r.get("error", {}).get("code")) for r in responses[len(answered) :]] == [
        None
    ] * 20
    if answered == [None]:  # the body cut short is not JSON
        assert responses[0]["error"]["code"] == -32700


def test_a_frame_split_across_writes_is_read_whole(server: RawClient) -> None:
    good, ids = good_requests(3)
    for at in range(0, len(good), 7):
        server.send_bytes(good[at : at + 7])
    assert [server.next_response()["id"] for _ in ids] == ids


def test_requests_before_initialize_and_after_shutdown(tmp_path: Path) -> None:
    client = RawClient()
    try:
        client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x/rules.yaml"}})  # dropped
        early = client.call("textDocument/hover", HOVER_NOWHERE)
        assert early["error"]["code"] == -32002 and "result" not in early
        client.initialize(tmp_path)
        again = client.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert again["error"]["code"] == -32600
        still_serving(client)
        shutdown = client.call("shutdown")
        assert shutdown["result"] is None and "error" not in shutdown
        late = client.call("textDocument/hover", HOVER_NOWHERE)
        assert late["error"]["code"] == -32600 and "result" not in late
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.process.wait(timeout=30) == 0
    finally:
        client.close()
    assert "Traceback" not in client.log()
