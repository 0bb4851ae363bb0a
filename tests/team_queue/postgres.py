"""A real PostgreSQL server for the queue tests: initdb and pg_ctl in a temporary folder on a free port on
loopback. PostgreSQL refuses to run as root (CI runs as root), so as root the server runs as the `postgres`
user (runuser); the folder is that user's. The superuser has a password on TCP (scram-sha-256), so a wrong
password is refused as on a real server; the folder's socket is trusted, for setting it."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PASSWORD = "s3cret-Pw"
USER = "postgres"


@dataclass(frozen=True)
class Server:
    port: int
    folder: Path

    def url(self, database: str, password: str = PASSWORD, user: str = USER) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        command = [
            _tool("pg_ctl"),
            "-D",
            str(self.folder / "data"),
            "-o",
            options + " -c fsync=off",
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        ]
        subprocess.run(_as_server_user(command), check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        command = [_tool("pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(command), capture_output=True, timeout=60)

    def psql(self, sql: str, database: str = "postgres") -> str:
        command = [
            _tool("psql"),
            "-h",
            str(self.folder),
            "-p",
            str(self.port),
            "-U",
            USER,
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-Atc",
            sql,
        ]
        return subprocess.run(command, check=True, capture_output=True, text=True, timeout=60).stdout


def _tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None)
    if found is None:
        raise RuntimeError(f"{name} not found: install PostgreSQL (python3 tasks.py installs it with apt)")
    return found


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", USER, "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    folder = Path(tempfile.mkdtemp(prefix="evalkit-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, USER, USER)
    pwfile = folder / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        shutil.chown(pwfile, USER, USER)
    port = _free_port()
    run: dict[str, Any] = {"check": True, "capture_output": True, "timeout": 120}
    subprocess.run(
        _as_server_user(
            [
                _tool("initdb"),
                "-D",
                str(data),
                "-U",
                USER,
                "--pwfile",
                str(pwfile),
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
            ]
        ),
        **run,
    )
    server = Server(port, folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
