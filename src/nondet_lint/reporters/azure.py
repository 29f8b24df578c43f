"""Azure Pipelines logging commands: one ``##vso[task.logissue]`` per finding.

``##vso[task.logissue type=warning;sourcepath=P;linenumber=L;columnnumber=C;code=CODE;]message``
(ND000, a file that cannot be read, is an error).  A notebook finding names its file and
says the cell and line in the message, as the GitHub format does.
"""

from __future__ import annotations

from typing import List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def _escape_property(text: str) -> str:
    # the characters Azure's own agent escapes in logging-command properties
    return (
        text.replace("%", "%AZP25").replace(";", "%3B").replace("\r", "%0D").replace("\n", "%0A").replace("]", "%5D")
    )


def _escape_message(text: str) -> str:
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def command(finding: Finding) -> str:
    level = "error" if finding.code == "ND000" else "warning"
    properties = [f"type={level}", f"sourcepath={_escape_property(finding.path)}"]
    message = finding.message
    if finding.cell is None:
        properties += [f"linenumber={finding.line}", f"columnnumber={finding.col + 1}"]
    else:
        message = f"cell {finding.shown_cell}, line {finding.line}, column {finding.col + 1}: {message}"
    properties.append(f"code={finding.code}")
    return f"##vso[task.logissue {';'.join(properties)};]{_escape_message(f'{finding.code} {message}')}"


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    for finding in findings:
        out.write(command(finding) + "\n")
