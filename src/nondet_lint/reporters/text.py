"""flake8-style lines: ``path:line:col: CODE message`` (1-based column), ruff's ``concise``.

Editors, problem matchers and pre-commit read this exactly as they read flake8.  A
finding that ``--fix`` would fix shows ``[*]`` after its code, as in ruff.
"""

from __future__ import annotations

from collections import Counter
from typing import List, TextIO

from nondet_lint.reporters.marks import FixMarks
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def location(finding: Finding) -> str:
    if finding.cell is not None:
        return f"{finding.path}:cell {finding.shown_cell}:{finding.line}:{finding.col + 1}"
    return f"{finding.path}:{finding.line}:{finding.col + 1}"


def format_line(finding: Finding, marks: FixMarks = FixMarks()) -> str:
    marker = " [*]" if marks.marked(finding) else ""
    return f"{location(finding)}: {finding.code}{marker} {finding.message}"


def report(findings: List[Finding], rules: RuleSet, out: TextIO, marks: FixMarks = FixMarks()) -> None:
    for finding in findings:
        out.write(format_line(finding, marks) + "\n")


def statistics(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    """Counts per code, most frequent first (ties by code), as ``--statistics`` prints."""
    counts = Counter(f.code for f in findings)
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        name = rules[code].name if code in rules else ""
        out.write(f"{count:<5} {code} {name}\n")
