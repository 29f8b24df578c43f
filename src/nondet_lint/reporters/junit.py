"""JUnit XML, the test report format CI servers show (one test suite per file).

Each finding is a failed test case named after its rule, with the message and position
in its ``failure``; a run without findings is one passing test case, so the report is
never empty.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby
from typing import List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding


def _where(finding: Finding) -> str:
    cell = f"cell {finding.shown_cell}, " if finding.cell is not None else ""
    return f"{cell}line {finding.line}, col {finding.col + 1}"


def document(findings: List[Finding], rules: RuleSet) -> ET.Element:
    total = str(len(findings))
    root = ET.Element("testsuites", name="nondet-lint", tests=total, failures=total, errors="0")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="nondet-lint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No findings", classname="nondet-lint")
        return root
    for path, group in groupby(findings, key=lambda f: f.path):
        items = list(group)
        count = str(len(items))
        suite = ET.SubElement(root, "testsuite", name=path, tests=count, failures=count, errors="0")
        for finding in items:
            name = rules[finding.code].name if finding.code in rules else finding.code
            case = ET.SubElement(
                suite, "testcase", name=f"{finding.code} {name}", classname=path,
                file=path, line=str(finding.line),
            )
            failure = ET.SubElement(case, "failure", message=finding.message, type=finding.code)
            failure.text = f"{_where(finding)}: {finding.message}"
    return root


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    root = document(findings, rules)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")
