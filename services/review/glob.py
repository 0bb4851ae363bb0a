"""The files a journals glob names (`check --journals 'reviews/**/*.decisions.jsonl'`, the language server's
`journals` option): the glob module's patterns (`*`, `?`, `[...]`, and `**` for any depth of folders, which
never enters a hidden folder), walked with a bound.

A folder reached twice (a link to itself or to an ancestor, two links to one folder) is walked once, at the
first path that reaches it in sorted order, so a tree of self-linking folders ends; and a walk that meets
more than MAX_GLOB_FOLDERS folders stops with TooManyFolders (`/**` over a whole file system), rather
than running for minutes. The glob module follows links with no such memory: two links to a folder inside
it made `**` walk 2^depth paths until the names grew too long.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

from evalkit.engine.limits import MAX_GLOB_FOLDERS

_MAGIC = re.compile(r"[*?[]")


class TooManyFolders(ValueError):
    """The glob reaches more than MAX_GLOB_FOLDERS folders; the message says so and names the pattern."""


def journal_files(pattern: str, base: Path | None = None) -> list[str]:
    """The regular files (or links to them) `pattern` matches, sorted; a relative pattern is taken from
    `base` (the current folder when None) and its matches are named as the pattern names them. Raises
    TooManyFolders."""
    walk = _Walk(pattern)
    anchor = "/" if os.path.isabs(pattern) else ""
    parts = [part for part in pattern.split("/") if part not in ("", ".")]
    start = Path(anchor) if anchor else (base if base is not None else Path.cwd())
    found = {shown for shown, real in walk.matches(anchor, start, parts) if real.is_file()}
    return sorted(found)


class _Walk:
    """One expansion: the folders met so far (by device and inode), counted against the bound."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.seen: set[tuple[int, int]] = set()

    def matches(self, shown: str, real: Path, parts: list[str]) -> Iterator[tuple[str, Path]]:
        """(the path as the pattern names it, the path on disk) for every match of `parts` under `real`."""
        if not parts:
            yield shown, real
            return
        head, rest = parts[0], parts[1:]
        if head == "**":
            for below_shown, below in self._folders(shown, real):
                yield from self.matches(below_shown, below, rest)
                if not rest:  # `reviews/**` ends in the files of every folder too
                    yield from ((_joined(below_shown, n), below / n) for n in self._names(below, "*"))
            return
        for name in self._names(real, head):
            yield from self.matches(_joined(shown, name), real / name, rest)

    def _names(self, folder: Path, part: str) -> list[str]:
        """The entries of `folder` that `part` names (itself when it has no wildcard and exists)."""
        if not _MAGIC.search(part):
            return [part] if os.path.lexists(folder / part) else []
        try:
            names = sorted(entry.name for entry in os.scandir(folder))
        except OSError:
            return []
        hidden = part.startswith(".")  # as the glob module: `*` does not match a hidden name
        return [n for n in names if (hidden or not n.startswith(".")) and fnmatch.fnmatch(n, part)]

    def _folders(self, shown: str, real: Path) -> Iterator[tuple[str, Path]]:
        """`real` and every folder below it (links followed), each reached once, not hidden ones, in sorted
        depth-first order; a stack rather than recursion: folders may nest deeper than Python recurses."""
        stack = [(shown, real)]
        while stack:
            shown, real = stack.pop()
            if not self._first_visit(real):
                continue
            yield shown, real
            stack.extend(reversed([(_joined(shown, name), real / name) for name in _subfolders(real)]))

    def _first_visit(self, folder: Path) -> bool:
        try:
            status = os.stat(folder)
        except OSError:
            return False
        key = (status.st_dev, status.st_ino)
        if key in self.seen:
            return False
        self.seen.add(key)
        if len(self.seen) > MAX_GLOB_FOLDERS:
            raise TooManyFolders(
                f"{self.pattern}: the pattern reaches more than {MAX_GLOB_FOLDERS:,} folders; name the "
                "journals' folder more closely"
            )
        return True


def _subfolders(folder: Path) -> list[str]:
    """The names of the folders (or links to folders) in `folder`, sorted, not hidden ones."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for entry in entries:
        try:
            if not entry.name.startswith(".") and entry.is_dir():
                found.append(entry.name)
        except OSError:
            continue
    return sorted(found)


def _joined(shown: str, name: str) -> str:
    if not shown:
        return name
    return shown + name if shown.endswith("/") else f"{shown}/{name}"
