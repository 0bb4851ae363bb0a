"""Noticing that a config folder changed on disk, by polling: no dependency, and the same on every OS.

`config_fingerprint` is cheap (one stat per YAML file), so polling it every second costs nothing; a change
in any file's size or modification time, or a file appearing or going, is a change.
"""

from __future__ import annotations

import os
from pathlib import Path

from evalkit.services.inputs.fingerprints import Fingerprint, fingerprint

POLL_SECONDS = 1.0


def config_fingerprint(folder: Path) -> Fingerprint:
    """The fingerprint of the folder's YAML files; nothing for a folder that cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            paths = sorted(entry.path for entry in entries if entry.name.endswith((".yaml", ".yml")))
    except OSError:
        return ()
    return fingerprint(paths)
