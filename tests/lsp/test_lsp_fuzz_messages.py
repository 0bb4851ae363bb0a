"""Fuzz target for the language server's surface (issue 30, "Make the hunt systematic"): random JSON-RPC
messages (any method, id and params), broken frames, and edit sequences with random ranges (reversed,
past the end, inside a CRLF), sent over stdio to one live server. Whatever comes: every request with a
readable id is answered, the server never dies nor logs a traceback, and a request sent after the
sequence is answered within a bound.

`EVALKIT_FUZZ_EXAMPLES` examples (a handful in the normal suite; CONTRIBUTING.md, "Fuzzing", says how to
hunt longer). An input it ever broke is kept in tests/lsp/test_lsp_hostile_protocol.py as a regression.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.budget import examples
from tests.lsp.rawclient import RawClient, frame

FUZZ_EXAMPLES = int(os.environ.get("EVALKIT_FUZZ_EXAMPLES", "8"))
ANSWER_WITHIN_S = 30.0
"""A catastrophe-scale bound (a hang, a blocked loop), not a timing assertion."""
PROJECT = Path(__file__).parent / "fixtures" / "project"
METHODS = [
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/definition",
    "textDocument/codeLens",
    "textDocument/documentSymbol",
    "textDocument/codeAction",
    "textDocument/diagnostic",
    "workspace/executeCommand",
    "textDocument/didChange",
    "textDocument/didOpen",
    "textDocument/didClose",
    "textDocument/didSave",
    "workspace/didChangeWatchedFiles",
    "$/cancelRequest",
    "$/setTrace",
    "evalkit/unknown",
]
PIECES = [
    "\n",
    "\r\n",
    "\r",
    "  ",
    "- id: ",
    "when:",
    "{",
    "}",
    "[",
    ": ",
    "#",
    "'",
    "\t",
    "😀",
    "\u2028",
    "\ufeff",
]
_ids = itertools.count(10_000)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
numbers = st.integers(-2, 2**33) | st.sampled_from([0, 1, 2**31, 2**64])
positions = st.fixed_dictionaries({"line": numbers, "character": numbers})


def params_for(uri: str) -> st.SearchStrategy[Any]:
    """Params that are nearly right (a document, positions, ranges), or anything at all."""
    return st.one_of(nearly_right(uri), json_values)


@st.composite
def nearly_right(draw: st.DrawFn, uri: str) -> dict[str, Any]:
    """Some of the params a document's requests take, each nearly right."""
    document = draw(st.sampled_from([{"uri": uri}, {"uri": uri, "version": draw(numbers)}, {"uri": 5}, {}]))
    where = {"start": draw(positions), "end": draw(positions)}
    nearly = {
        "textDocument": document,
        "position": draw(positions),
        "range": where,
        "contentChanges": [
            {"range": where, "text": "".join(draw(st.lists(st.sampled_from(PIECES), max_size=4)))}
        ],
        "command": draw(st.sampled_from(["evalkit.dryRun", "evalkit.diff", "nope"])),
        "arguments": [uri],
        "context": {"diagnostics": []},
        "changes": [{"uri": uri, "type": 2}],
    }
    keys = draw(st.lists(st.sampled_from(sorted(nearly)), unique=True))
    return {key: nearly[key] for key in keys}


@st.composite
def messages(draw: st.DrawFn, uri: str) -> tuple[bytes, int | None]:
    """One frame and the id a response must carry (None: no answer is owed, or it cannot be matched)."""
    kind = draw(st.sampled_from(["request", "request", "notification", "edit", "broken"]))
    method = draw(st.sampled_from(METHODS) | st.text(max_size=12))
    if kind == "broken":
        body = draw(st.binary(max_size=60).filter(lambda b: b"content-length" not in b.lower()))
        header = draw(
            st.sampled_from(
                [b"Content-Length: -3\r\n\r\n", b"Content-Length: x\r\n\r\n", b"X: y\r\n\r\n", b""]
            )
        )
        return header + body, None
    if kind == "edit":
        edit = {"textDocument": {"uri": uri, "version": next(_ids)}, **draw(nearly_right(uri))}
        return frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": edit}), None
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": draw(params_for(uri))}
    if kind == "notification":
        return frame(message), None
    id_ = next(_ids)
    return frame({**message, "id": id_}), id_


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawClient, str]]:
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(PROJECT, root / "project")
    client = RawClient()
    client.initialize(root / "project")
    uri = client.open(root / "project" / "config" / "rules.yaml")
    yield client, uri
    client.close()
    assert "Traceback" not in client.log()


def answered(client: RawClient, owed: set[int]) -> set[int]:
    """The ids among `owed` answered within the bound."""
    deadline, seen = time.monotonic() + ANSWER_WITHIN_S, set()
    while owed - seen and time.monotonic() < deadline:
        try:
            response = client.next_response(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        for item in response if isinstance(response, list) else [response]:
            seen.add(item.get("id"))
    return seen & owed


@settings(
    max_examples=examples(FUZZ_EXAMPLES),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_whatever_a_client_sends_every_request_is_answered(
    server: tuple[RawClient, str], data: st.DataObject
) -> None:
    client, uri = server
    sent = data.draw(st.lists(messages(uri), min_size=1, max_size=12))
    for raw, _ in sent:
        client.send_bytes(raw)
    sentinel = next(_ids)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": sentinel,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        }
    )
    owed = {id_ for _, id_ in sent if id_ is not None} | {sentinel}
    assert answered(client, owed) == owed, json.dumps([raw.decode("utf-8", "replace") for raw, _ in sent])
    assert client.process.poll() is None, client.log()
