"""pylint's parseable lines, ``path:line: [CODE] message``, as ruff's ``pylint`` format."""

from __future__ import annotations

from typing import List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def format_line(finding: Finding) -> str:
    where = finding.path if finding.cell is None else f"{finding.path}:cell {finding.shown_cell}"
    return f"{where}:{finding.line}: [{finding.code}] {finding.message}"


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    for finding in findings:
        out.write(format_line(finding) + "\n")
