"""Refuse code nested too deeply for libcst before it reaches the parser.

libcst's native parser recurses on the C stack and its time grows faster than the
square of a chain's length: measured with libcst 1.9, a sum of 2,900 terms takes 40 s, a
subscript chain ``a[0][0]...`` of 1,000 takes 9 s, and 2,000 nested brackets or a chain
of 10,000 ``and`` / ``+`` / unary ``-`` kill the process with a segmentation fault
(CPython's own ``ast`` accepts some of these: it keeps ``and`` chains flat). Python 3.9+
refuses more than 200 nested brackets itself ("too many nested parentheses").

So before parsing, one cheap scan (a few per cent of the parse; string literals and
comments blanked first, so brackets and operators inside them do not count) measures:
- the deepest bracket nesting: more than ``MAX_BRACKETS`` is reported;
- the chain tokens (operators, ``.``, ``(``, ``[``, ``and`` / ``or`` / ``not`` /
  ``if`` / ``lambda``) of each logical line: a statement with fewer than ``MAX_DEPTH``
  of them cannot be nested deeper than that.
Only a file with such a long statement pays for the exact measure: CPython's ``ast``
tree depth (an ``and`` / ``or`` chain counting one level per operand, as libcst nests
them); deeper than ``MAX_DEPTH`` is reported as ND000 with its line instead of parsed.
Real code stays far below: the deepest tree in timm and transformers is under 40.
"""

from __future__ import annotations

import ast
import re
from typing import List, Optional, Tuple

MAX_BRACKETS = 200  # CPython's tokenizer limit: deeper is not valid Python
MAX_DEPTH = 300  # libcst parses this in well under a second; its code generation recurses ~2 frames a level

_STRINGS_AND_COMMENTS = re.compile(
    r"""'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|$)"""
    r'''|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|$)'''
    r"""|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"""
    r'''|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'''
    r"""|\#[^\n]*""",
    re.DOTALL,
)
_BRACKETS = str.maketrans("[{]}", "(())")
_CHAIN_SYMBOLS = re.compile(r"[-+*/%@&|^~<>.([{=]|\b(?:and|or|not|if|lambda|await)\b")
_TOKENS = re.compile(r"[-+*/%@&|^~<>.=]|[()\[\]{},;]|\b(?:and|or|not|if|lambda|await)\b")


class NestingError(ValueError):
    """Code too deeply nested to parse safely; ``line``/``col`` point at it."""

    def __init__(self, reason: str, line: int, col: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.col = col


def _blank(match: "re.Match[str]") -> str:
    # keep the line structure so that line numbers stay right
    return "0" + "\n" * match.group().count("\n")


def skeleton(text: str) -> str:
    """The text with string literals and comments replaced by ``0`` (newlines kept)."""
    return _STRINGS_AND_COMMENTS.sub(_blank, text)


def _line_peak(line: str, depth: int) -> int:
    peak = depth
    for char in line:
        if char == "(":
            depth += 1
            peak = max(peak, depth)
        elif char == ")" and depth:
            depth -= 1
    return peak


def long_statements(skel: str, threshold: int = MAX_DEPTH) -> Tuple[int, int, List[Tuple[int, int, int]]]:
    """(deepest bracket nesting, its line, (start, end, line) of each statement with at
    least ``threshold`` chain tokens)."""
    brackets = skel.translate(_BRACKETS)
    depth = deepest = deepest_line = 0
    found: List[Tuple[int, int, int]] = []
    start_line = start_offset = offset = 0
    for number, line in enumerate(brackets.split("\n"), 1):
        opened = line.count("(")
        if opened:
            peak = depth + opened
            if peak > MAX_BRACKETS:  # brackets closed on the same line do not nest: count exactly
                peak = _line_peak(line, depth)
            if peak > deepest:
                deepest, deepest_line = peak, number
            depth = max(depth + opened - line.count(")"), 0)
        elif depth:
            depth = max(depth - line.count(")"), 0)
        end = offset + len(line)
        if depth == 0 and not line.endswith("\\"):
            # a statement ends here: only a long one can hold a long chain
            if end - start_offset >= threshold and len(_CHAIN_SYMBOLS.findall(skel, start_offset, end)) >= threshold:
                found.append((start_offset, end, start_line or number))
            start_line, start_offset = 0, end + 1
        elif not start_line:
            start_line = number
        offset = end + 1
    return deepest, deepest_line, found


def chain_bound(skel: str, start: int = 0, end: Optional[int] = None) -> int:
    """An upper bound of the expression depth in ``skel[start:end]`` (a blanked statement).

    Every operator, ``.``, keyword of a chain and bracket adds a level; a comma or a
    semicolon ends an operand, so the items of a long list or call do not add up; a
    closed bracket counts as one more link of the chain it belongs to.
    """
    best = run = base = 0
    stack: List[Tuple[int, int]] = []
    for match in _TOKENS.finditer(skel, start, len(skel) if end is None else end):
        token = match.group()
        if token in "([{":
            stack.append((base, run))
            run += 1
            base = run
        elif token in ")]}":
            if stack:
                base, run = stack.pop()
            run += 1
        elif token in ",;":
            run = base
        else:
            run += 1
        if run > best:
            best = run
    return best


def tree_depth(tree: ast.AST) -> Tuple[int, int]:
    """(depth, line of the statement holding the deepest node) of a CPython syntax tree,
    chains as libcst nests them.

    The statement's first line, not the deepest node's own: it is the line reported when
    ``ast.parse`` itself gives up (3.11 and 3.12 raise ``RecursionError`` on such code,
    where 3.9, 3.10 and 3.13 build the tree), so every Python reports the same line.
    """
    best, best_line = 0, 1
    stack = [(tree, 0, 1)]
    while stack:
        node, depth, line = stack.pop()
        if isinstance(node, ast.stmt):
            line = node.lineno
        if depth > best:
            best, best_line = depth, line
        extra = len(node.values) - 1 if isinstance(node, ast.BoolOp) else 0
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1 + extra, line))
    return best, best_line


def check_nesting(text: str) -> None:
    """Raise ``NestingError`` when ``text`` is nested too deeply to hand to libcst."""
    skel = skeleton(text)
    deepest, deepest_line, long = long_statements(skel)
    if deepest > MAX_BRACKETS:
        raise NestingError(f"too many nested brackets ({deepest}; Python allows {MAX_BRACKETS})", deepest_line)
    deep = [line for start, end, line in long if chain_bound(skel, start, end) > MAX_DEPTH]
    if not deep:
        return
    try:
        tree = ast.parse(text)
    except (RecursionError, MemoryError):
        raise NestingError("code is nested too deeply (beyond Python's own limit)", deep[0]) from None
    except (SyntaxError, ValueError):
        # syntax this Python does not know: trust the bound
        raise NestingError(f"code is nested too deeply (over {MAX_DEPTH} levels)", deep[0]) from None
    depth, line = tree_depth(tree)
    if depth > MAX_DEPTH:
        raise NestingError(f"code is nested too deeply ({depth} levels; nondet-lint parses up to {MAX_DEPTH})", line)


def too_deep(text: str) -> Optional[NestingError]:
    try:
        check_nesting(text)
    except NestingError as exc:
        return exc
    return None
