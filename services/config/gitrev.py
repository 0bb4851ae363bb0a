"""A config folder as it was at a git revision, read from git's objects (no checkout, no worktree).

`config_at(revision, folder)` returns the folder's YAML files at that revision as a `ConfigSource`: a
folder name that cannot exist on disk (`HEAD:configs/main`, git's own notation, so its diagnostics read
`HEAD:configs/main/rules.yaml:5:3: ...`) and the files' texts, which `analyze` reads as unsaved buffers.
Only `git` itself is run: `rev-parse` to find the repository and the commit, `ls-tree` to list the
folder, one `cat-file --batch-check` for every file's size (a file larger than a config may be is said, not
read: a 450 MB blob stays in git), one `cat-file --batch` for the contents of the rest.

The repository read is the one that holds the config folder, found from the folder as `git -C FOLDER`
finds it. The variables through which git points its commands at a repository (`GIT_DIR`, `GIT_WORK_TREE`,
`GIT_INDEX_FILE`, ...: `REPOSITORY_VARIABLES`) are not passed on: git exports them inside hooks, where
`evalkit diff` runs (there `GIT_DIR=.git` is relative to the hook's folder, not the config's), and set
elsewhere they name another repository than the config's.

Exceptions: `RevisionError` (git missing or failing, no config files at the revision) and its subclasses
`NoRevision` (no such revision; `NotInRepository` when there is no repository at all) and `BadFile` (a file
that is not text, `NotUtf8`, or too large, said as a diagnostic), each with a one-line message.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.engine.config import _MAX_CONFIG_FILE_BYTES, Config, analyze
from evalkit.engine.limits import MAX_YAML_BYTES
from evalkit.engine.text import NotText, decode_utf8

SYMLINK_MODE = "120000"
"""git's mode of a symbolic link: its blob holds the link's target, not the file's text."""


class RevisionError(Exception):
    """The revision cannot be read; the message says why in one line."""


class NoRevision(RevisionError):
    """No such revision: the folder is not in a git repository, or the repository lacks the revision."""


class NotInRepository(NoRevision):
    """The folder is not in a git repository."""


class BadFile(RevisionError):
    """A file at the revision cannot be a config file; the message is its diagnostic, as `check` prints it."""

    def __init__(self, message: str, folder: str) -> None:
        super().__init__(message)
        self.folder = folder


class NotUtf8(BadFile):
    """A file at the revision is not UTF-8 text."""


class TooLarge(BadFile):
    """A file at the revision is larger than a config file may be: said from its size, never read."""


REPOSITORY_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_PREFIX",
        "GIT_NAMESPACE",
        "GIT_GRAFT_FILE",
        "GIT_SHALLOW_FILE",
        "GIT_REPLACE_REF_BASE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_INTERNAL_SUPER_PREFIX",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    }
)
"""What git reads to choose a repository other than the one it finds from its folder (`git rev-parse
--local-env-vars`, and the discovery limits): not passed on, so that git reads the config folder's."""


@dataclass(frozen=True)
class ConfigSource:
    """Where a config comes from: a folder on disk, and texts that replace (or stand for) its files."""

    folder: str
    texts: dict[str, str] = field(default_factory=dict)

    def analyze(self) -> Config:
        return analyze(Path(self.folder), self.texts)


def _git(folder: Path, *args: str, data: bytes | None = None) -> bytes:
    environment = {name: value for name, value in os.environ.items() if name not in REPOSITORY_VARIABLES}
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args], input=data, capture_output=True, check=False, env=environment
        )
    except OSError as exc:
        raise RevisionError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RevisionError(reason[-1] if reason else f"git {args[0]} failed")
    return done.stdout


def _repository(folder: Path) -> tuple[Path, str]:
    """The repository's top folder and `folder`'s path inside it (`configs/main`, or `` for the top)."""
    probe = folder if folder.is_dir() else folder.parent
    try:
        top = Path(_git(probe, "rev-parse", "--show-toplevel").decode().strip())
    except RevisionError:
        raise NotInRepository(f"{folder} is not inside a git repository") from None
    try:
        inside = folder.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:  # git's top is not above the folder (a link between them, git's own oddities)
        raise NotInRepository(f"{folder} is not inside the git repository git found for it ({top})") from None
    return top, "" if inside == "." else inside


def _commit(top: Path, revision: str) -> str:
    """The commit `revision` names. Resolved as it is first, then peeled to its commit: a suffix on the
    revision itself would be read as part of it (`:/fix the rule^{commit}` searches for that text)."""
    try:
        named = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", revision).decode().strip()
        return _git(top, "rev-parse", "--verify", "--quiet", f"{named}^{{commit}}").decode().strip()
    except RevisionError:
        raise NoRevision(f"{revision!r} is not a revision of the git repository at {top}") from None


def _yaml_blobs(top: Path, commit: str, inside: str) -> dict[str, str]:
    """The YAML files directly in the folder at `commit`: name -> the object to read (a blob id, or for a
    symbolic link `commit:path`, which `cat-file --follow-symlinks` reads through the link)."""
    listing = _git(top, "ls-tree", "-z", commit, "--", f"{inside}/" if inside else ".")
    blobs = {}
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.decode("utf-8", "surrogateescape").partition("\t")
        mode, kind, blob = meta.split()
        name = path.rsplit("/", 1)[-1]
        if kind == "blob" and name.endswith((".yaml", ".yml")):
            blobs[name] = f"{commit}:{path}" if mode == SYMLINK_MODE else blob
    return blobs


def _contents(top: Path, objects: list[str], revision: str, paths: list[str]) -> list[bytes]:
    """The objects' bytes, in order (links inside the tree followed): their sizes from one `git cat-file
    --batch-check`, then the contents of those small enough from one `git cat-file --batch`; raises TooLarge
    for one larger than a config file may be, never reading it."""
    blobs = _blob_ids(top, objects, revision)
    for (_, size), path in zip(blobs, paths, strict=True):
        if size > _MAX_CONFIG_FILE_BYTES:
            raise TooLarge(
                f"{path}:1:1: error[file-too-large] the file is larger than {_MAX_CONFIG_FILE_BYTES:,} bytes "
                f"({size:,} bytes); the limit is {MAX_YAML_BYTES:,} characters",
                str(Path(path).parent),
            )
    out = _git(top, "cat-file", "--batch", data="".join(f"{blob}\n" for blob, _ in blobs).encode())
    found, at = [], 0
    for _, size in blobs:
        header_end = out.index(b"\n", at)
        found.append(out[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1  # the content, then a newline
    return found


def _blob_ids(top: Path, objects: list[str], revision: str) -> list[tuple[str, int]]:
    """Each object's blob id and size, read through links inside the tree (`--follow-symlinks`)."""
    wanted_lines = "".join(f"{o}\n" for o in objects).encode()
    out = _git(top, "cat-file", "--batch-check", "--follow-symlinks", data=wanted_lines)
    lines = iter(out.split(b"\n"))
    found = []
    for wanted in objects:
        header = next(lines).split()
        if header[-1] == b"missing":
            raise RevisionError(f"{_shown(wanted, revision)}: git cannot read it at {revision}")
        if len(header) == 2:  # symlink (out of the repository), dangling, loop, notdir: then what it names
            reason, target = header[0].decode(), next(lines).decode("utf-8", "replace")
            raise RevisionError(
                f"{_shown(wanted, revision)}: a symbolic link git cannot follow at {revision} "
                f"({reason}: {target})"
            )
        if header[1] != b"blob":  # a link to a folder inside the tree
            kind = header[1].decode()
            raise RevisionError(f"{_shown(wanted, revision)}: a {kind}, not a file, at {revision}")
        found.append((header[0].decode(), int(header[2])))
    return found


def _shown(wanted: str, revision: str) -> str:
    """A `commit:path` object as `revision:path`, as the diagnostics name the files."""
    return f"{revision}:{wanted.partition(':')[2]}" if ":" in wanted else wanted


def _decoded(path: str, raw: bytes) -> str:
    try:
        return decode_utf8(raw)
    except NotText as exc:
        where = f"{path}:{exc.line}:{exc.column}"
        raise NotUtf8(f"{where}: error[not-utf8] {exc.reason}", str(Path(path).parent)) from None


def config_at(revision: str, folder: Path) -> ConfigSource:
    """The config folder `folder` as it was at `revision`."""
    top, inside = _repository(folder)
    commit = _commit(top, revision)
    blobs = _yaml_blobs(top, commit, inside)
    if not blobs:
        raise RevisionError(
            f"{revision} has no YAML files in {inside or 'the top folder'} of the repository at {top}"
        )
    virtual = f"{revision}:{inside}" if inside else f"{revision}:"
    paths = [str(Path(virtual) / name) for name in blobs]
    contents = _contents(top, list(blobs.values()), revision, paths)
    return ConfigSource(
        virtual, {path: _decoded(path, raw) for path, raw in zip(paths, contents, strict=True)}
    )
