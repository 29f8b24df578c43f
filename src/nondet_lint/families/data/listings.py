"""Directory listings: ``os.listdir``, ``glob.glob``, ``Path.glob`` and kin (ND301, ND304).

A function listing is recognised by its qualified name; a ``pathlib`` method by its
receiver being a path: ``Path(...)``, ``Path.cwd()``, ``p / "x"``, ``p.parent``, a
parameter annotated ``Path``, a name bound to one of those, or an element of another
path listing.  ``iterdir`` and ``rglob`` exist only on paths (and path-like objects
whose order is just as arbitrary), so any receiver that is not a module counts.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import libcst as cst

from nondet_lint.families.data.context import DataContext

MAX_DEPTH = 5


class Listings:
    def __init__(self, dctx: DataContext, data: Mapping[str, Sequence[str]]) -> None:
        self.dctx = dctx
        self.functions = frozenset(data.get("functions", ()))
        self.path_methods = frozenset(data.get("path_methods", ()))
        self.path_only_methods = frozenset(data.get("path_only_methods", ()))
        self.path_types = frozenset(data.get("path_types", ()))
        self.path_returning = frozenset(data.get("path_returning_methods", ()))

    def name(self, call: cst.Call) -> Optional[str]:
        """The listing ``call`` makes (``os.listdir``, ``pathlib.Path.glob``), or None."""
        found = self.dctx.qualname(call.func)
        if found in self.functions:
            return found
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in self.path_methods:
            return None
        receiver = func.value
        if found is not None and not found.startswith("pathlib."):
            if self.dctx.qualname(receiver) is not None and self.dctx.qualname(receiver) not in self.path_types:
                return None  # ``somemodule.glob(...)``: not a path method
        if self.is_path(receiver) or (func.attr.value in self.path_only_methods and self.dctx.qualname(receiver) is None):
            return f"pathlib.Path.{func.attr.value}"
        return None

    def is_path(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            func = expr.func
            if self.dctx.qualname(func) in self.path_types:
                return True
            if isinstance(func, cst.Attribute):
                if self.dctx.qualname(func.value) in self.path_types:  # Path.cwd(), Path.home()
                    return True
                if func.attr.value in self.path_returning and self.is_path(func.value, depth + 1):
                    return True
            return False
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
            return self.is_path(expr.left, depth + 1)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("parent", "parents") and self.is_path(expr.value, depth + 1):
                return True
            return False
        if isinstance(expr, cst.Subscript):
            return isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "parents" and self.is_path(expr.value.value, depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_is_path(expr, depth)
        return False

    def _name_is_path(self, name: cst.Name, depth: int) -> bool:
        index = self.dctx.index(name)
        bindings = [b for b in index.bindings_of(name.value) if b.kind != "augassign"]
        if not bindings:
            return False
        for binding in bindings:
            if binding.kind == "param":
                if not self._annotated_path(binding.target):
                    return False
            elif binding.kind in ("for", "comp"):
                loop = binding.statement
                if not isinstance(loop, (cst.For, cst.CompFor)) or binding.target is not loop.target:
                    return False
                iterable = loop.iter
                listed = self.name(iterable) if isinstance(iterable, cst.Call) else None
                if not (listed and listed.startswith("pathlib.")):
                    return False
            elif binding.value is None or not self.is_path(binding.value, depth + 1):
                return False
        return True

    def _annotated_path(self, name: cst.CSTNode) -> bool:
        param = self.dctx.ctx.parent(name)
        annotation = getattr(param, "annotation", None)
        if annotation is None:
            return False
        value = annotation.annotation
        if isinstance(value, (cst.SimpleString,)):
            return value.evaluated_value in ("Path", "pathlib.Path")
        return self.dctx.qualname(value) in self.path_types
