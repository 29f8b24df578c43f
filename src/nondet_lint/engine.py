"""The engine: pass 1 over every file, then pass 2, the project-wide decisions.

Pass 1 (``fileanalysis``, per file, in worker processes through ``parallel``, cached by
content) turns each file into a ``FileResult`` of plain data.
Pass 2 (whole project, cheap): build the ``Project`` from every module's facts, let the
check that decides each code (``families.registry``) decide its deferred candidates,
apply suppressions and per-file ignores, sort.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple, Type

from nondet_lint import notebooks
from nondet_lint.cache import open_cache
from nondet_lint.config import Config
from nondet_lint.discovery import WalkError, discover, project_files
from nondet_lint.facts import FileFacts
from nondet_lint.parallel import analyze_files, collector_paused
from nondet_lint.results import FileResult, RunResult
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.selection import enabled_codes, ignored_for_path, is_ignored
from nondet_lint.types import Deferred, Finding

if TYPE_CHECKING:  # pass 2 imports them where it runs: a warm run takes it from the cache
    from nondet_lint.analysis.project import Project
    from nondet_lint.check import Check


def resolve_project(results: Sequence[FileResult], config: Config, rules: RuleSet, enabled: FrozenSet[str]) -> List[Finding]:
    """Pass 2: decide deferred candidates with project facts, drop what a rule leaves to
    test code (``Rule.test_code``), suppress, filter, sort."""
    project = build_project(results, config)
    findings: List[Finding] = [f for r in results for f in r.findings]
    for check, items in deferred_by_check(results):
        findings.extend(decide_check(check, project, items, rules, enabled))
    return kept_findings(findings, results, config, project, rules)


def build_project(results: Sequence[FileResult], config: Config, earlier: Optional[Mapping[str, Any]] = None) -> Project:
    """The project index of pass 2: every parsed module's facts (``earlier``: the analyses
    of the last project over the same files, ``Project.earlier``)."""
    from nondet_lint.analysis.project import ModuleRecord, Project

    return Project(
        root=config.root,
        config=config,
        modules={
            r.path: ModuleRecord(r.path, r.module_name, r.is_package, r.facts)
            for r in results if r.parsed
        },
        earlier=dict(earlier or {}),
    )


def deferred_by_check(results: Sequence[FileResult]) -> List[Tuple[Type[Check], List[Deferred]]]:
    """The deferred candidates grouped by the check that decides them, in a fixed order."""
    from nondet_lint.families import registry

    grouped: Dict[Type[Check], List[Deferred]] = {}
    owners = registry.deciders(registry.all_checks())
    for result in results:
        for item in result.deferred:
            grouped.setdefault(owners[item.code], []).append(item)
    return sorted(grouped.items(), key=lambda kv: kv[0].__name__)


def decide_check(check: Type[Check], project: Project, items: List[Deferred], rules: RuleSet,
                 enabled: FrozenSet[str]) -> List[Finding]:
    return [f for f in check.resolve(project, items, rules) if f.code in enabled]


def kept_findings(findings: Iterable[Finding], results: Sequence[FileResult], config: Config, project: Project,
                  rules: RuleSet) -> List[Finding]:
    """Findings left once test code a rule skips, per-file ignores and ``noqa`` comments apply,
    deduplicated."""
    suppressions = {r.path: r.suppressions for r in results}
    kept = []
    for finding in findings:
        if finding.code in rules and rules[finding.code].test_code == "skip" and project.is_test_code(finding.path):
            continue
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
    only the changed ``data.py`` judges it with the seeds set in ``train.py``.  Paths with
    no project around them (``Config.project_found``) are judged alone.
    """
    rules = load_rules(tuple(config.rule_files))
    enabled = selected_codes(config, rules)
    exclude = (*config.exclude, *config.extend_exclude)
    cache = open_cache(config, rules, enabled, cache_dir) if cache_dir else None  # workers/cache: parallel.py
    if stdin is not None:
        errors: List[WalkError] = []
        files = [stdin_filename or "-"]
        from nondet_lint.fileanalysis import analyze_file

        results = [analyze_file(files[0], config, rules, enabled, stdin)]
    else:
        files, errors = discover(paths, exclude, config.respect_gitignore)
        if progress:
            progress.add(len(files))
        results = analyze_files(files, config, rules, enabled, workers, cache, progress.advance if progress else None)
    # the rest of the project matters only to candidates that wait for project facts
    given = paths if stdin is None else [stdin_filename] if stdin_filename else []
    wanted = config.project_found and any(r.deferred for r in results)
    others = project_files(config.root, given, files, exclude, config.respect_gitignore) if wanted else []
    if progress:
        progress.add(len(others))
    rest = [
        r.facts_only()
        for r in analyze_files(others, config, rules, enabled, workers, cache, progress.advance if progress else None)
    ]
    extra = walk_error_findings(errors, enabled)
    with collector_paused():
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


class Decisions:
    """Pass 2 kept from one call to the next over the same project (the language server's).

    ``decide`` returns what the function ``decide`` would, but a check's decisions are
    reused while nothing they were made from changed: the facts of every module (compared
    by value; an unchanged file keeps its facts object) and that check's deferred
    candidates.  An edit that leaves its file's facts alone so costs only the checks whose
    candidates it changed.  One that changes facts decides every check again, on a new
    ``Project`` that knows the last one's analyses (``Project.earlier``): the kernel
    rules' program view takes over the import edges of the modules whose imports did not
    change (and the programs, if no edge changed), the seeding check the runs of the
    programs that reach no module whose seeding facts changed.  Pass 2 also reads a few files outside the facts
    (requirement pins, packaging entry points), and the analyses taken over keep what
    they read: ``forget`` after such a file changed on disk.
    """

    def __init__(self, config: Config, rules: RuleSet, enabled: FrozenSet[str]) -> None:
        self.config = config
        self.rules = rules
        self.enabled = enabled
        self._modules: Dict[str, Tuple[str, bool, FileFacts]] = {}  # the project was built from
        self._project: Optional[Project] = None
        self._decided: Dict[Type[Check], Tuple[List[Deferred], List[Finding]]] = {}

    def forget(self) -> None:
        self._modules, self._project, self._decided = {}, None, {}

    def decide(self, results: Sequence[FileResult], context: Sequence[FileResult]) -> List[Finding]:
        everything = [*results, *context]
        project = self._project_for(everything)
        findings: List[Finding] = [f for r in results for f in r.findings]
        decided: Dict[Type[Check], Tuple[List[Deferred], List[Finding]]] = {}
        for check, items in deferred_by_check(results):
            before = self._decided.get(check)
            if before is not None and before[0] == items:
                decided[check] = before
            else:
                decided[check] = (items, decide_check(check, project, items, self.rules, self.enabled))
            findings.extend(decided[check][1])
        self._decided = decided
        project.earlier = {}  # taken over where it could be
        placed = notebooks.place_findings(kept_findings(findings, everything, self.config, project, self.rules), everything)
        return dedupe(placed)

    def _project_for(self, results: Sequence[FileResult]) -> Project:
        """The project of the last call if every module's facts are as they were, else a
        new one (and no decision of the last call holds)."""
        modules = {r.path: (r.module_name, r.is_package, r.facts) for r in results if r.parsed}
        if self._project is None or not _same_modules(self._modules, modules):
            self._project = build_project(results, self.config, self._project.analyses if self._project else None)
            self._decided = {}
        self._modules = modules
        return self._project


def _same_modules(before: Dict[str, Tuple[str, bool, FileFacts]],
                  after: Dict[str, Tuple[str, bool, FileFacts]]) -> bool:
    if list(before) != list(after):  # the same modules in the same order (the project keeps it)
        return False
    for path, (name, package, facts) in after.items():
        old_name, old_package, old_facts = before[path]
        if name != old_name or package != old_package or (facts is not old_facts and facts != old_facts):
            return False
    return True
