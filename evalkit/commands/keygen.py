"""`evalkit keygen [--out PREFIX]`: an ECDSA P-256 key pair for `--sign` and `evalkit verify --key`.

Writes PREFIX.key (the private key, PKCS#8 PEM, mode 0600, encrypted when a passphrase is given in
EVALKIT_KEY_PASSWORD or typed at the prompt on a terminal) and PREFIX.pub (the public key, SPKI PEM). Never
overwrites a file. Exit codes: 0 written, 2 nothing written (a file exists, an unwritable folder).
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_PREFIX = "evalkit"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        metavar="PREFIX",
        default=DEFAULT_PREFIX,
        help=f"write PREFIX.key and PREFIX.pub (default: {DEFAULT_PREFIX})",
    )


def run(args: argparse.Namespace) -> int:
    from evalkit.engine.text import shown
    from evalkit.services.signing import SigningProblem
    from evalkit.services.signing.keys import key_hint, key_paths, load_public, passphrase, write_pair

    try:
        for path in key_paths(args.out):  # said before a passphrase is asked for
            if path.exists() or path.is_symlink():
                raise SigningProblem(f"{shown(str(path))} exists; keygen never overwrites a key (pick --out)")
        secret = passphrase(confirm=True)
        private, public = write_pair(args.out, secret)
    except SigningProblem as problem:
        print(f"{args.prog}: {problem}", file=sys.stderr)
        return 2
    state = "encrypted" if secret else "not encrypted (no passphrase given)"
    print(f"{shown(str(private))}: private key, {state}, mode 0600; keep it secret")
    print(
        f"{shown(str(public))}: public key {key_hint(load_public(str(public)))[:16]}…; give it to verifiers"
    )
    return 0
