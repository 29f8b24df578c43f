"""ND108: a random result that only feeds code a test expects to raise.

Inside ``with pytest.raises(ValueError):`` (or ``self.assertRaises``) a test checks that a
call fails; what the call would have computed never reaches an assertion.  An estimator
built there, or data drawn before it whose every read sits in such blocks
(``X, y = make_classification(n_classes=3)`` then ``with pytest.raises(...):
splitter.split(X, y)``), changes nothing the test checks, whatever the draw.  Which
context managers expect an exception is rule data (``[ND108.data] expected_raises``,
``expected_raises_methods``).  Everything is syntactic and stays in one function: a read
anywhere else keeps the finding.
"""

from __future__ import annotations

from typing import Callable, FrozenSet, List, Optional

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


class ExpectedRaises:
    """Whether a call's value only ever feeds blocks that are expected to raise.

    Asked at the end of a module's walk, when every node's parent is known."""

    def __init__(self, managers: FrozenSet[str], methods: FrozenSet[str],
                 qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 index_for: Callable[[cst.CSTNode], ScopeIndex]) -> None:
        self.managers = managers
        self.methods = methods
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for

    def only_feeds_raising_code(self, call: cst.Call) -> bool:
        if not self.managers and not self.methods:
            return False
        if self._inside_expected_raise(call):
            return True
        statement = self.parent(call)
        if not isinstance(statement, cst.Assign) or statement.value is not call:
            return False
        names = [name for target in statement.targets for name in _target_names(target.target)]
        if not names:
            return False
        index = self.index_for(call)
        for name in names:
            if len(index.bindings_of(name)) != 1:
                return False  # rebound: which value a read sees depends on the path
            reads = index.reads_after(name, statement)
            if not reads or not all(self._inside_expected_raise(read) for read in reads):
                return False
        return True

    def _inside_expected_raise(self, node: cst.CSTNode) -> bool:
        current = self.parent(node)
        while current is not None and not isinstance(current, _SCOPES):
            if isinstance(current, cst.With) and any(self._expects_raise(item.item) for item in current.items):
                return True
            current = self.parent(current)
        return False

    def _expects_raise(self, item: cst.BaseExpression) -> bool:
        if not isinstance(item, cst.Call):
            return False
        func = item.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return func.attr.value in self.methods  # ``with self.assertRaises(ValueError):``
        return self.qualname(func) in self.managers


def _target_names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []
