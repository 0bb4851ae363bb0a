"""The dry run's samples, read from a folder listed once and followed, so that a dry run after an edit
costs the samples it reads (`maxSamples`), not the size of the folder.

Listing a folder of 100,000 files and taking the fingerprint of each (a stat per file) at every dry run
made the lenses wait 6.5 s (p50) after each edit. The listing is kept until the folder changes (its
modification time moves when a file is added, removed or renamed, or the client's file watcher reports a
change there), and only the files the samples were read from are checked for edits.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from evalkit.services.inputs.fingerprints import Fingerprint, fingerprint
from evalkit.services.inputs.read import LoadedSubmission, expand_inputs, read_file


@dataclass(frozen=True, slots=True)
class ReadSamples:
    listing: int  # the folder listing's modification time when it was read
    files: tuple[Path, ...]  # the files the samples came from
    fingerprint: Fingerprint
    samples: list[LoadedSubmission]

    @property
    def signature(self) -> tuple[Any, ...]:
        """Changes when the folder's listing or a file read changed."""
        return (self.listing, self.fingerprint)


class SampleFiles:
    """Per samples folder: its listing and the samples last read from it. Used on the dry-run worker."""

    def __init__(self) -> None:
        self._listings: dict[Path, tuple[int, list[Path]]] = {}
        self._read: dict[Path, ReadSamples] = {}
        self._lock = threading.Lock()

    def forget(self, folder: Path) -> None:
        """The client's file watcher reported a change in the folder: list it again at the next read."""
        with self._lock:
            self._listings.pop(folder, None)

    def samples(self, folder: Path, limit: int | None) -> ReadSamples:
        """The folder's first `limit` samples, read again only when what they were read from changed."""
        listing, files = self._listing(folder)
        cached = self._read.get(folder)
        if (
            cached is not None
            and cached.listing == listing
            and fingerprint(cached.files) == cached.fingerprint
        ):
            return cached
        read, consumed = _read(files, limit)
        used = tuple(files[:consumed])
        cached = ReadSamples(listing, used, fingerprint(used), read)
        self._read[folder] = cached
        return cached

    def _listing(self, folder: Path) -> tuple[int, list[Path]]:
        try:
            modified = os.stat(folder).st_mtime_ns
        except OSError:
            modified = -1
        with self._lock:
            known = self._listings.get(folder)
        if known is None or known[0] != modified:
            known = (modified, expand_inputs([folder])[0])
            with self._lock:
                self._listings[folder] = known
        return known


def _read(files: list[Path], limit: int | None) -> tuple[list[LoadedSubmission], int]:
    """The first `limit` samples of `files`, and how many files were opened for them (an empty file among
    them too: an edit there may add a sample)."""
    found: list[LoadedSubmission] = []
    for opened, path in enumerate(files):
        if limit is not None and len(found) >= limit:
            return found, opened
        found.extend(islice(read_file(path), None if limit is None else limit - len(found)))
    return found, len(files)
