"""Source positions for the few nodes that end up in findings.

libcst's ``PositionProvider`` records a range for every node of a module, which costs
about twice the parse itself.  Findings are rare, so we run the same code generation
but keep positions only for the nodes asked about: character offsets during the pass,
converted to (line, column) once at the end.
"""

from __future__ import annotations

import bisect
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ContextManager, Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n?|\n")
Span = Tuple[int, int, int, int]  # start line (1-based), start col (0-based), end line, end col


class _Done(Exception):
    """Every asked-for node has its range: stop generating code."""


@dataclass(frozen=False)
class _SparsePositionState(CodegenState):
    targets: Set[int] = field(default_factory=set)
    offset: int = 0
    found: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    starts: Dict[int, int] = field(default_factory=dict)
    remaining: Set[int] = field(default_factory=set)  # asked-for nodes not yet complete

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self.starts[id(node)] = self.offset

    def after_codegen(self, node: cst.CSTNode) -> None:
        # nodes without a syntactic range keep the whitespace-inclusive one, as in libcst
        key = id(node)
        if key in self.targets and key not in self.found:
            self.found[key] = (self.starts[key], self.offset)
        if key in self.remaining:
            self.remaining.discard(key)
            if not self.remaining:
                raise _Done  # the rest of the module cannot move these positions

    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> "ContextManager[None]":
        # called for almost every node: those not asked about get a shared no-op manager
        # (a generator-based one per node cost about a third of this pass)
        if id(node) not in self.targets:
            return _NOTHING
        return self._recording(node, start_node, end_node)

    @contextmanager
    def _recording(
        self, node: cst.CSTNode, start_node: Optional[cst.CSTNode], end_node: Optional[cst.CSTNode],
    ) -> Iterator[None]:
        # the range may be hoisted from children: make sure they are recorded too
        if start_node is not None:
            self.targets.add(id(start_node))
        if end_node is not None:
            self.targets.add(id(end_node))
        start = self.offset
        yield
        end = self.offset
        if start_node is not None and id(start_node) in self.found:
            start = self.found[id(start_node)][0]
        if end_node is not None and id(end_node) in self.found:
            end = self.found[id(end_node)][1]
        self.found[id(node)] = (start, end)


class _NoOp:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NOTHING = _NoOp()


class PositionIndex:
    """Maps character offsets of a module's generated code to lines and columns."""

    def __init__(self, code: str) -> None:
        self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(code))]

    def line_col(self, offset: int) -> Tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line]


def node_spans(module: cst.Module, nodes: Iterable[cst.CSTNode], code: str) -> Dict[int, Span]:
    """Return ``{id(node): (line, col, end_line, end_col)}`` for the given nodes of ``module``.

    ``code`` must be ``module.code`` (passed in so callers that already hold the source
    text do not generate it again).
    """
    targets = {id(node) for node in nodes}
    if not targets:
        return {}
    state = _SparsePositionState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        targets=set(targets),
        remaining=set(targets),
    )
    try:
        module._codegen(state)
    except _Done:
        pass
    index = PositionIndex(code)
    spans: Dict[int, Span] = {}
    for key, (start, end) in state.found.items():
        spans[key] = (*index.line_col(start), *index.line_col(end))
    return spans
