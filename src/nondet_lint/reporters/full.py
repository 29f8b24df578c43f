"""ruff's ``full`` format: each finding with the source around it and its fix's title.

::

    ND201 [*] torch.backends.cudnn.benchmark = True lets cuDNN pick ...
     --> train.py:2:1
      |
    1 | import torch
    2 | torch.backends.cudnn.benchmark = True
      | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    3 |
      |
    help: Set it to False

In a notebook the context is the finding's cell.
"""

from __future__ import annotations

from typing import List, TextIO

from nondet_lint.baseline import SourceLines
from nondet_lint.reporters.marks import FixMarks
from nondet_lint.reporters.text import location
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding

CONTEXT = 1  # lines shown before and after the finding's lines
MAX_LINES = 6  # of a finding that spans many lines, the first ones


def _frame(finding: Finding, lines: List[str]) -> List[str]:
    if not 0 < finding.line <= len(lines):
        return []
    last = min(max(finding.end_line, finding.line), finding.line + MAX_LINES - 1, len(lines))
    first, stop = max(1, finding.line - CONTEXT), min(len(lines), last + CONTEXT)
    width = len(str(stop))
    gutter = " " * width
    out = [f"{gutter} |"]
    for number in range(first, stop + 1):
        text = lines[number - 1].expandtabs(4).rstrip()
        out.append(f"{number:>{width}} | {text}".rstrip())
        if number == finding.line:
            start = len(lines[number - 1][: finding.col].expandtabs(4))
            if finding.end_line == finding.line and finding.end_col > finding.col:
                end = len(lines[number - 1][: finding.end_col].expandtabs(4))
            else:
                end = max(len(text), start + 1)
            out.append(f"{gutter} | {' ' * start}{'^' * max(1, end - start)}")
    out.append(f"{gutter} |")
    return out


def format_finding(finding: Finding, sources: SourceLines, marks: FixMarks = FixMarks()) -> str:
    marker = " [*]" if marks.marked(finding) else ""
    parts = [f"{finding.code}{marker} {finding.message}", f" --> {location(finding)}"]
    parts.extend(_frame(finding, sources.lines(finding.path, finding.cell)))
    if finding.fix is not None and finding.fix.title:
        parts.append(f"help: {finding.fix.title}")
    return "\n".join(parts) + "\n"


def report(findings: List[Finding], rules: RuleSet, out: TextIO, marks: FixMarks = FixMarks()) -> None:
    sources = SourceLines()
    for finding in findings:
        out.write(format_finding(finding, sources, marks) + "\n")
