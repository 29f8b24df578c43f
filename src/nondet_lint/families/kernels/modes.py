"""Training that a mode argument turns off, for ND205's "programs that differentiate".

A model builder that a training and a generating program share often builds its training
step only on a branch of a mode or is-training value: ``if mode == 'train':
optimizer.minimize(loss)`` in ``get_build_graph_fn(mode, config)``, or ``if not
self.is_training: return`` before the optimizer of ``setup_optimizer``.  The generating
program passes a literal that takes the other branch (``get_build_graph_fn('generate',
config)``, ``build_graph(is_training=False)``): its graph has no backward pass.

Pass 1 records, for a training call, the tests between it and the top of its unit that
read a parameter of the unit's function or a field of the method's own object
(``Condition``: the values that take the call's branch), and, per unit, the values its
calls pass and its assignments give (``Passed``).  Pass 2 (``training_runs``) keeps a
gated training call in a program only where, for every condition, a value the program's
code gives could take the branch, or where the code gives none the analysis can read:
a call it does not see and a value computed at run time (``'eval' if FLAGS.eval else
'train'``) keep it.  A value handed on under its own name (``is_training=is_training``,
``self.is_training = is_training``) gives a field nothing: the field holds what the
program's other code gives that name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.callargs import ABSENT, UNKNOWN, literal_value

VARIES = "*"  # a value the code computes: any branch may run
HANDED_ON = "="  # ``f(x=x)``: the caller's own value of that name, which a field's other gives tell
FALSY = ("False", "None", "0", "0.0", "''")  # the reprs of the falsy literals a test sees


@dataclass(frozen=True)
class EstimatorModes:
    """Rule data ``estimator_modes``: the values of ``tf.estimator.ModeKeys``, and the modes in
    which an Estimator's methods (and ``train_and_evaluate``) call the model function."""

    constants: Mapping[str, str]
    methods: Mapping[str, Tuple[str, ...]]
    calls: Mapping[str, Tuple[str, ...]]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "EstimatorModes":
        spec = data.get("estimator_modes", {})
        return cls(dict(spec.get("constants", {})), {k: tuple(v) for k, v in spec.get("methods", {}).items()},
                   {k: tuple(v) for k, v in spec.get("calls", {}).items()})

    def constant(self, node: Optional[cst.BaseExpression]) -> Optional[str]:
        """``'train'`` for ``tf.estimator.ModeKeys.TRAIN`` (however the module spells it)."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, (cst.Attribute, cst.Name)):
            owner = node.value.attr.value if isinstance(node.value, cst.Attribute) else node.value.value
            if owner == "ModeKeys" and node.attr.value in self.constants:
                return self.constants[node.attr.value]
        return None

    def run_by(self, reads: Iterable[str], refs: Iterable[str]) -> Set[str]:
        """The modes the Estimator methods a program calls (``estimator.predict``) run."""
        found = {mode for name in reads for mode in self.methods.get(name, ())}
        found.update(mode for name in refs for mode in self.calls.get(name, ()))
        return found


NO_MODES = EstimatorModes({}, {}, {})
_CONSTANT_NAMES = frozenset({"True", "False", "None"})


def plain(node: Optional[cst.BaseExpression], modes: EstimatorModes = NO_MODES) -> str:
    """The ``repr`` of a plain literal (``'train'``, ``False``, ``0``; an Estimator mode
    constant's value), else ``VARIES``.  (A name other than ``True`` / ``False`` / ``None``
    is the most common argument: no constant, no literal.)"""
    if type(node) is cst.Name and node.value not in _CONSTANT_NAMES:
        return VARIES
    constant = modes.constant(node) if type(node) is cst.Attribute else None
    if constant is not None:
        return repr(constant)
    value = literal_value(node, lambda _: None)
    if value is UNKNOWN or value is ABSENT or not (value is None or isinstance(value, (bool, int, float, str))):
        return VARIES
    return repr(value)


@dataclass(frozen=True)
class Condition:
    """A training call runs only where ``name`` (a parameter of the unit's function, or
    ``self.name`` with ``field``) is one of ``values`` (``member``) or none of them."""

    name: str
    field: bool
    values: Tuple[str, ...]
    member: bool
    position: Optional[int] = None  # a parameter's position in its function's signature
    default: Optional[str] = None  # a parameter's default (``VARIES`` if not a literal; None: none)
    estimator: bool = False  # it compares with an Estimator mode (``tf.estimator.ModeKeys.TRAIN``)

    def admits(self, value: str) -> bool:
        return value == VARIES or (value in self.values) == self.member

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "field": self.field, "values": list(self.values), "member": self.member,
                "position": self.position, "default": self.default, "estimator": self.estimator}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Condition":
        return cls(data["name"], bool(data["field"]), tuple(data["values"]), bool(data["member"]),
                   data.get("position"), data.get("default"), bool(data.get("estimator")))


Gate = Tuple[Condition, ...]  # every condition must hold for the training call to run


@dataclass(frozen=True)
class Passed:
    """What one call passes (``callee``: how the code names it; ``.name`` for a name of the
    module, the qualified name else), as ``(position or keyword, value)``; ``opaque``: it
    also passes ``*args`` / ``**kwargs``.  An assignment ``obj.name = value`` is a Passed
    with no callee and the one keyword ``name``."""

    callee: str
    arguments: Tuple[Tuple[str, str], ...]
    opaque: bool = False

    def value_of(self, condition: Condition) -> str:
        """What this call gives ``condition``'s parameter: the argument at its position or
        under its name, else its default."""
        for key, value in self.arguments:
            if key == condition.name or condition.position is not None and key == str(condition.position):
                return VARIES if value == HANDED_ON else value
        if self.opaque or condition.default is None:
            return VARIES
        return condition.default

    def given(self) -> Iterable[Tuple[str, str]]:
        """The fields this call or assignment gives a value: its keywords, less those that
        hand on the caller's value of the same name."""
        return ((key, value) for key, value in self.arguments if not key.isdigit() and value != HANDED_ON)

    def to_json(self) -> List[Any]:
        return [self.callee, [list(pair) for pair in self.arguments], self.opaque]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "Passed":
        return cls(data[0], tuple((key, value) for key, value in data[1]), bool(data[2]))


# ---------------------------------------------------------------- pass 1 ----
def passed_by_call(node: cst.Call, callee: Optional[str], modes: EstimatorModes = NO_MODES) -> Optional[Passed]:
    """The values a call passes (where it does not name what it calls, ``model.build(
    is_training=True)``, only its keywords: they give fields of that name); a keyword that
    hands on the caller's value of the same name (``is_training=is_training``) is
    ``HANDED_ON``."""
    arguments: List[Tuple[str, str]] = []
    opaque = False
    for position, arg in enumerate(node.args):
        if arg.star:
            opaque = True
        elif arg.keyword is not None:
            handed_on = type(arg.value) is cst.Name and arg.value.value == arg.keyword.value
            arguments.append((arg.keyword.value, HANDED_ON if handed_on else plain(arg.value, modes)))
        elif callee is not None:
            arguments.append((str(position), plain(arg.value, modes)))
    if not arguments and not opaque and callee is None:
        return None
    return Passed(callee or "", tuple(arguments), opaque)


def passed_by_assignment(target: cst.BaseExpression, value: cst.BaseExpression,
                         modes: EstimatorModes = NO_MODES) -> Optional[Passed]:
    """``obj.name = value`` gives the field ``name`` a value (``self.x = x`` hands one on)."""
    if not isinstance(target, cst.Attribute):
        return None
    name = target.attr.value
    handed_on = isinstance(value, cst.Name) and value.value == name
    return None if handed_on else Passed("", ((name, plain(value, modes)),))


def training_gate(ancestors: Sequence[cst.CSTNode], receiver: Optional[str], top_level: bool,
                  modes: EstimatorModes = NO_MODES) -> Optional[Gate]:
    """The conditions on the way from the top of the unit to ``ancestors[-1]`` (a training
    call) that read a parameter of the unit's function (``top_level``: a module's function,
    whose calls pass it) or a field of the method's own object (``receiver``): the branch of
    an ``if`` it is in, and an ``if`` before it in a block around it that returns or raises.
    None where there is no such condition (the call runs whenever its unit does)."""
    unit = next((i for i, n in enumerate(ancestors) if isinstance(n, cst.FunctionDef)), None)
    if unit is None:
        return None
    function = ancestors[unit]
    assert isinstance(function, cst.FunctionDef)
    parameters = _parameters(function)
    shadowed: Set[str] = set()  # the parameters of the functions nested in the unit's
    for node in ancestors[unit + 1:]:
        if isinstance(node, cst.FunctionDef):
            shadowed.update(_parameters(node))
    reads = {name: spec for name, spec in parameters.items() if top_level and name not in shadowed}
    found: List[Condition] = []
    for index in range(unit + 1, len(ancestors) - 1):
        node, inner = ancestors[index], ancestors[index + 1]
        if isinstance(node, cst.If) and (inner is node.body or inner is node.orelse):
            condition = _condition(node.test, inner is node.body, reads, receiver, modes)
            if condition is not None:
                found.append(condition)
        if isinstance(node, cst.IndentedBlock):
            for statement in node.body:
                if statement is inner:
                    break
                if isinstance(statement, cst.If) and statement.orelse is None and _leaves(statement.body):
                    condition = _condition(statement.test, False, reads, receiver, modes)
                    if condition is not None:
                        found.append(condition)
    return tuple(found) or None


def _parameters(function: cst.FunctionDef) -> Dict[str, Tuple[Optional[int], Optional[str]]]:
    """Parameter name -> (position, default as ``plain``; None: no default)."""
    params = function.params
    found: Dict[str, Tuple[Optional[int], Optional[str]]] = {}
    for position, param in enumerate((*params.posonly_params, *params.params)):
        found[param.name.value] = (position, plain(param.default) if param.default is not None else None)
    for param in params.kwonly_params:
        found[param.name.value] = (None, plain(param.default) if param.default is not None else None)
    return found


def _leaves(body: cst.BaseSuite) -> bool:
    """A block that ends by returning or raising."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], (cst.Return, cst.Raise))
    if isinstance(last, cst.SimpleStatementSuite):
        return bool(last.body) and isinstance(last.body[-1], (cst.Return, cst.Raise))
    return False


def _condition(test: cst.BaseExpression, taken: bool, reads: Mapping[str, Tuple[Optional[int], Optional[str]]],
               receiver: Optional[str], modes: EstimatorModes) -> Optional[Condition]:
    """The condition ``test`` (``taken``: true, else false) puts on a parameter or a field:
    ``x == 'train'``, ``x != ...``, ``x in ('train', 'eval')``, ``x not in ...``, ``x``,
    ``not x``; None for any other test."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _condition(test.expression, not taken, reads, receiver, modes)
    values: Optional[Tuple[str, ...]] = None
    member = taken
    estimator = False
    subject: cst.BaseExpression = test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        operator = target.operator
        subject = test.left
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            compared = [target.comparator]
        elif isinstance(operator, (cst.In, cst.NotIn)) and isinstance(target.comparator, (cst.Tuple, cst.List, cst.Set)):
            compared = [element.value for element in target.comparator.elements]
        else:
            return None
        values = tuple(plain(value, modes) for value in compared)
        estimator = any(modes.constant(value) is not None for value in compared)
        if VARIES in values:
            return None
        member = taken == isinstance(operator, (cst.Equal, cst.In))
    else:
        values, member = FALSY, not taken  # ``if x:`` runs its body where ``x`` is no falsy literal
    if isinstance(subject, cst.Name) and subject.value in reads:
        position, default = reads[subject.value]
        return Condition(subject.value, False, values, member, position, default, estimator)
    if (receiver is not None and isinstance(subject, cst.Attribute) and isinstance(subject.value, cst.Name)
            and subject.value.value == receiver):
        return Condition(subject.attr.value, True, values, member, estimator=estimator)
    return None


# ---------------------------------------------------------------- pass 2 ----
@dataclass
class ProgramValues:
    """What the code of one program gives: per field name, the values assigned or passed
    under that keyword to any call (``**kwargs`` hands on what the caller was given); per
    unit the analysis resolves a call to, the calls; and the modes the Estimator methods it
    calls run its model functions in (None: it calls none)."""

    fields: Dict[str, Set[str]]
    calls: Dict[Tuple[str, str], List[Passed]]
    estimator_modes: Optional[Set[str]] = None

    @classmethod
    def collect(cls, passed: Iterable[Tuple[Tuple[str, str], Passed]], estimator_modes: Set[str]) -> "ProgramValues":
        """``passed``: (the callee's unit key, or ``("", "")`` where none, what it passed)."""
        fields: Dict[str, Set[str]] = {}
        calls: Dict[Tuple[str, str], List[Passed]] = {}
        for key, item in passed:
            for name, value in item.given():
                fields.setdefault(name, set()).add(value)
            if key[1]:
                calls.setdefault(key, []).append(item)
        return cls(fields, calls, estimator_modes or None)

    def admits(self, unit: Tuple[str, str], condition: Condition) -> bool:
        """Whether some value the program gives could meet ``condition`` (or none is known)."""
        if condition.field:
            given = self.fields.get(condition.name, set()) or {VARIES}
        else:
            given = {call.value_of(condition) for call in self.calls.get(unit, [])} or {VARIES}
        return any(self._admits(condition, value) for value in given)

    def _admits(self, condition: Condition, value: str) -> bool:
        """A computed value compared with Estimator modes is the mode the Estimator passes:
        one of those the program's Estimator calls run, where it makes any."""
        if value == VARIES and condition.estimator and self.estimator_modes is not None:
            return any(condition.admits(repr(mode)) for mode in self.estimator_modes)
        return condition.admits(value)


def training_runs(unit: Tuple[str, str], gates: Iterable[Gate], values: ProgramValues) -> bool:
    """Whether one of a unit's gated training calls can run in a program that gives
    ``values``: each of its conditions admits some value."""
    return any(all(values.admits(unit, condition) for condition in gate) for gate in gates)


def gates_to_json(gates: Iterable[Gate]) -> List[List[Dict[str, Any]]]:
    return [[condition.to_json() for condition in gate] for gate in gates]


def gates_from_json(data: Iterable[Iterable[Mapping[str, Any]]]) -> Tuple[Gate, ...]:
    return tuple(tuple(Condition.from_json(item) for item in gate) for gate in data)


def sorted_gates(gates: Iterable[Gate]) -> Tuple[Gate, ...]:
    return tuple(sorted(set(gates), key=repr))


def sorted_passed(passed: Iterable[Passed]) -> Tuple[Passed, ...]:
    return tuple(sorted(set(passed), key=repr))

