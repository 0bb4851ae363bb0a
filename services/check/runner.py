"""`evalkit check` without the command line: find the config folders a list of PATHs names, check each
through the one loader (`analyze`), and optionally dry-run the rules on sample submissions.

A PATH is a config folder, a tree (every config folder under it) or config files, whose folder's other
files are loaded for cross-references but whose diagnostics alone are reported (as pre-commit expects).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.config import CONFIG_NAMES, Config, analyze, config_files, config_name
from evalkit.engine.diagnostics import (
    Diagnostic,
    Severity,
    Span,
    error,
    has_errors,
    info,
    warning,
)
from evalkit.engine.text import shown
from evalkit.services.config.folders import no_config_files, no_such_path
from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.services.inputs.read import LoadedSubmission
    from evalkit.services.review.reviews import Reviews

_POSITION_FIRST = re.compile(r"^line \d+:\d+: ")
"""A reading problem's own position, before its reason."""

SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
"""Never searched for configs (nor any folder whose name starts with a dot: .git, .venv, .tox)."""


@dataclass(frozen=True, slots=True)
class CheckedFolder:
    """One config folder to check, and the files whose diagnostics are reported (None: all of them)."""

    folder: Path
    only: frozenset[Path] | None = None

    def reports(self, diagnostic: Diagnostic) -> bool:
        return self.only is None or listed(Path(diagnostic.path)) in self.only


@dataclass(slots=True)
class CheckReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    files: int = 0
    samples: int = 0

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def failed(self, strict: bool) -> bool:
        """Errors fail a check; warnings fail it too under --strict; infos never do."""
        return any(
            d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING)
            for d in self.diagnostics
        )


@dataclass(frozen=True, slots=True)
class ReviewVerdicts:
    """`--journals GLOB`: warn on a rule whose proposals reviewers discarded in more than `max_discard_rate`
    of at least `MIN_DECISIONS` decisions (`evalkit.services.stats.compute`)."""

    pattern: str
    max_discard_rate: float = 0.5

    def read(self) -> Reviews:
        """The journals the glob matches, with the submissions they name; raises UsageProblem."""
        from evalkit.services.review.glob import TooManyFolders, journal_files
        from evalkit.services.review.reviews import ReviewsError, read_reviews

        try:  # a glob names files: a folder it matches (`reviews/*` over an archive folder) is no journal
            paths = journal_files(self.pattern)
        except TooManyFolders as exc:
            raise UsageProblem(f"--journals {exc}") from None
        if not paths:
            raise UsageProblem(f"--journals {self.pattern}: no journal matches")
        try:
            return read_reviews(paths)
        except ReviewsError as exc:
            raise UsageProblem(str(exc)) from None

    def discarded_rules(self, config: Config, reviews: Reviews) -> list[Diagnostic]:
        from evalkit.engine.evaluator import Evaluator
        from evalkit.services.stats.compute import discarded_too_often, review_stats

        if config.plan is None or has_errors(config.diagnostics):
            return []
        stats = review_stats(reviews, Evaluator(config).evaluate)
        overruled = discarded_too_often(stats, self.max_discard_rate)
        return [
            warning(str(path), span, "rule-discarded", overruled[rule_id])
            for rule_id, path, span in rule_positions(config)
            if rule_id in overruled
        ]


def config_folders(tree: Path) -> Iterator[Path]:
    """Every folder under `tree` (itself included) that holds a config file, in sorted order, then every
    folder that could not be read (checking one reports why)."""
    unreadable: list[Path] = []
    for root, folders, _ in os.walk(tree, onerror=lambda problem: unreadable.append(Path(problem.filename))):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        if config_files(Path(root)):
            yield Path(root)
    yield from unreadable


def checked_folders(paths: Sequence[str]) -> list[CheckedFolder]:
    """The config folders PATHs name, each once, in the order first named; raises UsageProblem."""
    found: dict[Path, CheckedFolder] = {}
    for raw in paths:
        for checked in _folders_named(Path(raw)):
            key = checked.folder.resolve()
            found[key] = _merge(found[key], checked) if key in found else checked
    return list(found.values())


def _folders_named(path: Path) -> list[CheckedFolder]:
    if path.is_dir():
        folders = list(config_folders(path))
        if not folders:
            raise UsageProblem(no_config_files(path, " or below"))
        return [CheckedFolder(folder) for folder in folders]
    if not path.exists() and not path.is_symlink():  # a link to nothing is checked: the check says so
        raise UsageProblem(no_such_path(str(path), None))
    if config_name(path) is None:
        broken = broken_link(path)
        if broken is not None:
            raise UsageProblem(broken)
        raise UsageProblem(
            f"{path}: not a config file (expected one of "
            f"{', '.join(n + '.yaml' for n in CONFIG_NAMES)}, or .yml)"
        )
    return [CheckedFolder(path.parent, frozenset({listed(path)}))]


def broken_link(path: Path) -> str | None:
    """What to say of a symbolic link that loops or leads nowhere, naming it; None for any other path."""
    if not path.is_symlink():
        return None
    try:
        os.stat(path)
    except OSError as exc:
        return f"{shown(str(path))}: cannot follow the link: {exc.strerror or exc}"
    return None


def listed(path: Path) -> Path:
    """A config file as its folder lists it, the folder's path resolved: the file itself may be a
    symbolic link to a file elsewhere, to nothing, or to itself (which Path.resolve refuses)."""
    return path.parent.resolve() / path.name


def _merge(first: CheckedFolder, second: CheckedFolder) -> CheckedFolder:
    if first.only is None or second.only is None:
        return CheckedFolder(first.folder)
    return CheckedFolder(first.folder, first.only | second.only)


def check_paths(
    paths: Sequence[str],
    samples_dir: str | None = None,
    strict: bool = False,
    verdicts: ReviewVerdicts | None = None,
) -> CheckReport:
    """Check every config folder PATHs name; with `samples_dir`, also dry-run the rules on its submissions;
    with `verdicts`, warn on the rules whose proposals reviewers discard too often."""
    folders = checked_folders(paths)
    samples = read_samples(samples_dir) if samples_dir is not None else None
    reviews = verdicts.read() if verdicts is not None else None
    report = CheckReport(samples=len(samples or []))
    if samples:
        report.diagnostics.extend(_sample_problems(samples))
    if reviews is not None:  # said, never failing a check: the reviewers' other lines still count
        from evalkit.services.review.reviews import skipped_lines

        for journal in reviews.journals:
            report.diagnostics.extend(skipped_lines(journal, Severity.INFO))
    for checked in folders:
        config = analyze(checked.folder)
        report.folders.append(checked.folder)
        report.files += len(config_files(checked.folder)) if checked.only is None else len(checked.only)
        found = list(config.diagnostics)
        if samples is not None:
            found += dry_run(config, samples, samples_dir or "", strict)
        if verdicts is not None and reviews is not None:
            found += verdicts.discarded_rules(config, reviews)
        report.diagnostics.extend(d for d in found if checked.reports(d) or not _inside(d, checked.folder))
    report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


def _inside(diagnostic: Diagnostic, folder: Path) -> bool:
    """Whether the diagnostic is of a file in `folder`: the file as the folder lists it, which may be a
    symbolic link to a file elsewhere, or to nothing."""
    return listed(Path(diagnostic.path)).parent == folder.resolve()


def read_samples(samples_dir: str) -> list[LoadedSubmission]:
    """Every submission in `samples_dir`, read once for all config folders; raises UsageProblem."""
    from evalkit.services.check import samples

    if not Path(samples_dir).exists():
        raise UsageProblem(
            f"{shown(samples_dir)}: no such folder (--samples expects a folder of submissions)"
        )
    if not Path(samples_dir).is_dir():
        raise UsageProblem(f"{shown(samples_dir)}: --samples expects a folder of submissions, not a file")
    found = samples.read_samples(Path(samples_dir))
    if not found:
        raise UsageProblem(f"{samples_dir}: no submissions (.json, .yaml, .yml, .jsonl) in this folder")
    return found


def _sample_problems(samples: Iterable[LoadedSubmission]) -> Iterator[Diagnostic]:
    """A sample that cannot be read or is invalid, at its problem's line and column when known."""
    from evalkit.services.check.samples import problem_position

    for sample in samples:
        if sample.error is not None:
            path, span = problem_position(sample)
            # the diagnostic says where: not again in its message (`line 1:1: the file is UTF-16 text`)
            yield error(path, span, "invalid-sample", _POSITION_FIRST.sub("", sample.error))


def dry_run(
    config: Config, samples: list[LoadedSubmission], samples_dir: str, strict: bool
) -> list[Diagnostic]:
    """Evaluate every valid sample: an evaluation that fails is an error; a rule that fires on no sample is
    an info (a warning under --strict), since it may be dead or only lack a sample that shows it. (An
    unreadable sample is reported once, for all config folders, by `_sample_problems`.)"""
    from evalkit.engine.evaluator import Evaluator
    from evalkit.services.check import samples as sample_run

    if config.plan is None or has_errors(config.diagnostics):
        return []
    fired: set[str] = set()
    out: list[Diagnostic] = []
    valid = [sample for sample in samples if sample.submission is not None]
    for outcome in sample_run.dry_run(Evaluator(config).evaluate, valid):
        if outcome.result is not None:
            fired.update(rule.id for rule in outcome.result.fired_rules)
        else:
            path, span = outcome.position
            failed = f"evaluating with {config.folder} failed: {outcome.problem}"
            out.append(error(path, span, "evaluation-error", failed))
    if valid:
        out += _never_fired(
            config,
            fired,
            f"{len(valid)} sample submission{'s' if len(valid) != 1 else ''} in {samples_dir}",
            strict,
        )
    return out


def _never_fired(config: Config, fired: set[str], where: str, strict: bool) -> list[Diagnostic]:
    report = warning if strict else info
    return [
        report(str(path), span, "rule-never-fires", f"rule '{rule_id}' fires on none of the {where}")
        for rule_id, path, span in rule_positions(config)
        if rule_id not in fired
    ]


def rule_positions(config: Config) -> Iterator[tuple[str, Path, Span]]:
    """Every rule id in the config's rules file, with where its id is written."""
    from evalkit.engine.semantic import rule_entries

    document = config.documents.get("rules")
    if document is None:
        return
    for at, rule in rule_entries(document.data):
        if isinstance(rule.get("id"), str):
            yield rule["id"], Path(document.path), document.value_span((*at, "id"))
