"""The compiled-config cache of `evalkit eval`: a config that an earlier run checked skips the YAML parser and
the schema and semantic checks (and their imports, a third of a cold start), and is only compiled.

An entry holds a config's checked data as JSON, named after the config hash, the file names, the folder and
the evalkit build that checked it, in `$XDG_CACHE_HOME/evalkit` (else `~/.cache/evalkit`). Safety:

- tampering: each entry is signed with keyed BLAKE2b (a MAC by design, hashlib's documented replacement for
  HMAC) under a secret key of the user's own (`key`, mode 0600, made on first use); an entry that does
  not verify is ignored and written anew, and a key file that is not the user's alone turns the cache off.
  Entries are JSON, never pickle: even a forged one is only data.
- concurrent writers: an entry is written to a temporary file and renamed over its name (outputs/atomic.py),
  so readers see one whole entry or none, and the key is linked into place whole, the first writer's kept.

A cache entry or key that is not a regular file of its own (a named pipe, a link to `/dev/zero`), one larger
than MAX_ENTRY_BYTES, or one that verifies but does not compile (written by a build with another entry
shape) is a miss, never a hang or a crash; a relative `XDG_CACHE_HOME` is ignored, as the XDG spec says.

Only a config without diagnostics is cached: a warning is found, and printed, where a file is parsed.
`EVALKIT_NO_CACHE=1` turns the cache off; any error of the cache's own (an unwritable folder, a full disk)
falls back to checking the config as if there were none.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
from hashlib import blake2b
from hmac import compare_digest
from pathlib import Path
from typing import Any

from evalkit import __version__
from evalkit.engine.config import (
    CONFIG_NAMES,
    Config,
    _folder_problem,
    _yaml_bytes,
    analyze,
    config_files,
    default_config_dir,
    hash_config,
)
from evalkit.engine.plan import compile_plan

ENTRY_FORMAT = 2
"""1: signed with HMAC-SHA256; 2: with keyed BLAKE2b."""
KEY_BYTES = 32
MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""An entry larger than this is no entry of ours (checked data of five 4 MB config files is far smaller)."""


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/evalkit`, else `~/.cache/evalkit`; a relative `XDG_CACHE_HOME` is ignored (the XDG
    spec: it would put the cache in whatever folder the command runs from). Raises OSError when neither is
    an absolute path (no home at all)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        raise OSError("no absolute cache folder")
    return Path(base) / "evalkit"


def load_for_eval(folder: Path | str | None = None) -> Config:
    """`analyze(folder)` as `evalkit eval` needs it: diagnostics, config hash and plan (no parsed documents:
    eval reads none), from the cache when the same config was checked before."""
    if os.environ.get("EVALKIT_NO_CACHE", "") not in ("", "0"):
        return analyze(folder)
    where = Path(folder) if folder is not None else default_config_dir()
    try:
        return _through_cache(where, cache_dir())
    except OSError:
        return analyze(where)


def _through_cache(folder: Path, directory: Path) -> Config:
    files = config_files(folder)
    if _folder_problem(folder, files) is not None:
        return analyze(folder)
    raw_texts, unreadable = _yaml_bytes(folder, files, {})
    config_hash = hash_config(raw_texts)
    secret = _secret(directory)
    if unreadable or secret is None:
        return analyze(folder)
    name = entry_name(folder, files, raw_texts)
    entry = directory / "configs" / f"{blake2b(name.encode(), digest_size=32).hexdigest()}.json"
    data = _read_entry(entry, secret, name)
    if data is not None:
        try:
            return Config(folder, files=files, config_hash=config_hash, plan=compile_plan(data))
        except Exception:  # signed, yet not data this build compiles: a miss, checked and written anew
            pass
    config = analyze(folder)
    if config.plan is not None and not config.diagnostics and config.config_hash == config_hash:
        _write_entry(entry, secret, name, {kind: config.data(kind) for kind in CONFIG_NAMES})
    return config


def entry_name(folder: Path, files: dict[str, Path], raw_texts: dict[str, bytes]) -> str:
    """What an entry is named after (hashed) and signed under: the format, the build, the folder, the config
    hash and the file names."""
    return json.dumps(
        [
            ENTRY_FORMAT,
            _build(),
            str(folder.resolve()),
            hash_config(raw_texts),
            {kind: path.name for kind, path in files.items()},
            sorted(raw_texts),
        ]
    )


def _signature(secret: bytes, name: str, payload: bytes) -> str:
    return blake2b(name.encode() + b"\0" + payload, key=secret, digest_size=32).hexdigest()


def _read_entry(entry: Path, secret: bytes, name: str) -> dict[str, dict[str, Any]] | None:
    """The checked data an entry holds, or None when there is none or it does not verify."""
    try:
        raw = _read_regular(entry, MAX_ENTRY_BYTES)
    except OSError:
        return None
    if raw is None:
        return None
    signature, _, payload = raw.partition(b"\n")
    if not compare_digest(signature, _signature(secret, name, payload).encode()):
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict) and all(isinstance(part, dict) for part in data.values()):
        return data
    return None


def _read_regular(path: Path, limit: int, private: bool = False) -> bytes | None:
    """The bytes of `path` when it is the user's regular file of at most `limit` bytes (`private`: that
    others may not read), not a link; else None. Opened without blocking (a named pipe would wait for a
    writer forever) and without following a link (to `/dev/zero`, say); raises OSError."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit or (private and status.st_mode & 0o077):
            return None
        if hasattr(os, "getuid") and status.st_uid != os.getuid():
            return None
        raw = handle.read(limit + 1)
    return raw if len(raw) <= limit else None


def _write_entry(entry: Path, secret: bytes, name: str, data: dict[str, dict[str, Any]]) -> None:
    from evalkit.services.outputs.atomic import atomic_output

    payload = json.dumps(data, ensure_ascii=False).encode()
    if len(payload) + 65 > MAX_ENTRY_BYTES or not _same(json.loads(payload), data):
        return  # too large to be read back; or a YAML date in a free-form field: checked every run
    entry.parent.mkdir(mode=0o700, exist_ok=True)
    if _taken(entry):
        return
    with atomic_output(entry, binary=True) as handle:
        handle.write(_signature(secret, name, payload).encode() + b"\n" + payload)


def _taken(entry: Path) -> bool:
    """Whether something other than a regular file stands at `entry` (a named pipe, a link): written in
    place, as atomic_output writes such targets, it would block or write through the link."""
    try:
        return not stat.S_ISREG(os.lstat(entry).st_mode)
    except FileNotFoundError:
        return False


def _same(read: Any, written: Any) -> bool:
    """Whether JSON gave back what was written, down to the types (1 is not 1.0, a tuple not a list)."""
    if type(read) is not type(written):
        return False
    if isinstance(written, dict):
        return list(read) == list(written) and all(_same(read[k], written[k]) for k in written)
    if isinstance(written, list):
        return len(read) == len(written) and all(_same(r, w) for r, w in zip(read, written, strict=True))
    return bool(read == written) or (isinstance(read, float) and math.isnan(read) and math.isnan(written))


def _secret(directory: Path) -> bytes | None:
    """The user's cache key, made on first use; None when the key file is not the user's alone."""
    key = directory / "key"
    try:
        return _read_key(key)
    except FileNotFoundError:
        pass
    import secrets

    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = directory / f".key.{os.getpid()}-{os.urandom(4).hex()}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # a concurrent first run's key wins
            os.link(temporary, key)  # whole or not at all
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(key)


def _read_key(key: Path) -> bytes | None:
    """The key in `key`, or None when it is not the user's alone, not a regular file (a named pipe would
    block), or not KEY_BYTES long; raises OSError (FileNotFoundError when there is none)."""
    secret = _read_regular(key, KEY_BYTES, private=True)
    return secret if secret is not None and len(secret) == KEY_BYTES else None


def _build() -> str:
    """The evalkit build that checks configs: its version and its engine's and schemas' files (names, sizes,
    times), so that a changed checker never trusts what an earlier one passed."""
    digest = blake2b(__version__.encode(), digest_size=32)
    for folder in checker_folders():
        for item in sorted(os.scandir(folder), key=lambda item: item.name):
            if item.is_file():
                status = item.stat()
                digest.update(f"{item.name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def checker_folders() -> tuple[Path, Path]:
    """The folders of the code that checks a config: the engine's and the schemas'."""
    from importlib.util import find_spec

    from evalkit import engine

    schemas = find_spec("evalkit.schemas")  # found, not imported: its import costs a millisecond
    return Path(str(engine.__file__)).parent, Path(str(schemas and schemas.origin)).parent
