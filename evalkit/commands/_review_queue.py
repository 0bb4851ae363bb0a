"""`evalkit review --queue URL [--reviewer NAME] [--adjudicate]`: the reviewer app on a team's queue
(tui/queue_source.py). Refused before the screen opens, with one message and exit 2: a bad URL, a server
that cannot be reached or refuses the login, a file that is no queue, a newer queue, a reviewer name that
is not one, or a config whose hash is not the queue's."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.tui.queue_source import QueueReviewApp


def run_queue_review(args: argparse.Namespace) -> int:
    from evalkit.services.queue import QueueError

    if not args.queue:
        print("evalkit review: --reviewer and --adjudicate go with --queue URL", file=sys.stderr)
        return 2
    if args.inputs or args.decisions or args.export:
        print(
            "evalkit review: --queue takes its submissions and decisions from the queue: no INPUT, "
            "--decisions or --export with it",
            file=sys.stderr,
        )
        return 2
    try:
        app = _app(args)
    except (QueueError, UsageProblem) as problem:
        print(f"evalkit review: {problem}", file=sys.stderr)
        return 2
    app.run()
    return app.return_code or 0


def _app(args: argparse.Namespace) -> QueueReviewApp:
    from evalkit.engine.config import analyze
    from evalkit.services.queue.names import check_reviewer_name
    from evalkit.services.queue.spool import Spool, spool_path
    from evalkit.services.queue.store import ADJUDICATION, REVIEW, QueueStore
    from evalkit.tui.model import ReviewSession
    from evalkit.tui.queue_source import QueueJournal, QueueReviewApp

    reviewer = check_reviewer_name(args.reviewer or getpass.getuser())
    store = QueueStore.open(args.queue)
    settings = store.settings()
    folder = args.config_dir or settings.config_dir
    if not Path(folder).is_dir():
        store.close()
        raise UsageProblem(
            f"--config-dir {folder}: no such folder (the queue's config is {settings.config_dir})"
        )
    config = analyze(folder)
    if config.config_hash != settings.config_hash:
        store.close()
        raise UsageProblem(
            f"the config in {folder} (hash {config.config_hash[:12]}) is not the queue's (hash "
            f"{settings.config_hash[:12]}, from {settings.config_dir}): review with the lead's config "
            "(--config-dir), or ask the lead to start a queue for the new one"
        )
    role = ADJUDICATION if args.adjudicate else REVIEW
    journal = QueueJournal(store, reviewer, Spool(spool_path(store.shown, reviewer)), role)
    session = ReviewSession(config, sink=journal.append)
    return QueueReviewApp(session, journal, Path(f"{reviewer}.reviewed.jsonl"), adjudicate=args.adjudicate)
