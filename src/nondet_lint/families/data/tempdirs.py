"""Temporary folders a test makes for itself (ND301 in test code).

A test that lists the folder it just wrote into (``os.listdir(tmp_path)[0]``, the event
file of a ``self.get_temp_dir()``) reads its own output, not a data set; whether that is
test code is decided in pass 2, so this only says whether a listing's folder is one the
program made as a temporary folder.

``Temporaries.folder(expr)`` follows a path expression to where it starts: through
``os.path.join`` / ``str`` / ``Path`` and the ``/`` and ``+`` operators, names and
``self`` attributes bound in the module, the parameters of a helper whose every call in
the module passes a temporary folder, and pytest fixtures.  The answer is a ``Verdict``:
None when some start is not known to be a temporary folder, else the names of the pytest
fixtures that must still turn out temporary in a ``conftest.py`` (empty: known here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set

import libcst as cst

from nondet_lint.analysis.moduleview import call_arg
from nondet_lint.facts import ModuleFact
from nondet_lint.walk import nodes_in
from nondet_lint.families.data.context import DataContext

Verdict = Optional[FrozenSet[str]]
TEMPORARY: FrozenSet[str] = frozenset()
MAX_DEPTH = 8


@dataclass(frozen=True)
class TemporaryFixtures(ModuleFact):
    """The pytest fixtures of a module (a ``conftest.py``) that give a temporary folder:
    the tests below it that list what such a fixture gives read their own output."""

    key = "temporary_fixtures"

    names: FrozenSet[str]

    def to_json(self) -> Dict[str, Any]:
        return {"names": sorted(self.names)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "TemporaryFixtures":
        return cls(frozenset(data.get("names", ())))


def _all(verdicts: Iterable[Verdict]) -> Verdict:
    """Temporary when every part is (a part that is not makes the whole unknown)."""
    needed: Set[str] = set()
    seen = False
    for verdict in verdicts:
        if verdict is None:
            return None
        needed.update(verdict)
        seen = True
    return frozenset(needed) if seen else None


class Temporaries:
    def __init__(self, dctx: DataContext, data: Mapping[str, Sequence[str]], path_types: Iterable[str]) -> None:
        self.dctx = dctx
        self.ctx = dctx.ctx
        self.makers = frozenset(data.get("makers", ()))
        self.methods = frozenset(data.get("methods", ()))
        self.fixtures = frozenset(data.get("fixtures", ()))
        self.flags = frozenset(data.get("flags", ()))
        self.path_calls = frozenset((*data.get("path_calls", ()), *path_types))
        self.path_methods = frozenset(data.get("path_methods", ()))
        self.attributes = frozenset(data.get("attributes", ()))
        self.fixture_decorators = frozenset(data.get("fixture_decorators", ()))
        self._active: Set[int] = set()  # functions and attributes being followed (recursion)

    # ---- a listing's folder ------------------------------------------------------------
    def listed_folder(self, call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
        """The folder (or pattern) a listing reads: a path method's receiver, else the
        first argument (``os.listdir()`` with none lists the working folder)."""
        if name.startswith("pathlib.") and isinstance(call.func, cst.Attribute):
            return call.func.value
        first = call_arg(call, 0, None)
        return first.value if first is not None else None

    def folder(self, expr: cst.BaseExpression, depth: int = 0) -> Verdict:
        """Whether ``expr`` is (a path inside) a temporary folder; see the module doc."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Divide, cst.Add)):
            return self.folder(expr.left, depth + 1)
        if isinstance(expr, cst.FormattedString) and expr.parts and isinstance(expr.parts[0], cst.FormattedStringExpression):
            return self.folder(expr.parts[0].expression, depth + 1)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        return None

    def _call(self, call: cst.Call, depth: int) -> Verdict:
        name = self.dctx.qualname(call.func)
        if name in self.makers:
            return TEMPORARY
        if name in self.path_calls:
            first = call_arg(call, 0, None)
            return self.folder(first.value, depth + 1) if first is not None else None
        func = call.func
        if isinstance(func, cst.Attribute) and name is None:
            if func.attr.value in self.methods and isinstance(func.value, cst.Name) and func.value.value == "self":
                return TEMPORARY  # ``self.get_temp_dir()`` of tf.test / absltest
            if func.attr.value in self.path_methods:
                return self.folder(func.value, depth + 1)  # ``tmp_path.joinpath("x")``, ``factory.mktemp("x")``
        return None

    def _attribute(self, expr: cst.Attribute, depth: int) -> Verdict:
        if self._is_flag(expr):
            return TEMPORARY  # ``FLAGS.test_tmpdir``
        attr = expr.attr.value
        if attr in self.attributes:
            return self.folder(expr.value, depth + 1)  # ``self.create_tempdir().full_path``
        if attr == "name" and self._temporary_object(expr.value):
            return TEMPORARY  # ``tempfile.TemporaryDirectory().name``
        owner = expr.value
        if isinstance(owner, cst.Name) and owner.value == "self":
            return self._self_attribute(expr, depth)
        return None

    def _is_flag(self, expr: cst.Attribute) -> bool:
        """``FLAGS.test_tmpdir``, also through ``FLAGS = flags.FLAGS`` at module level."""
        found = self.dctx.qualname(expr)
        if found in self.flags:
            return True
        owner = expr.value
        if isinstance(owner, cst.Name):
            value = self.dctx.index(self.ctx.module).single_value(owner.value)
            if value is not None and self.dctx.qualname(value) is not None:
                return f"{self.dctx.qualname(value)}.{expr.attr.value}" in self.flags
        return False

    def _temporary_object(self, expr: cst.BaseExpression) -> bool:
        """A ``tempfile.TemporaryDirectory()`` object (made here, or a name bound to one)."""
        if isinstance(expr, cst.Name):
            value = self.dctx.index(expr).single_value(expr.value)
            if value is None or value is expr:
                return False
            expr = value
        return isinstance(expr, cst.Call) and self.dctx.qualname(expr.func) in self.makers

    def _self_attribute(self, expr: cst.Attribute, depth: int) -> Verdict:
        """``self.model_dir``: every ``self.model_dir = ...`` of the class gives a
        temporary folder (``setUp`` sets it from ``self.get_temp_dir()``)."""
        klass = self._enclosing(expr, cst.ClassDef)
        if klass is None or id(expr.attr) in self._active:
            return None
        values: List[cst.BaseExpression] = []
        for node in nodes_in(klass.body, cst.Assign):
            for target in (t.target for t in node.targets):
                if isinstance(target, cst.Attribute) and target.attr.value == expr.attr.value and isinstance(target.value, cst.Name) \
                        and target.value.value == "self" and node.value is not None:
                    values.append(node.value)
        self._active.add(id(expr.attr))
        try:
            return _all(self.folder(value, depth + 1) for value in values)
        finally:
            self._active.discard(id(expr.attr))

    def _name(self, name: cst.Name, depth: int) -> Verdict:
        index = self.dctx.index(name)
        bindings = index.bindings_of(name.value)
        if not bindings:
            bindings = self.dctx.index(self.ctx.module).bindings_of(name.value)
        if not bindings:
            return None
        verdicts: List[Verdict] = []
        for binding in bindings:
            if binding.kind == "param":
                verdicts.append(self._parameter(binding.target, binding.statement, depth))
            elif binding.kind == "with" and binding.value is not None and self._temporary_object(binding.value):
                verdicts.append(TEMPORARY)  # ``with tempfile.TemporaryDirectory() as folder``
            elif binding.kind in ("assign", "walrus", "with") and binding.value is not None:
                verdicts.append(self.folder(binding.value, depth + 1))
            else:
                return None
        return _all(verdicts)

    # ---- parameters: pytest fixtures, or what every caller passes ------------------------
    def _parameter(self, name: cst.CSTNode, function: cst.CSTNode, depth: int) -> Verdict:
        if not isinstance(name, cst.Name) or not isinstance(function, cst.FunctionDef):
            return None
        if name.value in self.fixtures:
            return TEMPORARY  # pytest's ``tmp_path``, ``tmpdir``, ``tmp_path_factory``
        if function.name.value.startswith("test") or self.is_fixture(function):
            local = self._module_fixture(name.value)
            return self.fixture_value(local, depth + 1) if local is not None else frozenset({name.value})
        return self._passed(name.value, function, depth)

    def _passed(self, param: str, function: cst.FunctionDef, depth: int) -> Verdict:
        """What every call of a helper in this module passes for ``param`` (no call, or
        one that passes nothing for it, leaves it unknown)."""
        if id(function) in self._active:
            return None
        params = function.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        position: Optional[int] = names.index(param) if param in names else None
        in_class = isinstance(self.ctx.parent(self.ctx.parent(function) or function), cst.ClassDef)
        if position is not None and in_class and names and names[0] in ("self", "cls"):
            position -= 1
        keyword = param if param not in (p.name.value for p in params.posonly_params) else None
        self._active.add(id(function))
        try:
            verdicts: List[Verdict] = []
            for site in self.dctx.call_sites(function):
                arg = call_arg(site, position, keyword)
                verdicts.append(self.folder(arg.value, depth + 1) if arg is not None else None)
            return _all(verdicts)
        finally:
            self._active.discard(id(function))

    def is_fixture(self, function: cst.FunctionDef) -> bool:
        for decorator in function.decorators:
            target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.dctx.qualname(target) in self.fixture_decorators:
                return True
        return False

    def _module_fixture(self, name: str) -> Optional[cst.FunctionDef]:
        for statement in self.ctx.module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name and self.is_fixture(statement):
                return statement
        return None

    def fixture_value(self, function: cst.FunctionDef, depth: int = 0) -> Verdict:
        """What a fixture gives: every value it returns or yields."""
        if id(function) in self._active or depth > MAX_DEPTH:
            return None
        index = self.dctx.index(function.body.body[0] if function.body.body else function)
        values = [
            node.value for node in index.nodes_within(function.body, (cst.Return, cst.Yield))
            if isinstance(node, (cst.Return, cst.Yield))
        ]
        self._active.add(id(function))
        try:
            return _all(self.folder(value, depth + 1) if isinstance(value, cst.BaseExpression) else None for value in values)
        finally:
            self._active.discard(id(function))

    def _enclosing(self, node: cst.CSTNode, kind: type) -> Any:
        current = self.ctx.parent(node)
        while current is not None and not isinstance(current, kind):
            current = self.ctx.parent(current)
        return current
