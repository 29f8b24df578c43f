"""ND207 in the project's CUDA source files (``.cu``, ``.cuh``).

A file checker (like the requirement files' of ND401): the engine hands it every
discovered CUDA file, and each float atomic add is reported in that file at its line and
column, through the same suppression (``// noqa: ND207``), baseline and reporters as any
finding.  The atomics are found as in kernel source strings (``custom.float_atomic_sites``):
an atomic whose operands are evidently integers is exact and not reported.  Comments are
blanked first (keeping offsets), so an atomic that is only mentioned is not counted.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, FrozenSet, List, Tuple

from nondet_lint.context import Deferred
from nondet_lint.discovery import is_cuda_source
from nondet_lint.families.kernels.custom import float_atomic_sites
from nondet_lint.types import Finding

CODE = "ND207"
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _blank_comments(text: str) -> str:
    """``text`` with comments replaced by spaces (newlines kept): offsets do not move."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def analyze_cuda(path: str, text: str, config: Any, rules: Any, enabled: FrozenSet[str]) -> Tuple[List[Finding], List[Deferred]]:
    """ND207 findings of one CUDA source file (nothing here needs project facts)."""
    if CODE not in enabled or CODE not in rules:
        return [], []
    rule = rules[CODE]
    data = rule.data
    source = _blank_comments(text)
    starts = [0] + [i + 1 for i, char in enumerate(source) if char == "\n"]
    findings = []
    for offset, name in sorted(float_atomic_sites(source, data["source_patterns"], data["integer_types"])):
        index = bisect.bisect_right(starts, offset) - 1
        line, col = index + 1, offset - starts[index]
        message = rule.format_message(what=f"`{name}` in this CUDA source", advice=data["source_advice"])
        findings.append(Finding(path, line, col, CODE, message, line, col + len(name)))
    return findings, []


FILE_CHECKERS = [(is_cuda_source, analyze_cuda)]
