"""A config folder without config files, refused alike by every command that evaluates with a config.

`eval`, `diff`, `review` and `stats` would run on an empty config as on one with no rules: every
submission passed silently, every one 'changed', every decision left out. Each refuses it (exit 2) with
the one message `check` gives for a folder with nothing to check, naming the folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.config import CONFIG_NAMES
from evalkit.engine.text import shown
from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.engine.config import Config


def no_config_files(folder: Path | str, where: str = "") -> str:
    """What to say of a folder without config files (`where`: " or below" for a tree `check` searched)."""
    looked_for = ", ".join(name + ".yaml" for name in CONFIG_NAMES)
    return f"{shown(str(folder))}: no config files found here{where} (looked for {looked_for})"


def refuse_without_config_files(config: Config) -> None:
    """Raise UsageProblem when `config`'s folder holds no config file (one that cannot be read has a
    diagnostic, which the command shows instead)."""
    if not config.files and not config.diagnostics:
        raise UsageProblem(no_config_files(config.folder))
