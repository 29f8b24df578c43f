"""One cheap traversal of a libcst tree that feeds every check.

libcst's visitor machinery costs about as much as the parse.  Checks only look at
syntax, never at whitespace or punctuation, so this walker follows the fields of each
node that can hold syntax, in source order, and calls the ``visit_<Type>`` /
``leave_<Type>`` handlers that the checks define.  It keeps the chain of ancestors and
a parent map, and the parameter names that shadow imports inside functions.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable, Dict, List, Sequence, Tuple

import libcst as cst

_SKIPPED_TYPES = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.TrailingWhitespace,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.BaseUnaryOp,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
    cst.ImportStar,
    cst.Asynchronous,
)

# Fields that hold syntax but whose source order differs from the dataclass order.
_ORDER_OVERRIDES = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
}


@lru_cache(maxsize=None)
def _syntax_fields(node_type: type) -> Tuple[str, ...]:
    if node_type in _ORDER_OVERRIDES:
        return _ORDER_OVERRIDES[node_type]
    names = []
    for f in dataclasses.fields(node_type):
        if f.name.startswith("whitespace") or f.name in ("lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma", "semicolon", "equal", "star", "dot", "newline", "trailing_whitespace", "operator", "relative", "asynchronous"):
            continue
        names.append(f.name)
    return tuple(names)


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """Syntax children of a node in source order."""
    out: List[cst.CSTNode] = []
    for name in _syntax_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            if not isinstance(value, _SKIPPED_TYPES):
                out.append(value)
        elif type(value) is tuple or type(value) is list:
            for item in value:
                if isinstance(item, cst.CSTNode) and not isinstance(item, _SKIPPED_TYPES):
                    out.append(item)
    return out


Handler = Callable[[cst.CSTNode], None]


class Dispatch:
    """``visit_<Type>`` and ``leave_<Type>`` handlers of many checks, by node type."""

    def __init__(self, visitors: Sequence[object]) -> None:
        self._visit: Dict[type, List[Handler]] = {}
        self._leave: Dict[type, List[Handler]] = {}
        self._names: Dict[str, Tuple[List[Tuple[object, str]], List[Tuple[object, str]]]] = {}
        self._visitors = visitors
        self._cache: Dict[type, Tuple[List[Handler], List[Handler]]] = {}

    def handlers(self, node_type: type) -> Tuple[List[Handler], List[Handler]]:
        found = self._cache.get(node_type)
        if found is None:
            visit: List[Handler] = []
            leave: List[Handler] = []
            for klass in node_type.__mro__:
                name = klass.__name__
                for visitor in self._visitors:
                    handler = getattr(visitor, f"visit_{name}", None)
                    if handler is not None:
                        visit.append(handler)
                    handler = getattr(visitor, f"leave_{name}", None)
                    if handler is not None:
                        leave.append(handler)
                if klass is cst.CSTNode:
                    break
            found = self._cache[node_type] = (visit, leave)
        return found


_LEAVE = object()


def walk(module: cst.Module, dispatch: Dispatch, ancestors: List[cst.CSTNode], parents: Dict[int, cst.CSTNode]) -> None:
    """Depth-first, source-order traversal calling handlers; ``ancestors`` is kept current."""
    stack: List[object] = [module]
    while stack:
        item = stack.pop()
        if item is _LEAVE:
            node = ancestors.pop()
            for handler in dispatch.handlers(type(node))[1]:
                handler(node)
            continue
        node = item  # type: ignore[assignment]
        for handler in dispatch.handlers(type(node))[0]:
            handler(node)
        ancestors.append(node)
        stack.append(_LEAVE)
        kids = children(node)
        for child in kids:
            parents[id(child)] = node
        stack.extend(reversed(kids))
