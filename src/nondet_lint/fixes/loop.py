"""The fix loop: apply the fixes that fit together, lint the changed files again, repeat.

Everything happens in memory; the caller writes the result (``writer``) or shows it
(``diff``).  Each round takes the findings decided on the current contents, accepts the
fixes that do not overlap (``apply.plan_round``), applies them file by file and checks
the result (``verify``): a fix whose result does not parse, cannot be encoded or would
lose the coding cookie is dropped and reported, and the others go ahead.  Changed files
are analyzed again and the project decided again with the facts of every other file as
they were, until no fix is left, nothing changes, or ``MAX_ROUNDS`` is reached.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Sequence, Set

from nondet_lint.config import Config
from nondet_lint.engine import decide, selected_codes
from nondet_lint.fileanalysis import analyze_file
from nondet_lint.fixes.apply import FixKey, fix_key, plan_round
from nondet_lint.fixes.verify import FixError, fixed_bytes
from nondet_lint.results import FileResult, RunResult
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.selection import enabled_codes
from nondet_lint.types import SAFE, UNSAFE, Finding

MAX_ROUNDS = 10

Reader = Callable[[str], bytes]


def _read_file(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


@dataclass
class Dropped:
    """A fix that was not applied, and why (reported, never silent)."""

    finding: Finding
    reason: str


@dataclass
class FixOutcome:
    findings: List[Finding]  # what remains, decided on the fixed contents
    applied: List[Finding]  # the findings whose fixes were applied, as found then
    originals: Dict[str, bytes]  # contents as read, for every file that changed
    contents: Dict[str, bytes]  # the fixed contents of those files
    dropped: List[Dropped] = field(default_factory=list)
    converged: bool = True

    @property
    def changed(self) -> List[str]:
        return sorted(path for path in self.contents if self.contents[path] != self.originals[path])


def fixable_codes(config: Config, rules: RuleSet) -> FrozenSet[str]:
    """``fixable`` / ``unfixable`` with the prefix rules of ``select`` / ``ignore``."""
    return enabled_codes(rules.codes, config.fixable, config.unfixable)


class FixSession:
    """One ``--fix`` / ``--diff`` run over the files of a lint run."""

    def __init__(self, run: RunResult, config: Config, unsafe: bool = False, read: Reader = _read_file) -> None:
        self.config = config
        self.rules = load_rules(tuple(config.rule_files))
        self.enabled = selected_codes(config, self.rules)
        self.fixable = fixable_codes(config, self.rules)
        self.applicable = (SAFE, UNSAFE) if unsafe else (SAFE,)
        self.run = run
        self.read = read
        self.results: Dict[str, FileResult] = {r.path: r for r in run.results}
        self.originals: Dict[str, bytes] = {}
        self.current: Dict[str, bytes] = {}
        self.seen_states: Dict[str, Set[str]] = {}
        self.dropped: Dict[FixKey, Dropped] = {}
        self.outside: Dict[FixKey, Dropped] = {}

    # ---- which findings can be fixed ------------------------------------------------
    def wants(self, finding: Finding) -> bool:
        fix = finding.fix
        return (
            fix is not None
            and bool(fix.edits)
            and fix.applicability in self.applicable
            and finding.code in self.fixable
        )

    def targets(self, finding: Finding) -> Set[str]:
        assert finding.fix is not None
        return {edit.path or finding.path for edit in finding.fix.edits}

    # ---- state ----------------------------------------------------------------------
    def decide(self) -> List[Finding]:
        results = [self.results[r.path] for r in self.run.results]
        return decide(results, self.run.context, self.run.extra, self.config, self.rules, self.enabled)

    def reanalyze(self, path: str) -> None:
        self.results[path] = analyze_file(path, self.config, self.rules, self.enabled, stdin=self.current[path])

    def load(self, paths: Sequence[str]) -> bool:
        """Read files about to be fixed and analyze them as read (the contents the edits
        are positioned on).  True when anything was loaded."""
        loaded = False
        for path in paths:
            if path in self.current:
                continue
            try:
                raw = self.read(path)
            except OSError as exc:
                raise FixError(f"cannot read: {exc.strerror or exc}") from None
            self.originals[path] = self.current[path] = raw
            self.seen_states[path] = {hashlib.sha256(raw).hexdigest()}
            self.reanalyze(path)
            loaded = True
        return loaded

    def candidates(self, findings: Sequence[Finding]) -> List[Finding]:
        out = []
        for finding in findings:
            if not self.wants(finding):
                continue
            assert finding.fix is not None
            outside = sorted(t for t in self.targets(finding) if t not in self.results)
            if outside:
                self.outside.setdefault(fix_key(finding), Dropped(finding, f"it edits {', '.join(outside)}, which is not among the checked files"))
                continue
            out.append(finding)
        return out

    # ---- one round ------------------------------------------------------------------
    def build(self, path: str, fixes: Sequence[Finding]) -> bytes:
        """The contents of ``path`` with the edits of ``fixes`` (shared edits once)."""
        edits, seen = [], set()
        for finding in fixes:
            assert finding.fix is not None
            for edit in finding.fix.edits:
                if (edit.path or finding.path) != path:
                    continue
                key = (edit.cell, edit.line, edit.col, edit.end_line, edit.end_col, edit.content)
                if key not in seen:
                    seen.add(key)
                    edits.append(edit)
        return fixed_bytes(path, self.current[path], edits)

    def apply_round(self, accepted: List[Finding]) -> Dict[str, bytes]:
        """New contents by file; fixes that break a file are dropped, the rest applied."""
        while True:
            paths = sorted({t for f in accepted for t in self.targets(f)})
            built: Dict[str, bytes] = {}
            failed: List[str] = []
            for path in paths:
                try:
                    built[path] = self.build(path, [f for f in accepted if path in self.targets(f)])
                except FixError:
                    failed.append(path)
            if not failed:
                return built
            for path in failed:  # find the culprits one fix at a time
                good: List[Finding] = []
                for finding in (f for f in accepted if path in self.targets(f)):
                    try:
                        self.build(path, [*good, finding])
                        good.append(finding)
                    except FixError as exc:
                        self.dropped[fix_key(finding)] = Dropped(finding, str(exc))
            accepted[:] = [f for f in accepted if fix_key(f) not in self.dropped]

    def fix(self, max_rounds: int = MAX_ROUNDS) -> FixOutcome:
        findings = self.run.findings
        applied: List[Finding] = []
        converged = True
        for _ in range(max_rounds):
            candidates = self.candidates(findings)
            fresh = sorted({t for f in candidates for t in self.targets(f)} - set(self.current))
            if fresh:
                self._load_reporting(fresh, candidates)
                findings = self.decide()
                candidates = self.candidates(findings)
            plan = plan_round(candidates, skip=set(self.dropped))
            for finding in plan.invalid:
                self.dropped[fix_key(finding)] = Dropped(finding, "its edits overlap each other")
            accepted = list(plan.accepted)
            if not accepted:
                break
            built = self.apply_round(accepted)
            changed = [path for path, raw in built.items() if raw != self.current[path]]
            applied.extend(f for f in accepted if self.targets(f) & set(changed))
            if not changed:
                break
            repeated = False
            for path in changed:
                self.current[path] = built[path]
                digest = hashlib.sha256(built[path]).hexdigest()
                repeated |= digest in self.seen_states[path]
                self.seen_states[path].add(digest)
                self.reanalyze(path)
            findings = self.decide()
            if repeated:  # fixes that undo each other: stop rather than go round
                converged = False
                break
        else:
            converged = not self.candidates_left(findings)
        dropped = [*self.dropped.values(), *self.outside.values()]
        return FixOutcome(findings, applied, dict(self.originals), dict(self.current), dropped, converged)

    def candidates_left(self, findings: Sequence[Finding]) -> bool:
        plan = plan_round(self.candidates(findings), skip=set(self.dropped))
        return bool(plan.accepted)

    def _load_reporting(self, paths: Sequence[str], candidates: Sequence[Finding]) -> None:
        """Load files; the fixes that edit one that cannot be read are dropped."""
        for path in paths:
            try:
                self.load([path])
            except FixError as exc:
                for finding in candidates:
                    if path in self.targets(finding):
                        self.dropped[fix_key(finding)] = Dropped(finding, str(exc))


def restore(outcome: FixOutcome, session: FixSession, unwritten: Sequence[str]) -> List[Finding]:
    """The findings to report when some files could not be written: those files as they
    are on disk, the others as fixed."""
    if not unwritten:
        return outcome.findings
    for path in unwritten:
        session.current[path] = outcome.originals[path]
        session.reanalyze(path)
    return session.decide()
