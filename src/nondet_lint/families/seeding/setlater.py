"""ND108: an estimator whose ``random_state`` the code sets after building it.

``est = GradientBoostingRegressor(loss="quantile")`` followed by
``est.set_params(random_state=rng)`` gives the estimator the same ``random_state`` as
writing it in the constructor; scikit-learn's constructors only store their arguments,
so nothing was drawn in between.  The value set is judged as the constructor's would be:
anything but a literal ``None`` counts as set (a name is not guessed at).  Followed in one
scope, syntactically: the constructor's value is bound to a name, and the first read of
that value after it (on the path the binding takes, ``reads_after``) is
``name.set_params(random_state=...)`` in a block every path from the binding passes
through (the same block or one around it).  A read before it (a fit, a hand-off), a
conditional ``set_params``, a spread whose keywords are not written out, or a nested
function reading the name keeps the finding.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex, read_in_nested
from nondet_lint.callargs import find_arg, literal_value

SETTER = "set_params"
PARAMETER = "random_state"


class SetLater:
    """Whether a call's value gets its ``random_state`` from a later ``set_params``.

    Asked at the end of a module's walk, when every node's parent is known."""

    def __init__(self, qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 index_for: Callable[[cst.CSTNode], ScopeIndex]) -> None:
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for

    def seeded_later(self, call: cst.Call) -> bool:
        statement = self.parent(call)
        if not isinstance(statement, cst.Assign) or statement.value is not call or len(statement.targets) != 1:
            return False
        target = statement.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        index = self.index_for(call)
        if not isinstance(index.scope, (cst.Module, cst.FunctionDef)) or read_in_nested(index.scope, target.value):
            return False
        reads = sorted(index.reads_after(target.value, statement), key=index.position)
        if not reads:
            return False
        setter = self._setter(reads[0])
        if setter is None:
            return False
        return index.block_holds(setter, statement)

    def _setter(self, read: cst.Name) -> Optional[cst.Call]:
        """The ``read.set_params(random_state=value)`` call around ``read``, ``value`` not
        a literal ``None``; None otherwise."""
        attribute = self.parent(read)
        if not isinstance(attribute, cst.Attribute) or attribute.value is not read or attribute.attr.value != SETTER:
            return None
        call = self.parent(attribute)
        if not isinstance(call, cst.Call) or call.func is not attribute:
            return None
        value = find_arg(call, PARAMETER, None)
        if value is None or literal_value(value, self.qualname) is None:
            return None
        return call
