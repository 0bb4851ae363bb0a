"""`evalkit verify BUNDLE [ARTIFACT...] --key PUB [--tsa-cert PEM | --trusted-root FILE] [--reproduce
[--config-dir DIR]]` and `evalkit verify JOURNAL`.

A bundle (`*.sigstore.json`): the signature with the public key, each subject's digest against its file
(the ARTIFACTs given, else every subject beside the bundle), the RFC 3161 timestamp against the TSA's
certificate, and with --reproduce the evaluation run again from the recorded inputs and config, its bytes
compared. A journal (`*.decisions.jsonl`): its hash chain, naming the first broken line.

Exit codes: 0 verified; 1 a check failed (each failed check is named: artifact changed, wrong key, bad
timestamp, config or inputs differ); 2 bad usage or unreadable files.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target", metavar="BUNDLE|JOURNAL", help="a .sigstore.json bundle, or a review journal"
    )
    parser.add_argument(
        "artifacts",
        nargs="*",
        metavar="ARTIFACT",
        help="signed files to check (default: every subject, beside the bundle)",
    )
    parser.add_argument(
        "--key", metavar="PUB", help="the signer's public key (SPKI PEM); needed for a bundle"
    )
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument("--tsa-cert", metavar="PEM", help="the timestamp authority's certificate chain")
    trust.add_argument("--trusted-root", metavar="FILE", help="a Sigstore trusted_root.json naming the TSA")
    parser.add_argument("--key-valid-from", metavar="TIME", help="the key's validity start (RFC 3339)")
    parser.add_argument("--key-valid-until", metavar="TIME", help="the key's validity end (RFC 3339)")
    parser.add_argument("--reproduce", action="store_true", help="run the evaluation again and compare bytes")
    parser.add_argument("--config-dir", metavar="DIR", help="with --reproduce: the config folder to use")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    from evalkit.services.signing import SigningProblem
    from evalkit.services.signing.bundle import looks_like_bundle

    try:
        if looks_like_bundle(args.target):
            return _bundle(args)
        return _journal(args)
    except SigningProblem as problem:
        print(f"{args.prog}: {problem}", file=sys.stderr)
        return 2


def _journal(args: argparse.Namespace) -> int:
    from pathlib import Path

    from evalkit.engine.text import shown
    from evalkit.services.review.chain import check_chain
    from evalkit.services.signing import SigningProblem

    if args.key or args.artifacts or args.reproduce or args.tsa_cert or args.trusted_root:
        raise SigningProblem(
            f"{shown(args.target)} is not a bundle: a journal takes no key, artifact or --reproduce"
        )
    try:
        raw = Path(args.target).read_bytes()
    except OSError as exc:
        raise SigningProblem(f"{shown(args.target)}: cannot read: {exc.strerror or exc}") from None
    report = check_chain(raw)
    if args.format == "json":
        _print_json(
            {
                "journal": args.target,
                "verified": report.ok,
                "lines": report.lines,
                "chained_from": report.chained_from,
                "broken_line": report.broken_line,
                "detail": report.reason,
                "last_line_sha256": report.last_digest,
            }
        )
    else:
        verdict = "chain holds" if report.ok else f"chain broken at line {report.broken_line}"
        print(f"{shown(args.target)}: {verdict}: {report.reason}")
    return 0 if report.ok else 1


def _bundle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from evalkit.services.signing import SigningProblem
    from evalkit.services.signing.bundle import read_bundle
    from evalkit.services.signing.keys import load_public
    from evalkit.services.signing.verify import verify_bundle

    if args.key is None:
        raise SigningProblem("verifying a bundle needs --key PUB (the signer's public key)")
    if args.config_dir and not args.reproduce:
        raise SigningProblem("--config-dir goes with --reproduce")
    read = read_bundle(args.target)
    key = load_public(args.key)
    trust = _trust(args)
    result = verify_bundle(read, key, Path(args.target).resolve().parent, args.artifacts, trust)
    if args.reproduce and result.ok and result.statement is not None:
        from evalkit.services.signing.reproduce import reproduce

        reproduce(result.statement["predicate"], args.config_dir, result)
    _report(args, result)
    return 0 if result.ok else 1


def _trust(args: argparse.Namespace) -> Any:
    from evalkit.services.signing.verify import Trust, load_certificates, trusted_root_chains

    trust = Trust(valid_from=_moment(args.key_valid_from), valid_until=_moment(args.key_valid_until))
    if args.tsa_cert:
        trust.tsa_chains = [load_certificates(args.tsa_cert)]
    elif args.trusted_root:
        trust.tsa_chains = trusted_root_chains(args.trusted_root)
    return trust


def _moment(text: str | None) -> Any:
    from datetime import UTC, datetime

    from evalkit.services.signing import SigningProblem

    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SigningProblem(f"{text}: not an RFC 3339 time (2026-01-31T12:00:00Z)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _report(args: argparse.Namespace, result: Any) -> None:
    from evalkit.engine.text import shown

    if args.format == "json":
        predicate = (result.statement or {}).get("predicate") or {}
        _print_json(
            {
                "bundle": args.target,
                "verified": result.ok,
                "checks": [check.to_dict() for check in result.checks],
                "timestamp": result.timestamp.isoformat() if result.timestamp else None,
                "subjects": (result.statement or {}).get("subject"),
                "summary": predicate.get("summary"),
                "invocation": predicate.get("invocation"),
            }
        )
        return
    for check in result.checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = [check.name for check in result.checks if not check.ok]
    verdict = "verified" if not failed else f"NOT verified: {', '.join(failed)} failed"
    print(f"{shown(args.target)}: {verdict}")


def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))
