"""What the server knows and does, apart from the protocol's plumbing.

Every method runs on one worker thread (``lsp.py`` hands the work over), so the state
needs no locks: the open documents as last analyzed, the projects and their facts, and
the diagnostics last computed with the findings they came from (for code actions and
hover).  Analysis problems never escape: a file whose analysis raises is logged and
keeps its previous diagnostics.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, Iterable, List, Optional, Sequence, Tuple

from lsprotocol import types

from nondet_lint import notebooks
from nondet_lint.config import Config, project_root
from nondet_lint.discovery import is_checkable, is_requirements_file
from nondet_lint.docs import explain
from nondet_lint.fixes.loop import FixSession
from nondet_lint.fixes.verify import FixError, fixed_bytes
from nondet_lint.parallel import settle_heap
from nondet_lint.results import RunResult
from nondet_lint.ruledata import load_rules
from nondet_lint.server.documents import Lines, Snapshot, Units, text_edit
from nondet_lint.server.notebook_text import source_lines
from nondet_lint.server.project import ProjectFacts, is_project_folder, path_key
from nondet_lint.server.ruledocs import rule_url
from nondet_lint.server.settings import Settings, config_for
from nondet_lint.source import SourceError, decode_source
from nondet_lint.types import SAFE, UNSAFE, Edit, Finding, UsageError

SOURCE = "nondet-lint"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
SHOW_DOCS_COMMAND = "nondet-lint.showDocumentation"
CONFIG_NAMES = ("pyproject.toml", "nondet-lint.toml", ".nondet-lint.toml")

Log = Callable[[types.MessageType, str], None]


def uri_of(path: str) -> str:
    from pygls.uris import from_fs_path

    return from_fs_path(os.path.abspath(path)) or path


def path_of(uri: str) -> Optional[str]:
    from pygls.uris import to_fs_path

    return to_fs_path(uri) if uri.startswith("file:") else None


@dataclass
class Shown:
    """Diagnostics of one document (or notebook cell) and the findings behind them."""

    owner: str  # the open document: itself, or the notebook of a cell
    pairs: List[Tuple[types.Diagnostic, Finding]] = field(default_factory=list)

    @property
    def diagnostics(self) -> List[types.Diagnostic]:
        return [diagnostic for diagnostic, _ in self.pairs]


class Linter:
    def __init__(self, units: Units, log: Log, workers: Optional[int] = None) -> None:
        self.units = units
        self.log = log
        self.workers = workers
        self.settings = Settings()
        self.folders: List[str] = []
        self.document_changes = False  # the client takes versioned edits
        self.projects: Dict[Tuple[str, str], ProjectFacts] = {}
        self.configs: Dict[str, Config] = {}  # by folder
        self.open: Dict[str, Snapshot] = {}  # by uri
        self.shown: Dict[str, Shown] = {}  # by the uri diagnostics are published for
        self.config_errors: Dict[str, str] = {}

    # ---- configuration and projects -----------------------------------------------------
    def configure(self, settings: Settings) -> None:
        self.settings = settings
        self.reset()

    def reset(self) -> None:
        """Forget configurations and facts (settings or a config file changed); the next
        analysis reads them again (unchanged files come from the on-disk cache)."""
        self.configs.clear()
        self.projects.clear()

    def config(self, path: str) -> Config:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self.configs:
            codes = load_rules().codes
            try:
                config = config_for(path, self.settings, codes, self.folders[0] if self.folders else None)
                self.config_errors.pop(folder, None)
            except UsageError as exc:
                config = Config(root=str(project_root(Path(folder))))
                message = f"nondet-lint: {exc} (using the default settings)"
                if self.config_errors.get(folder) != message:
                    self.config_errors[folder] = message
                    self.log(types.MessageType.Error, message)
            self.configs[folder] = config
        return self.configs[folder]

    def project(self, path: str) -> ProjectFacts:
        """The project of ``path``; indexed on first use."""
        config = self.config(path)
        key = (config.root, config.fingerprint())
        project = self.projects.get(key)
        if project is None:
            project = self.projects[key] = ProjectFacts(config, is_project_folder(config.root, self.folders), self.workers)
        if not project.indexed:
            started = time.perf_counter()
            count = project.index()
            if project.helper_status:
                self.log(types.MessageType.Warning, f"nondet-lint: the indexing process ended with status "
                                                    f"{project.helper_status}; files were analyzed here instead")
            if count:
                self.log(types.MessageType.Info, f"nondet-lint: indexed {count} files of {config.root} in {time.perf_counter() - started:.2f} s")
                # the index lives as long as the project: frozen, the collector stops
                # rescanning it after each edit's parse (full collections took seconds)
                settle_heap()
        return project

    # ---- analysis -----------------------------------------------------------------------
    def refresh(self, snapshots: Sequence[Snapshot] = (), closed: Sequence[str] = (), on_disk: Sequence[str] = (),
                everything: bool = False) -> Dict[str, List[types.Diagnostic]]:
        """Analyze what changed (open buffers, closed documents, files changed on disk)
        and decide again; returns the diagnostics to publish by uri (those that changed,
        and empty lists for documents closed)."""
        out: Dict[str, List[types.Diagnostic]] = {}
        touched: Dict[int, ProjectFacts] = {}
        started = time.perf_counter()
        for uri in closed:
            gone = self.open.pop(uri, None)
            if gone is None:
                continue
            for shown_uri in [uri, *(cell.uri for cell in gone.cells or ())]:
                if self.shown.pop(shown_uri, None) is not None or shown_uri == uri:
                    out[shown_uri] = []
            self._guarded(gone.path, lambda: self._update_from_disk(gone.path, touched))
        for snapshot in snapshots:
            self.open[snapshot.uri] = snapshot
            self._guarded(snapshot.path, lambda: self._update(snapshot, touched))
        for path in on_disk:
            self._guarded(path, lambda: self._update_from_disk(path, touched))
        if everything:
            for snapshot in self.open.values():
                self._guarded(snapshot.path, lambda: self._update(snapshot, touched))
        analyzed = time.perf_counter()
        first = {snapshot.uri for snapshot in snapshots}
        for project in touched.values():
            self._guarded(project.config.root, lambda: out.update(self._decide(project, first)))
        if snapshots:
            done = time.perf_counter()
            self.log(types.MessageType.Log, f"nondet-lint: checked {len(snapshots)} document(s) in {done - started:.3f} s "
                                            f"(pass 1 {analyzed - started:.3f} s, pass 2 {done - analyzed:.3f} s)")
        return out

    def _update(self, snapshot: Snapshot, touched: Dict[int, ProjectFacts]) -> None:
        project = self.project(snapshot.path)
        project.update(snapshot.path, snapshot.raw())
        touched[id(project)] = project

    def _update_from_disk(self, path: str, touched: Dict[int, ProjectFacts]) -> None:
        """A file changed on disk (or its buffer was closed): each project that holds it
        reads it again; a file that is gone is forgotten."""
        key = path_key(path)
        for project in self.projects.values():
            if not project.indexed or not _inside(key, path_key(project.config.root)):
                continue
            if os.path.isfile(path):
                project.update(path, None)
            else:
                project.forget(path)
            touched[id(project)] = project

    def _guarded(self, where: str, work: Callable[[], Any]) -> None:
        try:
            work()
        except Exception as exc:  # one analysis failing must not stop the server
            self.log(types.MessageType.Error, f"nondet-lint: internal error while checking {where}: "
                                              f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")

    def _decide(self, project: ProjectFacts, first: Collection[str] = ()) -> Dict[str, List[types.Diagnostic]]:
        """Diagnostics of the project's open documents, those in ``first`` (the documents
        just edited) first: they are published in this order."""
        mine = [s for s in self.open.values() if self._project_of(s.path) is project]
        if not mine:
            return {}
        mine.sort(key=lambda snapshot: snapshot.uri not in first)
        findings = project.findings([s.path for s in mine])
        out: Dict[str, List[types.Diagnostic]] = {}
        for snapshot in mine:
            for uri, shown in self._show(snapshot, findings.get(project.name(snapshot.path), [])).items():
                before = self.shown.get(uri)
                self.shown[uri] = shown
                if before is None or before.diagnostics != shown.diagnostics:
                    out[uri] = shown.diagnostics
        return out

    def _project_of(self, path: str) -> Optional[ProjectFacts]:
        config = self.configs.get(os.path.dirname(os.path.abspath(path)))
        return self.projects.get((config.root, config.fingerprint())) if config else None

    # ---- findings as diagnostics --------------------------------------------------------
    def _show(self, snapshot: Snapshot, findings: Sequence[Finding]) -> Dict[str, Shown]:
        """The diagnostics of one open document: of the document, or of each code cell."""
        if snapshot.cells is not None:
            cells = snapshot.code_cells()
            out = {cell.uri: Shown(snapshot.uri) for cell in cells}
            for finding in findings:
                number = finding.cell if finding.cell and finding.cell <= len(cells) else 1
                if not cells:
                    break
                cell = cells[number - 1]
                out[cell.uri].pairs.append((self.diagnostic(finding, Lines(cell.text, self.units)), finding))
            return out
        shown = Shown(snapshot.uri)
        lines = Lines(snapshot.text, self.units)
        cell_lines = source_lines(snapshot.text) if snapshot.path.endswith(notebooks.SUFFIX) else None
        for finding in findings:
            placed = finding
            if cell_lines is not None:  # an .ipynb shown as JSON text: the line of the cell's source
                placed = _in_json(finding, cell_lines, lines)
            shown.pairs.append((self.diagnostic(placed, lines), finding))
        return {snapshot.uri: shown}

    def diagnostic(self, finding: Finding, lines: Lines) -> types.Diagnostic:
        url = rule_url(finding.code)
        return types.Diagnostic(
            range=lines.range(finding.line, finding.col, finding.end_line, finding.end_col),
            message=finding.message,
            severity=types.DiagnosticSeverity.Error if finding.code == "ND000" else types.DiagnosticSeverity.Warning,
            code=finding.code,
            code_description=types.CodeDescription(href=url) if url else None,
            source=SOURCE,
        )

    # ---- hover --------------------------------------------------------------------------
    def hover(self, uri: str, position: types.Position) -> Optional[types.Hover]:
        shown = self.shown.get(uri)
        if shown is None:
            return None
        codes: List[str] = []
        for diagnostic, finding in shown.pairs:
            if _contains(diagnostic.range, position) and finding.code not in codes:
                codes.append(finding.code)
        rules = load_rules()
        parts = [explain(rules[code]) for code in codes if code in rules]
        if not parts:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n---\n\n".join(parts)),
        )

    # ---- code actions -------------------------------------------------------------------
    def code_actions(self, uri: str, request: types.Range, only: Optional[Sequence[str]]) -> List[types.CodeAction]:
        shown = self.shown.get(uri)
        snapshot = self.open.get(shown.owner) if shown else None
        if shown is None or snapshot is None:
            return []
        actions: List[types.CodeAction] = []
        if not only or _asked(types.CodeActionKind.QuickFix.value, only):
            for diagnostic, finding in shown.pairs:
                if _overlaps(diagnostic.range, request):
                    actions.extend(self._quick_fixes(snapshot, diagnostic, finding))
        if only and _asked(FIX_ALL_KIND, only):  # on request only (on save): it analyzes again
            fix_all = self.fix_all(snapshot)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def _quick_fixes(self, snapshot: Snapshot, diagnostic: types.Diagnostic, finding: Finding) -> List[types.CodeAction]:
        actions = []
        fix = finding.fix
        if fix is not None and fix.edits and fix.applicability in (SAFE, UNSAFE):
            by_path: Dict[str, List[Edit]] = {}
            for edit in fix.edits:
                by_path.setdefault(edit.path or finding.path, []).append(edit)
            try:
                workspace = self.workspace_edit(by_path)
            except (FixError, OSError, SourceError, ValueError) as exc:
                self.log(types.MessageType.Warning, f"nondet-lint: {finding.code} fix not offered: {exc}")
            else:
                title = fix.title if fix.applicability == SAFE else f"{fix.title} (unsafe)"
                actions.append(types.CodeAction(
                    title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    is_preferred=fix.applicability == SAFE, edit=workspace,
                ))
        noqa = self._noqa(snapshot, finding)
        if noqa is not None:
            actions.append(types.CodeAction(
                title=f"Add `# noqa: {finding.code}`", kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], edit=noqa,
            ))
        title = f"Show documentation for {finding.code}"
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            command=types.Command(title=title, command=SHOW_DOCS_COMMAND, arguments=[finding.code]),
        ))
        return actions

    def _noqa(self, snapshot: Snapshot, finding: Finding) -> Optional[types.WorkspaceEdit]:
        """``# noqa: CODE`` at the end of the finding's line, or the code added to the
        noqa comment already there."""
        if finding.code == "ND000":
            return None
        if snapshot.cells is not None:
            cells = snapshot.code_cells()
            if not finding.cell or finding.cell > len(cells):
                return None
            text = cells[finding.cell - 1].text
        else:
            text = snapshot.text if not snapshot.path.endswith(notebooks.SUFFIX) else _cell_text(snapshot.text, finding.cell)
        line = Lines(text, self.units).line(finding.line)
        edit = noqa_edit(line, finding.line, finding.code)
        if edit is None:
            return None
        return self.workspace_edit({finding.path: [Edit(*edit, cell=finding.cell)]})

    def fix_all(self, snapshot: Snapshot) -> Optional[types.CodeAction]:
        """Every safe fix of the document, applied in rounds as ``--fix`` does."""
        project = self.project(snapshot.path)
        name = project.name(snapshot.path)
        result = project.results.get(name)
        shown = [self.shown[uri] for uri in self._uris(snapshot) if uri in self.shown]
        findings = [finding for item in shown for _, finding in item.pairs]
        if result is None or not any(f.fix is not None and f.fix.applicability == SAFE for f in findings):
            return None
        raw = snapshot.raw()
        run = RunResult(findings, [name], [result], project.contexts([name]), [])
        session = FixSession(run, project.config, unsafe=False, read=lambda path: raw if path == name else _read(path))
        outcome = session.fix()
        if name not in outcome.changed:
            return None
        edit = self._replace(snapshot, outcome.contents[name])
        if edit is None:
            return None
        return types.CodeAction(title="nondet-lint: fix all (safe fixes)", kind=FIX_ALL_KIND, edit=edit)

    def _uris(self, snapshot: Snapshot) -> List[str]:
        return [cell.uri for cell in snapshot.code_cells()] if snapshot.cells is not None else [snapshot.uri]

    # ---- edits --------------------------------------------------------------------------
    def workspace_edit(self, by_path: Dict[str, List[Edit]]) -> types.WorkspaceEdit:
        """Engine edits (1-based lines, character columns, notebook cells) as a workspace
        edit, each file's by the document the client has: its buffer when open (a
        notebook's cells), else the file on disk."""
        changes: List[Tuple[str, Optional[int], List[types.TextEdit]]] = []
        for path, edits in sorted(by_path.items()):
            snapshot = self._open_at(path)
            if snapshot is not None and snapshot.cells is not None:
                cells = snapshot.code_cells()
                for number in sorted({edit.cell or 1 for edit in edits}):
                    cell = cells[number - 1]
                    lines = Lines(cell.text, self.units)
                    changes.append((cell.uri, cell.version, [
                        _text_edit(lines, edit) for edit in edits if (edit.cell or 1) == number
                    ]))
                continue
            uri = snapshot.uri if snapshot else uri_of(path)
            version = snapshot.version if snapshot else None
            if path.endswith(notebooks.SUFFIX):  # the JSON text: write the cells, keep the rest
                raw = snapshot.raw() if snapshot else _read(path)
                new = fixed_bytes(path, raw, edits).decode("utf-8")
                edit = text_edit(raw.decode("utf-8-sig"), new, self.units)
                changes.append((uri, version, [edit] if edit else []))
                continue
            text = snapshot.text if snapshot else decode_source(_read(path), path).text
            lines = Lines(text, self.units)
            changes.append((uri, version, [_text_edit(lines, edit) for edit in edits]))
        return self._as_workspace_edit(changes)

    def _replace(self, snapshot: Snapshot, new: bytes) -> Optional[types.WorkspaceEdit]:
        """The edit that turns the open document into ``new`` (its bytes as analyzed)."""
        if snapshot.cells is None:
            edit = text_edit(snapshot.text, decode_source(new, snapshot.path).text, self.units)
            return self._as_workspace_edit([(snapshot.uri, snapshot.version, [edit])]) if edit else None
        after = [notebooks.cell_text(cell) for _, _, cell in notebooks.code_cells(notebooks.load_notebook(new))]
        changes = []
        for cell, text in zip(snapshot.code_cells(), after):
            edit = text_edit(cell.text, text, self.units)
            if edit is not None:
                changes.append((cell.uri, cell.version, [edit]))
        return self._as_workspace_edit(changes) if changes else None

    def _as_workspace_edit(self, changes: Sequence[Tuple[str, Optional[int], List[types.TextEdit]]]) -> types.WorkspaceEdit:
        if self.document_changes:
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                    edits=list(edits),
                )
                for uri, version, edits in changes
            ])
        merged: Dict[str, List[types.TextEdit]] = {}
        for uri, _, edits in changes:
            merged.setdefault(uri, []).extend(edits)
        return types.WorkspaceEdit(changes=merged)

    def _open_at(self, path: str) -> Optional[Snapshot]:
        key = path_key(path)
        return next((s for s in self.open.values() if path_key(s.path) == key), None)

    # ---- files on disk ------------------------------------------------------------------
    def disk_changed(self, paths: Iterable[str]) -> Dict[str, List[types.Diagnostic]]:
        """Files changed, created or deleted outside the editor: a config file resets the
        projects; other checkable files are read again (open buffers win)."""
        paths = list(paths)
        if any(os.path.basename(path) in CONFIG_NAMES or _is_config(path, self.settings) for path in paths):
            self.reset()
            return self.refresh(everything=True)
        for project in self.projects.values():
            project.files_changed_on_disk()
        open_paths = {path_key(s.path) for s in self.open.values()}
        changed = [p for p in paths if is_checkable(os.path.basename(p)) and path_key(p) not in open_paths]
        requirement_docs = [p for p in paths if is_requirements_file(os.path.basename(p)) and path_key(p) in open_paths]
        return self.refresh(on_disk=changed, snapshots=[s for s in self.open.values() if path_key(s.path) in {path_key(p) for p in requirement_docs}])


def noqa_edit(line: str, number: int, code: str) -> Optional[Tuple[int, int, int, int, str]]:
    """(line, col, end line, end col, text) adding ``code`` to the line's noqa comment,
    or a new ``# noqa: CODE`` comment at its end; None if the line suppresses all codes."""
    import re

    match = re.search(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", line, re.IGNORECASE)
    if match is None:
        end = len(line.rstrip())
        return number, end, number, len(line), f"  # noqa: {code}"
    if match.group("codes") is None:
        return None
    end = match.end("codes")
    return number, end, number, end, f", {code}"


def _text_edit(lines: Lines, edit: Edit) -> types.TextEdit:
    return types.TextEdit(
        range=types.Range(start=lines.position(edit.line, edit.col), end=lines.position(edit.end_line, edit.end_col)),
        new_text=edit.content,
    )


def _in_json(finding: Finding, cell_lines: Dict[int, List[int]], lines: Lines) -> Finding:
    """A finding addressed to (cell, line) moved to the line of the ``.ipynb`` JSON text
    that holds that source line, over the whole line."""
    from dataclasses import replace

    rows = cell_lines.get(finding.cell or 0) or cell_lines.get(1) or [0]
    row = rows[min(max(finding.line, 1), len(rows)) - 1] + 1
    return replace(finding, line=row, col=0, end_line=row, end_col=len(lines.line(row)), cell=None)


def _cell_text(notebook_text: str, cell: Optional[int]) -> str:
    try:
        cells = notebooks.code_cells(notebooks.load_notebook(notebook_text.encode("utf-8")))
    except notebooks.NotebookError:
        return ""
    return notebooks.cell_text(cells[cell - 1][2]) if cell and cell <= len(cells) else ""


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _inside(key: str, root_key: str) -> bool:
    return key == root_key or key.startswith(root_key.rstrip(os.sep) + os.sep)


def _is_config(path: str, settings: Settings) -> bool:
    return bool(settings.config) and os.path.basename(path) == os.path.basename(settings.config or "")


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) <= (b.line, b.character)


def _contains(span: types.Range, position: types.Position) -> bool:
    return _before(span.start, position) and _before(position, span.end)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return _before(a.start, b.end) and _before(b.start, a.end)


def _asked(kind: str, only: Sequence[str]) -> bool:
    """Whether ``only`` (kinds or their parents) asks for code actions of ``kind``."""
    return any(kind == asked or kind.startswith(asked + ".") for asked in only)
