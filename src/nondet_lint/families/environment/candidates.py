"""ND401's pass 1: the candidates of one requirement file (and of what it includes with
``-r`` / ``-c``), each tracked entry with whether it is pinned; ``check`` decides them
in pass 2.

Without libcst: the engine reads requirement files through ``FILE_CHECKERS`` in a run
whose Python files all come from the cache, and that run never imports the checks.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Mapping, Sequence, Tuple

from nondet_lint.discovery import is_requirements_file
from nondet_lint.families.environment.requirements import ParsedFile, normalize_name, parse_text, read_text, with_includes
from nondet_lint.suppression import parse_suppressions
from nondet_lint.types import Deferred, Finding

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
