"""What reviewers decided on each rule's proposals, for the hover on a rule id: from the review journals
the `journals` option names (a glob, relative to the workspace root), with `evalkit stats`'s counting.

The journals are read again only when one of them or the config changed (paths, sizes, modification
times and the config hash make the key), so hovering stays cheap.
"""

from __future__ import annotations

import threading
from glob import glob
from pathlib import Path

from evalkit.engine.config import Config
from evalkit.engine.stats import Tally

Verdicts = dict[str, Tally]  # rule id -> the decisions on its proposals


class ReviewerVerdicts:
    def __init__(self) -> None:
        self._key: tuple[object, ...] = ()
        self._verdicts: Verdicts = {}
        self._lock = threading.Lock()

    def of(self, config: Config, pattern: str, root: Path | None) -> Verdicts:
        """The decisions by rule id; a journal that cannot be read counts as absent."""
        paths = journal_paths(pattern, root)
        key = (config.config_hash, *(_signature(path) for path in paths))
        with self._lock:
            if key != self._key:
                self._verdicts, self._key = _count(config, paths), key
            return self._verdicts


def journal_paths(pattern: str, root: Path | None) -> list[str]:
    base = root if root is not None else Path.cwd()
    full = pattern if Path(pattern).is_absolute() else str(base / pattern)
    return sorted(glob(full, recursive=True))


def _signature(path: str) -> tuple[str, int, int]:
    try:
        status = Path(path).stat()
    except OSError:
        return path, -1, -1
    return path, status.st_size, status.st_mtime_ns


def _count(config: Config, paths: list[str]) -> Verdicts:
    from evalkit.engine.evaluator import Evaluator
    from evalkit.engine.reviews import ReviewsError, read_reviews
    from evalkit.engine.stats import review_stats

    readable = [path for path in paths if Path(path).is_file()]
    if not readable or config.plan is None:
        return {}
    try:
        reviews = read_reviews(readable)
    except ReviewsError:
        return {}
    stats = review_stats(reviews, Evaluator(config).evaluate)
    return {rule.rule: rule.tally for rule in stats.rules}


def verdict_text(tally: Tally | None) -> str:
    if tally is None or not tally.decided:
        return "Reviewers: no decisions on this rule's proposals in the journals."
    return (f"reviewers accepted {tally.accepted}/{tally.decided}, discarded {tally.discarded}, "
            f"edited {tally.edited}")
