"""The in-toto Statement v1 that a signed run's DSSE envelope carries.

Subjects: every file the run wrote, by its path relative to the bundle's folder, with its SHA-256. The
predicate (type `PREDICATE_TYPE`) borrows SLSA's verification summary names where they fit: `verifier`
(evalkit, its version, whether the engine ran compiled), `timeVerified` (RFC 3339, UTC: the signer's clock
unless a timestamp authority countersigned), `policy` (the config: `config_hash` as the seed defines it and
each YAML file's digest); then evalkit's own: `inputs`, `summary`, `invocation` (the command line, without
secrets, and which output is which, for `evalkit verify --reproduce`) and `timestamp`.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalkit.services.signing.digests import file_sha256, sha256_hex

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:evalkit:attestation:run:v1"


class RunRecord:
    """What a signed run did, as the command saw it. (A plain class: a dataclass costs a signed run 0.4 ms
    to define.)"""

    def __init__(
        self,
        command: str,
        arguments: list[str],
        outputs: dict[str, str],
        config_dir: Path | None = None,
        tsa_url: str | None = None,
    ) -> None:
        self.command, self.arguments, self.tsa_url = command, arguments, tsa_url
        self.outputs = outputs  # role (the option's name: out, explain_json...) -> path as given
        self.config_dir = config_dir  # None: no config (score); the shipped one is named by the command
        self.inputs: list[Path] = []
        self.summary: dict[str, Any] = {}


def descriptor(name: str, path: Path | str) -> dict[str, Any]:
    return {"name": name, "digest": {"sha256": file_sha256(path)}}


def subject_name(path: str, bundle_folder: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), bundle_folder.resolve())).as_posix()


def statement(record: RunRecord, bundle_folder: Path, now: float | None = None) -> dict[str, Any]:
    subjects = [descriptor(subject_name(p, bundle_folder), p) for p in dict.fromkeys(record.outputs.values())]
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate(record, time.time() if now is None else now),
    }


def predicate(record: RunRecord, now: float) -> dict[str, Any]:
    from evalkit import __version__

    return {
        "verifier": {"id": "evalkit", "version": {"evalkit": __version__}, "compiled": engine_compiled()},
        "timeVerified": rfc3339(now),
        "policy": None if record.config_dir is None else config_policy(record.config_dir),
        "inputs": [descriptor(str(path), path) for path in record.inputs],
        "summary": record.summary,
        "invocation": {
            "command": record.command,
            "arguments": without_secrets(record.arguments),
            "outputs": record.outputs,
        },
        "timestamp": {
            "authority": None if record.tsa_url is None else _url_without_password(record.tsa_url),
            "trusted": record.tsa_url is not None,
            "note": "an RFC 3161 token over the signature is in the bundle"
            if record.tsa_url
            else "no trusted time: timeVerified is the signer's clock",
        },
    }


def rfc3339(moment: float) -> str:
    """Seconds since the epoch as RFC 3339 in UTC (`2026-12-04T18:51:02Z`)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def engine_compiled() -> bool:
    origin = importlib.import_module("evalkit.engine.evaluator").__file__ or ""
    return origin.endswith((".so", ".pyd"))


def config_policy(folder: Path) -> dict[str, Any]:
    """The config folder's YAML files (those the engine reads) with their digests, and config_hash."""
    from evalkit.engine.config import config_files, hash_config

    paths = sorted(config_files(folder).values(), key=lambda p: p.name)
    texts = {path.name: path.read_bytes() for path in paths if path.is_file()}
    files = [{"name": name, "digest": {"sha256": sha256_hex(data)}} for name, data in texts.items()]
    config_hash = hash_config(texts)
    return {
        "uri": f"evalkit-config:sha256:{config_hash}",
        "digest": {"sha256": config_hash},
        "config_hash": config_hash,
        "folder": str(folder),
        "files": sorted(files, key=lambda f: f["name"]),
    }


SECRET_FLAGS = ("--password", "--passphrase", "--token")


def without_secrets(arguments: Iterable[str]) -> list[str]:
    """The command line as typed, less any secret: a value given to a password or token option, and the
    password part of a URL (`postgresql://user:SECRET@host`)."""
    kept: list[str] = []
    hide_next = False
    for argument in arguments:
        if hide_next:
            kept.append("***")
            hide_next = False
            continue
        flag, equals, _ = argument.partition("=")
        if flag in SECRET_FLAGS:
            hide_next = not equals
            kept.append(f"{flag}=***" if equals else flag)
            continue
        kept.append(_url_without_password(argument))
    return kept


def _url_without_password(text: str) -> str:
    scheme, sep, rest = text.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return text
    credentials, _, host = rest.partition("@")
    user, colon, _password = credentials.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{host}"
