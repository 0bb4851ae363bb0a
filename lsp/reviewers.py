"""What reviewers decided on each rule's proposals, for the hover on a rule id: from the review journals
the `journals` option names (a glob, relative to the workspace root), with `evalkit stats`'s counting.

Counting evaluates every reviewed submission, which takes a while on big journals (0.6 s for 2,000
submissions), so it never runs on the request loop: a worker thread counts whenever a journal or the
config changed (paths, sizes, modification times and the config hash make the key), and a hover shows
the latest finished count, or says that the first one is still running.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from evalkit.engine.config import Config
from evalkit.services.fingerprints import fingerprint
from evalkit.services.stats import Tally

logger = logging.getLogger(__name__)
COUNTING = "Reviewers: counting the journals' decisions…"


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
        self._pending: tuple[object, ...] = ()
        self._by_rule: dict[str, Tally] | None = None
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalkit-reviewers")

    def of(self, config: Config, pattern: str, root: Path | None) -> Verdicts:
        """The latest count; starts a new one in the background when the journals or the config changed."""
        paths = journal_paths(pattern, root)
        key = (config.config_hash, tuple(paths), fingerprint(paths))
        with self._lock:
            if key not in (self._key, self._pending):
                self._pending = key
                self._worker.submit(self._recount, key, config, paths)
            return Verdicts(self._by_rule)

    def _recount(self, key: tuple[object, ...], config: Config, paths: list[str]) -> None:
        try:
            by_rule = count(config, paths)
        except Exception:  # a journal no one can read must not end the server: show no verdicts
            logger.exception("counting the reviewers' decisions failed")
            by_rule = {}
        with self._lock:
            self._key, self._by_rule = key, by_rule


def journal_paths(pattern: str, root: Path | None) -> list[str]:
    """The journals `pattern` names from `root`, as `check --journals` finds them; none (said in the log)
    when it reaches too many folders."""
    from evalkit.services.journal_glob import TooManyFolders, journal_files

    base = root if root is not None else Path.cwd()
    try:
        return [str(base / path) for path in journal_files(pattern, base)]
    except TooManyFolders as exc:
        logger.warning("the journals option: %s", exc)
        return []


def count(config: Config, paths: list[str]) -> dict[str, Tally]:
    """The decisions on each rule's proposals in the readable journals among `paths`."""
    from evalkit.engine.evaluator import Evaluator
    from evalkit.services.reviews import ReviewsError, read_reviews
    from evalkit.services.stats import review_stats

    readable = [path for path in paths if Path(path).is_file()]
    if not readable or config.plan is None:
        return {}
    try:
        reviews = read_reviews(readable)
    except ReviewsError:
        return {}
    stats = review_stats(reviews, Evaluator(config).evaluate)
    return {rule.rule: rule.tally for rule in stats.rules}
