"""Conditions: argument conditions of the rule data, and guards of seeds.

Two small languages, both evaluated with three values (True, False, None = unknown):

* Argument conditions (``[NDxxx.data]``): ``{arg = {in = [...], not_in = [...], given =
  true, type = "float", pos = N}}`` tables, values written as Python literal text (TOML has no None).
  They are checked in pass 1, on the call in hand.
* Guards: the condition of an ``if`` around a seed (``Cond``: ``Not``, ``BoolOp``,
  ``Truthy``, ``Compare``) over the values it reads (``ValueDesc``: an argparse option, a
  parameter, a module constant, a literal, what a project call returns).  They are
  evaluated in pass 2, when the defaults of options and parameters are known.  Their JSON
  form is a list that starts with the kind: ``["cmp", "is", ["o", "seed"], None]``
  (``["o", "seed"]``: the option ``seed``; ``"p"`` a parameter, ``"g"`` a module
  constant, ``"k"`` a literal, ``"r"`` a call's result, ``"t"`` a local bound to a test).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, Callable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, TypeGuard, Union

import libcst as cst

from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, literal_value

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
    if "type" in spec:  # a literal of that Python type (``float``: ``n_components=0.95``)
        if not known:
            return None if value is UNKNOWN else False
        if type(value).__name__ != spec["type"]:
            return False
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
_OPS: Mapping[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
}


class ValueSource(Enum):
    """What a described value is; the value is its name in the JSON form."""

    LITERAL = "k"
    PARAMETER = "p"  # a parameter of the function
    OPTION = "o"  # a command-line option (``args.seed``, ``FLAGS.seed``), or a field of ``owner``
    GLOBAL = "g"  # a module-level name
    RESULT = "r"  # what a call of a project function or class gives (``name``: its target)
    ATTRIBUTE = "a"  # an attribute of a method's own object (``self.seed``), as ``__init__`` set it
    # a parameter bound again in a branch (``if one_per_exp: shuffle = False``), read after
    # it: the branch's value (``args[0][0]``) where ``cond`` holds, else the argument
    CHOICE = "c"
    # an environment variable the default run does not set (``name``): ``literal`` is what
    # reading it gives then (``"CI" in os.environ``: False; ``os.getenv("X", d)``: d)
    ENVIRON = "e"
    # a local bound to a test (``repeat = params.is_training and params.repeat is not None``):
    # whether ``cond`` holds
    TEST = "t"


CallDescs = Tuple[Tuple[Optional["ValueDesc"], ...], Tuple[Tuple[str, Optional["ValueDesc"]], ...]]


class ValueDesc(NamedTuple):
    """A value a guard or a call argument reads: a literal, or a name whose value pass 2
    knows by default (a tuple: a large package has tens of thousands, made fast).

    ``owner``: an OPTION read from a value rather than from the command line
    (``config.type`` with ``config`` a parameter or a local made by a call): when pass 2
    knows that value to be a config object (``EncoderConfig(type=FLAGS.encoder)``), its
    field answers, else the option of that name.  ``args``: a RESULT's call arguments
    (positional, then keyword items); a CHOICE's value in the branch.  ``cond``: a
    CHOICE's branch condition."""

    source: ValueSource
    name: str = ""  # PARAMETER, OPTION, GLOBAL; RESULT: the call's target
    literal: Plain = None  # LITERAL
    owner: Optional["ValueDesc"] = None  # OPTION
    args: CallDescs = ((), ())  # RESULT; CHOICE: ((value in the branch,), ())
    cond: Optional["Cond"] = None  # CHOICE, TEST

    def to_json(self) -> List[Any]:
        source = self.source
        if source is ValueSource.LITERAL:
            return [_CODES[source], self.literal]
        if source is ValueSource.ENVIRON:
            return [_CODES[source], self.name, self.literal]
        if source is ValueSource.RESULT:
            positional, keywords = self.args
            return [_CODES[source], self.name, [_json(d) for d in positional], [[k, _json(d)] for k, d in keywords]]
        if source is ValueSource.CHOICE:
            assert self.cond is not None
            return [_CODES[source], self.name, _json(self.args[0][0]), cond_to_json(self.cond)]
        if source is ValueSource.TEST:
            assert self.cond is not None
            return [_CODES[source], cond_to_json(self.cond)]
        if self.owner is not None:
            return [_CODES[source], self.name, self.owner.to_json()]
        return [_CODES[source], self.name]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "ValueDesc":
        source = _SOURCES[data[0]]
        if source is ValueSource.LITERAL:
            return cls(source, "", data[1])
        if source is ValueSource.ENVIRON:
            return cls(source, data[1], data[2])
        if source is ValueSource.RESULT:
            return cls(source, data[1], args=(tuple(map(_from_json, data[2])), tuple((k, _from_json(d)) for k, d in data[3])))
        if source is ValueSource.CHOICE:
            return cls(source, data[1], args=((_from_json(data[2]),), ()), cond=cond_from_json(data[3]))
        if source is ValueSource.TEST:
            return cls(source, cond=cond_from_json(data[1]))
        if len(data) > 2:
            return cls(source, data[1], owner=cls.from_json(data[2]))
        return cls(source, data[1])


def _json(desc: Optional[ValueDesc]) -> Optional[List[Any]]:
    return desc.to_json() if desc is not None else None


def _from_json(data: Optional[Sequence[Any]]) -> Optional[ValueDesc]:
    return ValueDesc.from_json(data) if data is not None else None


def parameters_read(desc: Optional[ValueDesc]) -> Iterator[str]:
    """The parameters a described value reads, also through owners and call arguments."""
    if desc is None:
        return
    if desc.source is ValueSource.PARAMETER:
        yield desc.name
    elif desc.source is ValueSource.CHOICE:
        yield desc.name
        yield from parameters_read(desc.args[0][0])
        for read in described_names(desc.cond):
            yield from parameters_read(read)
    elif desc.source is ValueSource.TEST:
        for read in described_names(desc.cond):
            yield from parameters_read(read)
    elif desc.owner is not None:
        yield from parameters_read(desc.owner)
    elif desc.source is ValueSource.RESULT:
        positional, keywords = desc.args
        for inner in (*positional, *(d for _, d in keywords)):
            yield from parameters_read(inner)


_SOURCES = {source.value: source for source in ValueSource}
_CODES = {source: source.value for source in ValueSource}


@dataclass(frozen=True, slots=True)
class Not:
    inner: "Cond"


@dataclass(frozen=True, slots=True)
class BoolOp:
    """``and`` / ``or``; a side we cannot read is None (unknown)."""

    op: str  # "and" | "or"
    left: Optional["Cond"]
    right: Optional["Cond"]


@dataclass(frozen=True, slots=True)
class Truthy:
    value: ValueDesc


@dataclass(frozen=True, slots=True)
class Compare:
    """``value <op> literal`` (a literal on the left is moved to the right)."""

    op: str  # a key of ``_OPS``
    value: ValueDesc
    literal: Plain


Cond = Union[Not, BoolOp, Truthy, Compare]


def cond_to_json(cond: Cond) -> List[Any]:
    """The JSON form: ``["not", c]``, ``["and", l, r]``, ``["truthy", v]``, ``["cmp", op, v, literal]``."""
    if isinstance(cond, Not):
        return ["not", cond_to_json(cond.inner)]
    if isinstance(cond, BoolOp):
        return [cond.op, _side_json(cond.left), _side_json(cond.right)]
    if isinstance(cond, Truthy):
        return ["truthy", cond.value.to_json()]
    return ["cmp", cond.op, cond.value.to_json(), cond.literal]


def _side_json(cond: Optional[Cond]) -> Optional[List[Any]]:
    return cond_to_json(cond) if cond is not None else None


def cond_from_json(data: Sequence[Any]) -> Cond:
    kind = data[0]
    if kind == "not":
        return Not(cond_from_json(data[1]))
    if kind == "truthy":
        return Truthy(ValueDesc.from_json(data[1]))
    if kind == "cmp":
        return Compare(data[1], ValueDesc.from_json(data[2]), data[3])
    return BoolOp(kind, _side(data[1]), _side(data[2]))


def _side(data: Optional[Sequence[Any]]) -> Optional[Cond]:
    return cond_from_json(data) if data is not None else None


def parse_guard(test: cst.BaseExpression, describe: Callable[[cst.BaseExpression], Optional[ValueDesc]]) -> Optional[Cond]:
    """A guard condition over described values, or None when it says nothing we can use."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = parse_guard(test.expression, describe)
        return Not(inner) if inner is not None else None
    if isinstance(test, cst.BooleanOperation):
        left = parse_guard(test.left, describe)
        right = parse_guard(test.right, describe)
        kind = "and" if isinstance(test.operator, cst.And) else "or"
        if left is None and right is None:
            return None
        return BoolOp(kind, left, right)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        whole = describe(test)  # ``"CI" in os.environ``
        if whole is not None and whole.source is ValueSource.ENVIRON:
            return Truthy(whole)
        target = test.comparisons[0]
        op = _COMPARE.get(type(target.operator))
        if op is None:
            return None
        first, second = describe(test.left), describe(target.comparator)
        if first is None or second is None:
            return None
        if first.source is ValueSource.LITERAL and second.source is not ValueSource.LITERAL:
            first, second, op = second, first, _FLIP[op]
        if second.source is not ValueSource.LITERAL:
            return None
        return Compare(op, first, second.literal)
    if isinstance(test, cst.Call):
        return None
    value = describe(test)
    if value is None or value.source is ValueSource.LITERAL:
        return None
    return Truthy(value)


def describe_test(node: cst.BaseExpression, describe: Callable[[cst.BaseExpression], Optional[ValueDesc]]) -> Optional[ValueDesc]:
    """A test bound to a local (``is_repeated = params.is_training and params.repeat is not
    None``), as a value that is whether it holds: a comparison, a ``not``, or an ``and`` /
    ``or`` whose last operand is one of those (its truth is the test's, whatever the first
    operand gives); None for anything else."""
    if not _boolean(node):
        return None
    cond = parse_guard(node, describe)
    return ValueDesc(ValueSource.TEST, cond=cond) if cond is not None else None


def _boolean(node: cst.BaseExpression) -> bool:
    # ``type() is``: this runs for most assigned values; none of these classes has subclasses
    if type(node) is cst.Comparison:
        return True
    if type(node) is cst.UnaryOperation:
        return type(node.operator) is cst.Not
    if type(node) is cst.BooleanOperation:
        return _boolean(node.right)
    return False


def evaluate(cond: Optional[Cond], lookup: Callable[[ValueDesc], Any]) -> Optional[bool]:
    """The guard's value given ``lookup(value)`` (a value, or ``UNKNOWN``); None if unknown."""
    if cond is None:
        return None
    if isinstance(cond, Not):
        inner = evaluate(cond.inner, lookup)
        return None if inner is None else not inner
    if isinstance(cond, BoolOp):
        left, right = evaluate(cond.left, lookup), evaluate(cond.right, lookup)
        if cond.op == "and":
            if left is False or right is False:
                return False
            return True if left and right else None
        if left or right:
            return True
        return False if left is False and right is False else None
    if isinstance(cond, Truthy):
        value = lookup(cond.value)
        return None if value is UNKNOWN else bool(value)
    value = lookup(cond.value)
    if value is UNKNOWN:
        return None
    try:
        if cond.op in ("is", "is not"):
            if not (cond.literal is None or isinstance(cond.literal, bool)):
                return None
            return bool((value is cond.literal) == (cond.op == "is"))
        return bool(_OPS[cond.op](value, cond.literal))
    except TypeError:  # None >= 0: the run would raise; say nothing
        return None


def described_names(cond: Optional[Cond]) -> List[ValueDesc]:
    """Every value a guard reads."""
    out: List[ValueDesc] = []
    stack = [cond]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, Not):
            stack.append(item.inner)
        elif isinstance(item, BoolOp):
            stack.extend((item.left, item.right))
        elif item.value.source is ValueSource.TEST:
            stack.append(item.value.cond)  # the values the local's test reads
        else:
            out.append(item.value)
    return out


def negate(cond: Cond) -> Cond:
    return Not(cond)
