"""One reviewer app per journal: a lock file beside the journal, held with `flock` while the app runs.

Two apps appending to one journal replay each other's steps wrongly: one's undo writes `clear` over the
other's later decision, and a saved decision is gone. So the app takes `<journal>.lock` first and writes
who holds it there (pid, user, host, since when); a second app is refused with that holder named. The
kernel drops an `flock` when its process ends, however it ends, so the file a killed app leaves behind
holds no lock: the next app takes it over and says whose it was. A normal quit removes the file.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from evalkit.tui.visible import visible

LOCK_SUFFIX = ".lock"
HOLDER_LIMIT = 1024  # bytes of a lock file read for its holder: it is one short line


class JournalLocked(Exception):
    """Another app holds the journal; the message names the journal and the holder."""


@dataclass
class JournalLock:
    path: Path
    fd: int | None  # None: the lock file could not be made (a read-only folder); nothing is held
    stale_holder: str | None = None  # who left the lock file this app took over, if anyone
    problem: str | None = None  # why nothing is held

    def release(self) -> None:
        """Remove the lock file (if it is still ours) and drop the lock."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            if _same_file(self.fd, self.path):
                self.path.unlink()
        os.close(self.fd)
        self.fd = None


def lock_path(journal: Path) -> Path:
    """Beside the journal's real file: two apps naming it through a link or another path share one lock."""
    real = journal.resolve()
    return real.with_name(real.name + LOCK_SUFFIX)


def lock_journal(journal: Path) -> JournalLock:
    """Hold the journal's lock for this process; raises JournalLocked when another app holds it."""
    path = lock_path(journal)
    for _ in range(10):  # a lock file removed between our open and our flock is tried again
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            return JournalLock(path, None, problem=f"{path}: cannot lock: {exc.strerror or exc}")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise JournalLocked(_refusal(journal, holder)) from None
        if _same_file(fd, path):
            return JournalLock(path, fd, stale_holder=_take_over(fd))
        os.close(fd)
    raise JournalLocked(f"{visible(str(journal), lines=False)}: its lock file {path} keeps changing")


def _refusal(journal: Path, holder: str) -> str:
    return (
        f"{visible(str(journal), lines=False)}: another evalkit review has this journal open "
        f"({holder or 'holder unknown'}); two apps on one journal undo each other's decisions. "
        "Close that one first, or give this one its own --decisions FILE."
    )


def _same_file(fd: int, path: Path) -> bool:
    """Whether `path` still names the file open as `fd` (a quitting app may have removed it)."""
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


def _holder(fd: int) -> str:
    raw = os.pread(fd, HOLDER_LIMIT, 0)
    return visible(raw.decode("utf-8", "replace").strip(), lines=False)


def _take_over(fd: int) -> str | None:
    """Write this app as the holder; return the holder a killed app left there, if any."""
    left = _holder(fd) or None
    os.ftruncate(fd, 0)
    os.pwrite(fd, _me().encode("utf-8"), 0)
    return left


def _me() -> str:
    since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return f"pid {os.getpid()}, user {user} on {socket.gethostname()}, since {since}\n"
