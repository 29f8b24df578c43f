"""Float atomics in CUDA C++ text (ND207): in kernel source strings (``custom``), in the
project's ``.cu`` / ``.cuh`` files (the file checker here) and in the C++ sources a CUDA
extension compiles (``cudafiles``).

Text only, without libcst: the engine reads CUDA files through ``FILE_CHECKERS`` in a
run whose Python files all come from the cache, and that run never imports the checks.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Any, FrozenSet, Iterable, List, Optional, Tuple

from nondet_lint.discovery import is_cuda_source
from nondet_lint.types import Deferred, Finding

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


@lru_cache(maxsize=16)
def _compiled(patterns: Tuple[str, ...]) -> List["re.Pattern[str]"]:
    return [re.compile(p) for p in patterns]


def _call_arguments(text: str, start: int) -> List[str]:
    """The top-level comma-separated arguments of the call whose ``(`` is at ``start``."""
    depth = 0
    args: List[str] = []
    current: List[str] = []
    for char in text[start:]:
        if char in "([{":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return args
        elif char == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    return args


_INT_LITERAL = re.compile(r"^-?\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def integer_names(source: str, integer_types: Iterable[str]) -> FrozenSet[str]:
    """Names the CUDA source declares with an integer type (``int n``, ``unsigned *count``)."""
    types = "|".join(sorted((re.escape(t) for t in integer_types), key=len, reverse=True))
    pattern = re.compile(rf"\b(?:const\s+)?(?:{types})\b[\s*&]+(?:const\s+)?(?:__restrict__\s+)?([A-Za-z_]\w*)")
    return frozenset(match.group(1) for match in pattern.finditer(source))


def _base_name(expression: str) -> Optional[str]:
    """``&out[i]`` → ``out``; ``counts + j`` → ``counts``."""
    match = _IDENT.search(expression.lstrip("&*( "))
    return match.group(0) if match else None


def _integer_cast(integer_types: Iterable[str]) -> "re.Pattern[str]":
    """``(int)x``, ``(unsigned long long) x``, ``static_cast<int>(x)``: an integer whatever ``x`` is."""
    types = "|".join(sorted((re.escape(t) for t in integer_types), key=len, reverse=True))
    return re.compile(rf"^(?:\(\s*(?:const\s+)?(?:{types})\s*\)|static_cast\s*<\s*(?:{types})\s*>)")


_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\.\d+|\d+[eE][-+]?\d+|\d+[fF])(?!\w)")


def _integer_value(value: str, ints: FrozenSet[str], cast: "re.Pattern[str]") -> bool:
    """An integer literal or cast, or an expression of names the source declares with
    integer types only (``width * grad`` mixes in a float: not an integer)."""
    if _INT_LITERAL.match(value) or cast.match(value):
        return True
    if _FLOAT_LITERAL.search(value):
        return False
    names = _IDENT.findall(value)
    return bool(names) and all(name in ints for name in names)


def float_atomic_sites(source: str, patterns: Iterable[str], integer_types: Iterable[str]) -> List[Tuple[int, str]]:
    """``(offset, name)`` of each atomic call in a CUDA source whose operands are not
    evidently integers (an integer literal or cast, a name declared with an integer type)."""
    ints = integer_names(source, integer_types)
    cast = _integer_cast(tuple(integer_types))
    found = []
    for regex in _compiled(tuple(patterns)):
        for match in regex.finditer(source):
            args = _call_arguments(source, source.index("(", match.start()))
            if len(args) < 2:
                continue
            target, values = _base_name(args[0]), args[1:]
            if target in ints or all(_integer_value(v, ints, cast) for v in values):
                continue
            found.append((match.start(), match.group(0).rstrip("( \t")))
    return found


def float_atomics(source: str, patterns: Iterable[str], integer_types: Iterable[str]) -> List[str]:
    """The atomic calls in a CUDA source whose operands are not evidently integers."""
    return [name for _, name in float_atomic_sites(source, patterns, integer_types)]


FILE_CHECKERS = [(is_cuda_source, analyze_cuda)]
