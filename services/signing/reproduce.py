"""`evalkit verify --reproduce`: run the signed command again from its recorded inputs and config, into a
temporary folder, and compare the bytes of what it writes with the signed outputs.

Before running, the recorded inputs and config must still be the ones signed (else "inputs differ" or
"config differs"). Run it from the folder the signed run was made in: inputs are recorded as typed. The
log (`--log-file`) holds the time of each line, so it is not compared.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from evalkit.engine.text import shown
from evalkit.services.signing.digests import file_sha256
from evalkit.services.signing.statement import config_policy
from evalkit.services.signing.verify import Verification

NOT_COMPARED = frozenset({"log_file"})
DROPPED_FLAGS = ("--sign", "--tsa")
TIMEOUT_SECONDS = 3600


def reproduce(predicate: dict[str, Any], config_dir: str | None, result: Verification) -> None:
    inputs_hold = _inputs_hold(predicate.get("inputs") or [], result)
    config_holds = _config_holds(predicate.get("policy"), config_dir, result)
    if not (inputs_hold and config_holds):
        return
    invocation = predicate.get("invocation") or {}
    outputs: dict[str, str] = invocation.get("outputs") or {}
    if "decisions" in outputs:
        result.add("reproduce", False, "a review session's checkpoint: a session cannot be run again")
        return
    with tempfile.TemporaryDirectory(prefix="evalkit-reproduce-") as folder:
        fresh = {role: str(Path(folder) / f"{role}{Path(path).suffix}") for role, path in outputs.items()}
        folder_given = config_dir or (predicate.get("policy") or {}).get("folder")
        argv = rerun_arguments(invocation.get("arguments") or [], outputs, fresh, folder_given)
        command = [sys.executable, "-m", "evalkit", str(invocation.get("command")), *argv]
        try:
            done = subprocess.run(command, capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            result.add("reproduce", False, f"the run did not end in {TIMEOUT_SECONDS} s")
            return
        if done.returncode not in (0, 1):
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            result.add("reproduce", False, f"the run failed (exit {done.returncode}): {why[0]}")
            return
        for role, path in outputs.items():
            if role not in NOT_COMPARED:
                _compare(role, path, fresh[role], result)


def _inputs_hold(inputs: list[dict[str, Any]], result: Verification) -> bool:
    changed = []
    for item in inputs:
        name = str(item.get("name"))
        try:
            same = file_sha256(name) == (item.get("digest") or {}).get("sha256")
        except OSError:
            same = False
        if not same:
            changed.append(shown(name))
    detail = f"{len(inputs)} inputs as signed" if not changed else f"inputs differ: {', '.join(changed[:5])}"
    return result.add("reproduce: inputs", not changed, detail)


def _config_holds(policy: dict[str, Any] | None, config_dir: str | None, result: Verification) -> bool:
    if policy is None:
        return True
    folder = Path(config_dir or policy.get("folder") or "")
    if not folder.is_dir():
        return result.add("reproduce: config", False, f"config differs: {shown(str(folder))} is no folder")
    now = config_policy(folder)["config_hash"]
    same = now == policy.get("config_hash")
    detail = (
        f"config_hash {now}"
        if same
        else f"config differs: config_hash {now} is not {policy.get('config_hash')}"
    )
    return result.add("reproduce: config", same, detail)


def rerun_arguments(
    arguments: list[str], outputs: dict[str, str], fresh: dict[str, str], config_dir: str | None
) -> list[str]:
    """The signed command line with each output pointed at `fresh`, --sign and --tsa dropped, and the
    config folder named (the signed one, or the one given)."""
    flags = {"--" + role.replace("_", "-"): role for role in outputs}
    kept: list[str] = []
    tokens = iter(arguments)
    for token in tokens:
        flag, equals, _ = token.partition("=")
        if flag in DROPPED_FLAGS or flag == "--config-dir":
            if not equals:
                next(tokens, None)
            continue
        if flag in flags:
            if not equals:
                next(tokens, None)
            kept += [flag, fresh[flags[flag]]]
            continue
        kept.append(token)
    if config_dir is not None:
        kept += ["--config-dir", os.fspath(config_dir)]
    return kept


def _compare(role: str, signed: str, fresh: str, result: Verification) -> None:
    try:
        same = file_sha256(fresh) == file_sha256(signed)
    except OSError as exc:
        result.add(f"reproduce {shown(signed)}", False, f"cannot read: {exc.strerror}")
        return
    result.add(
        f"reproduce {shown(signed)}",
        same,
        "same bytes" if same else f"the {role} output differs when run again",
    )
