"""Pass 1: one file (Python source, notebook or requirement file) to a ``FileResult``.

Pure and per file, so it runs in worker processes and is cached by content: decode,
parse with libcst, walk the tree once feeding every active check, and return plain data:
findings decided locally, deferred candidates, the facts for the project index, and the
file's ``noqa`` comments.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import FrozenSet, Optional, Tuple

import libcst as cst

from nondet_lint import notebooks
from nondet_lint.analysis.moduleview import ModuleView
from nondet_lint.config import Config
from nondet_lint.context import FileContext, NodeEdit, to_edits
from nondet_lint.discovery import module_name_for
from nondet_lint.families import registry
from nondet_lint.libcst_shim import parse_module
from nondet_lint.nesting import NestingError, check_nesting
from nondet_lint.nonpython import analyze_other_path
from nondet_lint.positions import node_spans
from nondet_lint.prefilter import active_checks
from nondet_lint.results import FileResult
from nondet_lint.ruledata import RuleSet
from nondet_lint.source import SourceError, SourceFile, read_source
from nondet_lint.suppression import parse_suppressions
from nondet_lint.types import Deferred, Finding
from nondet_lint.walk import Dispatch, walk

PY2_HINT = re.compile(r"^\s*(print\s+[^\s(=.]|exec\s+[\"']|raise\s+\w+\s*,)")


def cpython_syntax_error(text: str) -> Optional[Tuple[int, int, str]]:
    """(line, 0-based column, reason) of the syntax error CPython's parser reports in
    ``text``, or None when CPython accepts it (libcst may lag behind new syntax)."""
    try:
        compile(text, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        if not error.lineno:
            return None
        return error.lineno, max((error.offset or 1) - 1, 0), error.msg or "invalid syntax"
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


# ND000 for a file that parsed but whose analysis reached Python's recursion limit: the
# code is valid, so the message must not say it cannot be parsed
ANALYSIS_TOO_DEEP = (
    "not checked: nondet-lint reached Python's recursion limit while analysing this file "
    "(the file parses; the rest of the project was checked)"
)


def parse_error_finding(path: str, source: Optional[SourceFile], exc: Exception) -> Finding:
    if isinstance(exc, SourceError):
        return Finding(path, exc.line, exc.col, "ND000", f"cannot read file: {exc.reason}")
    if isinstance(exc, cst.ParserSyntaxError):
        line, col = exc.raw_line, exc.raw_column
        reason = exc.message.strip().splitlines()[0] if exc.message.strip() else "invalid syntax"
        cpython = cpython_syntax_error(source.text) if source else None
        if cpython is not None:  # spec: ND000 at the line CPython's own parser names
            line, col, reason = cpython
        text_lines = source.text.splitlines() if source else []
        if 0 < line <= len(text_lines) and PY2_HINT.match(text_lines[line - 1]):
            reason += " (Python 2 syntax? nondet-lint checks Python 3 code)"
        return Finding(path, max(line, 1), max(col, 0), "ND000", f"cannot parse: {reason}")
    if isinstance(exc, NestingError):
        return Finding(path, exc.line, exc.col, "ND000", f"cannot parse: {exc.reason}")
    if isinstance(exc, RecursionError):
        return Finding(path, 1, 0, "ND000", "cannot parse: code is nested too deeply")
    return Finding(path, 1, 0, "ND000", f"cannot parse: {exc}")


def analyze_source(
    path: str,
    source: SourceFile,
    config: Config,
    rules: RuleSet,
    enabled: FrozenSet[str],
    module_name: str = "",
    is_package: bool = False,
) -> FileResult:
    """Pass 1 for one decoded Python source."""
    result = FileResult(path, module_name, is_package, suppressions=parse_suppressions(source.text))
    try:
        check_nesting(source.text)  # libcst can crash or take minutes on such code
        module = parse_module(source.text)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        if "ND000" in enabled:
            result.findings.append(parse_error_finding(path, source, exc))
        return result
    result.parsed = True
    ctx = FileContext(
        path=path, module=module, module_name=module_name, is_package=is_package,
        rules=rules, config=config, enabled=enabled,
    )
    checks = [check(ctx) for check in active_checks(registry.all_checks(), rules, enabled, ctx)]
    visitors = [ctx.index, *(visitor for check in checks for visitor in check.visitors())]
    walk(module, Dispatch(visitors), ctx.ancestors, ctx.parents)
    for check in checks:
        check.finish()
    result.facts = ctx.facts
    if ctx.pending:
        nodes = [p.node for p in ctx.pending]
        for pending in ctx.pending:
            if pending.fix:
                nodes.extend(edit.node for edit in pending.fix.edits if isinstance(edit, NodeEdit))
        spans = node_spans(module, nodes, source.text, ctx.parents)
        for pending in ctx.pending:
            line, col, end_line, end_col = spans[id(pending.node)]
            fix = to_edits(pending.fix, spans) if pending.fix else None
            if pending.deferred:
                result.deferred.append(Deferred(path, pending.code, line, col, end_line, end_col, dict(pending.payload), fix))
            else:
                result.findings.append(Finding(path, line, col, pending.code, pending.message, end_line, end_col, fix))
    # checks, their parts, the views they share and the context refer to each other:
    # without these cycles the tree is freed as soon as the file is done, not by the
    # garbage collector (which would scan it once more)
    views = [value for value in ctx.shared.values() if isinstance(value, ModuleView)]
    for part in (*checks, *visitors, *views):
        part.__dict__.clear()
    ctx.__dict__.clear()
    return result


def analyze_file(path: str, config: Config, rules: RuleSet, enabled: FrozenSet[str], stdin: Optional[bytes] = None) -> FileResult:
    """Pass 1 for one file on disk (or the text given on standard input)."""
    module_name, is_package = module_name_for(path)
    if path.endswith(notebooks.SUFFIX):
        return analyze_notebook(path, config, rules, enabled, module_name, is_package, stdin)
    if not path.endswith(".py") and stdin is None:
        return analyze_other_path(path, config, rules, enabled)  # requirement files (ND401), CUDA sources
    try:
        source = read_source(path, stdin)
    except SourceError as exc:
        result = FileResult(path, module_name, is_package)
        if "ND000" in enabled:
            result.findings.append(parse_error_finding(path, None, exc))
        return result
    return analyze_source(path, source, config, rules, enabled, module_name, is_package)


def _cell_error(path: str, text: str, span: notebooks.CellSpan) -> Optional[Finding]:
    """The parse error of one cell on its own, at its program position (None: it parses)."""
    lines = text.split("\n")[span.start - 1 : span.start - 1 + span.lines]
    cell_source = "\n".join(lines) + "\n"
    try:
        cst.parse_module(cell_source)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        error = parse_error_finding(path, SourceFile(path, cell_source, "utf-8", False, "\n", b""), exc)
        return replace(error, line=min(error.line, max(span.lines, 1)) + span.start - 1)
    return None


def analyze_notebook(
    path: str, config: Config, rules: RuleSet, enabled: FrozenSet[str], module_name: str, is_package: bool,
    stdin: Optional[bytes] = None,
) -> FileResult:
    """Pass 1 for a notebook: its code cells as one module (an entry point: ``entrypoints``).

    A cell that does not parse is reported (ND000) and left out, so one broken scratch
    cell does not hide the rest of the notebook.  Positions stay program lines until
    ``place_findings`` re-addresses them to cells after pass 2.
    """
    # not importable: ``import utils`` means utils.py, never utils.ipynb beside it
    module_name = f"{module_name}{notebooks.SUFFIX}"
    try:
        raw = notebooks.read_raw(path, stdin)
        program = notebooks.build_program(raw)
    except notebooks.NotebookError as exc:
        result = FileResult(path, module_name, is_package)
        if "ND000" in enabled:
            result.findings.append(Finding(path, 1, 0, "ND000", f"cannot read notebook: {exc}"))
        return result
    if not program.is_python:
        return FileResult(path, module_name, is_package)

    def analyze(text: str) -> FileResult:
        source = SourceFile(path, text, "utf-8", False, "\n", raw)
        return analyze_source(path, source, config, rules, enabled, module_name, is_package)

    result = analyze(program.text)
    if not result.parsed:
        errors = [(span, _cell_error(path, program.text, span)) for span in program.cells]
        broken = [(span, error) for span, error in errors if error is not None]
        if broken:
            result = analyze(notebooks.blank_cells(program.text, [span for span, _ in broken]))
            if "ND000" in enabled:
                result.findings[:0] = [error for _, error in broken]
    result.cells = [span.to_list() for span in program.cells]
    if result.parsed:
        result.facts.put(notebooks.NotebookCells(program.cells))
    return result
