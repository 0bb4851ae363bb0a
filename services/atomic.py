"""Atomic output: write to a temporary file in the same folder, then rename it over the target, so a reader
never sees half a file and a crash never leaves one.

A target that exists but is not a regular file (`/dev/null`, `/dev/stdout`, a named pipe) is written in
place: renaming over it would replace the device with a plain file.
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
    target = Path(path)
    mode, encoding = ("wb", None) if binary else ("w", "utf-8")
    if _special(target):
        with open(target, mode, encoding=encoding) as handle:
            yield handle
        return
    # os.urandom, not secrets: the name needs no more, and `secrets` imports `random`, a cold start's 2%
    temp = target.with_name(f".{target.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
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


def write_text_atomic(path: Path | str, text: str) -> None:
    with atomic_output(path) as handle:
        handle.write(text)
