"""Signed, timestamped results: keys, in-toto statements in DSSE envelopes, Sigstore bundles v0.3, RFC 3161
timestamps, verification, and the review journal's hash chain.

Nothing here is imported by an unsigned run: `--sign`, `--tsa`, `evalkit keygen` and `evalkit verify` import
it inside the command. It needs the `sign` extra (`cryptography`, `rfc3161-client`).

Exceptions, in one place:

- `SigningProblem`: what was asked cannot be done (a public key given to `--sign`, a wrong passphrase, a TSA
  that is down or answers garbage, an unreadable bundle). The command prints it and exits 2.
- Verification failures are not exceptions: `verify.Check` records each check and whether it held (exit 1).
"""

from __future__ import annotations


class SigningProblem(Exception):
    """Bad input or a service that failed (exit code 2); the message names the file or URL and says why."""
