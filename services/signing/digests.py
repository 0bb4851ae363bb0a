"""SHA-256 of bytes and of files, for signing and verifying.

By cryptography's OpenSSL, which signing and verifying load anyway: `evalkit verify` then loads no second
libcrypto through hashlib (3 ms; `evalkit eval` loads hashlib for the config hash in any case), and
CPython's own `_sha256` hashes a large file at a fraction of OpenSSL's speed.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

from cryptography.hazmat.primitives import hashes

CHUNK = 1 << 20


def sha256_hex(data: bytes) -> str:
    digest = hashes.Hash(hashes.SHA256())
    digest.update(data)
    return digest.finalize().hex()


def file_sha256(path: Path | str) -> str:
    """The regular file's SHA-256: a small file in one read, a large one in chunks into one buffer
    (constant memory, at hashing speed). OSError for anything else: a named pipe (opened without waiting
    for a writer), `/dev/zero`, a folder."""
    with _open_regular(path) as handle:
        if os.fstat(handle.fileno()).st_size < CHUNK:
            return sha256_hex(handle.readall())
        digest = hashes.Hash(hashes.SHA256())
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        while count := handle.readinto(buffer):
            digest.update(view[:count])
    return digest.finalize().hex()


def _open_regular(path: Path | str) -> io.FileIO:
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return io.FileIO(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
