"""`evalkit schema [NAME]`: print a JSON Schema (for editors and other tools), or list the names."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    from evalkit.schemas import NAMES

    parser.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help=f"{', '.join(NAMES[:-1])} or {NAMES[-1]} (a file name such as rules.yml "
        "works too); omit to list them",
    )


def run(args: argparse.Namespace) -> int:
    from evalkit import schemas

    if args.name is None:
        print("\n".join(schemas.NAMES))
        return 0
    name = Path(args.name).name.removesuffix(".schema.json").removesuffix(".yaml").removesuffix(".yml")
    if name not in schemas.NAMES:
        print(
            f"evalkit schema: unknown schema '{args.name}'; choose one of: {', '.join(schemas.NAMES)}",
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(schemas.text(name))
    return 0
