"""A real RFC 3161 timestamp authority on loopback for the tests: `openssl ts -reply` behind a small HTTP
server, with a CA and a TSA certificate (extended key usage critical,timeStamping) made here.

`mode` switches what it answers: "ok" (a granted token), "garbage" (bytes that are no timestamp), "slow"
(an answer after `delay` seconds), "error" (HTTP 500).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TSA_CONFIG = """\
[ tsa ]
default_tsa = evalkit_test_tsa
[ evalkit_test_tsa ]
dir = {folder}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.57264.2
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""

TSA_EXTENSIONS = """\
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""


def _openssl(*arguments: str, cwd: Path) -> None:
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True, timeout=30)


def make_ca(folder: Path, name: str) -> None:
    """A self-signed EC P-256 CA: `ca.key`, `ca.crt` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key", cwd=folder)
    _openssl(
        "req", "-x509", "-new", "-key", "ca.key", "-out", "ca.crt", "-days", "3650", "-subj",
        f"/O=evalkit tests/CN={name}", "-addext", "basicConstraints=critical,CA:true",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder,
    )  # fmt: skip


def make_tsa(folder: Path) -> None:
    """A CA and a TSA certificate it signed, and openssl's ts config, in `folder`."""
    make_ca(folder, "evalkit test TSA root")
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "tsa.key", cwd=folder)
    _openssl(
        "req",
        "-new",
        "-key",
        "tsa.key",
        "-out",
        "tsa.csr",
        "-subj",
        "/O=evalkit tests/CN=evalkit test TSA",
        cwd=folder,
    )
    (folder / "tsa.ext").write_text(TSA_EXTENSIONS)
    _openssl(
        "x509", "-req", "-in", "tsa.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "tsa.crt", "-days", "3650", "-extfile", "tsa.ext", cwd=folder,
    )  # fmt: skip
    (folder / "serial").write_text("01\n")
    (folder / "tsa.cnf").write_text(TSA_CONFIG.format(folder=folder))
    (folder / "chain.pem").write_bytes((folder / "tsa.crt").read_bytes() + (folder / "ca.crt").read_bytes())


class Authority:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.mode = "ok"
        self.delay = 0.0
        self.requests = 0
        self.url = ""
        self._lock = threading.Lock()

    def reply(self, query: bytes) -> bytes:
        with self._lock:  # openssl ts increments its serial file
            self.requests += 1
            (self.folder / "query.tsq").write_bytes(query)
            _openssl(
                "ts", "-reply", "-config", "tsa.cnf", "-queryfile", "query.tsq", "-out", "reply.tsr",
                cwd=self.folder,
            )  # fmt: skip
            return (self.folder / "reply.tsr").read_bytes()


def _handler(authority: Authority) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            query = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if authority.mode == "error":
                self.send_error(500)
                return
            if authority.mode == "slow":
                time.sleep(authority.delay)
            body = b"this is not a timestamp" if authority.mode == "garbage" else authority.reply(query)
            with contextlib.suppress(OSError):  # the client gave up waiting (the slow mode)
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def running_authority(folder: Path) -> Iterator[Authority]:
    make_tsa(folder)
    authority = Authority(folder)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(authority))
    server.daemon_threads = True
    authority.url = f"http://127.0.0.1:{server.server_address[1]}/tsa"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield authority
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
