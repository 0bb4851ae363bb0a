"""A config folder as it was at a git revision, read from git's objects (no checkout, no worktree).

`config_at(revision, folder)` returns the folder's YAML files at that revision as a `ConfigSource`: a
folder name that cannot exist on disk (`HEAD:configs/main`, git's own notation, so its diagnostics read
`HEAD:configs/main/rules.yaml:5:3: ...`) and the files' texts, which `analyze` reads as unsaved buffers.
Only `git` itself is run: `rev-parse` to find the repository and the commit, `ls-tree` to list the
folder, one `cat-file --batch` for every file's content.

Exceptions: `RevisionError` (git missing or failing, no config files at the revision) and its subclass
`NoRevision` (no such revision; `NotInRepository` when there is no repository at all) and `NotUtf8` (a
file that is not text, said as a diagnostic), each with a one-line message.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.engine.config import Config, analyze
from evalkit.engine.text import NotText, decode_utf8

SYMLINK_MODE = "120000"
"""git's mode of a symbolic link: its blob holds the link's target, not the file's text."""


class RevisionError(Exception):
    """The revision cannot be read; the message says why in one line."""


class NoRevision(RevisionError):
    """No such revision: the folder is not in a git repository, or the repository lacks the revision."""


class NotInRepository(NoRevision):
    """The folder is not in a git repository."""


class NotUtf8(RevisionError):
    """A file at the revision is not UTF-8 text; the message is its diagnostic, as `check` prints it."""

    def __init__(self, message: str, folder: str) -> None:
        super().__init__(message)
        self.folder = folder


@dataclass(frozen=True)
class ConfigSource:
    """Where a config comes from: a folder on disk, and texts that replace (or stand for) its files."""

    folder: str
    texts: dict[str, str] = field(default_factory=dict)

    def analyze(self) -> Config:
        return analyze(Path(self.folder), self.texts)


def _git(folder: Path, *args: str, data: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], input=data, capture_output=True, check=False)
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
    inside = folder.resolve().relative_to(top.resolve()).as_posix()
    return top, "" if inside == "." else inside


def _commit(top: Path, revision: str) -> str:
    try:
        return (
            _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
            .decode()
            .strip()
        )
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


def _contents(top: Path, objects: list[str], revision: str) -> list[bytes]:
    """The objects' bytes, in order, from one `git cat-file --batch` (links inside the tree followed)."""
    out = _git(
        top, "cat-file", "--batch", "--follow-symlinks", data="".join(f"{o}\n" for o in objects).encode()
    )
    found, at = [], 0
    for wanted in objects:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        if header[-1] == b"missing":
            raise RevisionError(f"{_shown(wanted, revision)}: git cannot read it at {revision}")
        size = int(header[-1])
        content = out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1  # the content, then a newline
        if header[1:2] != [b"blob"]:  # symlink (out of the repository), dangling, loop, notdir
            reason = header[0].decode()
            target = content.decode("utf-8", "replace")
            raise RevisionError(
                f"{_shown(wanted, revision)}: a symbolic link git cannot follow at {revision} "
                f"({reason}: {target})"
            )
        found.append(content)
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
    contents = _contents(top, list(blobs.values()), revision)
    paths = [str(Path(virtual) / name) for name in blobs]
    return ConfigSource(
        virtual, {path: _decoded(path, raw) for path, raw in zip(paths, contents, strict=True)}
    )
