"""`evalkit queue init|add|status|assign|release|export URL ...`: a lead's commands for a team's review
queue (services/queue/). URL is a SQLite file (`team.db`, `sqlite:///path`) or a PostgreSQL database
(`postgresql://user@host/db`); reviewers work on it with `evalkit review --queue URL`.

Exit codes: 0 done; 1 `add` with submissions that cannot be read or are invalid (each said on stderr; the
others are added); 2 nothing could be done (a bad URL, an unreachable server, a refused login, a file that is
not a queue, a newer queue, a bad name): one message, and nothing written.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.services.queue.store import QueueStore

DEFAULT_PER_ITEM = 2
DEFAULT_LEASE = "30m"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smh]?)")
_CALIBRATION = re.compile(r"\d+|\d+(?:\.\d+)?%")


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser("init", help="create a queue (or bring an old one's schema up to date)")
    _url(init)
    init.add_argument("--config-dir", metavar="DIR", required=True, help="the rule config reviewers use")
    init.add_argument(
        "--per-item",
        metavar="K",
        type=int,
        default=DEFAULT_PER_ITEM,
        help=f"reviewers per item (default {DEFAULT_PER_ITEM})",
    )
    init.add_argument(
        "--calibration",
        metavar="N|P%",
        default="",
        help="items every reviewer sees: the first N added, or P%% of them (rounded to the nearest)",
    )
    init.add_argument(
        "--lease",
        metavar="DURATION",
        default=DEFAULT_LEASE,
        help=f"how long a claimed item stays a reviewer's without a decision (default {DEFAULT_LEASE})",
    )
    init.add_argument(
        "--roles",
        action="store_true",
        help="PostgreSQL: create the evalkit_reviewer and evalkit_lead roles (README: Access)",
    )
    add = actions.add_parser("add", help="add submissions (one already in the queue is skipped)")
    _url(add)
    add.add_argument("inputs", nargs="+", metavar="INPUT", help="submission files, JSONL files or folders")
    status = actions.add_parser("status", help="progress per reviewer and item; agreement so far")
    _url(status)
    status.add_argument("--format", choices=("text", "json", "html"), default="text")
    assign = actions.add_parser("assign", help="give an item to a reviewer")
    _url(assign)
    assign.add_argument("item", metavar="ITEM", help="the item: #number, digest or source")
    assign.add_argument("--to", metavar="NAME", required=True, help="the reviewer who gets it")
    assign.add_argument("--from", dest="taken_from", metavar="NAME", help="take it from this reviewer")
    release = actions.add_parser("release", help="free an item's or a reviewer's unfinished items")
    _url(release)
    release.add_argument("item", nargs="?", metavar="ITEM", help="the item: #number, digest or source")
    release.add_argument("--reviewer", metavar="NAME", help="free this reviewer's unfinished items")
    export = actions.add_parser("export", help="write one review journal per reviewer (for evalkit stats)")
    _url(export)
    export.add_argument("--journals", metavar="DIR", required=True, help="the folder to write them in")


def _url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="team.db, sqlite:///PATH or postgresql://USER@HOST/DB")


def run(args: argparse.Namespace) -> int:
    from evalkit.services.queue import QueueError

    try:
        return RUNS[args.action](args)
    except (QueueError, UsageProblem) as problem:
        print(f"evalkit queue {args.action}: {problem}", file=sys.stderr)
        return 2


def _open(url: str) -> QueueStore:
    from evalkit.services.queue.store import QueueStore

    return QueueStore.open(url)


def _init(args: argparse.Namespace) -> int:
    from evalkit.engine.config import analyze
    from evalkit.services.queue.backend import Database, create_sqlite, open_database
    from evalkit.services.queue.roles import create_roles
    from evalkit.services.queue.schema import migrate
    from evalkit.services.queue.store import QueueStore, Settings
    from evalkit.services.queue.url import parse_url

    settings_of = _settings_checks(args)
    folder = Path(args.config_dir)
    if not folder.is_dir():
        raise UsageProblem(f"--config-dir {args.config_dir}: no such folder")
    config = analyze(str(folder))
    if not config.ok:
        raise UsageProblem(
            f"--config-dir {args.config_dir}: the config has errors (evalkit check {args.config_dir})"
        )
    url = parse_url(args.url)
    if args.roles and url.kind != "postgresql":
        raise UsageProblem(
            f"{url.shown}: --roles is for PostgreSQL; a SQLite queue is guarded by its file's permissions"
        )
    settings = Settings(
        args.per_item, settings_of, args.calibration, config.config_hash, str(folder.resolve())
    )

    def build(db: Database) -> None:
        migrate(db)
        QueueStore(db).write_settings(settings)

    if url.kind == "sqlite" and not Path(url.target).exists() and create_sqlite(url, build):
        print(f"{url.shown}: created ({args.per_item} reviewers per item)", file=sys.stderr)
        return 0
    db = open_database(url, create=True)
    try:
        # On PostgreSQL the steps nest (savepoints) in one transaction: with --roles, a queue is made with
        # its roles or not at all. A SQLite file has no roles, and each step is atomic on its own.
        with db.transaction() if url.kind == "postgresql" else contextlib.nullcontext():
            before, after = migrate(db)
            created = QueueStore(db).write_settings(settings)
            if args.roles:
                create_roles(db)
    finally:
        db.close()
    if not created and before == after:
        raise UsageProblem(f"{url.shown}: already a queue; nothing changed")
    # an upgraded queue keeps its own settings: its K is not this command's
    said = (
        f"created ({args.per_item} reviewers per item)"
        if created
        else f"schema upgraded from version {before} to {after}"
    )
    print(f"{url.shown}: {said}", file=sys.stderr)
    return 0


def _settings_checks(args: argparse.Namespace) -> float:
    """The lease in seconds, once --per-item, --calibration and --lease are found sound."""
    if args.per_item < 1:
        raise UsageProblem(f"--per-item {args.per_item}: at least 1 reviewer per item")
    if args.calibration and not _CALIBRATION.fullmatch(args.calibration):
        raise UsageProblem(f"--calibration {args.calibration}: expected a count (20) or a percentage (5%)")
    if args.calibration.endswith("%") and float(args.calibration[:-1]) > 100:
        raise UsageProblem(f"--calibration {args.calibration}: a percentage is 100% at most")
    found = _DURATION.fullmatch(args.lease)
    if found is None or float(found.group(1)) <= 0:
        raise UsageProblem(f"--lease {args.lease}: expected a duration such as 90s, 30m or 2h")
    return float(found.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[found.group(2)]


def _add(args: argparse.Namespace) -> int:
    from evalkit.services.queue.submissions import queue_items

    store = _open(args.url)
    try:
        unread: list[str] = []
        added, already = store.add(queue_items(args.inputs, unread))
    finally:
        store.close()
    for problem in unread:
        print(problem, file=sys.stderr)
    print(
        f"{store.shown}: {added} added, {already} already in the queue, {len(unread)} unreadable",
        file=sys.stderr,
    )
    return 1 if unread else 0


def _status(args: argparse.Namespace) -> int:
    import json

    from evalkit.services.queue.status import queue_status, render_html, render_text

    store = _open(args.url)
    try:
        status = queue_status(store, every_item=args.format == "json")
    finally:
        store.close()
    if args.format == "json":
        sys.stdout.write(json.dumps(status.to_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_html(status) if args.format == "html" else render_text(status))
    return 0


def _assign(args: argparse.Namespace) -> int:
    from evalkit.services.queue.names import check_reviewer_name

    reviewer = check_reviewer_name(args.to)
    store = _open(args.url)
    try:
        item_id = store.item_id(args.item)
        store.assign(item_id, reviewer, args.taken_from)
    finally:
        store.close()
    print(f"{store.shown}: item #{item_id} assigned to {reviewer}", file=sys.stderr)
    return 0


def _release(args: argparse.Namespace) -> int:
    if args.item is None and args.reviewer is None:
        raise UsageProblem("name an ITEM or --reviewer NAME to release")
    store = _open(args.url)
    try:
        item_id = store.item_id(args.item) if args.item is not None else None
        freed = store.release(item_id, args.reviewer)
    finally:
        store.close()
    print(f"{store.shown}: {freed} unfinished review(s) released", file=sys.stderr)
    return 0


def _export(args: argparse.Namespace) -> int:
    from evalkit.services.queue.export import export_journals

    folder = Path(args.journals)
    if not folder.is_dir():
        raise UsageProblem(f"--journals {args.journals}: no such folder")
    store = _open(args.url)
    try:
        written = export_journals(store, folder)
    except OSError as exc:
        raise UsageProblem(f"{folder}: cannot write: {exc.strerror or exc}") from None
    finally:
        store.close()
    print(f"{folder}: {len(written)} journal(s) written", file=sys.stderr)
    return 0


RUNS = {
    "init": _init,
    "add": _add,
    "status": _status,
    "assign": _assign,
    "release": _release,
    "export": _export,
}
