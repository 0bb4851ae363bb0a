"""`--sign KEY` and `--tsa URL` on eval, score, diff and the reviewer's export: the options and the wrapper
that signs a run's outputs. The work is in `evalkit.services.signing`, imported only when `--sign` is given,
so an unsigned run imports nothing of it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

SIGN_HELP = (
    "sign the outputs with this private key (evalkit keygen): writes <first output>.sigstore.json, a "
    "Sigstore bundle (DSSE, in-toto) that `evalkit verify` and third-party tools check"
)
TSA_HELP = "ask this RFC 3161 timestamp authority for a token over the signature (the only network use)"
NOTHING_WRITTEN = -1
"""What a run returns when it ended well and wrote nothing to sign (a review session with no decision)."""


def add_options(parser: argparse.ArgumentParser, out: bool = False) -> None:
    parser.add_argument("--sign", metavar="KEY", help=SIGN_HELP)
    parser.add_argument("--tsa", metavar="URL", help=TSA_HELP)
    if out:
        parser.add_argument("--out", metavar="FILE", help="write the output to FILE instead of stdout")


def signed(
    args: argparse.Namespace,
    outputs: dict[str, str | None],
    run: Callable[[], int],
    inputs: Callable[[], list[Path]],
    config_dir: Path | None,
    summary: Callable[[], dict[str, Any]],
) -> int:
    """`run()`'s exit code, its outputs signed when --sign is given (2 when they cannot be)."""
    args.sign, args.tsa = getattr(args, "sign", None), getattr(args, "tsa", None)
    if args.sign is None:
        if args.tsa is not None:
            print(f"{args.prog}: --tsa needs --sign KEY (the token is over the signature)", file=sys.stderr)
            return 2
        return run()
    from evalkit.services.signing.sign import finish
    from evalkit.services.signing.statement import RunRecord

    written = {role: path for role, path in outputs.items() if path is not None}
    signer = _signer(args, list(written.values()))
    if signer is None:
        return 2
    code = run()
    if code == NOTHING_WRITTEN:
        return 0
    written = {role: path for role, path in outputs.items() if path is not None}  # a session adds exports
    record = RunRecord(args.command, _arguments(args), written, config_dir=config_dir, tsa_url=args.tsa)
    if code in (0, 1):
        try:
            record.inputs, record.summary = inputs(), summary()
        except OSError as exc:
            print(f"{args.prog}: cannot read {exc.filename} to sign it: {exc.strerror}", file=sys.stderr)
            code = 2
    return finish(signer, record, code, args.prog)


def _signer(args: argparse.Namespace, outputs: list[str]) -> Any:
    """The prepared signer (its key read now, before the run), or None after saying why not."""
    from evalkit.services.signing import SigningProblem
    from evalkit.services.signing.sign import prepare

    try:
        if "-" in getattr(args, "inputs", []):
            raise SigningProblem("--sign cannot record standard input (-): give the input as a file")
        return prepare(args.sign, args.tsa, outputs)
    except SigningProblem as problem:
        print(f"{args.prog}: {problem}", file=sys.stderr)
        return None


def _arguments(args: argparse.Namespace) -> list[str]:
    """The command line after the command's name, as typed."""
    typed = [str(argument) for argument in getattr(args, "argv", [])]
    return typed[1:] if typed[:1] == [args.command] else typed


def expanded(names: list[str]) -> Callable[[], list[Path]]:
    def files() -> list[Path]:
        from evalkit.services.inputs.read import expand_inputs

        return sorted(expand_inputs(names)[0])

    return files


def config_folder(config_dir: str | None) -> Path:
    from evalkit.engine.config import default_config_dir

    return Path(config_dir) if config_dir else default_config_dir()


EVAL_OUTPUTS = ("out", "explain_json", "report_md", "log_file")


def signed_eval(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    from evalkit.services.signing import summaries

    outputs = {role: getattr(args, role) for role in EVAL_OUTPUTS}
    if outputs["out"] == "-":
        outputs["out"] = None
    results = outputs["out"]
    if results is None and args.sign:
        print(
            f"{args.prog}: --sign needs --out FILE: the results are signed, and stdout is no file",
            file=sys.stderr,
        )
        return 2
    return signed(
        args,
        outputs,
        lambda: run(args),
        expanded(args.inputs),
        config_folder(args.config_dir),
        lambda: summaries.results(Path(results)) if results else {},
    )


def signed_review_export(
    args: argparse.Namespace, export: Callable[[], int], files: list[Path], journal: Path
) -> int:
    """`evalkit review --export FILE --sign KEY`: the export signed, the journal among its inputs."""
    from evalkit.services.signing import summaries

    return signed(
        args,
        {"export": args.export},
        export,
        lambda: [*files, *([journal] if journal.exists() else [])],
        config_folder(args.config_dir),
        lambda: summaries.results(Path(args.export)),
    )


def signed_checkpoint(
    args: argparse.Namespace,
    session: Callable[[], int],
    exported: Callable[[], list[Path]],
    files: list[Path],
    journal: Path,
) -> int:
    """`evalkit review --sign KEY`: when the session ends, one bundle `<journal>.sigstore.json` signing a
    checkpoint of the journal (its digest, its lines, its last line's digest) and every file the reviewer
    exported during the session."""
    from evalkit.services.review.chain import check_chain

    outputs: dict[str, str | None] = {"decisions": str(journal)}

    def run() -> int:
        code = session()
        if code in (0, 1) and not journal.exists():
            print(f"{args.prog}: no decision was made: no journal to sign", file=sys.stderr)
            return NOTHING_WRITTEN
        for number, path in enumerate(dict.fromkeys(exported()), start=1):
            outputs[f"export_{number}"] = str(path)
        return code

    def checkpoint() -> dict[str, Any]:
        report = check_chain(journal.read_bytes())
        return {
            "journal_lines": report.lines,
            "chained_from": report.chained_from,
            "chain": report.reason if report.ok else f"broken at line {report.broken_line}: {report.reason}",
            "last_line_sha256": report.last_digest,
        }

    return signed(args, outputs, run, lambda: list(files), config_folder(args.config_dir), checkpoint)


def signed_score(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """`evalkit score --sign KEY`: the scored JSONL signed; the input recorded."""
    from evalkit.services.signing import summaries

    if args.out is None and args.sign:
        print(
            f"{args.prog}: --sign needs --out FILE: the scores are signed, and stdout is no file",
            file=sys.stderr,
        )
        return 2
    args.inputs = [args.input]
    return signed(
        args,
        {"out": args.out},
        lambda: run(args),
        lambda: [Path(args.input)],
        None,
        lambda: summaries.scores(Path(args.out)),
    )


class _Unwritten(Exception):
    """The diff found nothing to write (exit 2): its --out file must not be replaced."""


def signed_diff(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """`evalkit diff --out FILE [--sign KEY]`: the report written to FILE atomically, the JSON one signed."""
    from evalkit.services.signing import summaries

    if args.sign and (args.format != "json" or args.out is None):
        print(f"{args.prog}: --sign signs the JSON report: add --format json --out FILE", file=sys.stderr)
        return 2
    return signed(
        args,
        {"out": args.out},
        lambda: _diff_into(args, run),
        expanded(args.inputs),
        config_folder(args.config_dir),
        lambda: summaries.diff(Path(args.out)),
    )


def _diff_into(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    import contextlib

    from evalkit.services.outputs.atomic import atomic_output

    code = 2
    try:
        with atomic_output(args.out) as handle, contextlib.redirect_stdout(handle):
            code = run(args)
            if code == 2:
                raise _Unwritten
    except _Unwritten:
        pass
    except OSError as exc:
        print(f"{args.prog}: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return code
