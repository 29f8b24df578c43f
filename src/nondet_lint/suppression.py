"""``# noqa`` comments: per line (all codes or a list) and file-wide ``# nondet-lint: noqa``.

Applied by the engine, so every front end (CLI, flake8 plugin, pre-commit) agrees.
A prefix such as ``ND1`` in a noqa list suppresses the whole family, as in selection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Optional

ALL = frozenset({"*"})
LINE_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
FILE_NOQA = re.compile(
    r"#\s*nondet-lint\s*:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE
)
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

    def to_dict(self):
        return {"lines": {str(k): sorted(v) for k, v in self.lines.items()}, "file": sorted(self.file)}

    @classmethod
    def from_dict(cls, data) -> "Suppressions":
        return cls({int(k): frozenset(v) for k, v in data["lines"].items()}, frozenset(data["file"]))


def _matches(codes: FrozenSet[str], code: str) -> bool:
    if not codes:
        return False
    if "*" in codes:
        return True
    return any(code.startswith(prefix) for prefix in codes)


def parse_suppressions(text: str) -> Suppressions:
    if "noqa" not in text and "NOQA" not in text:
        return Suppressions()
    lines: Dict[int, FrozenSet[str]] = {}
    file_codes: FrozenSet[str] = frozenset()
    for number, line in enumerate(text.splitlines(), start=1):
        if "#" not in line or "noqa" not in line.lower():
            continue
        file_match = FILE_NOQA.search(line)
        if file_match:
            file_codes = file_codes | noqa_codes(file_match.group("codes"))
            continue
        match = LINE_NOQA.search(line)
        if match:
            lines[number] = noqa_codes(match.group("codes"))
    return Suppressions(lines, file_codes)
