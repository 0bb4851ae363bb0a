"""Atomic output: write to a temporary file in the same folder, then rename it over the target, so a reader
never sees half a file and a crash never leaves one.

A symbolic link is written through: its target is replaced atomically and the link stays a link (a test
file or an output kept as a link into another folder).

A target that exists but is not a regular file (`/dev/null`, `/dev/stdout`, a named pipe) is written in
place: renaming over it would replace the device with a plain file.

The temporary file's name says which process on which machine writes it (`.out.jsonl.HOST-PID-RANDOM.tmp`).
A writer killed outright (SIGKILL, a power cut) cannot remove its own; the next write of the same target
removes those whose process is gone from this machine, and leaves those of live processes and of other
machines (a shared folder) alone. The spool folders of `--jobs` are named and found the same way
(`stamped_name`, `orphans`).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def _special(path: Path) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # absent (or unreadable: the open below says why)


@contextlib.contextmanager
def atomic_output(path: Path | str, binary: bool = False) -> Iterator[IO[Any]]:
    """A file to write `path`'s new content into; it replaces `path` only when the block ends without an
    exception. A new file gets the usual permissions (0o666 less the umask); an existing one keeps its own."""
    target = _through_links(Path(path))
    mode, encoding = ("wb", None) if binary else ("w", "utf-8")
    if _special(target):
        with open(target, mode, encoding=encoding) as handle:
            yield handle
        return
    _remove_orphans(target)
    temp = target.with_name(stamped_name(f".{target.name}.", ".tmp"))
    try:
        previous = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        previous = 0o666
    try:
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, previous)
    except OSError as exc:  # named after the file asked for, not the temporary one beside it
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    try:
        newline = None if binary else ""
        with os.fdopen(descriptor, mode, encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _through_links(path: Path) -> Path:
    """The file a symbolic link leads to (links to links followed), so that the link stays a link and its
    target is what is replaced; `path` itself when it is no link. A link that loops is left as it is: the
    write then fails and says so."""
    if not path.is_symlink():
        return path
    resolved = Path(os.path.realpath(path))
    return path if resolved.is_symlink() else resolved


def write_text_atomic(path: Path | str, text: str) -> None:
    with atomic_output(path) as handle:
        handle.write(text)


def _host() -> str:
    return os.uname().nodename.replace("/", "_") or "localhost"


def stamped_name(prefix: str, suffix: str) -> str:
    """`PREFIX` `HOST-PID-RANDOM` `SUFFIX`: a name that says which process on which machine made it, so that
    `orphans` finds it once that process is gone."""
    # os.urandom, not secrets: the name needs no more, and `secrets` imports `random`, a cold start's 2%
    return f"{prefix}{_host()}-{os.getpid()}-{os.urandom(4).hex()}{suffix}"


def orphans(folder: Path, prefix: str, suffix: str) -> list[Path]:
    """The entries of `folder` named by `stamped_name(prefix, suffix)` on this machine by a process that no
    longer runs; not those of live processes, nor of other machines (a shared folder)."""
    start = f"{prefix}{_host()}-"
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.startswith(start)]
    except OSError:
        return []  # an unreadable folder: what is written there says what is wrong
    found = []
    for name in names:
        if not name.endswith(suffix):
            continue
        # exactly PID-RANDOM: a machine named `<host>-<N>` writes `<N>-PID-RANDOM` after the prefix
        pid, _, random = name[len(start) : len(name) - len(suffix)].partition("-")
        if pid.isdigit() and _is_hex(random) and not _running(int(pid)):
            found.append(folder / name)
    return found


def _remove_orphans(target: Path) -> None:
    """Remove the temporary files of `target` left by writers on this machine that no longer run."""
    for orphan in orphans(target.parent, f".{target.name}.", ".tmp"):
        with contextlib.suppress(OSError):  # another writer may be removing it at the same moment
            os.unlink(orphan)


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text)


def _running(pid: int) -> bool:
    """Whether `pid` may still be writing (when unsure, yes: the file stays)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; a number no pid can be
        return True
    return True
