"""Source positions for the few nodes that end up in findings.

libcst's ``PositionProvider`` records a range for every node of a module, which costs
about twice the parse itself.  We need positions for a handful of nodes per file, so we
generate code only for small pieces around them: a node's code is an exact substring of
the module's, so where that text occurs once in the source, its offset there is the
node's offset.  Where it occurs more than once, a statement is taken with its neighbours
in its block, other nodes with the node around them (and so on outwards); the whole
module is the last resort.  Character offsets are
converted to (line, column) once at the end.

Printing pieces needs libcst internals (``libcst_shim``); where the shim says they
cannot be used, positions come from ``PositionProvider`` for the whole module.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint import libcst_shim
from nondet_lint.libcst_shim import Piece

_NEWLINE = re.compile(r"\r\n?|\n")
_NEWLINE_AT_END = re.compile(r"(\r\n?|\n)\Z")
Span = Tuple[int, int, int, int]  # start line (1-based), start col (0-based), end line, end col


class PositionIndex:
    """Maps character offsets of a module's generated code to lines and columns."""

    def __init__(self, code: str) -> None:
        if "\r" in code:
            self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(code))]
        else:  # "\n" only (nearly every file): each line starts one past the end of the last
            lengths = map(len, code.split("\n")[:-1])
            self._line_starts = list(accumulate(map((1).__add__, lengths), initial=0))

    def line_col(self, offset: int) -> Tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line]


def node_spans(
    module: cst.Module, nodes: Iterable[cst.CSTNode], code: str,
    parents: Optional[Mapping[int, cst.CSTNode]] = None,
) -> Dict[int, Span]:
    """Return ``{id(node): (line, col, end_line, end_col)}`` for the given nodes of ``module``.

    ``code`` must be ``module.code`` (passed in so callers that already hold the source
    text do not generate it again).  ``parents`` (``id(child) -> parent``, as the walk
    records it) lets positions come from small pieces of code instead of the module's.
    """
    unique = {id(node): node for node in nodes}
    if not unique:
        return {}
    if not libcst_shim.FAST:
        spans = libcst_shim.metadata_spans(module)
        return {key: spans[key] for key in unique if key in spans}
    offsets: Dict[int, Tuple[int, int]] = {}
    if parents is not None:
        offsets = _offsets_from_pieces(module, list(unique.values()), code, parents)
    missing = {key for key in unique if key not in offsets}
    if missing:
        offsets.update(libcst_shim.generate_module(module, missing))
    index = PositionIndex(code)
    return {key: (*index.line_col(start), *index.line_col(end)) for key, (start, end) in offsets.items()}


def _offsets_from_pieces(
    module: cst.Module, nodes: List[cst.CSTNode], code: str, parents: Mapping[int, cst.CSTNode],
) -> Dict[int, Tuple[int, int]]:
    """Offsets of ``nodes`` found by generating the smallest piece whose text is unique.

    Each round generates every pending anchor once (with all the nodes it holds as
    targets).  An anchor whose text occurs more than once in ``code`` that is a statement
    of a block is told apart by its neighbours (``_window_offsets``); failing that, or
    for other anchors, its nodes go to the node around it.  Nodes that reach the module
    are left to the caller.
    """
    offsets: Dict[int, Tuple[int, int]] = {}
    waiting: Dict[int, Tuple[cst.CSTNode, List[cst.CSTNode]]] = {}
    for node in nodes:
        if isinstance(node, cst.Module):  # its range is libcst's, trailing newline and all
            continue
        anchor = node if _stands_alone(node, parents) else _enclosing_piece(node, parents)
        if anchor is not None:
            waiting.setdefault(id(anchor), (anchor, []))[1].append(node)
    while waiting:
        climbing: Dict[int, Tuple[cst.CSTNode, List[cst.CSTNode]]] = {}
        for anchor, held in waiting.values():
            targets = {id(node) for node in held}
            indent = _indentation(module, anchor, parents)
            piece, start = _printed(module, anchor, indent, targets, code)
            if piece is not None and start >= 0:
                offsets.update(_shifted(piece[1], targets, start))
                continue
            body = parents.get(id(anchor))
            if piece is not None and isinstance(body, (cst.IndentedBlock, cst.Module)):
                found = _window_offsets(module, body, anchor, piece, indent, code, targets)
                if found is not None:
                    offsets.update(found)
                    continue
                # every window of the block was tried: climb past the block itself
                outer = _enclosing_piece(body, parents) if isinstance(body, cst.IndentedBlock) else None
            else:
                outer = _enclosing_piece(anchor, parents)
            if outer is not None:
                climbing.setdefault(id(outer), (outer, []))[1].extend(held)
        waiting = climbing
    return offsets


def _printed(
    module: cst.Module, anchor: cst.CSTNode, indent: Sequence[str], targets: Set[int], code: str,
) -> Tuple[Optional[Piece], int]:
    """The anchor's piece and where it occurs once in ``code`` (-1: nowhere, or more than
    once).  It is printed up to its last target first (an ``if``'s test, not its body):
    where that start of the piece occurs once, so does the whole, at the same offset, and
    the rest need not be printed.  Otherwise the whole piece, for its neighbours to tell
    it apart (``_window_offsets``)."""
    start_of = libcst_shim.generate(module, anchor, indent, targets, until_found=True)
    if start_of is None:
        return None, -1
    start = _unique_offset(code, start_of[0])
    if start >= 0 or id(anchor) in targets:  # found, or the anchor, a target, printed whole
        return start_of, start
    piece = libcst_shim.generate(module, anchor, indent, targets)
    return piece, _unique_offset(code, piece[0]) if piece is not None else -1


def _unique_offset(code: str, text: str) -> int:
    """Where ``text`` occurs in ``code`` if it occurs exactly once, else -1.

    A file whose last line has no line break was printed with one and then cut: a piece
    that ends the file (with its line break) occurs there without it, and counts."""
    if not text.strip():
        return -1
    found = []
    start = code.find(text)
    if start >= 0:
        found.append(start)
        if code.find(text, start + 1) >= 0:
            return -1
    if not code.endswith(("\n", "\r")):
        cut = _NEWLINE_AT_END.sub("", text)
        if cut != text and code.endswith(cut):
            found.append(len(code) - len(cut))
    return found[0] if len(found) == 1 else -1


def _shifted(found: Mapping[int, Tuple[int, int]], targets: Set[int], start: int) -> Dict[int, Tuple[int, int]]:
    return {key: (start + begin, start + end) for key, (begin, end) in found.items() if key in targets}


def _window_offsets(
    module: cst.Module, body: Union[cst.IndentedBlock, cst.Module], anchor: cst.CSTNode, piece: Piece, indent: Sequence[str],
    code: str, targets: Set[int],
) -> Optional[Dict[int, Tuple[int, int]]]:
    """Offsets for a statement whose code repeats (copied code, the same ``if`` in many
    functions): its block's statements print one after another, so the statement with
    its neighbours is an exact piece of the source too.  Neighbours are added one at a
    time, before and after in turn, until the run of statements occurs once; None when
    even the whole block repeats."""
    statements = body.body
    index = next((i for i, stmt in enumerate(statements) if stmt is anchor), None)
    if index is None:
        return None
    texts: Dict[int, str] = {index: piece[0]}
    low = high = index
    backwards = True
    while low > 0 or high < len(statements) - 1:
        step = -1 if (backwards and low > 0) or high == len(statements) - 1 else 1
        backwards = not backwards
        neighbour = low - 1 if step < 0 else high + 1
        made = libcst_shim.generate(module, statements[neighbour], indent, set())
        if made is None:
            return None
        texts[neighbour] = made[0]
        low, high = min(low, neighbour), max(high, neighbour)
        start = _unique_offset(code, "".join(texts[i] for i in range(low, high + 1)))
        if start >= 0:
            before = sum(len(texts[i]) for i in range(low, index))
            return _shifted(piece[1], targets, start + before)
    return None


def _enclosing_piece(node: cst.CSTNode, parents: Mapping[int, cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The nearest node around ``node`` that prints alone (None at the module or off
    the walked tree)."""
    parent = parents.get(id(node))
    while parent is not None and not _stands_alone(parent, parents):
        parent = parents.get(id(parent))
    return None if isinstance(parent, cst.Module) else parent


def _stands_alone(node: cst.CSTNode, parents: Mapping[int, cst.CSTNode]) -> bool:
    """Whether ``node`` prints the same alone as in its parent: not those whose code the
    parent shapes (an annotation takes its ``:`` or ``->`` from its parent, elements
    their commas, an ``elif`` prints as ``if`` alone)."""
    node_type = type(node)
    if node_type is cst.If:
        return type(parents.get(id(node))) is not cst.If
    return libcst_shim.prints_alone(node_type)


def _indentation(module: cst.Module, node: cst.CSTNode, parents: Mapping[int, cst.CSTNode]) -> List[str]:
    """The indent tokens in force where ``node`` is generated: the blocks around it,
    outermost first (line continuations inside blocks are written relative to them)."""
    tokens: List[str] = []
    parent = parents.get(id(node))
    while parent is not None:
        if isinstance(parent, cst.IndentedBlock):
            tokens.append(module.default_indent if parent.indent is None else parent.indent)
        parent = parents.get(id(parent))
    tokens.reverse()
    return tokens
