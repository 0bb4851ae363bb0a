"""File fingerprints: has anything in these files changed since we last looked?

A file's fingerprint is its name, size and modification time (one stat, no reading): the language server
keys its cached dry runs, base runs and reviewers' verdicts on them, and the reviewer app polls one to
reload an edited config. A file that appears, goes, or is written changes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

Fingerprint = tuple[tuple[str, int, int], ...]


def fingerprint(paths: Iterable[Path | str]) -> Fingerprint:
    """(path, size, modification time in ns) of every file in `paths`, in their order; a file that cannot
    be stat'ed (gone since it was listed) is left out, so its going is a change too."""
    found = []
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            continue
        found.append((str(path), status.st_size, status.st_mtime_ns))
    return tuple(found)
