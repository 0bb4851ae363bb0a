"""A config folder that is not there, or holds no config files, refused alike by every command.

`eval`, `diff`, `review` and `stats` would run on an empty config as on one with no rules: every
submission passed silently, every one 'changed', every decision left out. Each refuses it (exit 2) with
the one message `check` gives for a folder with nothing to check, naming the folder and the files in it
that look like configs in another format. A `--config-dir` (or `check`'s and `test`'s PATH) that does not
exist gets one message everywhere, with the closest existing name beside it when one is close.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.config import CONFIG_NAMES
from evalkit.engine.text import shown
from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.engine.config import Config

YAML_SUFFIXES = (".yaml", ".yml")
NAMES_COMPARED = 2000
"""The entries of a folder a misspelt name is compared with (a folder may hold millions)."""


def no_config_files(folder: Path | str, where: str = "") -> str:
    """What to say of a folder without config files (`where`: " or below" for a tree `check` searched)."""
    looked_for = ", ".join(name + ".yaml" for name in CONFIG_NAMES)
    found = _other_formats(Path(folder))
    also = f"; found {', '.join(found)}: config files are YAML (.yaml or .yml)" if found else ""
    return f"{shown(str(folder))}: no config files found here{where} (looked for {looked_for}){also}"


def _other_formats(folder: Path) -> list[str]:
    """The files of `folder` named as a config file but in another format (`rules.json`, `rules.toml`)."""
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in itertools.islice(entries, NAMES_COMPARED)]
    except OSError:
        return []
    return sorted(
        shown(name) for name in names if Path(name).stem in CONFIG_NAMES and not name.endswith(YAML_SUFFIXES)
    )


def no_such_path(name: str, option: str | None = "--config-dir") -> str:
    """What every command says of a --config-dir (`option`) or a PATH (None) that does not exist:
    `--config-dir config_sample: no such folder; did you mean config_samples?`."""
    said = f"{option} {name}" if option else name
    what = "folder" if option else "file or folder"
    close = _closest_entry(Path(name), folders_only=option is not None)
    hint = f"; did you mean {shown(close)}?" if close else ""
    return f"{shown(said)}: no such {what}{hint}"


def _closest_entry(path: Path, folders_only: bool) -> str | None:
    """The existing entry beside `path` whose name is closest to its name, as the user would type it."""
    from evalkit.engine.diagnostics import closest

    parent = path.parent
    try:
        with os.scandir(parent) as entries:
            names = [
                entry.name
                for entry in itertools.islice(entries, NAMES_COMPARED)
                if not folders_only or entry.is_dir()
            ]
    except OSError:
        return None
    found = closest(path.name, names) if path.name else None
    return None if found is None else str(parent / found) if str(parent) != "." else found


def refuse_missing_config_dir(name: str | None) -> None:
    """Raise UsageProblem when `--config-dir NAME` names nothing, or a file (None: the shipped config)."""
    if name is None or os.path.isdir(name):
        return
    if os.path.exists(name):
        raise UsageProblem(f"--config-dir {shown(name)}: not a folder (a config is a folder of YAML files)")
    raise UsageProblem(no_such_path(name))


def refuse_without_config_files(config: Config) -> None:
    """Raise UsageProblem when `config`'s folder holds no config file (one that cannot be read has a
    diagnostic, which the command shows instead)."""
    if not config.files and not config.diagnostics:
        raise UsageProblem(no_config_files(config.folder))
