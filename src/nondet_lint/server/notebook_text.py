"""Where each source line of a notebook's code cells sits in its ``.ipynb`` JSON text.

For a client that opens a notebook as a plain file, diagnostics must be positioned in
the JSON.  Jupyter writes a cell's ``source`` as a list with one string per line, each
on a line of its own, so a finding in (cell, line) belongs on the JSON line of that
string.  The text is walked with the ``json`` module's own decoder, which says where
each value ends, so nothing in outputs or metadata can be mistaken for a source.
"""

from __future__ import annotations

import json
from typing import Dict, Iterator, List, Tuple

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


def source_lines(text: str) -> Dict[int, List[int]]:
    """Code cell number (from 1) -> the 0-based JSON line of each of its source lines;
    empty when the text is not a notebook in that layout."""
    try:
        return _Walker(text).notebook()
    except (ValueError, IndexError, KeyError, TypeError):
        return {}


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def _skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _SPACE:
            self.at += 1

    def _expect(self, char: str) -> None:
        self._skip()
        if self.text[self.at] != char:
            raise ValueError(f"expected {char!r} at {self.at}")
        self.at += 1

    def _value(self) -> Tuple[object, int]:
        """The next value and where it starts (its end is ``self.at`` after)."""
        self._skip()
        start = self.at
        value, self.at = _DECODER.raw_decode(self.text, self.at)
        return value, start

    def _members(self) -> Iterator[object]:
        """Keys of the object that starts here, leaving each value for the caller."""
        self._expect("{")
        self._skip()
        if self.text[self.at] == "}":
            self.at += 1
            return
        while True:
            key, _ = self._value()
            self._expect(":")
            yield key
            self._skip()
            if self.text[self.at] == ",":
                self.at += 1
                continue
            self._expect("}")
            return

    def _line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset)

    def notebook(self) -> Dict[int, List[int]]:
        out: Dict[int, List[int]] = {}
        for key in self._members():
            if key != "cells":
                self._value()
                continue
            self._expect("[")
            self._skip()
            while self.text[self.at] != "]":
                kind, rows = self._cell()
                if kind == "code":
                    out[len(out) + 1] = rows
                self._skip()
                if self.text[self.at] == ",":
                    self.at += 1
                    self._skip()
            self.at += 1
        return out

    def _cell(self) -> Tuple[str, List[int]]:
        kind, rows = "code", [0]
        for key in self._members():
            if key == "cell_type":
                value, _ = self._value()
                kind = str(value)
            elif key == "source":
                rows = self._source()
            else:
                self._value()
        return kind, rows

    def _source(self) -> List[int]:
        self._skip()
        if self.text[self.at] != "[":  # one string: every line of it is on this JSON line
            value, start = self._value()
            return [self._line(start)] * (str(value).count("\n") + 1)
        self.at += 1
        rows: List[int] = []
        while True:
            self._skip()
            if self.text[self.at] == "]":
                self.at += 1
                return rows or [self._line(self.at)]
            value, start = self._value()
            rows.extend([self._line(start)] * max(str(value).count("\n"), 1))
            self._skip()
            if self.text[self.at] == ",":
                self.at += 1
