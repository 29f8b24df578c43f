"""Conditions as plain data: argument conditions of the rule data, and guards of seeds.

Two small languages, both evaluated with three values (True, False, None = unknown):

* Argument conditions (``[NDxxx.data]``): ``{arg = {in = [...], not_in = [...], given =
  true, pos = N}}`` tables, values written as Python literal text (TOML has no None).
  They are checked in pass 1, on the call in hand.
* Guards: the condition of an ``if`` around a seed, recorded as nested lists over value
  descriptors (``["o", "seed"]``: the argparse option ``seed``; ``["p", "seed"]``: a
  parameter; ``["g", "SEED"]``: a module constant; ``["k", value]``: a literal).  They are
  evaluated in pass 2, when the defaults of options and parameters are known.
"""

from __future__ import annotations

import ast
import operator
from functools import lru_cache
from typing import Any, Callable, List, Mapping, Optional, Sequence, TypeGuard, Union, overload

import libcst as cst

from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, literal_value

Desc = List[Any]
Cond = List[Any]
Plain = Union[None, bool, int, float, str]  # a literal facts hold as it is


@lru_cache(maxsize=4096)
def _literal(text: str) -> Any:
    return ast.literal_eval(text)


def plain(value: object) -> TypeGuard[Plain]:
    """A literal that facts can hold as it is (JSON: None, bool, int, float, str)."""
    return value is None or isinstance(value, (bool, int, float, str))


def _arg_holds(call: cst.Call, name: str, spec: Mapping[str, Any], defaults: Mapping[str, str],
               qualname: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[bool]:
    node = find_arg(call, name, spec.get("pos"))
    value = literal_value(node, qualname)
    if value is ABSENT:
        value = _literal(defaults[name]) if name in defaults else ABSENT
    if "given" in spec:
        if value is ABSENT or value is None:
            return False
    known = value is not UNKNOWN and value is not ABSENT
    if "in" in spec:
        if value is ABSENT:
            return False
        if not known:
            return None
        if not any(_same(value, _literal(v)) for v in spec["in"]):
            return False
    if "not_in" in spec:
        if value is ABSENT:
            return False
        if not known:
            return None
        if any(_same(value, _literal(v)) for v in spec["not_in"]):
            return False
    return True


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def arguments_hold(call: cst.Call, table: Mapping[str, Any], defaults: Mapping[str, str],
                   qualname: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[bool]:
    """Whether every argument condition of one ``{arg = {...}}`` table holds for ``call``."""
    result: Optional[bool] = True
    for name, spec in table.items():
        holds = _arg_holds(call, name, spec, defaults, qualname)
        if holds is False:
            return False
        if holds is None:
            result = None
    return result


def any_holds(call: cst.Call, alternatives: Sequence[Mapping[str, Any]], defaults: Mapping[str, str],
              qualname: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[bool]:
    """Whether one of the alternatives holds (None when none is false for sure)."""
    result: Optional[bool] = False
    for table in alternatives:
        holds = arguments_hold(call, table, defaults, qualname)
        if holds:
            return True
        if holds is None:
            result = None
    return result


# ---- guards -------------------------------------------------------------------------

_COMPARE = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.Is: "is", cst.IsNot: "is not",
}
_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "is": "is", "is not": "is not"}
_OPS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
}


def parse_guard(test: cst.BaseExpression, describe: Callable[[cst.BaseExpression], Optional[Desc]]) -> Optional[Cond]:
    """A guard condition over value descriptors, or None when it says nothing we can use."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = parse_guard(test.expression, describe)
        return ["not", inner] if inner is not None else None
    if isinstance(test, cst.BooleanOperation):
        left = parse_guard(test.left, describe)
        right = parse_guard(test.right, describe)
        kind = "and" if isinstance(test.operator, cst.And) else "or"
        if left is None and right is None:
            return None
        return [kind, left, right]
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        op = _COMPARE.get(type(target.operator))
        if op is None:
            return None
        left, right = describe(test.left), describe(target.comparator)
        if left is None or right is None:
            return None
        if left[0] == "k" and right[0] != "k":
            left, right, op = right, left, _FLIP[op]
        if right[0] != "k":
            return None
        return ["cmp", op, left, right[1]]
    if isinstance(test, cst.Call):
        return None
    value = describe(test)
    if value is None or value[0] == "k":
        return None
    return ["truthy", value]


def evaluate(cond: Optional[Cond], lookup: Callable[[Desc], Any]) -> Optional[bool]:
    """The guard's value given ``lookup(desc)`` (a value, or ``UNKNOWN``); None if unknown."""
    if cond is None:
        return None
    kind = cond[0]
    if kind == "not":
        inner = evaluate(cond[1], lookup)
        return None if inner is None else not inner
    if kind in ("and", "or"):
        left, right = evaluate(cond[1], lookup), evaluate(cond[2], lookup)
        if kind == "and":
            if left is False or right is False:
                return False
            return True if left and right else None
        if left or right:
            return True
        return False if left is False and right is False else None
    if kind == "truthy":
        value = lookup(cond[1])
        return None if value is UNKNOWN else bool(value)
    if kind == "cmp":
        value = lookup(cond[2])
        if value is UNKNOWN:
            return None
        try:
            if cond[1] in ("is", "is not"):
                if not (cond[3] is None or isinstance(cond[3], bool)):
                    return None
                return bool((value is cond[3]) == (cond[1] == "is"))
            return bool(_OPS[cond[1]](value, cond[3]))
        except TypeError:  # None >= 0: the run would raise; say nothing
            return None
    return None


def described_names(cond: Optional[Cond]) -> List[Desc]:
    """Every value descriptor a guard reads."""
    out: List[Desc] = []
    stack = [cond]
    while stack:
        item = stack.pop()
        if not item:
            continue
        if item[0] in ("not",):
            stack.append(item[1])
        elif item[0] in ("and", "or"):
            stack.extend(item[1:])
        elif item[0] == "truthy":
            out.append(item[1])
        elif item[0] == "cmp":
            out.append(item[2])
    return out


@overload
def negate(cond: Cond) -> Cond: ...


@overload
def negate(cond: None) -> None: ...


def negate(cond: Optional[Cond]) -> Optional[Cond]:
    return ["not", cond] if cond is not None else None
