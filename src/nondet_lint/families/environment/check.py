"""ND401: frameworks not pinned to one version in the project's requirement files.

Pass 1 reads one requirement file (and what it includes with ``-r`` / ``-c``) and turns
each entry for a tracked package into a deferred candidate carrying whether it is pinned.
Pass 2 sees every candidate of the project at once and reports the unpinned ones unless
the project pins the package another way: a lock file or a hashed requirements file in
the candidate's folder or above it (up to the project root), a compiled ``.txt`` next to
a ``.in`` file, or, for package metadata (``pyproject.toml`` ``[project]``, ``setup.cfg``,
``setup.py``: its candidates come from ``setuppy``),
an exact pin in an environment file of the project (libraries declare ranges; the
environment that trains pins them).  Declarations that are not a training environment
(a distributed library's own metadata and the files its packaging reads; development,
test, CI and docs requirements) are not reported: ``purpose`` tells them apart.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Sequence, Set, Tuple

from nondet_lint.check import Check
from nondet_lint.context import Deferred
from nondet_lint.discovery import is_requirements_file
from nondet_lint.families.environment.purpose import BenchmarkFolders, Purposes, folders_up_to
from nondet_lint.families.environment.requirements import (
    LOCK_FILE_NAMES,
    ParsedFile,
    normalize_name,
    parse_text,
    read_text,
    with_includes,
)
from nondet_lint.ruledata import RuleSet
from nondet_lint.suppression import parse_suppressions
from nondet_lint.types import Finding

CODE = "ND401"
# entries that describe a package's metadata (what it accepts), not an environment
METADATA_KINDS = frozenset(("pep621", "setup.cfg", "setup.py"))


def tracked_patterns(rules: Any, config: Any) -> Tuple[str, ...]:
    """Package names (fnmatch patterns, normalized) that ND401 wants pinned."""
    names = list(rules[CODE].data.get("packages", ())) + list(getattr(config, "extend_packages", ()))
    return tuple(sorted({normalize_name(n) if "*" not in n else n.lower() for n in names}))


def is_tracked(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def _end_col(text: str, line: int, col: int, raw: str) -> int:
    """Where the requirement ends on its line (before a trailing comment), else the line end."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return col
    found = lines[line - 1].find(raw, col)
    return found + len(raw) if found >= 0 else len(lines[line - 1].rstrip())


@dataclass(frozen=True)
class RequirementCandidate:
    """An ND401 candidate: one tracked requirement of a file (its deferred payload)."""

    package: str
    requirement: str  # its line, as shown in the message
    pinned: bool  # pinned here, or by a constraint file of the group
    hashed: bool  # a hashed (pip lock) entry
    kind: str  # the file kind (``requirements``, ``pyproject``, ...)
    group: str = ""  # the extra or dependency group that declares it

    def to_json(self) -> Dict[str, Any]:
        return {"package": self.package, "requirement": self.requirement, "pinned": self.pinned,
                "hashed": self.hashed, "kind": self.kind, "group": self.group}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RequirementCandidate":
        return cls(data["package"], data["requirement"], data["pinned"], bool(data.get("hashed")), data["kind"],
                   data.get("group", ""))


def _candidates(group: List[ParsedFile], patterns: Sequence[str], texts: Mapping[str, str]) -> List[Deferred]:
    """One deferred candidate per tracked, non-constraint entry of a file and its includes."""
    constrained = {r.name for parsed in group for r in parsed.requirements if r.constraint and r.pinned}
    out = []
    for parsed in group:
        for requirement in parsed.requirements:
            if requirement.constraint or not is_tracked(requirement.name, patterns):
                continue
            raw = requirement.raw.split("\n")[0].strip()
            end = _end_col(texts.get(parsed.path, ""), requirement.line, requirement.col, raw)
            out.append(Deferred(
                requirement.file, CODE, requirement.line, requirement.col, requirement.line, end,
                RequirementCandidate(
                    requirement.name, raw, bool(requirement.pinned) or requirement.name in constrained,
                    requirement.hashed, requirement.kind, requirement.group,
                ).to_json(),
            ))
    return out


def analyze_requirements(path: str, text: str, config: Any, rules: Any, enabled: FrozenSet[str]) -> Tuple[List[Finding], List[Deferred]]:
    """Pass 1 for a requirement file: ND000 if it cannot be parsed, ND401 candidates."""
    findings: List[Finding] = []
    parsed = parse_text(path, text)
    if parsed.error is not None:
        if "ND000" in enabled:
            line, reason = parsed.error
            findings.append(Finding(path, line, 0, "ND000", f"cannot parse: {reason}"))
        return findings, []
    if CODE not in enabled:
        return findings, []
    group = with_includes(parsed)
    texts = {p.path: (text if p.path == path else read_text(p.path) or "") for p in group}
    deferred = []
    for candidate in _candidates(group, tracked_patterns(rules, config), texts):
        if candidate.path != path:
            # an included file that is not checked on its own: honour its ``# noqa`` here
            noqa = parse_suppressions(texts.get(candidate.path, ""))
            if noqa.suppresses(candidate.line, CODE):
                continue
        deferred.append(candidate)
    return findings, deferred


FILE_CHECKERS = [(is_requirements_file, analyze_requirements)]


# ---------------------------------------------------------------- pass 2 --------------
def _locked_folders(deferred: Iterable[Deferred]) -> Set[str]:
    """Folders holding a hashed requirements file (a pip lock)."""
    return {os.path.dirname(os.path.abspath(d.path)) for d in deferred if RequirementCandidate.from_json(d.payload).hashed}


def _has_lock(folder: str, hashed_folders: Set[str], cache: Dict[str, bool]) -> bool:
    if folder not in cache:
        cache[folder] = folder in hashed_folders or any(
            os.path.isfile(os.path.join(folder, name)) for name in LOCK_FILE_NAMES
        )
    return cache[folder]


def _compiled_sibling(path: str) -> str:
    """``requirements.in`` → ``requirements.txt`` (pip-compile's output next to it)."""
    stem, ext = os.path.splitext(os.path.abspath(path))
    return stem + ".txt" if ext == ".in" else ""


class UnpinnedFramework(Check):
    """ND401 (decided in pass 2; candidates come from ``analyze_requirements``)."""

    codes = (CODE,)

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        hashed = _locked_folders(deferred)
        candidates = [(d, RequirementCandidate.from_json(d.payload)) for d in deferred]
        environment_pins = {c.package for _, c in candidates if c.pinned and c.kind not in METADATA_KINDS}
        pinned_in = {(os.path.abspath(d.path), c.package) for d, c in candidates if c.pinned}
        lock_cache: Dict[str, bool] = {}
        purposes = Purposes(project.root, rules[CODE].data.get("tooling_words", ()))
        timing = BenchmarkFolders(project)
        for item, candidate in candidates:
            if candidate.pinned:
                continue
            if any(_has_lock(folder, hashed, lock_cache) for folder in folders_up_to(item.path, project.root)):
                continue
            if purposes.is_tooling(item.path, candidate.group):
                continue  # development, tests, CI, docs: not the environment that trains
            if candidate.kind not in METADATA_KINDS and timing.only_benchmarks(item.path):
                continue  # the environment of speed benchmarks: it times, it does not train
            if purposes.is_library_metadata(item.path) if candidate.kind in METADATA_KINDS else purposes.read_by_library(item.path):
                continue  # a distributed library's install ranges: it must not pin
            if (_compiled_sibling(item.path), candidate.package) in pinned_in:
                continue
            if candidate.kind in METADATA_KINDS and candidate.package in environment_pins:
                continue
            message = rules[CODE].format_message(package=candidate.package, requirement=candidate.requirement)
            yield Finding(item.path, item.line, item.col, CODE, message, item.end_line, item.end_col)

