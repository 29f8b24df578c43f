"""GitLab Code Quality report: a JSON array of issues (GitLab's documented fields).

Each issue has ``description``, ``check_name`` (the rule code), ``fingerprint`` (unique
per issue and stable while the flagged line's text is unchanged: the baseline's line
hash, the path and the finding's rank among equal ones), ``severity`` (``major`` for
ND000, a file that cannot be read, ``minor`` otherwise) and ``location`` with ``path``
relative to the current folder (the repository root in a GitLab job) and
``lines.begin`` / ``lines.end``.  Notebook findings count lines in their cell and say
the cell in the description.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import PurePath
from typing import Any, Dict, List, TextIO, Tuple

from nondet_lint.baseline import SourceLines, line_hash
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def _relative(path: str) -> str:
    try:
        relative = os.path.relpath(os.path.abspath(path))
    except ValueError:  # another drive
        return PurePath(path).as_posix()
    return PurePath(path if relative.startswith("..") else relative).as_posix()


def issues(findings: List[Finding], rules: RuleSet) -> List[Dict[str, Any]]:
    sources = SourceLines()
    seen: Dict[Tuple[str, str, str], int] = {}
    out = []
    for finding in findings:
        path = _relative(finding.path)
        key = (path, finding.code, line_hash(finding.code, sources.line(finding)))
        rank = seen.get(key, 0)
        seen[key] = rank + 1
        fingerprint = hashlib.sha256("\0".join((*key, str(rank))).encode("utf-8")).hexdigest()
        name = rules[finding.code].name if finding.code in rules else ""
        where = f"cell {finding.shown_cell}: " if finding.cell is not None else ""
        out.append({
            "description": f"{where}{finding.message}",
            "check_name": f"{finding.code} {name}".strip(),
            "fingerprint": fingerprint,
            "severity": "major" if finding.code == "ND000" else "minor",
            "location": {
                "path": path,
                "lines": {"begin": finding.line, "end": max(finding.end_line, finding.line)},
            },
        })
    return out


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    json.dump(issues(findings, rules), out, indent=2, ensure_ascii=False)
    out.write("\n")
