"""`evalkit schema [NAME]`: print a JSON Schema (for editors and other tools), or list the names."""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="dimensions, ranking, prompt, rewrite, rules or submission; omit to list them")


def run(args: argparse.Namespace) -> int:
    from evalkit import schemas

    if args.name is None:
        print("\n".join(schemas.NAMES))
        return 0
    name = args.name.removesuffix(".yaml").removesuffix(".schema.json")
    if name not in schemas.NAMES:
        print(f"evalkit schema: unknown schema '{args.name}'; choose one of: {', '.join(schemas.NAMES)}",
              file=sys.stderr)
        return 2
    sys.stdout.write(schemas.text(name))
    return 0
