"""ND305: a train / validation split decided by Python's ``hash()`` of a str or bytes.

``hash(path) % 10 == 0`` puts a different tenth of the files in the validation set at
every interpreter start: str and bytes hashes are salted per process unless
``PYTHONHASHSEED`` is set before Python starts.  Reported at the comparison (the
decision), when the hashed value is evidently text: string typing (``analysis.texttypes``),
``str(...)``, an f-string, ``.encode()``, or a name whose words say it holds text
(``[ND305.data.hash_split] text_words``: ``path``, ``filename``, ...).  The unsafe fix
hashes with ``zlib.crc32`` instead (``.encode()`` added for text; bytes are hashed as
they are), importing ``zlib`` where needed: stable, but a different split from any
earlier run's.
"""

from __future__ import annotations

import re
from typing import Any, List, Mapping, Optional

import libcst as cst

from nondet_lint.check import Check
from nondet_lint.families.data.context import DataContext
from nondet_lint.context import PendingFix
from nondet_lint.fixes.builders import insert_after_imports, name_for, replace_expression, top_level

CODE = "ND305"


class HashSplit(Check):
    """ND305 for ``hash()`` splits (see the module docstring)."""

    codes = (CODE,)
    decides = ()  # reported on the spot; ND305's deferred candidates are ShuffleThenSlice's

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data: Mapping[str, Any] = self.data(CODE).get("hash_split", {})
        self.hash_function = data.get("hash_function", "builtins.hash")
        self.wrappers = frozenset(data.get("wrappers", ()))
        self.text_words = frozenset(data.get("text_words", ()))
        self.stable = data.get("stable_hash", "zlib.crc32")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for side in (node.left, *(target.comparator for target in node.comparisons)):
            call = self._hash_modulo(side)
            if call is not None:
                self._report(node, call)
                return

    def _hash_modulo(self, expr: cst.BaseExpression) -> Optional[cst.Call]:
        """The ``hash(...)`` call of ``hash(x) % n`` (also ``abs(hash(x)) % n``)."""
        if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo)):
            return None
        left = expr.left
        if isinstance(left, cst.Call) and self.ctx.qualname(left.func) in self.wrappers and len(left.args) == 1:
            left = left.args[0].value
        if isinstance(left, cst.Call) and self.ctx.qualname(left.func) == self.hash_function and len(left.args) == 1:
            if left.args[0].keyword is None and not left.args[0].star:
                return left
        return None

    def _report(self, comparison: cst.Comparison, call: cst.Call) -> None:
        value = call.args[0].value
        kind = self._kind(value)
        if kind is None:
            return
        shown = self.ctx.code_for(comparison)
        shown = shown if len(shown) <= 50 else shown[:47] + "..."
        stable = f"{self.stable}({self._argument(value, kind)})"
        self.ctx.report(
            comparison, CODE, fix=self._fix(call, value, kind),
            what=f"`{shown}` decides the split with Python's `hash()` of a {kind} value",
            why="changes with every interpreter start (str and bytes hashes are salted per process unless `PYTHONHASHSEED` is set before Python starts)",
            advice=f"use a stable hash such as `{stable}`",
        )

    def _kind(self, value: cst.BaseExpression) -> Optional[str]:
        """``"str"`` or ``"bytes"`` when the hashed value evidently is one, else None."""
        if isinstance(value, cst.SimpleString):
            return "bytes" if "b" in value.prefix.lower() else "str"
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            sides = [self._kind(value.left), self._kind(value.right)]
            return "bytes" if "bytes" in sides else "str" if "str" in sides else None
        if isinstance(value, (cst.FormattedString, cst.ConcatenatedString)):
            return "str"
        if isinstance(value, cst.Call):
            if isinstance(value.func, cst.Attribute) and value.func.attr.value == "encode":
                return "bytes"
            if self.ctx.qualname(value.func) == "builtins.str":
                return "str"
        if DataContext.of(self.ctx).text.is_str(value):
            return "str"
        name = value.attr.value if isinstance(value, cst.Attribute) else value.value if isinstance(value, cst.Name) else None
        if name is not None and set(re.split(r"_+", name.lower())) & self.text_words:
            return "str"
        return None

    def _argument(self, value: cst.BaseExpression, kind: str) -> str:
        """What the stable hash is given: bytes as they are, text encoded."""
        code = self.ctx.code_for(value)
        if kind == "bytes":
            return code
        atomic = isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.FormattedString))
        return f"{code}.encode()" if atomic else f"({code}).encode()"

    def _fix(self, call: cst.Call, value: cst.BaseExpression, kind: str) -> Optional[PendingFix]:
        spelled = name_for(self.ctx.module, self.stable, top=top_level(self.ctx))
        if spelled is None:
            return None
        name, import_code = spelled
        edits: List[Any] = [replace_expression(self.ctx, call, f"{name}({self._argument(value, kind)})")]
        if import_code:
            edits = [*insert_after_imports(self.ctx.module, "", [import_code], top_level(self.ctx)), *edits]
        return PendingFix(f"Hash with `{self.stable}` instead of `hash()`", "unsafe", edits)
