"""Open documents as the engine sees them, and positions as the client counts them.

The engine counts lines from 1 and columns in characters (code points); the protocol
counts both from 0 and columns in the position encoding agreed at start-up (UTF-16
unless the client offers another).  ``Lines`` converts between the two for one text.

A notebook synced as a notebook document arrives as cells, each a text document; the
engine reads notebooks as ``.ipynb`` JSON, so the cells are written into one (code cells
and markdown cells in order), and findings come back addressed to a code cell by its
number, which names the cell's document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from lsprotocol import types

from nondet_lint.fixes.apply import line_starts

Units = Callable[[str], int]  # how many client units a piece of text counts


class Lines:
    """One text's lines, for converting positions."""

    def __init__(self, text: str, units: Units) -> None:
        self.text = text
        self.units = units
        self.starts = line_starts(text)

    def line(self, number: int) -> str:
        """Line ``number`` (1-based) without its line break; empty past the end."""
        if not 1 <= number <= len(self.starts):
            return ""
        start = self.starts[number - 1]
        end = self.starts[number] if number < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def position(self, line: int, col: int) -> types.Position:
        """The client position of (1-based line, 0-based character column)."""
        if line > len(self.starts):
            return types.Position(line=len(self.starts) - 1, character=self.units(self.line(len(self.starts))))
        text = self.line(line)
        return types.Position(line=max(line - 1, 0), character=self.units(text[: max(col, 0)]))

    def range(self, line: int, col: int, end_line: int, end_col: int) -> types.Range:
        """A finding's range; one without an end runs to the end of its line."""
        if not end_line:
            end_line, end_col = line, max(len(self.line(line)), col)
        return types.Range(start=self.position(line, col), end=self.position(end_line, end_col))

    def engine_position(self, position: types.Position) -> Tuple[int, int]:
        """(1-based line, character column) of a client position."""
        text = self.line(position.line + 1)
        count = 0
        for index, char in enumerate(text):
            if count >= position.character:
                return position.line + 1, index
            count += self.units(char)
        return position.line + 1, len(text)


@dataclass(frozen=True)
class Cell:
    uri: str
    is_code: bool
    text: str
    version: Optional[int] = None


@dataclass(frozen=True)
class Snapshot:
    """An open document at one version: a text document, or a notebook of cells."""

    uri: str
    path: str
    version: Optional[int]
    text: str = ""
    cells: Optional[Tuple[Cell, ...]] = None

    @property
    def is_notebook(self) -> bool:
        return self.cells is not None

    def raw(self) -> bytes:
        """The bytes the engine analyzes (a notebook's cells as ``.ipynb`` JSON)."""
        if self.cells is None:
            return self.text.encode("utf-8", "surrogatepass")
        return notebook_json(self.cells).encode("utf-8")

    def code_cells(self) -> List[Cell]:
        return [cell for cell in self.cells or () if cell.is_code]


def notebook_json(cells: Sequence[Cell]) -> str:
    document = {
        "cells": [
            {"cell_type": "code" if cell.is_code else "markdown", "metadata": {}, "source": cell.text}
            for cell in cells
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def changed_region(old: str, new: str) -> Tuple[int, int, str]:
    """(start, end, replacement): the one span of ``old`` to replace to get ``new``."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, end_old, new[start:end_new]


def text_edit(old: str, new: str, units: Units) -> Optional[types.TextEdit]:
    """One edit that turns ``old`` into ``new`` (None when they are equal)."""
    if old == new:
        return None
    start, end, content = changed_region(old, new)
    lines = Lines(old, units)
    return types.TextEdit(range=types.Range(start=_at(lines, start), end=_at(lines, end)), new_text=content)


def _at(lines: Lines, offset: int) -> types.Position:
    import bisect

    number = bisect.bisect_right(lines.starts, offset)
    return lines.position(number, offset - lines.starts[number - 1])
