"""Applying fixes to text: which fixes fit together in one round, and the edited text.

As in ruff, the fixes of a round must not overlap: a fix whose edits overlap (or touch)
an edit already accepted waits for the next round, after the file was linted again.
An edit identical to one already accepted is shared, not applied twice, so the findings
of one program that carry the same seed block insert it once.  A fix is all or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from nondet_lint.types import Edit, Finding

Position = Tuple[int, int, int]  # (cell or 0, line, col)


def line_starts(text: str) -> List[int]:
    """Offsets where lines start; a line ends at ``\\r\\n``, ``\\n`` or a lone ``\\r``, as
    the engine counts them (not ``str.splitlines``, which also breaks at form feeds)."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
        elif char == "\r" and not text.startswith("\n", index + 1):
            starts.append(index + 1)
    return starts


def offset_of(text: str, starts: Sequence[int], line: int, col: int) -> int:
    """The offset of a (1-based line, 0-based column); ValueError outside the text."""
    if not 1 <= line <= len(starts):
        raise ValueError(f"line {line} is outside the file")
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    content_end = end
    while content_end > start and text[content_end - 1] in "\r\n":
        content_end -= 1
    if not 0 <= col <= content_end - start:
        raise ValueError(f"column {col} is outside line {line}")
    return start + col


def with_newlines(content: str, newline: str) -> str:
    """Inserted text in the file's own newline style (a CRLF file stays CRLF)."""
    if newline == "\n" or ("\n" not in content and "\r" not in content):
        return content
    return content.replace("\r\n", "\n").replace("\r", "\n").replace("\n", newline)


def apply_text_edits(text: str, edits: Sequence[Edit], newline: str = "\n") -> str:
    """``text`` with non-overlapping ``edits`` applied; ValueError for an edit that does
    not fit the text or overlaps another."""
    starts = line_starts(text)
    spans = []
    for edit in edits:
        start = offset_of(text, starts, edit.line, edit.col)
        end = offset_of(text, starts, edit.end_line, edit.end_col)
        if end < start:
            raise ValueError("an edit ends before it starts")
        spans.append((start, end, with_newlines(edit.content, newline)))
    spans.sort(key=lambda s: (s[0], s[1]))
    out, last = [], 0
    for start, end, content in spans:
        if start < last:
            raise ValueError("edits overlap")
        out.append(text[last:start])
        out.append(content)
        last = end
    out.append(text[last:])
    return "".join(out)


# ---- choosing the fixes of a round ----------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A finding whose fix may be applied; ``target`` is where each edit applies."""

    finding: Finding

    def targeted_edits(self) -> List[Tuple[str, Edit]]:
        assert self.finding.fix is not None
        return [(edit.path or self.finding.path, edit) for edit in self.finding.fix.edits]


def _span(edit: Edit) -> Tuple[Position, Position]:
    cell = edit.cell or 0
    return (cell, edit.line, edit.col), (cell, edit.end_line, edit.end_col)


EditKey = Tuple[str, Optional[int], int, int, int, int, str]  # an edit, wherever it comes from
FixKey = Tuple[str, Tuple[EditKey, ...]]  # a fix: its code and its edits


def _key(path: str, edit: Edit) -> EditKey:
    return (path, edit.cell, edit.line, edit.col, edit.end_line, edit.end_col, edit.content)


def _conflicts(a: Edit, b: Edit) -> bool:
    """Overlapping or touching spans: the order of the two would be a guess."""
    (a_start, a_end), (b_start, b_end) = _span(a), _span(b)
    return a_start[0] == b_start[0] and a_start <= b_end and b_start <= a_end


def _internally_consistent(edits: Sequence[Tuple[str, Edit]]) -> bool:
    for index, (path, edit) in enumerate(edits):
        start, end = _span(edit)
        if end < start:
            return False
        for other_path, other in edits[index + 1:]:
            if other_path == path and _key(path, edit) != _key(other_path, other):
                (s1, e1), (s2, e2) = _span(edit), _span(other)
                if s1[0] == s2[0] and s1 < e2 and s2 < e1:
                    return False
    return True


@dataclass
class RoundPlan:
    """The fixes accepted for one round and their edits by file (duplicates shared)."""

    accepted: List[Finding]
    edits: Dict[str, List[Edit]]
    invalid: List[Finding]


def _source_order(finding: Finding) -> Tuple[Any, ...]:
    assert finding.fix is not None  # plan_round keeps only findings with a fix
    return (finding.path, *(_span(finding.fix.edits[0])[0]), finding.code)


def plan_round(findings: Sequence[Finding], skip: Optional[Set[FixKey]] = None) -> RoundPlan:
    """Accept fixes in source order while they do not overlap what is accepted."""
    skip = skip or set()
    order = sorted(
        (f for f in findings if f.fix is not None and f.fix.edits and fix_key(f) not in skip),
        key=_source_order,
    )
    accepted: List[Finding] = []
    invalid: List[Finding] = []
    by_path: Dict[str, List[Edit]] = {}
    seen = set()
    for finding in order:
        edits = Candidate(finding).targeted_edits()
        if not _internally_consistent(edits):
            invalid.append(finding)
            continue
        new = [(path, edit) for path, edit in edits if _key(path, edit) not in seen]
        if any(_conflicts(edit, other) for path, edit in new for other in by_path.get(path, ())):
            continue  # overlaps a fix taken this round: next round
        for path, edit in new:
            seen.add(_key(path, edit))
            by_path.setdefault(path, []).append(edit)
        accepted.append(finding)
    return RoundPlan(accepted, by_path, invalid)


def distinct_fixes(findings: Sequence[Finding]) -> int:
    """How many different changes the fixes of ``findings`` make: findings that share one
    (a library module's finding carries its entry point's seed block) count once."""
    return len({
        tuple(sorted(_key(edit.path or f.path, edit) for edit in f.fix.edits)) for f in findings if f.fix is not None
    })


def fix_key(finding: Finding) -> FixKey:
    """Identifies a fix across rounds (to remember the ones dropped)."""
    assert finding.fix is not None
    return (finding.code, tuple(_key(edit.path or finding.path, edit) for edit in finding.fix.edits))
