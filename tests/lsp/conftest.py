"""Fixtures for the language server tests.

`client` is the real server (`python -m evalkit lsp`) over stdio, driven by pytest-lsp with the
capability sets of VS Code and Neovim 0.7; one server per capability set serves the whole run
(starting one costs seconds on a busy machine). Each test gets its own copy of `fixtures/project` (a
config folder and a `samples/` folder beside it) through `editor`, which opens, edits and queries it.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import itertools
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from evalkit.engine.config import config_name

SERVER_COMMAND = [sys.executable, "-m", "evalkit", "lsp"]
CLIENTS = ["visual-studio-code", "neovim@v0.7.0"]
FIXTURES = Path(__file__).parent / "fixtures"
TIMEOUT_S = 30.0  # generous: the suite may share the machine with other test runs
FAST = {"diagnosticsDelayMs": 0, "dryRunDelayMs": 0}  # no waiting for debounces in tests
_projects = itertools.count()


_CONVERTER = default_converter()


def _make_client() -> LanguageClient:
    """pytest-lsp's test client (`make_test_lsp_client`), on a converter every client of the session shares:
    each made its own, and wrote and compiled its functions for every message type again."""
    client = LanguageClient(converter_factory=lambda: _CONVERTER)
    register_lsp_features(client)
    return client


def server(command: list[str]) -> ClientServerConfig:
    """How pytest-lsp starts a server (`command`) and its client."""
    return ClientServerConfig(server_command=command, client_factory=_make_client)


@functools.cache
def _capabilities(client: str) -> types.ClientCapabilities:
    return client_capabilities(client)


def capabilities_of(client: str) -> types.ClientCapabilities:
    """pytest-lsp's `client_capabilities(client)`, read once (each call read the file into a new converter:
    25 ms); a copy, which the caller may change."""
    return copy.deepcopy(_capabilities(client))


SERVERS = "language-servers"
"""The xdist group of every test that talks to a language server. A server fixture is session-scoped, so
each pytest-xdist worker that runs a test of the `client` fixture started its own two servers (VS Code's,
Neovim's) and warmed them up: about 0.85 CPU-seconds each, on three workers. In one group they start once."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A reply that breaks the client's declared capabilities fails the test, not just warns; the tests
    that talk to a server (a fixture named `client` or `..._client`) run on one xdist worker (`SERVERS`)."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"))
            if any(
                name == "client" or name.endswith("_client") for name in getattr(item, "fixturenames", ())
            ):
                item.add_marker(pytest.mark.xdist_group(SERVERS))


@pytest.fixture(scope="session")
def workspace_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


async def start_session(
    client: LanguageClient,
    capabilities: types.ClientCapabilities,
    root: Path,
    options: dict[str, Any] | None = None,
) -> None:
    client.lens_refreshes = 0  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def count_refresh(params: None) -> None:
        client.lens_refreshes += 1  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def record_registration(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=from_fs_path(str(root)),
            initialization_options={**FAST, **(options or {})},
        )
    )


@pytest_lsp.fixture(config=server(SERVER_COMMAND), params=CLIENTS, scope="session")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace_root: Path):
    await start_session(lsp_client, capabilities_of(request.param), workspace_root)
    yield
    await lsp_client.shutdown_session()


class Editor:
    """One test's project (config/ with its rule tests in config/tests/, and samples/, in a fresh folder)
    as an editor sees it; a file is named by its path under config/ (`rules.yaml`, `tests/dijkstra.yaml`)."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client, self.root = client, root
        self.config = root / "config"
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    @staticmethod
    async def eventually(check: Callable[[], Any], what: str, timeout: float = TIMEOUT_S) -> Any:
        """Poll `check` until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            found = check()
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    def uri(self, name: str) -> str:
        return from_fs_path(str(self.config / name)) or ""

    def folder_uris(self) -> list[str]:
        return [
            from_fs_path(str(path)) or "" for path in sorted(self.config.glob("*.y*ml")) if config_name(path)
        ]

    def text(self, name: str) -> str:
        return self.texts.get(name) or (self.config / name).read_text(encoding="utf-8")

    @property
    def capabilities(self) -> types.ClientCapabilities:
        return self.client.capabilities  # type: ignore[return-value]

    async def open(self, name: str, text: str | None = None) -> list[types.Diagnostic]:
        """Open a file (with its text on disk, or `text` as an unsaved buffer); returns its diagnostics."""
        self._forget_diagnostics()
        text = self.text(name) if text is None else text
        self.texts[name], self.versions[name] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(self.uri(name), "yaml", 1, text))
        )
        return await self.diagnostics(name)

    async def replace(self, name: str, old: str, new: str) -> list[types.Diagnostic]:
        """Replace the first `old` with `new` as an incremental change; returns the new diagnostics."""
        text = self.texts[name]
        offset = text.index(old)
        start, end = _position(text, offset), _position(text, offset + len(old))
        return await self.change(name, types.Range(start, end), new)

    async def change(self, name: str, where: types.Range, new: str) -> list[types.Diagnostic]:
        self._forget_diagnostics()
        self.send_change(name, where, new)
        return await self.diagnostics(name)

    def send_change(self, name: str, where: types.Range, new: str) -> None:
        """An incremental change, without waiting for anything."""
        text = self.texts[name]
        start, end = _offset(text, where.start), _offset(text, where.end)
        self.texts[name] = text[:start] + new + text[end:]
        self.versions[name] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions[name], uri=self.uri(name)),
                [types.TextDocumentContentChangePartial(range=where, text=new)],
            )
        )

    async def close(self, name: str) -> list[types.Diagnostic]:
        self._forget_diagnostics()
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(self.uri(name)))
        )
        return await self.diagnostics(name)

    def _forget_diagnostics(self) -> None:
        for uri in [*self.folder_uris(), *map(self.uri, self.texts)]:
            self.client.diagnostics.pop(uri, None)

    async def diagnostics(self, name: str) -> list[types.Diagnostic]:
        """The diagnostics of `name` once the whole folder's batch has arrived (a check publishes every
        file of the folder, so no late one from this batch can arrive after the next edit)."""
        uris = [*self.folder_uris(), self.uri(name)]
        await self.eventually(
            lambda: all(uri in self.client.diagnostics for uri in uris), f"diagnostics for {name}"
        )
        return list(self.client.diagnostics[self.uri(name)])

    async def completion(self, name: str, line: int, character: int) -> list[types.CompletionItem]:
        result = await self.client.text_document_completion_async(
            types.CompletionParams(
                types.TextDocumentIdentifier(self.uri(name)), types.Position(line, character)
            )
        )
        if isinstance(result, types.CompletionList):
            return list(result.items)
        return list(result or [])

    async def hover(self, name: str, line: int, character: int) -> types.Hover | None:
        return await self.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(self.uri(name)), types.Position(line, character))
        )

    async def lenses(self, name: str = "rules.yaml") -> list[tuple[int, str]]:
        found = await self.client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(self.uri(name)))
        )
        return [(lens.range.start.line, lens.command.title if lens.command else "") for lens in found or []]

    async def lenses_when(
        self, accept: Callable[[list[tuple[int, str]]], bool], name: str = "rules.yaml"
    ) -> list[tuple[int, str]]:
        """The lenses once they satisfy `accept` (the dry run runs in the background)."""
        latest: list[tuple[int, str]] = []

        async def poll() -> bool:
            nonlocal latest
            latest = await self.lenses(name)
            return accept(latest)

        deadline = time.monotonic() + TIMEOUT_S
        while not await poll():
            if time.monotonic() > deadline:
                raise AssertionError(f"the lenses never became right; last: {latest}")
            await asyncio.sleep(0.02)
        return latest


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _position(text: str, offset: int) -> types.Position:
    """A string offset as an LSP position: both clients count columns in UTF-16 units."""
    before = text[:offset]
    return types.Position(before.count("\n"), _utf16_units(before[before.rfind("\n") + 1 :]))


def _offset(text: str, position: types.Position) -> int:
    lines = text.split("\n")
    line = lines[position.line] if position.line < len(lines) else ""
    column = next(
        (i for i in range(len(line) + 1) if _utf16_units(line[:i]) >= position.character), len(line)
    )
    return sum(len(line) + 1 for line in lines[: position.line]) + column


def copy_project(root: Path, samples: Sequence[str] | None = None) -> Path:
    """A fresh copy of fixtures/project under `root`; `samples` keeps only those sample files."""
    target = root / f"project{next(_projects)}"
    shutil.copytree(FIXTURES / "project", target)
    if samples is not None:
        for path in (target / "samples").iterdir():
            if path.name not in samples:
                path.unlink()
    return target


@pytest.fixture
def editor(client: LanguageClient, workspace_root: Path) -> Editor:
    return Editor(client, copy_project(workspace_root))


@pytest.fixture
def make_editor(workspace_root: Path) -> Callable[..., Editor]:
    """`make_editor(client, samples=None)`: an Editor on a fresh project for another client."""
    return lambda client, samples=None: Editor(client, copy_project(workspace_root, samples))


def pull_capabilities() -> types.ClientCapabilities:
    """VS Code's capabilities plus pull diagnostics (textDocument/diagnostic)."""
    capabilities = capabilities_of("visual-studio-code")
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(  # type: ignore[union-attr]
        related_document_support=True
    )
    return capabilities


@pytest_lsp.fixture(config=server(SERVER_COMMAND), scope="session")
async def pull_client(lsp_client: LanguageClient, workspace_root: Path):
    await start_session(lsp_client, pull_capabilities(), workspace_root)
    yield
    await lsp_client.shutdown_session()


SHARED_SAMPLES = "shared_samples"  # the `samples` option of `options_client`, relative to the workspace root


@pytest_lsp.fixture(config=server(SERVER_COMMAND), scope="session")
async def options_client(lsp_client: LanguageClient, workspace_root: Path):
    """VS Code with the `samples` initialization option set."""
    await start_session(
        lsp_client, capabilities_of("visual-studio-code"), workspace_root, {"samples": SHARED_SAMPLES}
    )
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=server(SERVER_COMMAND), scope="session")
async def head_client(lsp_client: LanguageClient, workspace_root: Path):
    """VS Code with the `impactBase` initialization option set to HEAD."""
    await start_session(
        lsp_client, capabilities_of("visual-studio-code"), workspace_root, {"impactBase": "HEAD"}
    )
    yield
    await lsp_client.shutdown_session()


FAILING_SERVER = [sys.executable, str(Path(__file__).parent / "failing_server.py")]


@pytest_lsp.fixture(config=server(FAILING_SERVER), scope="session")
async def failing_client(lsp_client: LanguageClient, workspace_root: Path):
    """VS Code on a server whose evaluation raises on a sample whose prompt starts with `RAISE`."""
    await start_session(lsp_client, capabilities_of("visual-studio-code"), workspace_root)
    yield
    await lsp_client.shutdown_session()


NO_FOLDER_SAMPLES = "no/such/samples"  # the `samples` option of `no_folder_samples_client`


@pytest_lsp.fixture(config=server(SERVER_COMMAND), scope="session")
async def no_folder_samples_client(lsp_client: LanguageClient, workspace_root: Path):
    """VS Code with the `samples` initialization option naming no folder: a path each test makes what it
    needs, nothing or a file (one server for both: they differ in what is on disk, not in the setting)."""
    await start_session(
        lsp_client, capabilities_of("visual-studio-code"), workspace_root, {"samples": NO_FOLDER_SAMPLES}
    )
    yield
    await lsp_client.shutdown_session()
