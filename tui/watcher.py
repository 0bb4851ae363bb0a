"""Noticing that a config folder changed on disk, by polling: no dependency, and the same on every OS.

`fingerprint` is cheap (one stat per YAML file), so polling it every second costs nothing; a change in any
file's size or modification time, or a file appearing or going, is a change.
"""

from __future__ import annotations

import os
from pathlib import Path

POLL_SECONDS = 1.0

Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(folder: Path) -> Fingerprint:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return ()
    found = []
    for entry in entries:
        if entry.name.endswith((".yaml", ".yml")):
            try:
                stat = entry.stat()
            except OSError:
                continue  # removed between the listing and the stat: the next poll sees it gone
            found.append((entry.name, stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(found))
