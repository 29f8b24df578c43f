"""GitHub Actions workflow commands: one ``::error`` / ``::warning`` annotation per finding.

GitHub shows them on the pull request's changed lines.  A notebook finding names its
file only (a line of the notebook's JSON would point at the wrong place) and says the
cell and line in the message.  See "Workflow commands for GitHub Actions".
"""

from __future__ import annotations

from typing import List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, rules: RuleSet) -> str:
    level = "error" if finding.code == "ND000" else "warning"
    name = rules[finding.code].name if finding.code in rules else ""
    properties = [f"file={_escape_property(finding.path)}"]
    message = finding.message
    if finding.cell is None:
        properties.append(f"line={finding.line}")
        properties.append(f"col={finding.col + 1}")
        if finding.end_line:
            properties.append(f"endLine={finding.end_line}")
            if finding.end_line == finding.line:
                properties.append(f"endColumn={finding.end_col + 1}")
    else:
        message = f"cell {finding.shown_cell}, line {finding.line}, column {finding.col + 1}: {message}"
    properties.append(f"title={_escape_property(f'{finding.code} {name}'.strip())}")
    return f"::{level} {','.join(properties)}::{_escape_data(f'{finding.code} {message}')}"


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    for finding in findings:
        out.write(annotation(finding, rules) + "\n")
