"""JSON output, a stable documented schema (see README, "Output formats").

``{"version": 1, "findings": [...], "summary": {"files": N, "findings": N, "by_code": {...}}}``
with each finding: path, line, column, end_line, end_column (1-based columns), code,
name, message, cell (notebooks: the code cell, counting code cells only; else null), fix
(null or title, applicability and edits with the same 1-based positions and the
replacement text).  Notebook findings also have ``notebook_cell``: the same cell counted
among all cells, markdown included, the number the other formats (and ruff) show.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Dict, List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding

SCHEMA_VERSION = 1


def finding_dict(finding: Finding, rules: RuleSet) -> Dict[str, Any]:
    data: Dict[str, Any] = {
        "path": finding.path,
        "cell": finding.cell,
        "line": finding.line,
        "column": finding.col + 1,
        "end_line": finding.end_line or finding.line,
        "end_column": (finding.end_col if finding.end_line else finding.col) + 1,
        "code": finding.code,
        "name": rules[finding.code].name if finding.code in rules else "",
        "message": finding.message,
        "fix": finding.fix.to_dict() if finding.fix else None,
    }
    if finding.cell is not None:
        data["notebook_cell"] = finding.shown_cell
    return data


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    document = {
        "version": SCHEMA_VERSION,
        "findings": [finding_dict(f, rules) for f in findings],
        "summary": {
            "findings": len(findings),
            "by_code": dict(sorted(Counter(f.code for f in findings).items())),
        },
    }
    json.dump(document, out, indent=2, sort_keys=False, ensure_ascii=False)
    out.write("\n")
