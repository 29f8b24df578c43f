"""Plain values shared by every layer: findings, deferred candidates, fixes and text edits.

Everything here is immutable and made of plain data, so results can be sorted,
compared, cached on disk and sent between worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

SAFE = "safe"
UNSAFE = "unsafe"
DISPLAY = "display"


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between two positions (lines 1-based, columns 0-based characters).

    ``cell`` is the notebook code cell the lines count in (``.ipynb`` files), else None.
    ``path`` is the file the edit applies to when it is not the finding's own (a seed
    block inserted in the entry point for a finding in a library module), else None.
    """

    line: int
    col: int
    end_line: int
    end_col: int
    content: str
    cell: Optional[int] = None
    path: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        data = {
            "line": self.line,
            "column": self.col + 1,
            "end_line": self.end_line,
            "end_column": self.end_col + 1,
            "content": self.content,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        if self.path is not None:
            data["path"] = self.path
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Edit":
        return cls(
            data["line"], data["column"] - 1, data["end_line"], data["end_column"] - 1, data["content"],
            data.get("cell"), data.get("path"),
        )


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: str
    edits: Tuple[Edit, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [edit.to_dict() for edit in self.edits],
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Fix":
        return cls(data["title"], data["applicability"], tuple(Edit.from_dict(e) for e in data["edits"]))


@dataclass(frozen=True)
class Deferred:
    """A candidate finding that needs project-wide facts to be decided (plain data only)."""

    path: str
    code: str
    line: int
    col: int
    end_line: int
    end_col: int
    payload: Mapping[str, Any]
    fix: Optional[Fix] = None  # what ``resolve`` puts on the finding it makes

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path, "code": self.code, "line": self.line, "col": self.col,
            "end_line": self.end_line, "end_col": self.end_col, "payload": dict(self.payload),
            "fix": self.fix.to_dict() if self.fix else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Deferred":
        fix = Fix.from_dict(data["fix"]) if data.get("fix") else None
        return cls(data["path"], data["code"], data["line"], data["col"], data["end_line"], data["end_col"], data["payload"], fix)


@dataclass(frozen=True)
class Related:
    """Another place a finding points at (an op the missing switch leaves unsafe)."""

    path: str
    line: int
    col: int
    message: str

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "line": self.line, "col": self.col, "message": self.message}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Related":
        return cls(data["path"], data["line"], data["col"], data["message"])


@dataclass(frozen=True)
class Finding:
    """One reported problem. ``col`` is 0-based; reporters print it 1-based.

    In a notebook, ``line`` counts in the code cell ``cell`` (numbered among code cells,
    how fixes address it) and ``notebook_cell`` numbers that cell among all the
    notebook's cells, as Jupyter and ruff show it.
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[Fix] = field(default=None, compare=False)
    cell: Optional[int] = None
    notebook_cell: Optional[int] = None
    related: Tuple[Related, ...] = field(default=(), compare=False)

    @property
    def shown_cell(self) -> Optional[int]:
        """The cell number people see (counting every cell), None outside notebooks."""
        return self.notebook_cell if self.notebook_cell is not None else self.cell

    @property
    def sort_key(self) -> Tuple[Any, ...]:
        return (self.path, self.cell or 0, self.line, self.col, self.code, self.message)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "fix": self.fix.to_dict() if self.fix else None,
            "cell": self.cell,
            "related": [item.to_dict() for item in self.related],
            "notebook_cell": self.notebook_cell,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Finding":
        fix = Fix.from_dict(data["fix"]) if data.get("fix") else None
        return cls(
            data["path"], data["line"], data["col"], data["code"], data["message"],
            data["end_line"], data["end_col"], fix, data.get("cell"), data.get("notebook_cell"),
            tuple(Related.from_dict(item) for item in data.get("related", ())),
        )


class UsageError(Exception):
    """A problem with how the tool was invoked or configured (exit code 2)."""
