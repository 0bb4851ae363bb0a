"""The evalkit language server (pygls 2, stdio): thin handlers over the session and the feature modules.

Each handler translates LSP in and out; the work is in `completion`, `hover`, `symbols`, `quickfix`,
`lenses` and `dryrun`, and the live pipeline (checks, diagnostics, dry runs) is in `session`. Every
handler fails soft: an unexpected error is logged and answered with an empty result, so no input can
take the server down.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from evalkit import __version__
from evalkit.engine.config import Config
from evalkit.engine.diagnostics import Diagnostic, Severity
from evalkit.lsp import completion, hover, lenses, quickfix, symbols
from evalkit.lsp.convert import before_bom, from_position, has_bom, text_range
from evalkit.lsp.docs import dimension_settings
from evalkit.lsp.documents import count_lines_as_the_protocol
from evalkit.lsp.failsoft import fail_soft
from evalkit.lsp.reviewers import Verdicts
from evalkit.lsp.schemanav import names_dimension
from evalkit.lsp.session import OpenDocument, Session, lines_of
from evalkit.lsp.stdio import serve_stdio
from evalkit.lsp.workspace import FolderState, uri_for
from evalkit.lsp.yamlcontext import cursor_at, target_at
from evalkit.services.config.folders import no_config_files


class EvalkitServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("evalkit", __version__)
        self.session = Session(self)

    def log(self, level: types.MessageType, message: str) -> None:
        self.window_log_message(types.LogMessageParams(level, message))


SERVER = EvalkitServer()

# While a check or a dry run keeps a worker thread busy, every message the event loop reads or writes
# needs the GIL back; at Python's default 5 ms per hand-over, one request waits tens of milliseconds.
# The interval only matters when another thread is waiting, so a short one costs the workers little.
SWITCH_INTERVAL_S = 0.0005
# A check of a 2,000-line rules.yaml allocates a few hundred thousand containers, nearly all freed by
# reference counting; at the default threshold (700) the cyclic collector runs ~50 times per check and
# takes as long as the check itself. Garbage cycles are rare here, so collecting young objects every
# 50,000 net allocations loses nothing.
GC_YOUNG_THRESHOLD = 50_000


def serve() -> NoReturn:
    """Run the server on stdin/stdout until the client says exit; returns the process's exit code."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    gc.freeze()  # the modules imported so far live as long as the process: no need to scan them again
    gc.set_threshold(GC_YOUNG_THRESHOLD, 50, 100)
    code = serve_stdio(SERVER)
    # `exit` ends the process now: work still running on a worker thread (a dry run, counting journals
    # the `journals` glob found) is abandoned, not waited for as the interpreter waits for its threads.
    logging.shutdown()
    with contextlib.suppress(ValueError, OSError):  # pygls closed stdout at `exit`
        sys.stdout.flush()
    os._exit(code)


@SERVER.feature(types.INITIALIZE)
@fail_soft(None)
def initialize(ls: EvalkitServer, params: types.InitializeParams) -> None:
    count_lines_as_the_protocol(ls.workspace)
    for problem in ls.session.configure(params):
        ls.log(types.MessageType.Warning, f"evalkit: {problem}")


@SERVER.feature(types.INITIALIZED)
@fail_soft(None)
def initialized(ls: EvalkitServer, params: types.InitializedParams) -> None:
    ls.session.watch_files()


@SERVER.feature(types.SHUTDOWN)
@fail_soft(None)
def shutdown(ls: EvalkitServer, params: None) -> None:
    ls.session.close()


@SERVER.feature(types.TEXT_DOCUMENT_DID_OPEN)
@fail_soft(None)
def did_open(ls: EvalkitServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.session.document_changed(params.text_document.uri)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@fail_soft(None)
def did_change(ls: EvalkitServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.session.document_changed(params.text_document.uri)


@SERVER.feature(types.TEXT_DOCUMENT_DID_SAVE)
@fail_soft(None)
def did_save(ls: EvalkitServer, params: types.DidSaveTextDocumentParams) -> None:
    """A save moves the live impact's base (the saved config), also for clients without file watchers."""
    ls.session.document_changed(params.text_document.uri)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@fail_soft(None)
def did_close(ls: EvalkitServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.session.forget(params.text_document.uri)
    ls.session.document_changed(params.text_document.uri)


@SERVER.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@fail_soft(None)
def watched_files_changed(ls: EvalkitServer, params: types.DidChangeWatchedFilesParams) -> None:
    paths = [Path(to_fs_path(change.uri) or "") for change in params.changes]
    ls.session.files_changed(paths)


@SERVER.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(inter_file_dependencies=True, workspace_diagnostics=False),
)
@fail_soft(types.RelatedFullDocumentDiagnosticReport(items=[]))
async def pull_diagnostics(
    ls: EvalkitServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    document = ls.session.document(params.text_document.uri)
    if document is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    state = await ls.session.current(document.folder)
    related = {
        uri: types.FullDocumentDiagnosticReport([p.diagnostic for p in problems])
        for uri, problems in state.problems.items()
        if uri != document.uri
    }
    own = [p.diagnostic for p in state.problems.get(document.uri, [])]
    return types.RelatedFullDocumentDiagnosticReport(items=own, related_documents=related or None)


@SERVER.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[" "]))
@fail_soft(None)
def complete(ls: EvalkitServer, params: types.CompletionParams) -> types.CompletionList | None:
    document = ls.session.document(params.text_document.uri)
    if document is None or document.refused or before_bom(params.position, document.lines):
        return None
    codec = ls.workspace.position_codec
    line, column = from_position(params.position, document.lines, codec)
    cursor = cursor_at(document.index, line, column)
    if cursor is None:
        return types.CompletionList(is_incomplete=False, items=[])
    state = document.state
    vocabulary = completion.Vocabulary.of(
        state.data("rules"),
        dimension_settings(state.settings_config()),
        lambda: (rule_id for (_, rule_id), _ in lenses.rules_in(document.index)),
    )
    replace = text_range(line, cursor.word_start, cursor.word_end, document.lines, codec)
    items = completion.complete(
        document.name,
        cursor,
        document.index.text(line),
        vocabulary,
        completion.ClientSupport.of(ls.client_capabilities),
        replace,
    )
    return types.CompletionList(is_incomplete=False, items=items)


@SERVER.feature(types.TEXT_DOCUMENT_HOVER)
@fail_soft(None)
def hover_text(ls: EvalkitServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.session.document(params.text_document.uri)
    if document is None or document.refused or before_bom(params.position, document.lines):
        return None
    codec = ls.workspace.position_codec
    line, column = from_position(params.position, document.lines, codec)
    target = target_at(document.index, line, column)
    facts = _hover_facts(ls, document)
    rules_data = document.state.data("rules") if target and document.name == "rules" else {}
    aliased = hover.aliased_rules_at(document.index, rules_data, line, column)
    if aliased:
        markdown = hover.alias_markdown(aliased, facts)
    else:
        markdown = hover.hover_markdown(document.name, document.index, target, facts) if target else None
    summary = hover.summary_markdown(document.name, line, facts)
    if summary is not None:  # the first line, under the summary lenses
        markdown = f"{summary}\n\n---\n\n{markdown}" if markdown else summary
    if markdown is None:
        return None
    where = (target.line, target.start, target.end) if target else (line, 0, len(document.index.text(line)))
    kind = _markup_kind(ls.client_capabilities)
    return types.Hover(types.MarkupContent(kind, markdown), text_range(*where, document.lines, codec))


def _hover_facts(ls: EvalkitServer, document: OpenDocument) -> hover.HoverFacts:
    state = document.state
    return hover.HoverFacts(
        dimension_settings(state.settings_config()),
        state.report,
        state.latest is not None and state.latest.ok,
        ls.session.no_samples(document.folder),
        _verdicts(ls, state.last_good),
        state.impact if ls.session.options.dry_run else None,
    )


def _verdicts(ls: EvalkitServer, config: Config | None) -> Verdicts | None:
    """What reviewers decided per rule, when the `journals` option is set (counted once a good config is
    known)."""
    pattern = ls.session.options.journals
    if pattern is None:
        return None
    return ls.session.reviewers.of(config, pattern, ls.session.workspace_root) if config else Verdicts(None)


def _markup_kind(capabilities: types.ClientCapabilities) -> types.MarkupKind:
    formats = (
        capabilities.text_document.hover.content_format
        if capabilities.text_document and capabilities.text_document.hover
        else None
    )
    return (
        types.MarkupKind.Markdown
        if not formats or types.MarkupKind.Markdown in formats
        else types.MarkupKind.PlainText
    )


@SERVER.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
@fail_soft([])
async def code_actions(ls: EvalkitServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    document = ls.session.document(params.text_document.uri)
    if document is None:
        return []
    state = await ls.session.current(document.folder)  # fixes must match the text as it is now
    return quickfix.quick_fixes(
        document.uri, state.problems.get(document.uri, []), params.range, params.context.only
    )


@SERVER.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@fail_soft([])
async def document_symbols(
    ls: EvalkitServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    document = ls.session.document(params.text_document.uri)
    if document is None:
        return []
    state = await ls.session.current(document.folder)
    parsed = state.parsed.get(document.name)  # while the file does not parse, its last outline
    if parsed is None:
        return []
    return symbols.document_symbols(parsed, ls.workspace.position_codec, has_bom(document.lines))


@SERVER.feature(types.TEXT_DOCUMENT_DEFINITION)
@fail_soft(None)
def definition(ls: EvalkitServer, params: types.DefinitionParams) -> types.Location | None:
    document = ls.session.document(params.text_document.uri)
    if document is None or document.refused:
        return None
    target = target_at(
        document.index, *from_position(params.position, document.lines, ls.workspace.position_codec)
    )
    if target is None or not names_dimension(document.name, target.path, target.is_key):
        return None
    state, config = document.state, document.state.latest
    parsed = config.documents.get("dimensions") if config is not None else None
    if parsed is None or config is None:
        return None
    return symbols.dimension_location(
        parsed,
        target.word,
        uri_for(parsed.path, state.analyzed),
        lines_of(parsed.path, state, config),
        ls.workspace.position_codec,
    )


@SERVER.feature(types.TEXT_DOCUMENT_CODE_LENS)
@fail_soft([])
def code_lens(ls: EvalkitServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    document = ls.session.document(params.text_document.uri)
    if document is None or document.name != "rules" or not ls.session.options.dry_run:
        return []
    state = document.state
    return lenses.code_lenses(
        document.index,
        state.report,
        state.latest is None or state.latest.ok,
        ls.session.no_samples(document.folder),
        document.uri,
        document.lines,
        ls.workspace.position_codec,
        state.impact,
        state.data("rules"),
    )


async def _ran_now(
    ls: EvalkitServer, arguments: tuple[Any, ...], purpose: str
) -> tuple[Path, FolderState] | dict[str, Any]:
    """A command's folder (the URI given, else the first with an open config file) with its dry run done
    now, or the command's answer saying why there is none."""
    folder = ls.session.command_folder(arguments)
    if folder is None:
        return {"error": "no evalkit config file is open; pass the URI of one"}
    checked = (await ls.session.current(folder)).latest
    if checked is not None and not checked.files and not checked.diagnostics:
        return {"config": str(folder), "error": no_config_files(folder)}  # as the CLI refuses it
    state = await ls.session.dry_run_now(folder)
    if state.latest is None or not state.latest.ok:
        return {"config": str(folder), "error": _refusal(state.latest, purpose)}
    if state.report is None:
        return {"config": str(folder), "error": ls.session.no_samples(folder) or lenses.NO_SAMPLES}
    return folder, state


def _refusal(config: Config | None, purpose: str) -> str:
    """Why a command does not run: the config's first error (and how many more), where and what."""
    errors = sorted(
        (d for d in (config.diagnostics if config is not None else []) if d.severity is Severity.ERROR),
        key=Diagnostic.sort_key,
    )
    first = f": {errors[0].format()}" if errors else ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"the config has errors; fix them to {purpose}{first}{more}"


@SERVER.command(lenses.DRY_RUN_COMMAND)
@fail_soft({"error": "the dry run failed; see the server log"})
async def dry_run(ls: EvalkitServer, *arguments: Any) -> dict[str, Any]:
    """`evalkit.dryRun [uri]`: the per-sample results (label, score, flags, fired rules) of the folder of
    `uri` (default: the first folder with an open config file)."""
    ran = await _ran_now(ls, arguments, "run the rules")
    if isinstance(ran, dict):
        return ran
    folder, state = ran
    assert state.report is not None
    return state.report.to_json(folder)


@SERVER.command(lenses.DIFF_COMMAND)
@fail_soft({"error": "the comparison failed; see the server log"})
async def diff(ls: EvalkitServer, *arguments: Any) -> dict[str, Any]:
    """`evalkit.diff [uri]`: the live impact as `evalkit diff --format json` gives it: the samples' results
    under the buffers' config against the base (`impactBase`: the saved files, or git HEAD)."""
    ran = await _ran_now(ls, arguments, "compare it")
    if isinstance(ran, dict):
        return ran
    folder, state = ran
    found = state.impact
    if found is None or found.report is None:
        problem = found.problem if found is not None else "no comparison yet"
        return {"config": str(folder), "error": f"vs {ls.session.options.impact_base}: {problem}"}
    return found.report.to_dict()
