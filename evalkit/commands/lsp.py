"""`evalkit lsp`: the language server on stdio, for VS Code, Neovim, Helix, Emacs and any LSP client.

stdout carries the protocol, so the server logs to `--log-file` (or warnings only, to stderr).
`--stdio` is accepted for clients that always pass it. Exit codes: 0 after the client's shutdown and
exit requests, 1 for an exit without shutdown (the protocol's rule), 2 when the log file cannot be opened.
"""

from __future__ import annotations

import argparse
import sys

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP on stdin/stdout (the default and only transport)"
    )
    parser.add_argument("--log-file", metavar="FILE", help="append the server's log to FILE")
    parser.add_argument("--verbose", action="store_true", help="log every message (with --log-file)")


def run(args: argparse.Namespace) -> int:
    import logging

    level = logging.DEBUG if args.verbose else logging.INFO
    try:
        if args.log_file:
            logging.basicConfig(filename=args.log_file, level=level, format=LOG_FORMAT)
        else:
            logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=LOG_FORMAT)
    except OSError as exc:
        print(
            f"evalkit lsp: cannot write the log file {args.log_file}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    from evalkit.lsp.server import serve

    return serve()
