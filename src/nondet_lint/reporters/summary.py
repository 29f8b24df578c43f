"""The closing lines of the formats people read, as ruff words them::

    Found 3 findings in 2 files.
    [*] 2 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).
"""

from __future__ import annotations

from typing import List, Sequence, TextIO

from nondet_lint.reporters.marks import FixMarks
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_lines(findings: Sequence[Finding], marks: FixMarks) -> List[str]:
    if not findings:
        return ["No findings."]
    files = len({f.path for f in findings})
    lines = [f"Found {plural(len(findings), 'finding')} in {plural(files, 'file')}."]
    fixable = sum(1 for f in findings if marks.marked(f))
    hidden = sum(1 for f in findings if marks.hidden(f))
    hint = ""
    if hidden:
        fixes = "hidden fix" if hidden == 1 else "hidden fixes"
        hint = f"{hidden} {fixes} can be enabled with the `--unsafe-fixes` option"
    if fixable:
        lines.append(f"[*] {fixable} fixable with the `--fix` option" + (f" ({hint})." if hint else "."))
    elif hint:
        lines.append(f"No fixes available ({hint}).")
    return lines


def write_summary(findings: Sequence[Finding], rules: RuleSet, out: TextIO, marks: FixMarks = FixMarks()) -> None:
    for line in summary_lines(findings, marks):
        out.write(line + "\n")
