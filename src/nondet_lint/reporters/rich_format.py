"""Output for people at a terminal: grouped by file, the line with a marker, a summary table."""

from __future__ import annotations

from collections import Counter
from itertools import groupby
from typing import Dict, List, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from nondet_lint.baseline import SourceLines
from nondet_lint.reporters.marks import FixMarks
from nondet_lint.reporters.summary import summary_lines
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def report(findings: List[Finding], rules: RuleSet, out: TextIO, marks: FixMarks = FixMarks()) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True)
    sources = SourceLines()
    for path, group in groupby(findings, key=lambda f: f.path):
        console.print(Text(path, style="bold underline"))
        for finding in group:
            where = f"{finding.line}:{finding.col + 1}"
            if finding.cell is not None:
                where = f"cell {finding.shown_cell}:{where}"
            header = Text.assemble(("  " + where, "cyan"), " ", (finding.code, "bold red"))
            if marks.marked(finding):
                header.append(" [*]", style="bold green")
            header.append(" " + finding.message)
            if finding.fix:
                header.append(f" [fix: {finding.fix.applicability}]", style="green")
            console.print(header)
            lines = sources.lines(finding.path, finding.cell)
            if 0 < finding.line <= len(lines):
                text = lines[finding.line - 1].expandtabs(4)
                console.print(Text(f"    {finding.line:>5} | ", style="dim") + Text(text))
                width = max(1, (finding.end_col - finding.col) if finding.end_line == finding.line else 1)
                console.print(Text(" " * (12 + finding.col) + "^" * width, style="bold red"))
        console.print()


def write_summary(findings: List[Finding], rules: RuleSet, out: TextIO, marks: FixMarks = FixMarks()) -> None:
    """A table of the counts per code, then the summary lines."""
    console = Console(file=out, highlight=False, soft_wrap=True)
    counts: Dict[str, int] = Counter(f.code for f in findings)
    if counts:
        table = Table(title="Summary")
        table.add_column("Code")
        table.add_column("Rule")
        table.add_column("Count", justify="right")
        for code in sorted(counts):
            table.add_row(code, rules[code].name if code in rules else "", str(counts[code]))
        console.print(table)
    style = "green" if not findings else None
    for line in summary_lines(findings, marks):
        console.print(Text(line, style=style or ""))
