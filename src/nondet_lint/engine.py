"""The engine: read, parse once, one walk for every check, then project-wide decisions.

Pass 1 (per file, pure, so it can run in worker processes and be cached by content):
decode, parse with libcst, walk the tree once feeding all checks, and return a
``FileResult`` of plain data: findings decided locally, deferred candidates, the facts
for the project index, and the file's ``noqa`` comments.
Pass 2 (whole project, cheap): build the ``Project`` from every module's facts, let
checks decide their deferred candidates, apply suppressions and per-file ignores, sort.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Protocol, Sequence

import libcst as cst

from nondet_lint import notebooks
from nondet_lint.analysis.project import ModuleRecord, Project
from nondet_lint.cache import open_cache
from nondet_lint.checks import all_checks
from nondet_lint.config import Config
from nondet_lint.context import Deferred, FileContext, NodeEdit, to_edits
from nondet_lint.discovery import WalkError, discover, project_files
from nondet_lint.nesting import NestingError, check_nesting
from nondet_lint.nonpython import analyze_other_file
from nondet_lint.parallel import analyze_files
from nondet_lint.parsing import parse_module
from nondet_lint.positions import node_spans
from nondet_lint.prefilter import active_checks
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.selection import enabled_codes, ignored_for_path, is_ignored
from nondet_lint.source import SourceError, SourceFile, read_source
from nondet_lint.suppression import Suppressions, parse_suppressions
from nondet_lint.types import Finding
from nondet_lint.walk import Dispatch, walk

PY2_HINT = re.compile(r"^\s*(print\s+[^\s(=.]|exec\s+[\"']|raise\s+\w+\s*,)")


@dataclass
class FileResult:
    """Everything pass 1 learned about one file (plain data, cacheable)."""

    path: str
    module_name: str = ""
    is_package: bool = False
    findings: List[Finding] = field(default_factory=list)
    deferred: List[Deferred] = field(default_factory=list)
    facts: Dict[str, Any] = field(default_factory=dict)
    suppressions: Suppressions = field(default_factory=Suppressions)
    parsed: bool = False
    # notebooks: [cell, index, first program line, line count] per code cell
    cells: List[List[int]] = field(default_factory=list)

    def facts_only(self) -> "FileResult":
        """This file as the rest of the project sees it: its facts (and a notebook's cells,
        for fixes that edit it), nothing to report."""
        return FileResult(
            self.path, self.module_name, self.is_package, facts=self.facts, parsed=self.parsed, cells=self.cells,
        )

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path,
            "module_name": self.module_name,
            "is_package": self.is_package,
            "findings": [f.to_dict() for f in self.findings],
            "deferred": [d.to_dict() for d in self.deferred],
            "facts": self.facts,
            "suppressions": self.suppressions.to_dict(),
            "parsed": self.parsed,
            "cells": self.cells,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "FileResult":
        return cls(
            data["path"], data["module_name"], data["is_package"],
            [Finding.from_dict(f) for f in data["findings"]],
            [Deferred.from_dict(d) for d in data["deferred"]],
            data["facts"], Suppressions.from_dict(data["suppressions"]), data["parsed"],
            data.get("cells", []),
        )


@dataclass
class RunResult:
    findings: List[Finding]
    files: List[str]
    results: List[FileResult]
    # the rest of the project and the findings of no file (walk errors), kept so the fix
    # loop can decide again after it re-analyzed the files it changed (``decide``)
    context: List[FileResult] = field(default_factory=list)
    extra: List[Finding] = field(default_factory=list)


def module_name_for(path: str) -> tuple:
    """Dotted module name from the package folders (those with ``__init__.py``) around it."""
    absolute = os.path.abspath(path)
    folder, filename = os.path.split(absolute)
    stem = os.path.splitext(filename)[0]
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, name = os.path.split(folder)
        parts.insert(0, name)
        if not name:
            break
    return ".".join(p for p in parts if p), is_package


def parse_error_finding(path: str, source: Optional[SourceFile], exc: Exception) -> Finding:
    if isinstance(exc, SourceError):
        return Finding(path, exc.line, exc.col, "ND000", f"cannot read file: {exc.reason}")
    if isinstance(exc, cst.ParserSyntaxError):
        line, col = exc.raw_line, exc.raw_column
        reason = exc.message.strip().splitlines()[0] if exc.message.strip() else "invalid syntax"
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
    checks = [check(ctx) for check in active_checks(all_checks(), rules, enabled, ctx)]
    walk(module, Dispatch(checks), ctx.ancestors, ctx.parents)
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
    # checks, caches and the context refer to each other: without these cycles the tree
    # is freed as soon as the file is done, not at the next full garbage collection
    for check in checks:
        check.__dict__.clear()
    ctx.__dict__.clear()
    return result


def analyze_file(path: str, config: Config, rules: RuleSet, enabled: FrozenSet[str], stdin: Optional[bytes] = None) -> FileResult:
    """Pass 1 for one file on disk (or the text given on standard input)."""
    module_name, is_package = module_name_for(path)
    if path.endswith(notebooks.SUFFIX):
        return notebooks.analyze_notebook(path, config, rules, enabled, module_name, is_package, stdin)
    if not path.endswith(".py") and stdin is None:
        result = FileResult(path, module_name, is_package)
        analyze_other_file(result, config, rules, enabled)  # requirement files (ND401)
        return result
    try:
        source = read_source(path, stdin)
    except SourceError as exc:
        result = FileResult(path, module_name, is_package)
        if "ND000" in enabled:
            result.findings.append(parse_error_finding(path, None, exc))
        return result
    return analyze_source(path, source, config, rules, enabled, module_name, is_package)


def resolve_project(results: Sequence[FileResult], config: Config, rules: RuleSet, enabled: FrozenSet[str]) -> List[Finding]:
    """Pass 2: decide deferred candidates with project facts, suppress, filter, sort."""
    project = Project(
        root=config.root,
        config=config,
        modules={
            r.path: ModuleRecord(r.path, r.module_name, r.is_package, r.facts)
            for r in results if r.parsed
        },
    )
    findings: List[Finding] = [f for r in results for f in r.findings]
    deferred_by_check: Dict[type, List[Deferred]] = {}
    owners = {code: check for check in all_checks() for code in check.codes}
    for result in results:
        for item in result.deferred:
            deferred_by_check.setdefault(owners[item.code], []).append(item)
    for check, items in sorted(deferred_by_check.items(), key=lambda kv: kv[0].__name__):
        findings.extend(f for f in check.resolve(project, items, rules) if f.code in enabled)
    suppressions = {r.path: r.suppressions for r in results}
    kept = []
    for finding in findings:
        ignored = ignored_for_path(finding.path, config.per_file_ignores)
        if ignored and is_ignored(finding.code, ignored):
            continue
        noqa = suppressions.get(finding.path)
        if noqa is not None and finding.code != "ND000" and noqa.suppresses(finding.line, finding.code):
            continue
        kept.append(finding)
    return dedupe(kept)


def dedupe(findings: Iterable[Finding]) -> List[Finding]:
    """Sorted, and two findings with the same code on the same line are one."""
    out: List[Finding] = []
    seen = set()
    for finding in sorted(findings, key=lambda f: f.sort_key):
        key = (finding.path, finding.cell, finding.line, finding.code)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    return out


def selected_codes(config: Config, rules: RuleSet) -> FrozenSet[str]:
    return enabled_codes(rules.codes, config.select, config.ignore, config.extend_select, config.extend_ignore)


def walk_error_findings(errors: Sequence[WalkError], enabled: FrozenSet[str]) -> List[Finding]:
    if "ND000" not in enabled:
        return []
    return [Finding(e.path, 1, 0, "ND000", f"cannot read: {e.reason}") for e in errors]


class Progress(Protocol):
    """What ``run`` tells a progress display: more files to do, more files done."""

    def add(self, count: int) -> None: ...

    def advance(self, count: int) -> None: ...


def run(
    paths: Sequence[str], config: Config, stdin: Optional[bytes] = None, stdin_filename: Optional[str] = None,
    workers: Optional[int] = None, cache_dir: Optional[str] = None,
    progress: Optional["Progress"] = None,
) -> RunResult:
    """Check ``paths`` (or one source from standard input) and return sorted findings.

    Only ``paths`` are reported, but project facts (entry points, seeds, switches, pins)
    come from every checkable file under the project root (``config.root``): a hook given
    only the changed ``data.py`` judges it with the seeds set in ``train.py``.
    """
    rules = load_rules(tuple(config.rule_files))
    enabled = selected_codes(config, rules)
    exclude = (*config.exclude, *config.extend_exclude)
    cache = open_cache(config, rules, enabled, cache_dir) if cache_dir else None  # workers/cache: parallel.py
    if stdin is not None:
        files, errors = [stdin_filename or "-"], []
        results = [analyze_file(files[0], config, rules, enabled, stdin)]
    else:
        files, errors = discover(paths, exclude, config.respect_gitignore)
        if progress:
            progress.add(len(files))
        results = analyze_files(files, config, rules, enabled, workers, cache, progress.advance if progress else None)
    # the rest of the project matters only to candidates that wait for project facts
    given = paths if stdin is None else [stdin_filename] if stdin_filename else []
    others = project_files(config.root, given, files, exclude, config.respect_gitignore) if any(r.deferred for r in results) else []
    if progress:
        progress.add(len(others))
    rest = [
        r.facts_only()
        for r in analyze_files(others, config, rules, enabled, workers, cache, progress.advance if progress else None)
    ]
    extra = walk_error_findings(errors, enabled)
    if cache is not None and stdin is None:  # unchanged inputs: pass 2's findings from the cache
        findings = cache.decision(extra, lambda: decide(results, rest, extra, config, rules, enabled))
    else:
        findings = decide(results, rest, extra, config, rules, enabled)
    return RunResult(findings, files, results, rest, extra)


def decide(
    results: Sequence[FileResult], context: Sequence[FileResult], extra: Sequence[Finding],
    config: Config, rules: RuleSet, enabled: FrozenSet[str],
) -> List[Finding]:
    """Pass 2 for the reported ``results``, with the facts of the rest of the project."""
    findings = resolve_project([*results, *context], config, rules, enabled)
    findings = notebooks.place_findings(findings, [*results, *context])
    return dedupe([*findings, *extra])
