"""What the passes produce: one file's pass-1 result and a whole run's result (plain data).

Kept apart from the engine so that the worker pool, the cache, notebooks and the fix loop
can name them without importing the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping

from nondet_lint.facts import FileFacts
from nondet_lint.suppression import Suppressions
from nondet_lint.types import Deferred, Finding


@dataclass
class FileResult:
    """Everything pass 1 learned about one file (plain data, cacheable)."""

    path: str
    module_name: str = ""
    is_package: bool = False
    findings: List[Finding] = field(default_factory=list)
    deferred: List[Deferred] = field(default_factory=list)
    facts: FileFacts = field(default_factory=FileFacts)
    suppressions: Suppressions = field(default_factory=Suppressions)
    parsed: bool = False
    # notebooks: [cell, index, first program line, line count] per code cell
    cells: List[List[int]] = field(default_factory=list)

    def facts_only(self) -> "FileResult":
        """This file as the rest of the project sees it: its facts (and a notebook's cells,
        for fixes that edit it), nothing to report."""
        return FileResult(
            self.path, self.module_name, self.is_package, facts=self.facts, parsed=self.parsed, cells=self.cells,
        )

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path,
            "module_name": self.module_name,
            "is_package": self.is_package,
            "findings": [f.to_dict() for f in self.findings],
            "deferred": [d.to_dict() for d in self.deferred],
            "facts": self.facts.to_json(),
            "suppressions": self.suppressions.to_dict(),
            "parsed": self.parsed,
            "cells": self.cells,
        }

    def to_text(self) -> str:
        """The form workers send and the cache stores: a JSON line of everything but the
        facts, then the facts' lines (``FileFacts.to_text``), which a reader decodes kind
        by kind when pass 2 asks (a warm run never does).  ``from_text`` reads it back in
        every mode, so pass 2 sees the same data whatever the worker count or cache state."""
        head = self.to_dict()
        del head["facts"]
        facts = self.facts.to_text()
        text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
        return f"{text}\n{facts}" if facts else text

    @classmethod
    def from_text(cls, text: str) -> "FileResult":
        """The result of ``to_text``; damaged text raises ``ValueError``, ``KeyError``,
        ``TypeError`` or ``AttributeError`` (a line of facts is checked only for its key)."""
        head, _, facts = text.partition("\n")
        data = json.loads(head)
        if not isinstance(data, dict):
            raise TypeError("a result is a JSON object")
        return cls._from_parts(data, FileFacts.from_text(facts))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "FileResult":
        return cls._from_parts(data, FileFacts.from_json(data["facts"]))

    @classmethod
    def _from_parts(cls, data: Mapping[str, Any], facts: FileFacts) -> "FileResult":
        return cls(
            data["path"], data["module_name"], data["is_package"],
            [Finding.from_dict(f) for f in data["findings"]],
            [Deferred.from_dict(d) for d in data["deferred"]],
            facts, Suppressions.from_dict(data["suppressions"]), data["parsed"],
            data.get("cells", []),
        )


@dataclass
class RunResult:
    findings: List[Finding]
    files: List[str]
    results: List[FileResult]
    # the rest of the project and the findings of no file (walk errors), kept so the fix
    # loop can decide again after it re-analyzed the files it changed (``decide``)
    context: List[FileResult] = field(default_factory=list)
    extra: List[Finding] = field(default_factory=list)
