"""The language server: protocol handlers on pygls, analysis on one worker thread.

Handlers run on pygls' event loop and stay quick: they note which documents changed and
hand the analysis to a single worker thread (``Linter``), so the server keeps reading
messages while a file is analyzed, and the analysis state is only ever touched by one
thread.  Changes are debounced (``CHANGE_DELAY``): a burst of changes (a paste, an
editor's multi-cursor edit, quick keystrokes) is analyzed once; opening and saving
analyze at once.  While an analysis runs, changes made meanwhile wait for it and are
analyzed together after it, so analyses never queue up behind a fast typist.  A code
action or hover request first flushes its document's pending change, so it answers for
the text the client has.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from nondet_lint import __version__
from nondet_lint.discovery import is_checkable, is_requirements_file
from nondet_lint.server.documents import Cell, Snapshot
from nondet_lint.server.linter import CONFIG_NAMES, FIX_ALL_KIND, SHOW_DOCS_COMMAND, SOURCE, Linter, path_of
from nondet_lint.server.ruledocs import rule_url
from nondet_lint.server.settings import parse_settings
from nondet_lint.types import UsageError

CHANGE_DELAY = 0.03  # seconds of quiet after a change before the buffer is analyzed
WATCHED = (
    "**/pyproject.toml", "**/nondet-lint.toml", "**/.nondet-lint.toml", "**/setup.cfg",
    "**/requirements*.txt", "**/requirements*.in", "**/environment.yml", "**/environment.yaml",
    "**/*.py", "**/*.ipynb",
)
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]),
    ],
    save=True,
)

T = TypeVar("T")


class NondetLintServer(LanguageServer):
    def __init__(self, workers: Optional[int] = None) -> None:
        super().__init__(SOURCE, __version__, notebook_document_sync=NOTEBOOK_SYNC)
        self.workers = workers
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="nondet-lint")
        self.linter: Optional[Linter] = None
        self.pending: Dict[str, float] = {}  # open document uri -> when to analyze it (loop time)
        self.timer: Optional[asyncio.TimerHandle] = None
        self.loop: Optional[asyncio.AbstractEventLoop] = None  # pygls' loop, set at initialize
        self.analyzing = 0  # analyses of pending changes handed to the worker and not done

    # ---- the worker thread --------------------------------------------------------------
    def on_worker(self, work: Callable[..., T], *args: Any) -> "asyncio.Future[T]":
        return asyncio.wrap_future(self.executor.submit(work, *args))

    def log(self, level: types.MessageType, message: str) -> None:
        """From any thread: a ``window/logMessage`` (errors of configuration shown too)."""
        def send() -> None:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
            if level == types.MessageType.Error and "internal error" not in message:
                self.window_show_message(types.ShowMessageParams(type=level, message=message))

        self.loop_call(send)

    def loop_call(self, callback: Callable[[], None]) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(callback)

    def publish(self, future: "asyncio.Future[Dict[str, List[types.Diagnostic]]]") -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            self.log(types.MessageType.Error, f"nondet-lint: internal error: {type(error).__name__}: {error}")
            return
        for uri, diagnostics in future.result().items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    def run_and_publish(self, work: Callable[..., Dict[str, List[types.Diagnostic]]], *args: Any) -> "asyncio.Future[Any]":
        future = self.on_worker(work, *args)
        future.add_done_callback(self.publish)
        return future

    # ---- scheduling ---------------------------------------------------------------------
    def touch(self, uri: str, delay: float) -> None:
        loop = asyncio.get_event_loop()
        self.pending[uri] = loop.time() + delay
        self._arm(loop)

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.pending:
            self.timer = loop.call_at(min(self.pending.values()), self._due)

    def _due(self) -> None:
        self.timer = None
        if self.analyzing:  # the changes wait for the analysis running (``_analyzed`` re-arms)
            return
        loop = asyncio.get_event_loop()
        now = loop.time()
        due = [uri for uri, when in self.pending.items() if when <= now + 0.001]
        self.flush(due)
        self._arm(loop)

    def flush(self, uris: List[str]) -> None:
        """Analyze these documents now (as they are in the client)."""
        snapshots = []
        for uri in uris:
            self.pending.pop(uri, None)
            snapshot = self.snapshot(uri)
            if snapshot is not None:
                snapshots.append(snapshot)
        if snapshots and self.linter is not None:
            self.analyzing += 1
            self.run_and_publish(self.linter.refresh, snapshots).add_done_callback(self._analyzed)

    def _analyzed(self, future: "asyncio.Future[Any]") -> None:
        self.analyzing -= 1
        self._arm(asyncio.get_event_loop())

    def settle(self, uri: str) -> str:
        """Flush the pending change of ``uri`` (or of its notebook); returns the uri of
        the open document that holds it."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        owner = notebook.uri if notebook is not None else uri
        if owner in self.pending:
            self.flush([owner])
        return owner

    def snapshot(self, uri: str) -> Optional[Snapshot]:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            path = path_of(notebook.uri)
            if path is None:
                return None
            cells = []
            for cell in notebook.cells:
                document = self.workspace.get_text_document(cell.document)
                cells.append(Cell(cell.document, cell.kind == types.NotebookCellKind.Code, document.source, document.version))
            return Snapshot(notebook.uri, path, notebook.version, cells=tuple(cells))
        path = path_of(uri)
        if path is None or not is_checkable(os.path.basename(path)):
            return None
        document = self.workspace.get_text_document(uri)
        return Snapshot(uri, path, document.version, text=document.source)


def create_server(workers: Optional[int] = None) -> NondetLintServer:
    server = NondetLintServer(workers)

    @server.feature(types.INITIALIZE)
    def initialize(ls: NondetLintServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        units = ls.workspace.position_codec.client_num_units
        ls.linter = Linter(units, ls.log, ls.workers)
        folders = [path_of(folder.uri) for folder in params.workspace_folders or []]
        if not folders and params.root_uri:
            folders = [path_of(params.root_uri)]
        ls.linter.folders = [folder for folder in folders if folder]
        edit = params.capabilities.workspace.workspace_edit if params.capabilities.workspace else None
        ls.linter.document_changes = bool(edit and edit.document_changes)
        try:
            ls.linter.settings = parse_settings(params.initialization_options)
        except UsageError as exc:
            ls.log(types.MessageType.Error, f"nondet-lint: {exc} (settings ignored)")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: NondetLintServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED],
            )
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="nondet-lint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=options),
                ]))
            except Exception as exc:  # the client offered it but refused: saves still count
                ls.log(types.MessageType.Warning, f"nondet-lint: cannot watch files: {exc}")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NondetLintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.touch(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NondetLintServer, params: types.DidChangeTextDocumentParams) -> None:
        path = path_of(params.text_document.uri) or ""
        if not is_requirements_file(os.path.basename(path)):  # those are read on save
            ls.touch(params.text_document.uri, CHANGE_DELAY)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: NondetLintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is None or ls.linter is None:
            return
        if is_requirements_file(os.path.basename(path)) or _is_config_file(path):  # read from disk
            ls.pending.pop(params.text_document.uri, None)
            ls.run_and_publish(ls.linter.disk_changed, [path])
        else:
            ls.touch(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NondetLintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.pending.pop(params.text_document.uri, None)
        linter = ls.linter
        if linter is not None:
            ls.run_and_publish(lambda: linter.refresh(closed=[params.text_document.uri]))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: NondetLintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.touch(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: NondetLintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.touch(params.notebook_document.uri, CHANGE_DELAY)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: NondetLintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.touch(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: NondetLintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.pending.pop(uri, None)
        linter = ls.linter
        if linter is not None:
            ls.run_and_publish(lambda: linter.refresh(closed=[uri]))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: NondetLintServer, params: types.DidChangeConfigurationParams) -> None:
        if ls.linter is None or not params.settings:
            return
        try:
            settings = parse_settings(params.settings)
        except UsageError as exc:
            ls.log(types.MessageType.Error, f"nondet-lint: {exc} (settings ignored)")
            return
        linter = ls.linter
        ls.pending.clear()

        def reconfigure() -> Dict[str, List[types.Diagnostic]]:
            linter.configure(settings)
            return linter.refresh(everything=True)

        ls.run_and_publish(reconfigure)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: NondetLintServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [path for path in (path_of(change.uri) for change in params.changes) if path]
        if paths and ls.linter is not None:
            ls.run_and_publish(ls.linter.disk_changed, paths)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
    )
    async def code_action(ls: NondetLintServer, params: types.CodeActionParams) -> List[types.CodeAction]:
        if ls.linter is None:
            return []
        ls.settle(params.text_document.uri)
        return await ls.on_worker(ls.linter.code_actions, params.text_document.uri, params.range, params.context.only)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: NondetLintServer, params: types.HoverParams) -> Optional[types.Hover]:
        if ls.linter is None:
            return None
        ls.settle(params.text_document.uri)
        return await ls.on_worker(ls.linter.hover, params.text_document.uri, params.position)

    @server.command(SHOW_DOCS_COMMAND)
    async def show_documentation(ls: NondetLintServer, code: str) -> None:
        url = rule_url(str(code).upper())
        if url is None:
            ls.log(types.MessageType.Warning, f"nondet-lint: no documentation page for {code} (see `nondet-lint --explain {code}`)")
            return
        await ls.window_show_document_async(types.ShowDocumentParams(uri=url))  # a Markdown file, in the editor

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: NondetLintServer, params: None) -> None:
        if ls.timer is not None:
            ls.timer.cancel()
        ls.pending.clear()
        ls.executor.shutdown(wait=False, cancel_futures=True)

    return server


def _is_config_file(path: Optional[str]) -> bool:
    return path is not None and os.path.basename(path) in CONFIG_NAMES
