"""The review journals the `journals` option's glob names, found with a bound.

`glob(..., recursive=True)` follows links to folders (a folder holding a link to itself never ends) and
walks whatever `**` reaches: set to `/**`, it walked the whole file system. Here `**` walks without
following links, visits at most `MAX_VISITED` entries and keeps at most `MAX_JOURNALS` files; a search
cut short says so, and the server logs it. It runs on the reviewers' worker thread, never on the loop.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from glob import glob, has_magic
from itertools import islice
from pathlib import Path

MAX_VISITED = 200_000
MAX_JOURNALS = 1_000


@dataclass(frozen=True, slots=True)
class Journals:
    paths: list[str]
    cut_short: bool  # the search stopped at MAX_VISITED entries or MAX_JOURNALS files


def find_journals(pattern: str, root: Path | None) -> Journals:
    base = root if root is not None else Path.cwd()
    full = pattern if Path(pattern).is_absolute() else str(base / pattern)
    if "**" not in full:
        found = list(islice(_files(glob(full)), MAX_JOURNALS + 1))
        return Journals(sorted(found[:MAX_JOURNALS]), len(found) > MAX_JOURNALS)
    return _walk(full)


def _files(paths: list[str]) -> Iterator[str]:
    return filter(os.path.isfile, paths)


def _walk(full: str) -> Journals:
    parts = full.split(os.sep)
    fixed = next(i for i, part in enumerate(parts) if has_magic(part))
    top = os.sep.join(parts[:fixed]) or os.sep
    matches = _matcher(full)
    found: list[str] = []
    visited = 0
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            visited += 1
            if visited > MAX_VISITED or len(found) > MAX_JOURNALS:
                return Journals(sorted(found[:MAX_JOURNALS]), True)
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif matches(entry.path) and entry.is_file():
                found.append(entry.path)
    return Journals(sorted(found), False)


def _matcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """A path matcher for a glob: `**/` any folders (none too), `*` and `?` within a name, `[...]`."""
    separator = re.escape(os.sep)
    pieces = re.split(r"(\*\*" + separator + r"|\*\*|\*|\?|\[[^\]]+\])", pattern)
    regex = []
    for piece in pieces:
        if piece == "**" + os.sep:
            regex.append(f"(?:.*{separator})?")
        elif piece == "**":
            regex.append(".*")
        elif piece == "*":
            regex.append(f"[^{separator}]*")
        elif piece == "?":
            regex.append(f"[^{separator}]")
        elif piece.startswith("[") and piece.endswith("]") and len(piece) > 2:
            regex.append("[" + piece[1:-1].replace("!", "^", 1 if piece[1] == "!" else 0) + "]")
        else:
            regex.append(re.escape(piece))
    return re.compile("".join(regex), re.DOTALL).fullmatch
