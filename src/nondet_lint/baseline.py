"""Baselines: record today's findings, report only new ones from then on.

A large repository can adopt the tool at once: ``--write-baseline`` stores every
current finding in a JSON file, and ``--baseline FILE`` hides the findings it holds.
A finding is keyed by its file (relative to the baseline's folder), its code, and a hash
of the reported line's text with whitespace squeezed, never by line number: code moved
up or down, or re-indented, keeps its key.  The same key on several lines is counted, so
a second identical offending line added later is still reported.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import PurePath
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from nondet_lint import notebooks
from nondet_lint.source import SourceError, decode_source
from nondet_lint.types import Finding, UsageError

VERSION = 1
Key = Tuple[str, str, str]  # (path, code, line hash)


class SourceLines:
    """The text of reported lines, each file read once (cells for notebooks)."""

    def __init__(self, overrides: Optional[Mapping[str, bytes]] = None) -> None:
        self._overrides = dict(overrides or {})
        self._files: Dict[str, Dict[Optional[int], List[str]]] = {}

    def _load(self, path: str) -> Dict[Optional[int], List[str]]:
        raw = self._overrides.get(path)
        try:
            if raw is None:
                with open(path, "rb") as handle:
                    raw = handle.read()
            if path.endswith(notebooks.SUFFIX):
                document = notebooks.load_notebook(raw)
                return {n: notebooks.cell_text(c).split("\n") for n, _, c in notebooks.code_cells(document)}
            text = decode_source(raw, path).text
        except (OSError, SourceError, notebooks.NotebookError):
            return {}
        return {None: text.replace("\r\n", "\n").replace("\r", "\n").split("\n")}

    def lines(self, path: str, cell: Optional[int] = None) -> List[str]:
        """The lines of a file, or of a notebook's code cell ``cell``; empty when unreadable."""
        if path not in self._files:
            self._files[path] = self._load(path)
        return self._files[path].get(cell, [])

    def line(self, finding: Finding) -> str:
        lines = self.lines(finding.path, finding.cell)
        return lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""


def line_hash(code: str, text: str) -> str:
    squeezed = " ".join(text.split())
    return hashlib.sha256(f"{code}\0{squeezed}".encode("utf-8")).hexdigest()[:20]


def _relative(path: str, folder: str) -> str:
    absolute = os.path.abspath(path)
    try:
        return PurePath(os.path.relpath(absolute, folder)).as_posix()
    except ValueError:  # another drive
        return PurePath(absolute).as_posix()


def finding_keys(findings: Sequence[Finding], folder: str, lines: SourceLines) -> List[Key]:
    return [(_relative(f.path, folder), f.code, line_hash(f.code, lines.line(f))) for f in findings]


def write_baseline(path: str, findings: Sequence[Finding], overrides: Optional[Mapping[str, bytes]] = None) -> int:
    """Store ``findings``; returns how many were recorded."""
    folder = os.path.dirname(os.path.abspath(path))
    counts = Counter(finding_keys(findings, folder, SourceLines(overrides)))
    document = {
        "version": VERSION,
        "tool": "nondet-lint",
        "findings": [
            {"path": p, "code": c, "hash": h, "count": n} for (p, c, h), n in sorted(counts.items())
        ],
    }
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
    except OSError as exc:
        raise UsageError(f"cannot write baseline {path}: {exc.strerror or exc}") from None
    return sum(counts.values())


def load_baseline(path: str) -> "Counter[Tuple[str, str, str]]":
    try:
        with open(path, "r", encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        raise UsageError(f"baseline {path} not found (create it with --write-baseline)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read baseline {path}: {exc}") from None
    try:
        if document["version"] != VERSION:
            raise UsageError(f"baseline {path} has version {document['version']}, expected {VERSION}")
        return Counter({(e["path"], e["code"], e["hash"]): int(e["count"]) for e in document["findings"]})
    except (KeyError, TypeError, ValueError):
        raise UsageError(f"baseline {path} is not a nondet-lint baseline") from None


def new_findings(findings: Sequence[Finding], path: str, overrides: Optional[Mapping[str, bytes]] = None) -> List[Finding]:
    """The findings the baseline at ``path`` does not hold (in their given order)."""
    remaining = load_baseline(path)
    folder = os.path.dirname(os.path.abspath(path))
    out = []
    for finding, key in zip(findings, finding_keys(findings, folder, SourceLines(overrides))):
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            out.append(finding)
    return out
