"""Is this value a string, a sequence of strings, a set of strings?  (for ND302)

Only what the code shows counts: string literals, the results of string methods and
of functions documented to return strings (``os.path.basename``, ``os.listdir``,
``str.split``), lines of a file opened in text mode, parameters annotated ``str``, and
names bound to those in the same scope (loop variables included).  Anything else is unknown, and a set of unknown
element type is never reported: its order may not depend on string hashing at all.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import Binding, ScopeIndex, enclosing_scope
from nondet_lint.walk import children

MAX_DEPTH = 6
_SET_OPERATORS = (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)
Predicate = Callable[[cst.CSTNode, int], bool]  # a question about a value, at a depth


class TextTypes:
    def __init__(self, data: Mapping[str, Sequence[str]], qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]], index_for: Callable[[cst.CSTNode], ScopeIndex]) -> None:
        self.str_methods: FrozenSet[str] = frozenset(data.get("str_methods", ()))
        self.str_functions: FrozenSet[str] = frozenset(data.get("str_functions", ()))
        self.seq_methods: FrozenSet[str] = frozenset(data.get("str_seq_methods", ()))
        self.seq_functions: FrozenSet[str] = frozenset(data.get("str_seq_functions", ()))
        self.set_makers: FrozenSet[str] = frozenset(data.get("set_makers", ()))
        self.set_methods: FrozenSet[str] = frozenset(data.get("set_methods", ()))
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for

    # ---- names ----------------------------------------------------------------------
    def _bindings(self, name: cst.Name) -> Tuple[ScopeIndex, List[Binding]]:
        index = self.index_for(name)
        return index, [b for b in index.bindings_of(name.value) if b.kind != "augassign"]

    def _name_is(self, name: cst.Name, predicate: Predicate, depth: int) -> bool:
        index, bindings = self._bindings(name)
        if not bindings:
            return False
        for binding in bindings:
            if binding.kind in ("for", "comp"):
                loop = binding.statement
                if not isinstance(loop, (cst.For, cst.CompFor)) or binding.target is not loop.target:
                    return False  # an element of an unpacked tuple
                if predicate != self.is_str or not self.is_str_seq(loop.iter, depth + 1):
                    return False
            elif binding.kind in ("assign", "walrus", "with") and binding.value is not None:
                if not predicate(binding.value, depth + 1):
                    return False
            elif binding.kind == "param" and predicate == self.is_str:
                param = self.parent(binding.target)
                annotation = param.annotation.annotation if isinstance(param, cst.Param) and param.annotation else None
                if not (isinstance(annotation, cst.Name) and annotation.value == "str"):
                    return False  # only a parameter annotated ``str`` is known to be one
            else:
                return False
        return True

    # ---- strings --------------------------------------------------------------------
    def is_str(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute):
                if func.attr.value in self.str_methods:
                    return True
                if func.attr.value == "join" and self.is_str(func.value, depth + 1):
                    return True
                if func.attr.value in ("read", "readline") and self.is_text_file(func.value, depth + 1):
                    return True
            return self.qualname(func) in self.str_functions
        if isinstance(expr, cst.Subscript):
            return self.is_str_seq(expr.value, depth + 1) or self.is_str(expr.value, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Add):
                return self.is_str(expr.left, depth + 1) or self.is_str(expr.right, depth + 1)
            if isinstance(expr.operator, cst.Modulo):
                return isinstance(expr.left, (cst.SimpleString, cst.ConcatenatedString))
            return False
        if isinstance(expr, cst.IfExp):
            return self.is_str(expr.body, depth + 1) and self.is_str(expr.orelse, depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_is(expr, self.is_str, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute_is(expr, self.is_str, depth)
        return False

    def _attribute_is(self, expr: cst.Attribute, predicate: Predicate, depth: int) -> bool:
        """``self.x`` where every ``self.x = ...`` of the class satisfies ``predicate``."""
        if not (isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return False
        klass = self.parent(expr)
        while klass is not None and not isinstance(klass, cst.ClassDef):
            klass = self.parent(klass)
        if klass is None:
            return False
        values = []
        stack: List[cst.CSTNode] = [klass.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    t = target.target
                    if isinstance(t, cst.Attribute) and t.attr.value == expr.attr.value and isinstance(t.value, cst.Name) and t.value.value == "self":
                        values.append(node.value)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Attribute) and node.target.attr.value == expr.attr.value:
                return False
            stack.extend(children(node))
        return bool(values) and all(predicate(value, depth + 1) for value in values)

    def is_str_seq(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        """Iterating ``expr`` yields strings."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            return bool(expr.elements) and all(
                not isinstance(e, cst.StarredElement) and self.is_str(e.value, depth + 1) for e in expr.elements
            )
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.is_str(expr.elt, depth + 1)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in self.seq_methods:
                return self._splits_text(expr, func, depth)
            name = self.qualname(func)
            if name in self.seq_functions:
                return True
            if name in ("builtins.sorted", "builtins.list", "builtins.tuple", "builtins.reversed", *self.set_makers):
                return bool(expr.args) and self.is_str_seq(expr.args[0].value, depth + 1)
            return self.is_str(expr, depth + 1)  # the characters of a string
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            return self.is_str_seq(expr.left, depth + 1) and self.is_str_seq(expr.right, depth + 1)
        if isinstance(expr, cst.Name):
            return (
                self._name_is(expr, self.is_str_seq, depth)
                or self._name_is(expr, self.is_str, depth)
                or self._name_is(expr, self.is_text_file, depth)
                or self._filled_list(expr, depth)
            )
        if isinstance(expr, cst.Attribute):
            return self._attribute_is(expr, self.is_str_seq, depth)
        return self.is_text_file(expr, depth + 1) or self.is_str(expr, depth + 1)

    def is_text_file(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        """A file opened in text mode: ``open(path)``, or a name bound to one."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            return self.qualname(expr.func) == "builtins.open" and self._text_mode(expr)
        if isinstance(expr, cst.Name):
            return self._name_is(expr, self.is_text_file, depth)
        return False

    def _filled_list(self, name: cst.Name, depth: int) -> bool:
        """``words = []`` and then only ``words.extend(<strs>)`` / ``words.append(<str>)``."""
        index, bindings = self._bindings(name)
        if len(bindings) != 1 or not (isinstance(bindings[0].value, cst.List) and not bindings[0].value.elements):
            return False
        holder = bindings[0].statement
        filled = False
        for load in index.reads_after(name.value, holder):
            attribute = self.parent(load)
            if not isinstance(attribute, cst.Attribute):
                continue
            call = self.parent(attribute)
            if isinstance(call, cst.Call) and call.func is attribute and call.args:
                value = call.args[0].value
                if attribute.attr.value == "append":
                    if not self.is_str(value, depth + 1):
                        return False
                    filled = True
                elif attribute.attr.value == "extend":
                    if not self.is_str_seq(value, depth + 1):
                        return False
                    filled = True
        return filled

    def _splits_text(self, call: cst.Call, func: cst.Attribute, depth: int) -> bool:
        """``s.split()`` / ``s.split(",")`` (``func`` is ``call``'s), not ``tensor.split(2)``."""
        receiver = func.value
        if func.attr.value in ("splitlines", "readlines"):
            return True
        if not call.args:
            return True
        first = call.args[0]
        if first.keyword is None and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            return True
        if first.keyword is not None and first.keyword.value == "sep":
            return True
        return self.is_str(receiver, depth + 1)

    def _text_mode(self, call: cst.Call) -> bool:
        mode = None
        for position, arg in enumerate(call.args):
            if (arg.keyword is not None and arg.keyword.value == "mode") or (arg.keyword is None and position == 1):
                mode = arg.value
        if mode is None:
            return True
        return isinstance(mode, cst.SimpleString) and "b" not in mode.evaluated_value

    # ---- sets -----------------------------------------------------------------------
    def is_str_set(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        """``expr`` is a set (or frozenset) whose elements are strings."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Set):
            return self.is_str_seq(expr, depth + 1)
        if isinstance(expr, cst.SetComp):
            return self.is_str(expr.elt, depth + 1)
        if isinstance(expr, cst.Call):
            func = expr.func
            if self.qualname(func) in self.set_makers:
                if not expr.args:
                    return self._filled_with_strings(expr)
                return expr.args[0].keyword is None and not expr.args[0].star and self.is_str_seq(expr.args[0].value, depth + 1)
            if isinstance(func, cst.Attribute) and func.attr.value in self.set_methods:
                return self.is_str_set(func.value, depth + 1)
            return False
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _SET_OPERATORS):
            return self.is_str_set(expr.left, depth + 1) or self.is_str_set(expr.right, depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_is(expr, self.is_str_set, depth)
        return False

    def _filled_with_strings(self, empty: cst.Call) -> bool:
        """``s = set()`` and then ``s.add(<str>)`` / ``s.update(<strs>)`` / ``s |= {...}``."""
        holder = self.parent(empty)
        if not (isinstance(holder, cst.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Name)):
            return False
        name = holder.targets[0].target.value
        index = self.index_for(holder)
        filled = False
        for load in index.reads_after(name, holder):
            attribute = self.parent(load)
            if not isinstance(attribute, cst.Attribute):
                continue
            call = self.parent(attribute)
            if isinstance(call, cst.Call) and call.func is attribute and call.args:
                value = call.args[0].value
                if attribute.attr.value == "add":
                    if not self.is_str(value, 1):
                        return False
                    filled = True
                elif attribute.attr.value == "update":
                    if not self.is_str_seq(value, 1):
                        return False
                    filled = True
        for binding in index.bindings_of(name):
            if binding.kind == "augassign":
                if binding.value is None or not (self.is_str_set(binding.value, 1) or self.is_str_seq(binding.value, 1)):
                    return False
                filled = True
        return filled


def scope_index_factory(parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> Callable[[cst.CSTNode], ScopeIndex]:
    """``index_for(node)``: the (cached) ``ScopeIndex`` of the scope that reads ``node``."""
    cache: Dict[int, ScopeIndex] = {}

    def index_for(node: cst.CSTNode) -> ScopeIndex:
        scope = enclosing_scope(node, parent)
        found = cache.get(id(scope))
        if found is None:
            found = cache[id(scope)] = ScopeIndex(scope, parent)
        return found

    return index_for
