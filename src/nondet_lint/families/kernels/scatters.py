"""Scatter-adds whose result cannot vary run to run (ND203, ND208).

A GPU scatter-add varies only when two updates meet at one element and their float sum
depends on the order the atomics land in.  Two kinds of calls cannot vary, and the code
shows which:

- an integer accumulator: integer addition is exact and associative, so the sum is the
  same in any order (``counts = jnp.zeros(n, jnp.int32)`` then ``counts.at[ids].add(1)``;
  ``torch.zeros(n, dtype=torch.long).scatter_add_(0, idx, ones)``).  The accumulator's
  dtype decides: JAX casts the values into it, torch requires them to have it.
- a basic index (``grid.at[0:4, x:x + 4].add(piece)``): when every index component is a
  slice, ``...``, ``None`` or a Python integer, every element is updated at most once.

Both follow a name to what the enclosing function (or the scopes around it) binds it to,
with ``dataflow.ScopeIndex``: every binding of the name must show it, so a parameter, a
loop variable over anything but ``range``, or one branch that binds an unknown value keeps
the finding.  Which constructors, casts and dtypes count is rule data
(``[NDxxx.data.integer_arrays]``, ``[ND208.data.basic_index]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import Binding, ScopeBindings
from nondet_lint.callargs import find_arg, literal_value

QualName = Callable[[cst.BaseExpression], Optional[str]]
_MAX_DEPTH = 8
# Python operators whose result is an integer when both sides are
_INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift, cst.RightShift)
_INTEGER_AUGMENTED = (
    cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign,
    cst.LeftShiftAssign, cst.RightShiftAssign,
)


@dataclass(frozen=True)
class IntegerArrays:
    """How a rule's framework spells an integer array (``[NDxxx.data.integer_arrays]``):
    its integer dtypes (the last part of the spelling: ``jnp.int32``, ``torch.long``,
    ``"int64"``, ``int``), the calls that always make one, the constructors that take a dtype (at ``dtype=`` or a
    position; ``like``: without one, the dtype of that argument), the casts
    (``.astype(dtype)``, ``.to(dtype)``), the methods that make an integer array
    (``.long()``), those whose result keeps the receiver's dtype (``.cuda()``,
    ``.at[].add``), those that make one like their receiver (``x.new_zeros(n)``), and
    what marks a cast's argument as a device (``.to(device)`` keeps the dtype, and
    ``.to(device, dtype)`` takes the dtype after it)."""

    dtypes: FrozenSet[str]
    calls: FrozenSet[str]  # calls whose result is always an integer array (``torch.LongTensor(...)``)
    constructors: Mapping[str, Tuple[Optional[int], Optional[int]]]  # name -> (dtype position, ``like`` position)
    casts: Mapping[str, int]  # method -> the position of its dtype
    methods: FrozenSet[str]
    keep: FrozenSet[str]
    like_methods: FrozenSet[str]
    device_strings: FrozenSet[str]
    device_words: FrozenSet[str]
    device_calls: FrozenSet[str]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "IntegerArrays":
        return cls(
            frozenset(data.get("dtypes", ())),
            frozenset(data.get("calls", ())),
            {name: (entry.get("pos"), entry.get("like")) for entry in data.get("constructors", ()) for name in entry["names"]},
            {method: entry["pos"] for entry in data.get("casts", ()) for method in entry["methods"]},
            frozenset(data.get("methods", ())),
            frozenset(data.get("keep", ())),
            frozenset(data.get("like_methods", ())),
            frozenset(data.get("device_strings", ())),
            frozenset(data.get("device_words", ())),
            frozenset(data.get("device_calls", ())),
        )


@dataclass(frozen=True)
class BasicIndex:
    """What makes a Python integer in an index (``[ND208.data.basic_index]``): calls that
    return one (``int(...)``, ``len(...)``) and the iterables whose loop variable is one
    (``for i in range(n)``)."""

    scalar_calls: FrozenSet[str]
    counters: FrozenSet[str]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "BasicIndex":
        return cls(frozenset(data.get("scalar_calls", ())), frozenset(data.get("counters", ())))


def at_receiver(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``x.at[...]`` (the subscript), else None."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "at":
        return node.value.value
    return None


class ScatterFacts:
    """Answers, for the node being walked, whether an accumulator is an integer array
    and whether an index is basic."""

    def __init__(self, qualname: QualName, bindings: ScopeBindings, ancestors: Callable[[], Sequence[cst.CSTNode]]) -> None:
        self.qualname = qualname
        self.bindings = bindings
        self.ancestors = ancestors

    def _all_bindings(self, name: cst.Name, judge: Callable[[Binding], bool], seen: FrozenSet[str]) -> bool:
        if name.value in seen:
            return True  # ``counts = counts.at[i].add(1)``: its other bindings decide
        found = self.bindings.of(name.value, self.ancestors())
        return found is not None and all(judge(binding) for binding in found)

    # ---- integer accumulators -------------------------------------------------------
    def integer_array(self, node: Optional[cst.BaseExpression], types: IntegerArrays, depth: int = 0,
                      seen: FrozenSet[str] = frozenset()) -> bool:
        """Whether ``node`` evidently holds an integer array."""
        if node is None or depth > _MAX_DEPTH:
            return False
        if isinstance(node, cst.Name):
            def judge(binding: Binding) -> bool:
                return binding.kind in ("assign", "walrus") and self.integer_array(binding.value, types, depth + 1, seen | {node.value})
            return self._all_bindings(node, judge, seen)
        if not isinstance(node, cst.Call):
            return False
        name = self.qualname(node.func)
        if name in types.calls:
            return True
        if name is not None and name in types.constructors:
            pos, like = types.constructors[name]
            dtype = find_arg(node, "dtype", pos)
            if dtype is not None:
                return self._integer_dtype(dtype, types)
            return like is not None and self.integer_array(find_arg(node, None, like), types, depth + 1, seen)
        if name is not None or not isinstance(node.func, cst.Attribute):
            return False
        method = node.func.attr.value
        receiver = node.func.value
        inner = at_receiver(receiver)
        if inner is not None:  # ``x.at[i].add(v)`` has the dtype of ``x``
            return f".at[].{method}" in types.keep and self.integer_array(inner, types, depth + 1, seen)
        if method in types.methods:
            return True
        if method in types.casts:
            pos = types.casts[method]
            dtype = find_arg(node, "dtype", pos)
            if dtype is not None and self._device(dtype, types):  # ``.to(device, torch.float)``
                dtype = find_arg(node, None, pos + 1)
            if dtype is not None:
                return self._integer_dtype(dtype, types)
            return self.integer_array(receiver, types, depth + 1, seen)
        if method in types.like_methods:
            dtype = find_arg(node, "dtype", None)
            return self._integer_dtype(dtype, types) if dtype is not None else self.integer_array(receiver, types, depth + 1, seen)
        return method in types.keep and self.integer_array(receiver, types, depth + 1, seen)

    def _integer_dtype(self, node: cst.BaseExpression, types: IntegerArrays) -> bool:
        spelled = literal_value(node, self.qualname)
        if not isinstance(spelled, str):
            spelled = self.qualname(node) or ""
        return spelled.rsplit(".", 1)[-1] in types.dtypes

    def _device(self, node: cst.BaseExpression, types: IntegerArrays) -> bool:
        """A cast's argument that is a device, not a dtype: ``"cuda:0"``, ``torch.device(...)``,
        a name spelled as one (``device``, ``self.device``)."""
        if isinstance(node, cst.SimpleString):
            spelled = literal_value(node, self.qualname)
            return isinstance(spelled, str) and spelled.split(":", 1)[0] in types.device_strings
        if isinstance(node, cst.Call):
            return self.qualname(node.func) in types.device_calls
        identifier = node.value if isinstance(node, cst.Name) else node.attr.value if isinstance(node, cst.Attribute) else ""
        return any(word in identifier.lower() for word in types.device_words)

    # ---- basic indices --------------------------------------------------------------
    def basic_index(self, subscript: cst.Subscript, basic: BasicIndex) -> bool:
        """Whether every component of ``x.at[...]``'s index is a slice, ``...``, ``None``
        or a Python integer: each element is then updated at most once."""
        for element in subscript.slice:
            part = element.slice
            if not isinstance(part, cst.Index):
                continue  # a slice
            value = part.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if not self.python_integer(value, basic):
                return False
        return True

    def python_integer(self, node: Optional[cst.BaseExpression], basic: BasicIndex, depth: int = 0,
                       seen: FrozenSet[str] = frozenset()) -> bool:
        """A literal, an arithmetic of them, ``int(...)``, or a name every binding of which
        is one (or a ``range`` loop's counter): never an array."""
        if node is None or depth > _MAX_DEPTH:
            return False
        if isinstance(node, cst.Integer):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self.python_integer(node.expression, basic, depth + 1, seen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INTEGER_OPERATORS):
            return self.python_integer(node.left, basic, depth + 1, seen) and self.python_integer(node.right, basic, depth + 1, seen)
        if isinstance(node, cst.Call):
            return self.qualname(node.func) in basic.scalar_calls
        if isinstance(node, cst.Name):
            def judge(binding: Binding) -> bool:
                if binding.kind == "for":
                    loop = binding.statement
                    return (
                        isinstance(loop, cst.For) and loop.target is binding.target and isinstance(loop.iter, cst.Call)
                        and self.qualname(loop.iter.func) in basic.counters
                    )
                if binding.kind == "augassign":  # ``i += 1``: the name's other bindings decide its start
                    statement = binding.statement
                    if not (isinstance(statement, cst.AugAssign) and isinstance(statement.operator, _INTEGER_AUGMENTED)):
                        return False
                return binding.kind in ("assign", "walrus", "augassign") and self.python_integer(binding.value, basic, depth + 1, seen | {node.value})
            return self._all_bindings(node, judge, seen)
        return False


# ---- 0/1 values -----------------------------------------------------------------------
@dataclass(frozen=True)
class FlagValues:
    """How JAX code spells an array of 0s and 1s (``[ND208.data.flag_values]``): the ops
    whose sum starts at zero and adds only the values given (``segment_sum``), the calls
    that cast a boolean to an array (``jnp.array(b, dtype)``) or select between two
    literals (``jnp.where(c, 1.0, 0.0)``), the casts (``b.astype(dtype)``), the dtypes
    whose sum of ones is exact (a float32 count is exact below 2**24; a bfloat16 one is
    not above 256), the calls and methods that only rearrange elements (``jnp.tile``,
    ``.reshape``), the calls that make a boolean array, and the decorators that keep a
    function's values (``jax.vmap``)."""

    sums: FrozenSet[str]
    casts: Mapping[str, int]  # call -> the position of its dtype
    cast_methods: Mapping[str, int]
    selects: FrozenSet[str]
    exact_dtypes: FrozenSet[str]
    rearranging: FrozenSet[str]
    rearranging_methods: FrozenSet[str]
    boolean_calls: FrozenSet[str]
    keeping_decorators: FrozenSet[str]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "FlagValues":
        return cls(
            frozenset(data.get("sums", ())),
            {name: entry["pos"] for entry in data.get("casts", ()) for name in entry["names"]},
            {method: entry["pos"] for entry in data.get("cast_methods", ()) for method in entry["methods"]},
            frozenset(data.get("selects", ())),
            frozenset(data.get("exact_dtypes", ())),
            frozenset(data.get("rearranging", ())),
            frozenset(data.get("rearranging_methods", ())),
            frozenset(data.get("boolean_calls", ())),
            frozenset(data.get("keeping_decorators", ())),
        )


_BOOLEAN_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor, cst.Multiply)


class FlagFacts:
    """Whether an array evidently holds only 0s and 1s: a boolean cast to an exact dtype,
    or a select between the literals 0 and 1, through rearranging ops, names every
    binding of which is one, and the return values of a function of the file a name is
    unpacked from (``p, hit = impulse(c)`` with ``return f, jnp.array(hit, jnp.float32)``).
    Their sum is a count, exact in any order.  A name is judged in the scope it is read
    from, so the walk's ancestors or those of a function's ``return`` are handed on."""

    def __init__(self, qualname: QualName, bindings: ScopeBindings, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 values: FlagValues) -> None:
        self.qualname = qualname
        self.bindings = bindings
        self.parent = parent
        self.values = values

    def _ancestors(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        found: List[cst.CSTNode] = []
        current = self.parent(node)
        while current is not None:
            found.append(current)
            current = self.parent(current)
        return found[::-1]

    def _names_all(self, name: cst.Name, scope: Sequence[cst.CSTNode], judge: Callable[[Binding], bool]) -> bool:
        found = self.bindings.of(name.value, scope)
        return found is not None and bool(found) and all(judge(binding) for binding in found)

    def flags(self, node: Optional[cst.BaseExpression], scope: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        """Whether ``node``, read where ``scope`` are the ancestors, holds only 0s and 1s."""
        if node is None or depth > _MAX_DEPTH:
            return False
        values = self.values
        if isinstance(node, cst.Name):
            def judge(binding: Binding) -> bool:
                if binding.kind not in ("assign", "walrus"):
                    return False
                if binding.value is not None:
                    return self.flags(binding.value, scope, depth + 1)
                return self._unpacked_return(binding, scope, depth + 1)
            return self._names_all(node, scope, judge)
        if not isinstance(node, cst.Call):
            return False
        name = self.qualname(node.func)
        if name is not None and name in values.casts:
            dtype = find_arg(node, "dtype", values.casts[name])
            return self.boolean(find_arg(node, None, 0), scope, depth + 1) and (dtype is None or self._exact(dtype))
        if name in values.selects:
            return all(literal_value(find_arg(node, None, pos), self.qualname) in (0, 1) for pos in (1, 2))
        if name in values.rearranging:
            return self.flags(find_arg(node, None, 0), scope, depth + 1)
        if name is not None or not isinstance(node.func, cst.Attribute):
            return False
        method = node.func.attr.value
        if method in values.cast_methods:
            dtype = find_arg(node, "dtype", values.cast_methods[method])
            return dtype is not None and self._exact(dtype) and self.boolean(node.func.value, scope, depth + 1)
        return method in values.rearranging_methods and self.flags(node.func.value, scope, depth + 1)

    def boolean(self, node: Optional[cst.BaseExpression], scope: Sequence[cst.CSTNode], depth: int = 0) -> bool:
        """A comparison, ``&`` / ``|`` / ``^`` / ``*`` / ``~`` of booleans, a call that
        makes one (``jnp.logical_and``), or a name every binding of which is one."""
        if node is None or depth > _MAX_DEPTH:
            return False
        if isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _BOOLEAN_OPERATORS):
            return self.boolean(node.left, scope, depth + 1) and self.boolean(node.right, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self.boolean(node.expression, scope, depth + 1)
        if isinstance(node, cst.Call):
            return self.qualname(node.func) in self.values.boolean_calls
        if isinstance(node, cst.Name):
            return self._names_all(node, scope, lambda binding: binding.kind in ("assign", "walrus") and self.boolean(binding.value, scope, depth + 1))
        return False

    def _exact(self, dtype: cst.BaseExpression) -> bool:
        spelled = literal_value(dtype, self.qualname)
        if not isinstance(spelled, str):
            spelled = self.qualname(dtype) or ""
        return spelled.rsplit(".", 1)[-1] in self.values.exact_dtypes

    def _unpacked_return(self, binding: Binding, scope: Sequence[cst.CSTNode], depth: int) -> bool:
        """``p, hit = impulse(...)``: element ``i`` of every ``return`` of the function of
        the file the call runs (a ``def`` of that name, with no decorator that may change
        its values) is 0/1."""
        statement = binding.statement
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1 and isinstance(statement.value, cst.Call)):
            return False
        target = statement.targets[0].target
        if not isinstance(target, cst.Tuple):
            return False
        index = next((i for i, element in enumerate(target.elements) if element.value is binding.target), None)
        func = statement.value.func
        if index is None or not isinstance(func, cst.Name):
            return False
        defs = self.bindings.of(func.value, scope)
        if not defs or len(defs) != 1 or not isinstance(defs[0].statement, cst.FunctionDef):
            return False
        function = defs[0].statement
        if any(self.qualname(decorator.decorator) not in self.values.keeping_decorators for decorator in function.decorators):
            return False
        inner = [*self._ancestors(function), function]
        returns = _returns(function)
        return bool(returns) and all(
            isinstance(ret.value, cst.Tuple) and len(ret.value.elements) > index
            and not isinstance(ret.value.elements[index], cst.StarredElement)
            and self.flags(ret.value.elements[index].value, inner, depth + 1)
            for ret in returns
        )


def _returns(function: cst.FunctionDef) -> List[cst.Return]:
    """The ``return`` statements of a function, not of the functions inside it; none for
    a generator (a call gives the generator, not what it returns)."""
    found: List[cst.Return] = []
    stack: List[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Yield):
            return []
        if isinstance(node, cst.Return):
            found.append(node)
        elif not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            stack.extend(node.children)
    return found
