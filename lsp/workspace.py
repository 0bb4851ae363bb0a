"""Config folders as the editor sees them: which folder a file belongs to, the unsaved buffers that
replace its files when the folder is analysed, and the latest results for each folder.

A config folder is the folder of any file named like a config file (`rules.yaml`, `dimensions.yml`,
...). Editing one file re-checks the whole folder, so a change in dimensions.yaml re-checks rules.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from pygls.uris import from_fs_path, to_fs_path

from evalkit.engine.config import Config, config_name
from evalkit.lsp.convert import Problem
from evalkit.lsp.dryrun import DryRunReport


@dataclass(frozen=True, slots=True)
class Buffer:
    """An open document's text, as the editor last sent it."""

    uri: str
    version: int | None
    text: str


def config_file(uri: str) -> Path | None:
    """The path of a config file (`.../rules.yaml`), or None for any other document."""
    try:
        raw = to_fs_path(uri)
    except Exception:  # a URI pygls cannot read (another scheme, bad escapes) is simply not ours
        return None
    if not raw:
        return None
    path = Path(raw)
    return path if config_name(path) else None


def uri_for(path: str, buffers: Mapping[str, Buffer]) -> str:
    """The URI the editor uses for an open file (it may encode it differently), else one from the path."""
    buffer = buffers.get(path)
    return buffer.uri if buffer is not None else (from_fs_path(path) or path)


def folder_buffers(documents: Iterable[tuple[str, Any]], folder: Path) -> dict[str, Buffer]:
    """The open config files of `folder`, by path. `documents` are pygls's (uri, TextDocument) pairs."""
    buffers = {}
    for uri, document in documents:
        path = config_file(uri)
        if path is not None and path.parent == folder:
            buffers[str(path)] = Buffer(uri, document.version, document.source)
    return buffers


@dataclass
class FolderState:
    """What the server knows about one config folder."""

    folder: Path
    analysed: dict[str, Buffer] = field(default_factory=dict)  # the buffers the latest analysis read
    latest: Config | None = None
    last_good: Config | None = None  # the latest analysis without errors
    problems: dict[str, list[Problem]] = field(default_factory=dict)  # by URI, as last published
    report: DryRunReport | None = None
    report_key: tuple[Any, ...] = ()  # (config hash, samples signature) the report was made from
    lens_state: tuple[Any, ...] = ()  # what the code lenses showed at the last refresh

    def accept(self, config: Config, buffers: dict[str, Buffer]) -> None:
        self.latest, self.analysed = config, buffers
        if config.ok:
            self.last_good = config

    def is_current(self, buffers: dict[str, Buffer]) -> bool:
        return self.latest is not None and buffers == self.analysed

    def data(self, name: str) -> dict[str, Any]:
        """A config file's content from the latest analysis that could read it."""
        for config in (self.latest, self.last_good):
            if config is not None and name in config.documents:
                return config.data(name)
        return {}

    def settings_config(self) -> Config | None:
        """The config whose compiled settings (dimension ideals) the editor shows."""
        return self.last_good or self.latest
