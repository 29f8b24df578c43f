"""One cheap traversal of a libcst tree that feeds every check.

libcst's visitor machinery costs about as much as the parse.  Checks only look at
syntax, never at whitespace or punctuation, so this walker follows the fields of each
node that can hold syntax, in the order the code runs, and calls the ``visit_<Type>`` /
``leave_<Type>`` handlers that the checks define.  It keeps the chain of ancestors and
a parent map, and the parameter names that shadow imports inside functions.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Sequence, Tuple, Type, TypeVar

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

# Fields that hold syntax but whose dataclass order is not the order the code runs in
# (which is the text's, except that a conditional expression's test runs before its
# branches and a keyword argument's value is what runs: those keep the dataclass order).
_ORDER_OVERRIDES = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
}


_Node = TypeVar("_Node", bound=cst.CSTNode)

_FIELDS: Dict[type, Tuple[str, ...]] = {}
_PLAIN_TYPES = (str, bool, int)


def _syntax_fields(node_type: type) -> Tuple[str, ...]:
    found = _FIELDS.get(node_type)
    if found is not None:
        return found
    if node_type in _ORDER_OVERRIDES:
        _FIELDS[node_type] = _ORDER_OVERRIDES[node_type]
        return _FIELDS[node_type]
    names = []
    for f in dataclasses.fields(node_type):
        if f.name.startswith("whitespace") or f.name in ("lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma", "semicolon", "equal", "star", "dot", "newline", "trailing_whitespace", "operator", "relative", "asynchronous"):
            continue
        if f.type in _PLAIN_TYPES:  # a name's or a literal's text: never a node
            continue
        names.append(f.name)
    _FIELDS[node_type] = tuple(names)
    return _FIELDS[node_type]


# type -> whether its instances are syntax nodes the walk enters (a dict lookup instead of
# isinstance() against abstract classes, which dominated the walk's time)
_SYNTAX: Dict[type, bool] = {}


def _is_syntax(node_type: type) -> bool:
    found = _SYNTAX.get(node_type)
    if found is None:
        found = _SYNTAX[node_type] = issubclass(node_type, cst.CSTNode) and not issubclass(node_type, _SKIPPED_TYPES)
    return found


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """Syntax children of a node in source order."""
    out: List[cst.CSTNode] = []
    syntax = _SYNTAX
    kind = type(node)
    fields = _FIELDS.get(kind) or _syntax_fields(kind)
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                item_kind = type(item)
                if syntax.get(item_kind) or (item_kind not in syntax and _is_syntax(item_kind)):
                    out.append(item)
        elif syntax.get(kind) or (kind not in syntax and _is_syntax(kind)):
            out.append(value)
    return out


_DEFINITIONS = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def calls_in(node: cst.CSTNode, into_definitions: bool = True) -> List[cst.Call]:
    """Every call inside ``node`` (itself included), in source order: the cheap traversal
    instead of a libcst visitor.  ``into_definitions=False`` leaves out what nested
    functions, lambdas and classes hold (their decorators and defaults too), which runs
    later if at all."""
    return nodes_in(node, cst.Call, into_definitions)


def nodes_in(node: cst.CSTNode, kind: Type[_Node], into_definitions: bool = True) -> List[_Node]:
    """Every node of type ``kind`` inside ``node`` (itself included), in source order."""
    found: List[_Node] = []
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            found.append(current)
        if not into_definitions and current is not node and isinstance(current, _DEFINITIONS):
            continue
        stack.extend(reversed(children(current)))
    return found


class ModuleIndex:
    """The module's calls and single-target assignments, gathered by the walk that feeds
    the checks, so that analyses asking for "every call in the module" do not walk the
    whole tree again.  ``complete`` once the walk has left the module."""

    def __init__(self) -> None:
        self.calls: List[cst.Call] = []
        self.assigns: List[cst.Assign] = []
        self.complete = False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1:
            self.assigns.append(node)

    def leave_Module(self, node: cst.Module) -> None:
        self.complete = True


Handler = Callable[[cst.CSTNode], None]


class Dispatch:
    """``visit_<Type>`` and ``leave_<Type>`` handlers of many checks, by node type."""

    def __init__(self, visitors: Sequence[object]) -> None:
        self._visit: Dict[type, List[Handler]] = {}
        self._leave: Dict[type, List[Handler]] = {}
        self._names: Dict[str, Tuple[List[Tuple[object, str]], List[Tuple[object, str]]]] = {}
        self._visitors = visitors
        self._classes = tuple(type(v) for v in visitors)
        self._cache: Dict[type, Tuple[List[Handler], List[Handler]]] = {}

    def handlers(self, node_type: type) -> Tuple[List[Handler], List[Handler]]:
        found = self._cache.get(node_type)
        if found is None:
            visit_names, leave_names = _handler_names(self._classes, node_type)
            visitors = self._visitors
            found = self._cache[node_type] = (
                [getattr(visitors[index], name) for index, name in visit_names],
                [getattr(visitors[index], name) for index, name in leave_names],
            )
        return found


# (check classes, node type) -> which of them handle it, by method name: looked up once
# per process instead of once per file (a run over 10,000 small files spent a quarter of
# its time here)
_NAMES: Dict[Tuple[Tuple[type, ...], type], Tuple[List[Tuple[int, str]], List[Tuple[int, str]]]] = {}


def _handler_names(classes: Tuple[type, ...], node_type: type) -> Tuple[List[Tuple[int, str]], List[Tuple[int, str]]]:
    key = (classes, node_type)
    found = _NAMES.get(key)
    if found is None:
        visit: List[Tuple[int, str]] = []
        leave: List[Tuple[int, str]] = []
        for klass in node_type.__mro__:
            name = klass.__name__
            for index, visitor_class in enumerate(classes):
                if hasattr(visitor_class, f"visit_{name}"):
                    visit.append((index, f"visit_{name}"))
                if hasattr(visitor_class, f"leave_{name}"):
                    leave.append((index, f"leave_{name}"))
            if klass is cst.CSTNode:
                break
        found = _NAMES[key] = (visit, leave)
    return found


_LEAVE = object()


def walk(module: cst.CSTNode, dispatch: Dispatch, ancestors: List[cst.CSTNode], parents: Dict[int, cst.CSTNode]) -> None:
    """Depth-first, source-order traversal calling handlers; ``ancestors`` is kept current.

    This loop runs for every node of every file: handlers are looked up by type in one
    dict, a leaf (a node with no syntax fields, such as a name or a number) with no
    ``leave_`` handler is visited without being pushed on the ancestors at all, and the
    children are gathered here (what ``children`` does, without a call and a list per node)."""
    cache = dispatch._cache
    fields_of = _FIELDS
    syntax = _SYNTAX
    stack: List[object] = [module]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if item is _LEAVE:
            node = ancestors.pop()
            for handler in cache[type(node)][1]:
                handler(node)
            continue
        node = item  # type: ignore[assignment]
        kind = type(node)
        found = cache.get(kind) or dispatch.handlers(kind)
        for handler in found[0]:
            handler(node)
        fields = fields_of.get(kind)
        if fields is None:
            fields = _syntax_fields(kind)
        if not fields and not found[1]:
            continue
        ancestors.append(node)
        push(_LEAVE)
        first = len(stack)
        for name in fields:
            value = getattr(node, name)
            value_kind = type(value)
            if value_kind is tuple or value_kind is list:
                for child in value:
                    child_kind = type(child)
                    if syntax.get(child_kind) or (child_kind not in syntax and _is_syntax(child_kind)):
                        parents[id(child)] = node
                        push(child)
            elif syntax.get(value_kind) or (value_kind not in syntax and _is_syntax(value_kind)):
                parents[id(value)] = node
                push(value)
        if len(stack) - first > 1:
            stack[first:] = stack[:first - 1:-1]


def visit_tree(node: cst.CSTNode, *visitors: object) -> None:
    """Call the ``visit_<Type>`` / ``leave_<Type>`` handlers of plain visitor objects over
    ``node`` with the cheap traversal (a libcst visitor costs about as much as the parse).
    Unlike libcst's, a keyword argument's value is visited before its keyword."""
    walk(node, Dispatch(visitors), [], {})
