"""Config folders: find the five YAML files, parse them with limits, validate them against their schemas,
run the semantic checks, and compile the plan. One loader for eval, check, the language server and the TUI.

`analyze()` never raises: it returns a Config whose `diagnostics` say everything found and whose `plan` is
None when any is an error. `load_config()` is the strict form the Python API documents.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.engine.limits import MAX_YAML_BYTES
from evalkit.engine.plan import ConfigPlan, compile_plan
from evalkit.engine.text import NotText, TooLarge, decode_utf8, not_a_regular_file, read_capped

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic, Span
    from evalkit.engine.yamlsource import YamlDocument

# The YAML parser, the schema and semantic checks and the diagnostics are imported where a file is parsed
# or a problem found: `evalkit eval` with its config cache warm (services/config/cache.py) does neither, and
# they were a third of its start.

CONFIG_NAMES = ("dimensions", "ranking", "prompt", "rewrite", "rules")


class ConfigError(Exception):
    """The config has error-level diagnostics; they are in `diagnostics`, sorted by file and line."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        from evalkit.engine.diagnostics import Diagnostic

        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        errors = [d for d in self.diagnostics if d.severity == 1]
        super().__init__("\n".join(d.format() for d in errors) or "invalid config")


class Config:
    """A config folder as read: its files and documents, their diagnostics, the hash and, when it has no
    errors, the compiled plan. A plain class, as the engine's others (engine/plan.py says why)."""

    def __init__(
        self,
        folder: Path,
        files: dict[str, Path] | None = None,
        documents: dict[str, YamlDocument] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        config_hash: str = "",
        plan: ConfigPlan | None = None,
    ) -> None:
        self.folder = folder
        self.files: dict[str, Path] = {} if files is None else files
        """The config files read, by config name: those on disk and those only in an editor's buffer."""
        self.documents: dict[str, YamlDocument] = {} if documents is None else documents
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.config_hash = config_hash
        self.plan = plan

    @property
    def ok(self) -> bool:
        return self.plan is not None

    def data(self, name: str) -> dict[str, Any]:
        document = self.documents.get(name)
        return document.data if document is not None and isinstance(document.data, dict) else {}


def default_config_dir() -> Path:
    from evalkit import config_samples

    if config_samples.__file__ is not None:  # importlib.resources costs a tenth of a cold start
        return Path(config_samples.__file__).parent
    from importlib import resources

    return Path(str(resources.files("evalkit.config_samples")))


def config_files(folder: Path, unsaved: Mapping[str, str] | None = None) -> dict[str, Path]:
    """The config files present in `folder`, by config name (`.yaml` preferred over `.yml`). A path in
    `unsaved` (an editor's buffer not yet saved) is present too."""
    found = {}
    for name in CONFIG_NAMES:
        for suffix in (".yaml", ".yml"):
            candidate = folder / f"{name}{suffix}"
            if _present(candidate) or (unsaved and str(candidate) in unsaved):
                found[name] = candidate
                break
    return found


def _present(path: Path) -> bool:
    """A file, or what stands where one should and cannot be read (a folder, a named pipe, a device, a
    symbolic link that loops or leads nowhere): analyze() reports why, rather than skipping it as if
    absent."""
    try:
        os.lstat(path)
    except OSError:  # absent, or a folder we may not enter: analyze() reports the latter
        return False
    return True


def config_name(path: Path) -> str | None:
    """The config name a file stands for (`rules` for rules.yml), or None."""
    return path.stem if path.suffix in (".yaml", ".yml") and path.stem in CONFIG_NAMES else None


def hash_config(texts: Mapping[str, bytes]) -> str:
    """SHA-256 of the folder's YAML files' raw bytes, concatenated in sorted file-name order."""
    from hashlib import sha256  # here, not at the top: `import evalkit.engine` does without OpenSSL

    digest = sha256()
    for name in sorted(texts):
        digest.update(texts[name])
    return digest.hexdigest()


_MAX_CONFIG_FILE_BYTES = 4 * MAX_YAML_BYTES
"""MAX_YAML_BYTES counts characters; UTF-8 spends at most four bytes on one."""


def _read(path: Path, overrides: Mapping[str, str]) -> tuple[bytes | None, Diagnostic | None]:
    override = overrides.get(str(path))
    if override is not None:
        return override.encode("utf-8"), None
    return read_config_file(path)


def read_config_file(path: Path) -> tuple[bytes | None, Diagnostic | None]:
    """The bytes of a config or rule test file, or the diagnostic saying why it cannot be read."""
    kind = not_a_regular_file(path)
    if kind is not None:  # never opened: a named pipe would block, a device never end
        return None, _unreadable(path, "unreadable", f"cannot read the file: it is {kind}")
    try:
        return read_capped(path, _MAX_CONFIG_FILE_BYTES), None
    except OSError as exc:
        return None, _unreadable(path, "unreadable", f"cannot read the file: {exc.strerror or exc}")
    except TooLarge:
        return None, _unreadable(
            path,
            "file-too-large",
            f"the file is larger than "
            f"{_MAX_CONFIG_FILE_BYTES:,} bytes; the limit is {MAX_YAML_BYTES:,} characters",
        )


def _unreadable(path: Path, code: str, message: str) -> Diagnostic:
    from evalkit.engine.diagnostics import FILE_START, error

    return error(str(path), FILE_START, code, message)


def _decode(raw: bytes, path: str) -> tuple[str | None, Diagnostic | None]:
    from evalkit.engine.diagnostics import Span, error

    try:
        return decode_utf8(raw), None
    except NotText as exc:
        return None, error(path, Span.point(exc.line, exc.column), "not-utf8", exc.reason)


def _load_document(name: str, path: Path, raw: bytes) -> tuple[YamlDocument | None, list[Diagnostic]]:
    from evalkit.engine.diagnostics import Severity, error, has_errors
    from evalkit.engine.schema_check import schema_diagnostics
    from evalkit.engine.semantic import semantic_diagnostics
    from evalkit.engine.type_words import found_words
    from evalkit.engine.yamlsource import parse_yaml

    text, problem = _decode(raw, str(path))
    if text is None:
        return None, [problem] if problem else []
    document, diagnostics = parse_yaml(text, str(path))
    if document is None:
        return None, diagnostics
    if document.data is None:
        document.data = {}
    if not isinstance(document.data, dict):
        return None, [
            *diagnostics,
            error(
                str(path),
                _document_span(document),
                "wrong-type",
                f"{path.name} must be a mapping of keys, not {found_words(document.data)}",
            ),
        ]
    # the semantic checks read only what has the right shape, so one run reports both kinds of errors;
    # their warnings wait until the file reads cleanly and fits its schema (they would mostly restate an
    # error: a bad `<<` merge leaves its mapping empty, which is no reason to warn of a rule without actions)
    found = schema_diagnostics(document, name)
    semantic = semantic_diagnostics(name, document)
    if has_errors(diagnostics) or has_errors(found):
        semantic = [d for d in semantic if d.severity == Severity.ERROR]
    # one problem, one diagnostic: `.inf` where an integer belongs is the schema's wrong type, not also a
    # number that is not finite
    refused = {d.span for d in found if d.severity == Severity.ERROR}
    semantic = [d for d in semantic if d.span not in refused]
    return document, [*diagnostics, *found, *semantic]


def _document_span(document: YamlDocument) -> Span:
    """The document's root node, from its first token to the end of its last line of content (a block
    node ends where the next token begins: after the blank and comment lines that follow it)."""
    from evalkit.engine.diagnostics import Span

    span = document.value_span(())
    if span.end_column != 1 or span.end_line <= span.line:
        return span
    lines, last = document.lines(), span.end_line - 1
    while last > span.line and lines[last - 1].strip()[:1] in ("", "#"):
        last -= 1
    return Span(span.line, span.column, last, len(lines[last - 1].rstrip()) + 1)


def _yaml_bytes(
    folder: Path, files: dict[str, Path], overrides: Mapping[str, str]
) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """The raw bytes of every YAML file in the folder (the config hash covers them all, also those that
    exist only in `overrides`: a folder read from git), and a problem for each config file that cannot be
    read (or is a folder, a named pipe or a device where a config file is looked for): never taken for an
    empty file, nor skipped."""
    texts: dict[str, bytes] = {}
    problems: list[Diagnostic] = []
    config_paths = set(files.values())
    given = (Path(path) for path in overrides)
    for path in sorted(
        {
            *(folder.glob("*.y*ml") if folder.is_dir() else ()),
            *config_paths,
            *(path for path in given if path.parent == folder),
        }
    ):
        if path.suffix not in (".yaml", ".yml"):
            continue
        raw, problem = _read(path, overrides)
        if raw is not None:
            texts[path.name] = raw
        elif problem is not None and (path in config_paths or config_name(path) is not None):
            problems.append(problem)
    return texts, problems


def _folder_problem(folder: Path, files: dict[str, Path]) -> Diagnostic | None:
    """Why the config folder cannot be read, or None. A folder that does not exist yet is no problem when
    an editor holds unsaved config files for it."""
    try:
        os.listdir(folder)
    except OSError as exc:
        return _folder_error(str(folder), exc, files)
    return None


def _folder_error(where: str, exc: OSError, files: dict[str, Path]) -> Diagnostic | None:
    from evalkit.engine.diagnostics import FILE_START, error

    if isinstance(exc, FileNotFoundError):
        missing = "the config folder does not exist"
        return None if files else error(where, FILE_START, "no-config-dir", missing)
    if isinstance(exc, NotADirectoryError):
        return error(where, FILE_START, "no-config-dir", "not a folder (a config is a folder of YAML files)")
    return error(where, FILE_START, "unreadable", f"cannot read the folder: {exc.strerror or exc}")


def analyze(folder: Path | str | None = None, overrides: Mapping[str, str] | None = None) -> Config:
    """Load, check and compile the config in `folder` (None: the shipped default). `overrides` maps a file
    path to unsaved text that replaces the file's content on disk (the editor's buffer)."""
    from evalkit.engine.diagnostics import FILE_START, Diagnostic, has_errors, warning

    folder = Path(folder) if folder is not None else default_config_dir()
    overrides = overrides or {}
    config = Config(folder)
    files = config.files = config_files(folder, overrides)
    problem = _folder_problem(folder, files)
    if problem is not None:
        config.diagnostics.append(problem)
        return config
    for name in CONFIG_NAMES:
        if name in files and (folder / f"{name}.yml").is_file() and files[name].suffix == ".yaml":
            config.diagnostics.append(
                warning(
                    str(folder / f"{name}.yml"),
                    FILE_START,
                    "shadowed-file",
                    f"ignored: {name}.yaml in the same folder takes precedence",
                )
            )
    raw_texts, unreadable = _yaml_bytes(folder, files, overrides)
    config.diagnostics.extend(unreadable)
    for name, path in files.items():
        if path.name not in raw_texts:
            continue
        document, found = _load_document(name, path, raw_texts[path.name])
        config.diagnostics.extend(found)
        if document is not None:
            config.documents[name] = document
    config.config_hash = hash_config(raw_texts)
    config.diagnostics.sort(key=Diagnostic.sort_key)
    if not has_errors(config.diagnostics):
        config.plan = compile_plan({name: config.data(name) for name in CONFIG_NAMES})
    return config


def load_config(path: Path | str | None = None) -> Config:
    """The config in folder `path` (None: the shipped default); raises ConfigError when it has errors."""
    config = analyze(path)
    if config.plan is None:
        raise ConfigError(config.diagnostics)
    return config
