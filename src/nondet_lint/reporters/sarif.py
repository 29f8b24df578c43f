"""SARIF 2.1.0 (OASIS): the format code-scanning services read (GitHub, GitLab, Azure).

One run; ``tool.driver.rules`` describes every rule from its rule data (summary, what it
flags, the whole ``--explain`` text as help); each result has its rule, level, message,
a location with 1-based lines and columns counted in characters (``columnKind``), a
``partialFingerprints`` entry that survives code moving (the baseline key), and the fix
as ``artifactChanges`` when there is one.

Paths are URIs relative to ``%SRCROOT%``, the current folder.  Notebook findings carry
their code cell in ``properties.cell`` (counting code cells), the cell among all cells in
``properties.notebookCell`` and a logical location ``cell N`` with the latter; their lines
count in the cell, so a fix that edits a notebook is left out (a SARIF fix edits the
file's raw text).  A fix that edits another file (a seed block in the entry point) has
one artifact change per file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath
from typing import Any, Dict, List, Optional, TextIO
from urllib.parse import quote

from nondet_lint import __version__
from nondet_lint.baseline import SourceLines, line_hash
from nondet_lint.docs import explain
from nondet_lint.ruledata import Rule, RuleSet
from nondet_lint.types import Edit, Finding

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "nondetLint/v1"


def level_of(code: str) -> str:
    return "error" if code == "ND000" else "warning"


def _text(value: Any) -> str:
    return " ".join(str(value).split())


def rule_descriptor(rule: Rule) -> Dict[str, Any]:
    help_text = explain(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": _text(rule.summary)},
        "fullDescription": {"text": _text(rule.docs.get("what", rule.summary))},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": level_of(rule.code)},
        "properties": {"tags": ["reproducibility", rule.family], "fix": rule.fix},
    }


def artifact_uri(path: str) -> Dict[str, str]:
    """A URI relative to %SRCROOT% (the current folder), else an absolute file URI."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive
        relative = None
    if relative is not None and not relative.startswith(".."):
        return {"uri": quote(PurePath(relative).as_posix()), "uriBaseId": "%SRCROOT%"}
    return {"uri": Path(absolute).as_uri()}


def _region(line: int, col: int, end_line: int, end_col: int) -> Dict[str, int]:
    return {"startLine": line, "startColumn": col + 1, "endLine": end_line, "endColumn": end_col + 1}


def _replacement(edit: Edit) -> Dict[str, Any]:
    return {
        "deletedRegion": _region(edit.line, edit.col, edit.end_line, edit.end_col),
        "insertedContent": {"text": edit.content},
    }


def _fixes(finding: Finding) -> Optional[List[Dict[str, Any]]]:
    """The fix as one SARIF fix with a change per edited file (``Edit.path``, else the
    finding's); none when an edit addresses a notebook cell (a fix is all or nothing)."""
    if finding.fix is None or not finding.fix.edits or finding.cell is not None:
        return None
    if any(edit.cell is not None for edit in finding.fix.edits):
        return None
    by_path: Dict[str, List[Edit]] = {}
    for edit in finding.fix.edits:
        by_path.setdefault(edit.path or finding.path, []).append(edit)
    return [{
        "description": {"text": finding.fix.title or "Fix"},
        "artifactChanges": [
            {"artifactLocation": artifact_uri(path), "replacements": [_replacement(edit) for edit in edits]}
            for path, edits in by_path.items()
        ],
        "properties": {"applicability": finding.fix.applicability},
    }]


def result(finding: Finding, rule_index: Dict[str, int], lines: SourceLines) -> Dict[str, Any]:
    end_line = finding.end_line or finding.line
    end_col = finding.end_col if finding.end_line else finding.col
    location: Dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": artifact_uri(finding.path),
            "region": _region(finding.line, finding.col, end_line, end_col),
        }
    }
    if finding.cell is not None:
        location["logicalLocations"] = [{"name": f"cell {finding.shown_cell}", "kind": "notebookCell"}]
        location["properties"] = {"cell": finding.cell, "notebookCell": finding.shown_cell}
    out: Dict[str, Any] = {
        "ruleId": finding.code,
        "level": level_of(finding.code),
        "message": {"text": finding.message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: line_hash(finding.code, lines.line(finding))},
    }
    if finding.code in rule_index:
        out["ruleIndex"] = rule_index[finding.code]
    if finding.cell is not None:
        out["properties"] = {"cell": finding.cell, "notebookCell": finding.shown_cell}
    if finding.related:
        out["relatedLocations"] = [
            {
                "id": index,
                "physicalLocation": {
                    "artifactLocation": artifact_uri(item.path),
                    "region": {"startLine": item.line, "startColumn": item.col + 1},
                },
                "message": {"text": item.message},
            }
            for index, item in enumerate(finding.related, 1)
        ]
    fixes = _fixes(finding)
    if fixes:
        out["fixes"] = fixes
    return out


def sarif_log(findings: List[Finding], rules: RuleSet) -> Dict[str, Any]:
    descriptors = [rule_descriptor(rule) for rule in rules]
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    lines = SourceLines()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "nondet-lint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True}],
            "results": [result(f, rule_index, lines) for f in findings],
        }],
    }


def report(findings: List[Finding], rules: RuleSet, out: TextIO) -> None:
    json.dump(sarif_log(findings, rules), out, indent=2, ensure_ascii=False)
    out.write("\n")
