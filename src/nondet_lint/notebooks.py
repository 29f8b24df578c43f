"""Jupyter notebooks (``.ipynb``) as one Python program, and back.

A notebook runs its code cells in order in one namespace, so its code cells are checked
as one module: their sources are joined, each cell starting on a new line.  IPython
syntax that is not Python (``%magic``, ``!shell``, ``x = !ls``, ``obj?``, ``%%bash``
cells) is masked line by line with Python of the same line count (``pass`` or
``x = None``), so every position in the program is a position in a cell.  Findings are
mapped back to ``(cell, line)`` where *cell* counts the code cells from 1 (how fixes
address a cell) and *line* counts from the cell's first line; findings also carry the
cell's number among all cells, markdown included, which is what people are shown (as
ruff and Jupyter's cell list number them).

Plain JSON is read and written (no nbformat dependency); a fix changes only the
``source`` of the edited cells, keeping outputs, metadata and the file's JSON layout.
"""

from __future__ import annotations

import ast
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from nondet_lint.facts import FileFacts, ModuleFact
from nondet_lint.types import Edit, Finding

SUFFIX = ".ipynb"

# cell magics whose body is Python run by IPython (``%%time`` ...); other cell magics
# (``%%bash``, ``%%writefile``, ``%%html``) hold another language and are masked whole
PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "mprun"})

_MAGIC_ASSIGNMENT = re.compile(r"^(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[%!]")
_OPEN = "([{"
_CLOSE = ")]}"


class NotebookError(Exception):
    """A file that is not a readable notebook (reported as ND000)."""


@dataclass(frozen=True)
class CellSpan:
    """Where one code cell sits in the joined program (plain data, cached)."""

    cell: int  # 1-based number among the code cells
    index: int  # position in the notebook's ``cells`` list
    start: int  # first program line (1-based)
    lines: int  # number of lines

    def to_list(self) -> List[int]:
        return [self.cell, self.index, self.start, self.lines]

    @classmethod
    def from_list(cls, data: Sequence[int]) -> "CellSpan":
        return cls(*data)


@dataclass(frozen=True)
class NotebookCells(ModuleFact):
    """A notebook's cell map in its project facts, for messages that name a place in it."""

    key = "notebook_cells"

    spans: Tuple[CellSpan, ...] = ()

    def to_json(self) -> Dict[str, Any]:
        return {"spans": [span.to_list() for span in self.spans]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "NotebookCells":
        return cls(tuple(CellSpan.from_list(span) for span in data["spans"]))


@dataclass(frozen=True)
class NotebookProgram:
    text: str
    cells: Tuple[CellSpan, ...]
    is_python: bool = True


# ---- reading ------------------------------------------------------------------------

def load_notebook(raw: bytes) -> Dict[str, Any]:
    """The notebook's JSON document, checked for the structure we read."""
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise NotebookError(f"not a notebook: invalid JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError("not a notebook: no 'cells' list (nbformat 4 is supported)")
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type", "code"), str):
            raise NotebookError(f"not a notebook: cell {number} is not an object with a 'cell_type'")
        source = cell.get("source", "")
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookError(f"not a notebook: cell {number} has a 'source' that is not text")
    return document


def is_python_notebook(document: Mapping[str, Any]) -> bool:
    """False for notebooks of another kernel language (R, Julia ...)."""
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return True
    info = metadata.get("language_info")
    name = info.get("name") if isinstance(info, dict) else None
    if isinstance(name, str):
        return name.lower() == "python"
    kernel = metadata.get("kernelspec")
    language = kernel.get("language") if isinstance(kernel, dict) else None
    if isinstance(language, str):
        return language.lower() == "python"
    return True


def cell_text(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    text = source if isinstance(source, str) else "".join(source)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def code_cells(document: Mapping[str, Any]) -> List[Tuple[int, int, Dict[str, Any]]]:
    """``(cell number, index in cells, cell)`` for every code cell, in order."""
    out: List[Tuple[int, int, Dict[str, Any]]] = []
    for index, cell in enumerate(document["cells"]):
        if cell.get("cell_type", "code") == "code":
            out.append((len(out) + 1, index, cell))
    return out


def build_program(raw: bytes) -> NotebookProgram:
    """The notebook's code cells joined into one module, IPython syntax masked."""
    document = load_notebook(raw)
    if not is_python_notebook(document):
        return NotebookProgram("", (), is_python=False)
    parts: List[str] = []
    spans: List[CellSpan] = []
    line = 1
    for number, index, cell in code_cells(document):
        text = mask_ipython(cell_text(cell))
        if text and not text.endswith("\n"):
            text += "\n"
        count = text.count("\n")
        spans.append(CellSpan(number, index, line, count))
        parts.append(text)
        line += count
    return NotebookProgram("".join(parts), tuple(spans))


# ---- IPython syntax -------------------------------------------------------------------

def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except Exception:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
        return False
    return True


def mask_ipython(text: str) -> str:
    """Replace IPython-only lines with Python of the same line count.

    A cell that already parses as Python is returned unchanged (so ``%`` formatting or
    ``!=`` on a continuation line is never taken for a magic).  Otherwise lines are
    scanned with enough of a tokenizer to know when a line starts a statement (not
    inside brackets, a string or after a backslash); only such lines can be magics.
    """
    if not text.strip() or _parses(text):
        return text
    lines = text.split("\n")
    first = next((l.strip() for l in lines if l.strip()), "")
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].split() else ""
        if name not in PYTHON_BODY_CELL_MAGICS:
            return "\n".join("" for _ in lines)
        head = next(i for i, l in enumerate(lines) if l.strip())
        lines[head] = _indent(lines[head]) + "pass"
    scanner = _LineState()
    continued_magic = False
    for number, line in enumerate(lines):
        if continued_magic:
            continued_magic = line.rstrip().endswith("\\")
            lines[number] = ""
            continue
        if scanner.at_statement_start() and _is_ipython_line(line):
            continued_magic = line.rstrip().endswith("\\")
            lines[number] = _mask_line(line)
            continue
        scanner.feed(line)
    return "\n".join(lines)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _is_ipython_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return False
    if stripped[0] in "%!?":
        return True
    if stripped.endswith("?") and "#" not in stripped:
        return True  # ``obj?`` / ``obj??`` help
    return bool(_MAGIC_ASSIGNMENT.match(stripped))


def _mask_line(line: str) -> str:
    stripped = line.strip()
    match = _MAGIC_ASSIGNMENT.match(stripped)
    if match and stripped[0] not in "%!?":
        return f"{_indent(line)}{match.group('target')} = None"
    return _indent(line) + "pass"


class _LineState:
    """Bracket depth, open triple-quoted string and backslash continuation across lines."""

    def __init__(self) -> None:
        self.depth = 0
        self.triple: Optional[str] = None
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.triple is None and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            if self.triple is not None:
                end = line.find(self.triple, i)
                if end == -1:
                    return
                i = end + 3
                self.triple = None
                continue
            char = line[i]
            if char == "#":
                return
            if char in "\"'":
                if line.startswith(char * 3, i):
                    self.triple = char * 3
                    i += 3
                    continue
                i = self._skip_string(line, i + 1, char)
                continue
            if char in _OPEN:
                self.depth += 1
            elif char in _CLOSE:
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and i == n - 1:
                self.backslash = True
            i += 1

    @staticmethod
    def _skip_string(line: str, i: int, quote: str) -> int:
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] == quote:
                return i + 1
            i += 1
        return i


# ---- analysis -------------------------------------------------------------------------

def read_raw(path: str, stdin: Optional[bytes]) -> bytes:
    if stdin is not None:
        return stdin
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except IsADirectoryError:
        raise NotebookError("is a directory") from None
    except OSError as exc:
        raise NotebookError(f"cannot read file: {exc.strerror or exc}") from None


def blank_cells(text: str, spans: Sequence[CellSpan]) -> str:
    """The program with the lines of ``spans`` emptied (cells that do not parse)."""
    lines = text.split("\n")
    for span in spans:
        for number in range(span.start - 1, span.start - 1 + span.lines):
            lines[number] = ""
    return "\n".join(lines)


def place_findings(findings: Sequence[Finding], results: Sequence[Any]) -> List[Finding]:
    """Re-address findings and fix edits in notebooks (``FileResult.cells``) to their cells."""
    cells = {r.path: tuple(CellSpan.from_list(c) for c in r.cells) for r in results if r.cells}
    if not cells:
        return list(findings)
    return [place_in_cells(f, cells) for f in findings]


# ---- positions ------------------------------------------------------------------------

def span_at(cells: Sequence[CellSpan], line: int) -> Optional[CellSpan]:
    """The code cell holding a program line, None outside every cell."""
    if not cells:
        return None
    starts = [span.start for span in cells]
    # rightmost start at or before the line: an empty cell shares its start with the next
    position = bisect_right(starts, line) - 1
    return cells[position] if position >= 0 else None


def cell_position(cells: Sequence[CellSpan], line: int) -> Tuple[Optional[int], int]:
    """A program line as ``(code cell number, line in the cell)``; ``(None, line)`` outside."""
    span = span_at(cells, line)
    if span is None:
        return None, line
    return span.cell, line - span.start + 1


def shown_cell_line(line: int, facts: FileFacts) -> Tuple[Optional[int], int]:
    """A line of a module as ``(cell, line in the cell)`` when the module is a notebook
    (the cell counting every cell, as locations are shown), else ``(None, line)``."""
    cells = facts.get(NotebookCells)
    span = span_at(cells.spans if cells is not None else (), line)
    return (None, line) if span is None else (span.index + 1, line - span.start + 1)


def place_text(shown: str, line: int, facts: FileFacts) -> str:
    """``shown:line`` for a line of a module, ``shown:cell N:line`` in a notebook: how a
    message names a place in another module, given that module's project facts."""
    cell, in_cell = shown_cell_line(line, facts)
    return f"{shown}:{line}" if cell is None else f"{shown}:cell {cell}:{in_cell}"


def line_words(line: int, facts: FileFacts) -> str:
    """``line 12``, or ``cell 3, line 2`` in a notebook: a line of a module in a sentence."""
    cell, in_cell = shown_cell_line(line, facts)
    return f"line {line}" if cell is None else f"cell {cell}, line {in_cell}"


def _edit_in_cells(edit: Edit, cells: Sequence[CellSpan]) -> Edit:
    if not cells:
        return edit
    cell, line = cell_position(cells, edit.line)
    _, end_line = cell_position(cells, edit.end_line)
    return replace(edit, line=line, end_line=end_line, cell=cell)


def place_in_cells(finding: Finding, cells: Mapping[str, Sequence[CellSpan]]) -> Finding:
    """A finding on joined programs re-addressed to cells: its own position when its file
    is a notebook, and each fix edit by the file it edits (``Edit.path``, else the
    finding's own file)."""
    fix = finding.fix
    if fix is not None:
        edits = tuple(_edit_in_cells(edit, cells.get(edit.path or finding.path, ())) for edit in fix.edits)
        fix = replace(fix, edits=edits)
    own = cells.get(finding.path, ())
    span = span_at(own, finding.line)
    if span is None:
        return replace(finding, fix=fix) if fix is not finding.fix else finding
    end_line = cell_position(own, finding.end_line)[1] if finding.end_line else 0
    return replace(
        finding, line=finding.line - span.start + 1, end_line=end_line, cell=span.cell,
        notebook_cell=span.index + 1, fix=fix,
    )


# ---- writing back ---------------------------------------------------------------------

def _json_layout(raw: bytes) -> Tuple[Optional[int], bool, bool]:
    """Indent, ``ensure_ascii`` and final newline of the file, to write it the same way."""
    text = raw.decode("utf-8-sig")
    match = re.search(r"\n( +)\S", text)
    indent = len(match.group(1)) if match else None
    ensure_ascii = text.isascii() and "\\u" in text
    return indent, ensure_ascii, text.endswith("\n")


def _apply_to_text(text: str, edits: Sequence[Edit]) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(line: int, col: int) -> int:
        if not 1 <= line <= len(lines):
            raise ValueError(f"edit outside the cell (line {line})")
        return offsets[line - 1] + min(col, len(lines[line - 1]))

    for edit in sorted(edits, key=lambda e: (e.line, e.col, e.end_line, e.end_col), reverse=True):
        start, end = offset(edit.line, edit.col), offset(edit.end_line, edit.end_col)
        text = text[:start] + edit.content + text[end:]
    return text


def _as_source(original: Any, text: str) -> Any:
    """The new source in the cell's own form: a string, or nbformat's list of lines."""
    if isinstance(original, str):
        return text
    return text.splitlines(keepends=True)


def apply_cell_edits(raw: bytes, edits: Sequence[Edit]) -> bytes:
    """Apply edits addressed to code cells (``Edit.cell``, cell-relative lines).

    Only the ``source`` of the edited cells changes; outputs, execution counts, metadata
    and the other cells stay as they are, and the JSON is written with the file's own
    indent.  Raises ``NotebookError`` for a bad notebook and ``ValueError`` for an edit
    that does not fit its cell.
    """
    document = load_notebook(raw)
    by_cell: Dict[int, List[Edit]] = {}
    for edit in edits:
        if edit.cell is None:
            raise ValueError("an edit to a notebook must name its cell")
        by_cell.setdefault(edit.cell, []).append(edit)
    cells = {number: cell for number, _, cell in code_cells(document)}
    for number, cell_edits in by_cell.items():
        if number not in cells:
            raise ValueError(f"no code cell {number}")
        cell = cells[number]
        cell["source"] = _as_source(cell.get("source", ""), _apply_to_text(cell_text(cell), cell_edits))
    indent, ensure_ascii, newline = _json_layout(raw)
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii)
    return (text + ("\n" if newline else "")).encode("utf-8")
