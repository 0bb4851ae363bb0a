"""The live pipeline behind the handlers: a debounced check of the config folder (and its open rule test
files) after each edit, diagnostics published per file, then a debounced dry run of the samples.

Typing never waits for this work: an edit only schedules it. Checks run on a worker thread and dry runs
on another, both off the event loop, so requests are answered while they run; an edit stops the dry run
in progress after the sample it is evaluating, so the next check has the processor to itself. Every
config folder keeps its latest results in a `FolderState`, which the feature handlers read.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from evalkit.engine.config import Config, analyze, config_name
from evalkit.engine.diagnostics import Diagnostic
from evalkit.engine.positions import split_lines
from evalkit.lsp import dryrun, impact, ruletests
from evalkit.lsp.convert import Problem, to_problem, without_bom
from evalkit.lsp.debounce import Debouncer
from evalkit.lsp.lenses import NO_SAMPLES
from evalkit.lsp.options import InitOptions, parse_options
from evalkit.lsp.reviewers import ReviewerVerdicts
from evalkit.lsp.sample_files import SampleFiles
from evalkit.lsp.verdicts import VerdictCache
from evalkit.lsp.workspace import (
    Buffer,
    EvalkitFile,
    FolderState,
    config_file,
    evalkit_file,
    folder_buffers,
    foreign_keys,
    uri_for,
)
from evalkit.lsp.yamlcontext import StructureIndex, top_level_keys, within_engine_limits
from evalkit.services.check.samples import find_samples_dir, samples_option_path
from evalkit.services.inputs.read import LoadedSubmission

logger = logging.getLogger(__name__)
T = TypeVar("T")

# Config files and every kind of sample submission (`evalkit eval` reads .json, .jsonl and YAML).
WATCHED_FILES = ("**/*.{yaml,yml}", "**/*.{json,jsonl}")
WATCH_REGISTRATION = "evalkit-watched-files"
STORM_QUIET_S = 0.02
"""Edits closer together than this (no one types that fast: a client replaying or generating them) wait
for this much quiet before a check: a check started at every edit of a storm kept a worker thread busy,
and every message the event loop read waited for the interpreter's lock."""


@dataclass(frozen=True, slots=True)
class OpenDocument:
    """A config file or rule test file as a request sees it: its text, structure and folder state."""

    uri: str
    path: Path
    name: str  # the schema the file follows: its config name, or `ruletest`
    folder: Path  # its config folder
    lines: Sequence[str]  # as the client counts them: with its byte order mark, if it has one
    index: StructureIndex
    state: FolderState
    refused: bool = False  # the engine refuses the text outright: no position in it is worth converting


class Session:
    """The server's state and background work: options, config folders, checks and dry runs."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.options = InitOptions()
        self.workspace_root: Path | None = None
        self.folders: dict[Path, FolderState] = {}
        self._checks = Debouncer("check")
        self._dry_runs = Debouncer("dry run")
        self._checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalkit-check")
        self._runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalkit-dry-run")
        self._sample_files = SampleFiles()
        self._indexes: dict[str, tuple[str, list[str], StructureIndex]] = {}
        self._refused: set[str] = set()  # the open documents the engine refuses outright (`_index`)
        self.reviewers = ReviewerVerdicts()
        self._told: set[str] = set()  # the problems already shown to the user
        self._verdicts: dict[Path, VerdictCache] = {}  # used on the dry-run worker only
        self._aside: set[str] = set()  # the documents left to other tools (`_set_aside`)
        self._last_change: dict[Path, float] = {}  # by folder: when an edit last came (`folder_changed`)

    # --- setup -------------------------------------------------------------------------------

    def configure(self, params: types.InitializeParams) -> list[str]:
        """Read the initialization options and the workspace root; returns the problems to log."""
        self.options, problems = parse_options(params.initialization_options)
        root = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
        raw_root = to_fs_path(root) if root else params.root_path
        self.workspace_root = Path(raw_root) if raw_root else None
        return problems

    def watch_files(self) -> None:
        """Ask the client to report changes on disk (a sample added, a config file changed by git): a
        client sends `workspace/didChangeWatchedFiles` only for the watchers a server registers."""
        if not get_capability(
            self.server.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False
        ):
            return
        watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED_FILES]
        registration = types.Registration(
            WATCH_REGISTRATION,
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesRegistrationOptions(watchers),
        )
        self.server.client_register_capability(types.RegistrationParams([registration]))

    def close(self) -> None:
        self._checks.cancel_all()
        self._dry_runs.cancel_all()
        for worker in (self._checker, self._runner):
            worker.shutdown(wait=False, cancel_futures=True)

    # --- documents -------------------------------------------------------------------------

    def state(self, folder: Path) -> FolderState:
        if folder not in self.folders:
            self.folders[folder] = FolderState(folder)
        return self.folders[folder]

    def document(self, uri: str) -> OpenDocument | None:
        """The open config file or rule test file at `uri` with its structure (cached per text), or None
        for another file. A file that is not open is never read here: that would be on the event loop,
        without the CLI's caps (a named pipe there blocks the server for good)."""
        found = evalkit_file(uri)
        if found is None or uri not in self.server.workspace.text_documents:
            return None
        lines, index = self._index(uri)
        if self._set_aside(uri, found, index):
            return None
        state = self.state(found.folder)
        refused = uri in self._refused
        return OpenDocument(uri, found.path, found.schema, found.folder, lines, index, state, refused)

    def _index(self, uri: str) -> tuple[list[str], StructureIndex]:
        """The open document's lines (as the client counts them) and the structure of its text (read
        without a byte order mark, as the engine reads it), cached per text. A text the engine refuses
        outright (too long, nested too deep) gets no structure: building it would cost seconds on the
        event loop, for a file whose one diagnostic says it is refused."""
        source = self.server.workspace.text_documents[uri].source
        cached = self._indexes.get(uri)
        if cached is None or cached[0] is not source:
            lines = split_lines(source)
            readable = without_bom(lines) if within_engine_limits(source) else []
            self._refused.discard(uri)
            if lines and not readable:
                self._refused.add(uri)
            index = StructureIndex(readable, cached[2] if cached else None)
            cached = (source, lines, index)
            self._indexes[uri] = cached
        return cached[1], cached[2]

    def _set_aside(self, uri: str, found: EvalkitFile, index: StructureIndex) -> bool:
        """Whether the file is someone else's that is only named like a config file (`foreign_keys`):
        the server leaves it alone, says so once in the log, and clears what it showed there."""
        keys = foreign_keys(found, top_level_keys(index.lines))
        if not keys:
            self._aside.discard(uri)
            return False
        if uri not in self._aside:
            self._aside.add(uri)
            told = (
                f"evalkit: {found.path} is left to other tools: it is named like an evalkit config file, but "
                f"no other is beside it and evalkit knows none of its top-level keys ({', '.join(keys)})"
            )
            self.server.window_log_message(types.LogMessageParams(types.MessageType.Info, told))
            if not self._pulls_diagnostics():
                self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        return True

    def forget(self, uri: str) -> None:
        self._indexes.pop(uri, None)
        self._refused.discard(uri)

    def buffers(self, folder: Path) -> dict[str, Buffer]:
        return folder_buffers(self.server.workspace.text_documents.items(), folder)

    # --- checks and diagnostics ----------------------------------------------------------------

    def document_changed(self, uri: str) -> None:
        """An edit, open or close: re-check the file's folder once the edits pause."""
        found = evalkit_file(uri)
        if found is None:
            return
        if (
            uri not in self.server.workspace.text_documents
        ):  # closed: its text on disk is the engine's to read
            if uri not in self._aside:
                self.folder_changed(found.folder)
            self._aside.discard(uri)
        elif not self._set_aside(uri, found, self._index(uri)[1]):
            self.folder_changed(found.folder)

    def folder_changed(self, folder: Path) -> None:
        self._dry_runs.cancel(folder)  # its results are about to be stale; typing never waits for it
        now = time.monotonic()
        in_a_storm = now - self._last_change.get(folder, float("-inf")) < STORM_QUIET_S
        self._last_change[folder] = now
        delay = max(self.options.diagnostics_delay_ms / 1000, STORM_QUIET_S if in_a_storm else 0.0)
        self._checks.schedule(folder, delay, lambda: self._check(folder, True))

    def files_changed(self, paths: Sequence[Path]) -> None:
        """Files changed on disk (the client's file watcher): re-check the folders they belong to,
        as config files or as samples, and every folder with open rule tests (a case's submission may
        be any file: one created fixes the case)."""
        for folder, state in list(self.folders.items()):
            samples = self.samples_dir(folder)
            in_samples = samples is not None and any(p.is_relative_to(samples) for p in paths)
            if in_samples and samples is not None:
                self._sample_files.forget(samples)  # a sample added or removed: list the folder again
            if state.tests or in_samples or any(p.parent == folder for p in paths):
                self.folder_changed(folder)

    def command_folder(self, arguments: Sequence[Any]) -> Path | None:
        """The config folder a command is about: the first argument that is a config file URI (also as
        `{"uri": ...}`), else the folder of the first open config file."""
        for argument in arguments:
            uri = argument.get("uri") if isinstance(argument, dict) else argument
            path = config_file(uri) if isinstance(uri, str) else None
            if path is not None:
                return path.parent
        opened = (config_file(uri) for uri in self.server.workspace.text_documents)
        return next((path.parent for path in opened if path is not None), None)

    async def current(self, folder: Path) -> FolderState:
        """The folder's state with the open buffers checked: waits for a check only when one is due."""
        state = self.state(folder)
        if not state.is_current(self.buffers(folder)):
            self._checks.cancel(folder)
            await self._check(folder, False)
        return state

    async def _check(self, folder: Path, after_edit: bool) -> None:
        started = time.perf_counter()
        buffers = self.buffers(folder)
        overrides = {path: as_saved(buffer.text) for path, buffer in buffers.items()}
        state = self.state(folder)
        previous = (state.latest, state.last_good)
        config, tests = await _in_thread(self._checker, _analyze, folder, overrides, previous)
        analyzed = time.perf_counter()
        state.accept(config, buffers, tests)
        self._publish(state, after_edit)
        self._after_check(state)
        logger.debug(
            "checked %s: analysis %.1f ms, publishing %.1f ms",
            folder,
            1000 * (analyzed - started),
            1000 * (time.perf_counter() - analyzed),
        )

    def _publish(self, state: FolderState, after_edit: bool) -> None:
        previous = state.problems
        state.problems = self._problems(state)
        for uri, problems in previous.items():
            if problems and uri not in state.problems:
                state.problems[uri] = []  # a file that left the folder: clear what it showed
        if self._pulls_diagnostics():
            if after_edit and get_capability(
                self.server.client_capabilities, "workspace.diagnostics.refresh_support", False
            ):
                self.server.workspace_diagnostic_refresh(None)
            return
        for uri, problems in state.problems.items():
            version = next((b.version for b in state.analyzed.values() if b.uri == uri), None)
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri, [p.diagnostic for p in problems], version)
            )

    def _problems(self, state: FolderState) -> dict[str, list[Problem]]:
        config = state.latest
        if config is None:
            return {}
        by_path: dict[str, list[Diagnostic]] = {str(p): [] for p in config.files.values()}
        for found in config.diagnostics:
            if Path(found.path).parent == state.folder:
                by_path.setdefault(found.path, []).append(found)
        by_path.update(state.tests)
        codec = self.server.workspace.position_codec
        return {
            uri_for(path, state.analyzed): [
                to_problem(d, lines_of(path, state, config), codec) for d in found
            ]
            for path, found in by_path.items()
        }

    def _pulls_diagnostics(self) -> bool:
        """A client that pulls diagnostics would show pushed ones twice."""
        return get_capability(self.server.client_capabilities, "text_document.diagnostic", None) is not None

    # --- dry run ----------------------------------------------------------------------------

    def samples_dir(self, folder: Path) -> Path | None:
        return find_samples_dir(folder, self.workspace_root, self.options.samples)

    def no_samples(self, folder: Path) -> str | None:
        """Why the folder's dry run has no samples, as the lens and the hover say it; None when it has
        them. A `samples` setting that names no folder is also told to the user, once."""
        if self.samples_dir(folder) is not None:
            return None
        if not self.options.samples:
            return NO_SAMPLES
        problem = samples_setting_problem(samples_option_path(self.options.samples, self.workspace_root))
        if problem not in self._told:
            self._told.add(problem)
            told = f"evalkit: {problem}; the dry run has no samples until it names a folder of submissions"
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Warning, told))
            self.server.window_log_message(types.LogMessageParams(types.MessageType.Warning, told))
        return f"dry run: no samples: {problem}"

    def _after_check(self, state: FolderState) -> None:
        config = state.latest
        if self.options.dry_run and config is not None and config.ok:
            delay = self.options.dry_run_delay_ms / 1000
            self._dry_runs.schedule(state.folder, delay, lambda: self._dry_run(state, config))
        self._refresh_lenses(state)

    async def dry_run_now(self, folder: Path) -> FolderState:
        """The dry run of the current buffers, waiting for it when it is not done yet."""
        state = await self.current(folder)
        config = state.latest
        if config is not None and config.ok:
            self._dry_runs.cancel(folder)
            await self._dry_run(state, config)
        return state

    async def _dry_run(self, state: FolderState, config: Config) -> None:
        samples_dir = self.samples_dir(state.folder)
        if samples_dir is None:
            self.no_samples(state.folder)  # a setting that names no folder is told now, not at a hover
            state.report = None
            self._refresh_lenses(state)
            return
        samples, signature = await _in_thread(self._runner, self._load_samples, samples_dir)
        report, key = state.report, (dryrun.meaning_of(config), signature)
        if report is None or state.report_key != key:
            report = await self._evaluate(config, samples, samples_dir, signature)
        await self._compare_with_base(state, config, samples, report, key)
        state.report, state.report_key = report, key  # with its impact: the lenses never mix two runs
        self._refresh_lenses(state)

    async def _evaluate(
        self, config: Config, samples: list[LoadedSubmission], samples_dir: Path, signature: Any
    ) -> dryrun.DryRunReport:
        stop = threading.Event()
        try:
            outcomes = await _in_thread(
                self._runner, self._run_samples, config, samples, samples_dir, signature, stop
            )
        except asyncio.CancelledError:
            stop.set()  # a newer edit: stop after the current sample instead of finishing a stale run
            raise
        logger.debug("dry run of %s on %d samples done", config.folder, len(outcomes))
        return dryrun.DryRunReport.of(config, samples_dir, outcomes)

    def _run_samples(
        self,
        config: Config,
        samples: list[LoadedSubmission],
        samples_dir: Path,
        signature: Any,
        stop: threading.Event,
    ) -> list[dryrun.SampleView]:
        """Runs on the worker: the dry run, testing only the rules whose conditions the edit changed."""
        cache = self._verdicts.setdefault(config.folder, VerdictCache())
        submissions = [sample.submission for sample in samples if sample.submission is not None]
        evaluate = cache.evaluator(config, submissions, signature, stop)
        return dryrun.evaluate_samples(evaluate, samples, samples_dir, stop)

    async def _compare_with_base(
        self,
        state: FolderState,
        config: Config,
        samples: list[LoadedSubmission],
        report: dryrun.DryRunReport,
        report_key: tuple[Any, ...],
    ) -> None:
        """The live impact: the dry run's results against the base's (which are worked out again only
        when the base or the samples changed)."""
        base_name = self.options.impact_base
        running = self._runner.submit(
            impact.run_base, state.folder, base_name, samples, report_key[1], state.base_run, report
        )
        # kept even when a newer edit cancels this run: the base's results outlive the edit (and with
        # many samples, typing on would otherwise start them over at every pause)
        running.add_done_callback(lambda done: _keep_base(state, done))
        base = await asyncio.wrap_future(running)
        key = (base.key, report_key)
        if state.impact_key != key:
            state.impact = await _in_thread(self._runner, impact.impact_of, base_name, base, config, report)
            state.impact_key = key

    def _load_samples(self, samples_dir: Path) -> tuple[list[LoadedSubmission], Any]:
        """Runs on the worker: the samples, read again only when a file they came from changed."""
        read = self._sample_files.samples(samples_dir, self.options.max_samples)
        return read.samples, read.signature

    def _refresh_lenses(self, state: FolderState) -> None:
        """Ask the client to fetch the lenses again when what they show has changed."""
        shown = (state.report, state.latest is not None and state.latest.ok, state.impact)
        if state.lens_state and all(a is b for a, b in zip(state.lens_state, shown, strict=True)):
            return
        state.lens_state = shown
        if get_capability(self.server.client_capabilities, "workspace.code_lens.refresh_support", False):
            self.server.workspace_code_lens_refresh(None)


def samples_setting_problem(chosen: Path) -> str:
    """What is wrong with the folder the `samples` setting names, naming the setting and the path: a file
    is refused as `evalkit check --samples` refuses it."""
    if chosen.exists():
        return f"the `samples` setting names a file, not a folder of sample submissions: {chosen}"
    return f"the `samples` setting names a folder that does not exist: {chosen}"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def as_saved(text: str) -> str:
    """The text as an editor saves it in UTF-8: a lone surrogate (a client may send one; UTF-8 cannot
    hold it) becomes U+FFFD, as VS Code writes it. One code unit for one: positions do not move."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _keep_base(state: FolderState, done: Future[impact.BaseRun]) -> None:
    if not done.cancelled() and done.exception() is None:
        state.base_run = done.result()


def _analyze(
    folder: Path, overrides: dict[str, str], previous: Sequence[Config | None]
) -> tuple[Config, dict[str, list[Diagnostic]]]:
    """Runs on the worker: the folder's config, then its open rule test files against its rule ids."""
    config = analyze(folder, overrides)  # it reads only the config files among the buffers
    return config, ruletests.check_tests(overrides, ruletests.rule_ids((config, *previous)))


async def _in_thread(worker: ThreadPoolExecutor, function: Callable[..., T], *args: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(worker, function, *args)


def lines_of(path: str, state: FolderState, config: Config) -> list[str]:
    """The text the diagnostics of `path` were computed on, for converting their columns."""
    buffer = state.analyzed.get(path)
    if buffer is not None:
        return split_lines(buffer.text)
    name = config_name(Path(path))
    document = config.documents.get(name) if name else None
    return document.lines() if document is not None else []
