"""What reviewers decided on each rule's proposals, for the hover on a rule id: from the review journals
the `journals` option names (a glob, relative to the workspace root), with `evalkit stats`'s counting.

Finding the journals (a glob that may reach far: `journal_paths`) and counting (it evaluates every
reviewed submission: 0.6 s for 2,000) never run on the request loop: at a hover, a worker thread looks
for the journals again (unless it is still at it) and counts again when a journal or the config changed
(paths, sizes, modification times and the config hash make the key); the hover shows the latest
finished count, or says that the first one is still running.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from evalkit.engine.config import Config
from evalkit.services.inputs.fingerprints import fingerprint
from evalkit.services.stats.compute import Tally

logger = logging.getLogger(__name__)
COUNTING = "Reviewers: counting the journals' decisions…"
JOURNAL_SUFFIX = ".jsonl"
"""Journals are JSON lines: whatever else a broad glob (`/**`) finds is not read."""


@dataclass(frozen=True, slots=True)
class Verdicts:
    """The decisions on each rule's proposals; `by_rule` is None while the first count runs."""

    by_rule: dict[str, Tally] | None

    def text(self, rule_id: str) -> str:
        if self.by_rule is None:
            return COUNTING
        tally = self.by_rule.get(rule_id)
        if tally is None or not tally.decided:
            return "Reviewers: no decisions on this rule's proposals in the journals."
        return (
            f"reviewers accepted {tally.accepted}/{tally.decided}, discarded {tally.discarded}, "
            f"edited {tally.edited}"
        )


class ReviewerVerdicts:
    def __init__(self) -> None:
        self._key: tuple[object, ...] = ()
        self._by_rule: dict[str, Tally] | None = None
        self._busy = False
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalkit-reviewers")

    def of(self, config: Config, pattern: str, root: Path | None) -> Verdicts:
        """The latest count; looks for changed journals in the background unless it is looking already."""
        with self._lock:
            if not self._busy:
                self._busy = True
                self._worker.submit(self._recount, config, pattern, root)
            return Verdicts(self._by_rule)

    def _recount(self, config: Config, pattern: str, root: Path | None) -> None:
        try:
            paths = journal_paths(pattern, root)
            key: tuple[object, ...] = (config.config_hash, tuple(paths), fingerprint(paths))
            by_rule = count(config, paths) if key != self._key else self._by_rule
        except Exception:  # a journal no one can read must not end the server: show no verdicts
            logger.exception("counting the reviewers' decisions failed")
            key, by_rule = (), {}
        with self._lock:
            self._key, self._by_rule, self._busy = key, by_rule, False


def journal_paths(pattern: str, root: Path | None) -> list[str]:
    """The journals `pattern` names from `root`, found as `check --journals` finds them (one bounded glob,
    services/review/glob.py); none, said in the log, when it reaches too many folders."""
    from evalkit.services.review.glob import TooManyFolders, journal_files

    base = root if root is not None else Path.cwd()
    try:
        found = journal_files(pattern, base)
    except TooManyFolders as exc:
        logger.warning("the journals option: %s", exc)
        return []
    return [str(base / path) for path in found if path.endswith(JOURNAL_SUFFIX)]


def count(config: Config, paths: list[str]) -> dict[str, Tally]:
    """The decisions on each rule's proposals in the readable journals among `paths`."""
    from evalkit.engine.evaluator import Evaluator
    from evalkit.services.review.reviews import ReviewsError, read_reviews
    from evalkit.services.stats.compute import review_stats

    readable = [path for path in paths if path.endswith(JOURNAL_SUFFIX) and Path(path).is_file()]
    if not readable or config.plan is None:
        return {}
    try:
        reviews = read_reviews(readable)
    except ReviewsError:
        return {}
    stats = review_stats(reviews, Evaluator(config).evaluate)
    return {rule.rule: rule.tally for rule in stats.rules}
