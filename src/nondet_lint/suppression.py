"""``# noqa`` comments: per line (all codes or a list) and file-wide ``# nondet-lint: noqa``
(``// noqa`` in CUDA sources).

Applied by the engine, so every front end (CLI, flake8 plugin, pre-commit) agrees.
A prefix such as ``ND1`` in a noqa list suppresses the whole family, as in selection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple

ALL = frozenset({"*"})
_CODES = r"(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?"


@lru_cache(maxsize=4)
def _noqa_patterns(comment: str) -> Tuple["re.Pattern[str]", "re.Pattern[str]"]:
    """The line and file-wide noqa patterns after a comment marker (``#``, ``//``)."""
    marker = re.escape(comment)
    return (
        re.compile(rf"{marker}\s*noqa{_CODES}", re.IGNORECASE),
        re.compile(rf"{marker}\s*nondet-lint\s*:\s*noqa{_CODES}", re.IGNORECASE),
    )


# the Python comment forms (``--add-noqa`` edits them)
LINE_NOQA, FILE_NOQA = _noqa_patterns("#")
_SPLIT = re.compile(r"[\s,]+")


def noqa_codes(text: Optional[str]) -> FrozenSet[str]:
    if not text:
        return ALL
    return frozenset(code.upper() for code in _SPLIT.split(text.strip()) if code)


@dataclass(frozen=True)
class Suppressions:
    lines: Dict[int, FrozenSet[str]] = field(default_factory=dict)
    file: FrozenSet[str] = frozenset()

    def suppresses(self, line: int, code: str) -> bool:
        return _matches(self.file, code) or _matches(self.lines.get(line, frozenset()), code)

    def to_dict(self) -> Dict[str, Any]:
        return {"lines": {str(k): sorted(v) for k, v in self.lines.items()}, "file": sorted(self.file)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Suppressions":
        return cls({int(k): frozenset(v) for k, v in data["lines"].items()}, frozenset(data["file"]))


def _matches(codes: FrozenSet[str], code: str) -> bool:
    if not codes:
        return False
    if "*" in codes:
        return True
    return any(code.startswith(prefix) for prefix in codes)


def parse_suppressions(text: str, comment: str = "#") -> Suppressions:
    """The noqa comments of ``text``; ``comment`` is the file's comment marker (``//`` in
    CUDA sources)."""
    if "noqa" not in text and "NOQA" not in text:
        return Suppressions()
    line_noqa, file_noqa = _noqa_patterns(comment)
    lines: Dict[int, FrozenSet[str]] = {}
    file_codes: FrozenSet[str] = frozenset()
    for number, line in enumerate(text.splitlines(), start=1):
        if comment not in line or "noqa" not in line.lower():
            continue
        file_match = file_noqa.search(line)
        if file_match:
            file_codes = file_codes | noqa_codes(file_match.group("codes"))
            continue
        match = line_noqa.search(line)
        if match:
            lines[number] = noqa_codes(match.group("codes"))
    return Suppressions(lines, file_codes)
