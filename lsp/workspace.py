"""Config folders as the editor sees them: which folder a file belongs to, the unsaved buffers that
replace its files when the folder is analyzed, and the latest results for each folder.

A config folder is the folder of any file named like a config file (`rules.yaml`, `dimensions.yml`,
...); its rule test files (`tests/*.yaml`) belong to it too. Editing one file re-checks the whole folder,
so a change in dimensions.yaml re-checks rules.yaml, and renaming a rule re-checks the open tests.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pygls.uris import from_fs_path, to_fs_path

from evalkit.engine.config import Config, config_files, config_name
from evalkit.engine.diagnostics import Diagnostic
from evalkit.engine.yamlsource import YamlDocument
from evalkit.lsp import ruletests, schemanav
from evalkit.lsp.convert import Problem
from evalkit.lsp.dryrun import DryRunReport
from evalkit.lsp.impact import BaseRun, Impact


@dataclass(frozen=True, slots=True)
class Buffer:
    """An open document's text, as the editor last sent it."""

    uri: str
    version: int | None
    text: str


@dataclass(frozen=True, slots=True)
class EvalkitFile:
    """A document the server answers for: a config file or a rule test file."""

    path: Path
    schema: str  # the schema it follows: its config name (`rules`), or `ruletest`
    folder: Path  # its config folder


@functools.lru_cache(maxsize=4096)
def _fs_path(uri: str) -> Path | None:
    """The path of a `file:` URI. Cached: every check of a folder looks at every open document's URI."""
    try:
        raw = to_fs_path(uri)
    except Exception:  # a URI pygls cannot read (another scheme, bad escapes) is simply not ours
        return None
    return Path(raw) if raw else None


def config_file(uri: str) -> Path | None:
    """The path of a config file (`.../rules.yaml`), or None for any other document."""
    path = _fs_path(uri)
    return path if path is not None and config_name(path) else None


def evalkit_file(uri: str) -> EvalkitFile | None:
    """The config file or rule test file at `uri`, or None for any other document."""
    path = _fs_path(uri)
    if path is None:
        return None
    name = config_name(path)
    if name:
        return EvalkitFile(path, name, path.parent)
    folder = ruletests.config_folder_of(path)
    return EvalkitFile(path, ruletests.SCHEMA, folder) if folder is not None else None


def foreign_keys(found: EvalkitFile, top_keys: Iterable[str]) -> list[str]:
    """The top-level keys of a file named like a config file that is someone else's (a Prometheus
    `rules.yaml`, an app's `prompt.yaml`): none of them is a key of evalkit's schema and no other evalkit
    config file is beside it. Empty for an evalkit file (also a new one, with no keys yet)."""
    if found.schema == ruletests.SCHEMA:
        return []
    known = schemanav.root(found.schema).get("properties", {})
    keys = []
    for key in top_keys:  # read lazily: an evalkit file's first key is usually known
        if key in known:
            return []
        keys.append(key)
    if not keys or set(config_files(found.folder)) - {found.schema}:
        return []
    return sorted(set(keys))


def uri_for(path: str, buffers: Mapping[str, Buffer]) -> str:
    """The URI the editor uses for an open file (it may encode it differently), else one from the path."""
    buffer = buffers.get(path)
    return buffer.uri if buffer is not None else (from_fs_path(path) or path)


def folder_buffers(documents: Iterable[tuple[str, Any]], folder: Path) -> dict[str, Buffer]:
    """The open config files and rule test files of `folder`, by path. `documents` are pygls's
    (uri, TextDocument) pairs: every open document of the editor, of any folder. Only those in `folder` or
    in a folder in it are looked at further (a rule test file's folder is found by listing the folder
    above it, on disk)."""
    buffers = {}
    for uri, document in documents:
        path = _fs_path(uri)
        if path is None or folder not in (path.parent, path.parent.parent):
            continue
        found = evalkit_file(uri)
        if found is not None and found.folder == folder:
            buffers[str(found.path)] = Buffer(uri, document.version, document.source)
    return buffers


@dataclass
class FolderState:
    """What the server knows about one config folder."""

    folder: Path
    analyzed: dict[str, Buffer] = field(default_factory=dict)  # the buffers the latest analysis read
    latest: Config | None = None
    last_good: Config | None = None  # the latest analysis without errors
    tests: dict[str, list[Diagnostic]] = field(default_factory=dict)  # the open rule test files', by path
    problems: dict[str, list[Problem]] = field(default_factory=dict)  # by URI, as last published
    report: DryRunReport | None = None
    report_key: tuple[Any, ...] = ()  # (config as data, samples signature) the report was made from
    lens_state: tuple[Any, ...] = ()  # what the code lenses showed at the last refresh
    parsed: dict[str, YamlDocument] = field(default_factory=dict)  # each config file as it last parsed
    impact: Impact | None = None  # the dry run's results against the base config's
    impact_key: tuple[Any, ...] = ()  # (base key, report key) the impact was made from
    base_run: BaseRun | None = None  # the base config's results on the samples, kept between edits

    def accept(self, config: Config, buffers: dict[str, Buffer], tests: dict[str, list[Diagnostic]]) -> None:
        self.latest, self.analyzed, self.tests = config, buffers, tests
        self.parsed.update(config.documents)
        if config.ok:
            self.last_good = config

    def is_current(self, buffers: dict[str, Buffer]) -> bool:
        return self.latest is not None and buffers == self.analyzed

    def data(self, name: str) -> dict[str, Any]:
        """A config file's content from the latest analysis that could read it."""
        for config in (self.latest, self.last_good):
            if config is not None and name in config.documents:
                return config.data(name)
        return {}

    def settings_config(self) -> Config | None:
        """The config whose compiled settings (dimension ideals) the editor shows."""
        return self.last_good or self.latest
