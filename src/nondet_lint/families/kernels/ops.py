"""ND203 / ND204 / ND208: framework ops whose GPU kernels are non-deterministic.

The op tables are rule data (``[[NDxxx.data.ops]]`` in ``rules/kernels.toml``, each entry
citing its source): qualified names and their aliases, tensor-method names, the condition on
arguments (``accumulate=True``, ``mode="max"``, ``weights`` given), the device, whether
only the backward pass is affected, and per version range what the framework does with
it (``kind``):

- ``switch``: deterministic once the framework's determinism switch is on;
- ``raises``: no deterministic implementation; the switch makes it raise;
- ``unfixed``: non-deterministic and no switch helps in that version;
- versions no range covers: deterministic, nothing to report.

``report`` says where an entry is reported: ``call`` (an explicit accumulation such as
``index_add_``), ``program`` (convolutions and implicit backward passes: the missing
switch, ND205, covers them) or ``none`` (a source lists it but its condition cannot
be seen statically; kept so the data stays complete).  Every match is recorded in the
module's ``KernelOps`` facts, whatever its report.

Pass 1 matches calls and defers the ``call`` entries; pass 2 decides with the project's
facts: is it a GPU program, the target version, the switches of the programs the module
runs in, and, for backward-only entries, whether those programs differentiate.

Tensor methods (``x.index_add_(...)``) have receivers no import resolves.  They match by
method name unless the receiver is known to be something else (a name bound from NumPy,
pandas, ...).  Names that other libraries also use (``gather``, ``scatter``, ``put``,
``cumsum``, ``median``: entries marked ``generic``) match only in files that import the
framework, and need the argument count the framework's signature requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import AbstractSet, Any, Callable, ClassVar, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from nondet_lint.analysis.entrypoints import is_main_guard
from nondet_lint.analysis.fieldsettings import attribute_gate, optional_attributes
from nondet_lint.versions import Version, in_range
from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, has_star_args, literal_value
from nondet_lint.check import Check
from nondet_lint.analysis.dataflow import ScopeBindings, ScopeIndex
from nondet_lint.analysis.switches import QualName
from nondet_lint.context import FileContext
from nondet_lint.facts import ModuleFact
from nondet_lint.families.kernels import pipeline
from nondet_lint.families.kernels.cpuside import CpuSide, CpuSideCollector, carries_no_gradient
from nondet_lint.families.kernels.gpu import GpuModuleFacts, ProgramView, canonical, program_view, unit_of
from nondet_lint.families.kernels.callers import (
    Gate, GivenArguments, GivenArgumentsCounter, gate_never_opened, parameter_gate, used_name,
)
from nondet_lint.families.kernels.gradientfree import (
    Argument, GradientFreeArgumentsCounter, GradientFreeUseCounter, GradientFreeUses, NameUses,
    argument_without_gradient, layer_used_only_without_gradient, used_only_without_gradient,
)
from nondet_lint.families.kernels.reach import MODULE_UNIT
from nondet_lint.families.kernels.scatters import BasicIndex, FlagFacts, FlagValues, IntegerArrays, ScatterFacts, at_receiver
from nondet_lint.names import dotted_name
from nondet_lint.types import Deferred, Finding
from nondet_lint.walk import visit_tree
from nondet_lint.ruledata import RuleSet

KIND_PRIORITY = {"raises": 0, "unfixed": 1, "switch": 2}


@dataclass(frozen=True)
class KernelOps(ModuleFact):
    """The ops of the rule tables a module calls, by rule code (op ids, sorted): ND205
    names the ones that would raise with the switch on in the program that runs them."""

    key = "kernel_ops"

    by_code: Mapping[str, Tuple[str, ...]]
    # rule code -> op id -> the units (``unit_of``) that call it: an op counts for the
    # programs that run one of them (ND205 asks whether a training program runs an op
    # the switch changes)
    units: Mapping[str, Mapping[str, Tuple[str, ...]]] = field(default_factory=dict)
    # calls under ``if self.x is not None:``: rule code -> op id -> [(unit, the attributes
    # the branches require set)]; they count only where the program gives those a value
    gated: Mapping[str, Mapping[str, Tuple[Tuple[str, Tuple[str, ...]], ...]]] = field(default_factory=dict)
    # layers a method makes and binds to an attribute of its instance (``self.bag =
    # nn.EmbeddingBag(...)``): rule code -> op id -> [(unit, the attribute)]; they count only
    # where the program's code applies that attribute (``ProgramView.names_applied``)
    applied: Mapping[str, Mapping[str, Tuple[Tuple[str, str], ...]]] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "by_code": {code: list(ops) for code, ops in self.by_code.items()},
            "units": {code: {op: list(units) for op, units in ops.items()} for code, ops in self.units.items()},
        }
        if self.gated:
            out["gated"] = {code: {op: [[unit, list(gate)] for unit, gate in where] for op, where in ops.items()}
                            for code, ops in self.gated.items()}
        if self.applied:
            out["applied"] = {code: {op: [list(pair) for pair in where] for op, where in ops.items()}
                              for code, ops in self.applied.items()}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "KernelOps":
        return cls(
            {code: tuple(ops) for code, ops in data.get("by_code", {}).items()},
            {code: {op: tuple(units) for op, units in ops.items()} for code, ops in data.get("units", {}).items()},
            {code: {op: tuple((unit, tuple(gate)) for unit, gate in where) for op, where in ops.items()}
             for code, ops in data.get("gated", {}).items()},
            {code: {op: tuple((str(unit), str(name)) for unit, name in where) for op, where in ops.items()}
             for code, ops in data.get("applied", {}).items()},
        )

    def ops_in(
        self, code: str, units: Iterable[str], given: Optional[AbstractSet[str]] = None,
        applied: Optional[AbstractSet[str]] = None,
    ) -> List[str]:
        """The op ids of ``code``'s table called in one of ``units``; with ``given`` (the
        names the program's code sets), also those under a gate whose attributes it sets;
        a layer bound to an attribute, where ``applied`` (the attribute names the program's
        code applies; None: any) has that attribute."""
        wanted = frozenset(units)
        found = {op for op, where in self.units.get(code, {}).items() if wanted.intersection(where)}
        for op, gated in self.gated.get(code, {}).items():
            if any(unit in wanted and (given is None or all(name in given for name in gate)) for unit, gate in gated):
                found.add(op)
        for op, bound in self.applied.get(code, {}).items():
            if any(unit in wanted and (applied is None or name in applied) for unit, name in bound):
                found.add(op)
        return sorted(found)


# ---------------------------------------------------------------- the tables ----------
class OpTable:
    """A rule's ``ops`` entries indexed by qualified name and by method name."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.aliases: Mapping[str, str] = data.get("namespace_aliases", {})
        self.by_id: Dict[str, Mapping[str, Any]] = {}
        self.by_name: Dict[str, List[Mapping[str, Any]]] = {}
        self.by_method: Dict[str, List[Tuple[Mapping[str, Any], bool]]] = {}  # (entry, generic)
        for entry in data.get("ops", []):
            self.by_id[entry["id"]] = entry
            for name in entry.get("names", []):
                self.by_name.setdefault(canonical(name, self.aliases), []).append(entry)
            for method in entry.get("methods", []):
                self.by_method.setdefault(method, []).append((entry, False))
            for method in entry.get("generic_methods", []):
                self.by_method.setdefault(method, []).append((entry, True))


_TABLES: Dict[int, Tuple[Mapping[str, Any], OpTable]] = {}


def op_table(data: Mapping[str, Any]) -> OpTable:
    """The ``OpTable`` of a rule's data, built once per rule set (cached by identity: the
    rule data of a run never changes), not once per file and check."""
    cached = _TABLES.get(id(data))
    if cached is None or cached[0] is not data:
        cached = _TABLES[id(data)] = (data, OpTable(data))
    return cached[1]


_INTEGER_ARRAYS: Dict[int, Tuple[Mapping[str, Any], IntegerArrays]] = {}


def integer_arrays(data: Mapping[str, Any]) -> Optional[IntegerArrays]:
    """The rule's ``integer_arrays`` table (None: the rule has none), built once per rule set."""
    table = data.get("integer_arrays")
    if table is None:
        return None
    cached = _INTEGER_ARRAYS.get(id(table))
    if cached is None or cached[0] is not table:
        cached = _INTEGER_ARRAYS[id(table)] = (table, IntegerArrays.from_data(table))
    return cached[1]


Values = Callable[[cst.BaseExpression], cst.BaseExpression]  # a name -> the value it was last assigned


def _same(node: cst.BaseExpression) -> cst.BaseExpression:
    return node


Definitions = Callable[[cst.Call], Optional[cst.FunctionDef]]  # a call -> the module's function it runs


def _no_definition(call: cst.Call) -> Optional[cst.FunctionDef]:
    return None


def condition_holds(
    call: cst.Call, entry: Mapping[str, Any], shift: int, qualname: QualName, value_of: Values = _same,
    defined: Definitions = _no_definition,
) -> Optional[bool]:
    """Whether the call meets the entry's ``when`` conditions: True, False, or None when a
    value it depends on is computed at run time.  ``value_of`` looks through a name to
    the value it was assigned (``idx = torch.arange(n)``), ``defined`` through a call to
    the function of the module it runs (``idx = final_index(lengths)``)."""
    if len(call.args) - shift < entry.get("min_args", 0) and not has_star_args(call):
        return False
    for cond in entry.get("when", []):
        node = find_arg(call, cond.get("arg"), cond.get("pos"), shift)
        if node is None and has_star_args(call):
            return None
        value = literal_value(node, qualname)
        assigned = value_of(node) if node is not None else None
        if "exact" in cond:
            # ``counts.index_add_(0, idx, torch.ones(n))``: integer-valued floats add
            # exactly in any order
            if _evidently_exact(assigned, cond["exact"], qualname, value_of):
                return False
            continue
        if "unique" in cond:
            # ``out.index_add_(0, torch.arange(n), x)``: no two updates meet, nothing
            # accumulates
            if _evidently_unique(assigned, cond["unique"], qualname, defined):
                return False
            continue
        if "present" in cond:
            given = value is not ABSENT and value is not None
            if given != cond["present"]:
                return False
            continue
        if value is ABSENT:
            value = cond.get("default", ABSENT)
        if value is UNKNOWN:
            if "if_unknown" not in cond:
                return None
            if not cond["if_unknown"]:
                return False
            continue  # ``unique_indices=unique_indices`` passed on: no promise the code can see
        allowed = cond["in"] if "in" in cond else [cond["is"]]
        matches = any(type(value) is type(item) and value == item for item in allowed)
        if matches == bool(cond.get("negate", False)):
            return False
    return True


def _evidently_exact(node: Optional[cst.BaseExpression], exact: Mapping[str, Any], qualname: QualName,
                     value_of: Values = _same) -> bool:
    """An integer literal, a call the data lists as making integer-valued tensors, a fill
    with an integer or bool literal (``fills``: ``tf.fill(shape, True)``), or one
    that makes an integer tensor (``dtype=tf.int32``, ``tf.cast(x, tf.int32)``), possibly
    moved or converted (``torch.ones(n).to(counts)``: ones stay ones); with ``flags``,
    also 0/1 flags (``_evidently_flags``)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in exact.get("keep", []):
        node = node.func.value
    if node is None:
        return False
    if isinstance(node, cst.Integer):
        return True
    if exact.get("flags") and _evidently_flags(node, exact, qualname, value_of):
        return True
    if not isinstance(node, cst.Call):
        return False
    name = qualname(node.func)
    if name in exact.get("calls", []):
        return True
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in exact.get("methods", []):
        return True
    for fill in exact.get("fills", ()):
        if name in fill["names"]:  # ``tf.fill(shape, True)``: an integer or bool literal throughout
            return isinstance(literal_value(find_arg(node, fill.get("kw"), fill.get("pos")), qualname), int)
    integer_dtypes = exact.get("integer_dtypes", [])
    dtype = find_arg(node, "dtype", 1 if name in exact.get("casts", []) else None)
    if dtype is None or not integer_dtypes:
        return False
    spelled = literal_value(dtype, qualname)
    if not isinstance(spelled, str):
        spelled = qualname(dtype) or ""
    return spelled.rsplit(".", 1)[-1] in integer_dtypes


def _evidently_flags(node: Optional[cst.BaseExpression], exact: Mapping[str, Any], qualname: QualName,
                     value_of: Values, depth: int = 0) -> bool:
    """0s and 1s: a comparison (a boolean tensor), converted by the ``keep`` methods
    (``(pred == target).float()``), one minus such flags (``1 - match``), or a name last
    assigned one of those.  Each update then adds 0 (nothing) or 1: a float count is the
    same in any order (every addend is the same), as integer-valued ``ones`` are."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in exact.get("keep", []):
        node = node.func.value
    if node is None or depth > _FLAG_DEPTH:
        return False
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        return literal_value(node.left, qualname) == 1 and _evidently_flags(node.right, exact, qualname, value_of, depth + 1)
    if isinstance(node, cst.Name):
        assigned = value_of(node)
        return assigned is not node and _evidently_flags(assigned, exact, qualname, value_of, depth + 1)
    if isinstance(node, cst.Call):
        return _evidently_exact(node, {**exact, "flags": False}, qualname)  # ``torch.ones_like(match)``
    return False


_FLAG_DEPTH = 6


def _evidently_unique(
    node: Optional[cst.BaseExpression], unique: Mapping[str, Any], qualname: QualName,
    defined: Definitions = _no_definition, depth: int = 0,
) -> bool:
    """Indices that cannot repeat: a call the data lists as making distinct indices
    (``torch.arange``, ``torch.randperm``), possibly moved or cast (``.cuda()``,
    ``.long()``), a literal list with a single index (``[[replica_id]]``), index rows
    stacked with a column of distinct indices (``tf.stack([last, tf.range(n)], axis=1)``:
    one row per batch element), or a call of a function of the module that returns only
    such indices."""
    if isinstance(node, cst.List):
        return len(node.elements) == 1
    while isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in unique.get("keep", []):
            node = node.func.value  # ``torch.arange(n).cuda()``
        elif qualname(node.func) in unique.get("keep_calls", []) and node.args and node.args[0].keyword is None:
            node = node.args[0].value  # ``tf.cast(tf.where(mask), tf.int32)``
        else:
            break
    if not isinstance(node, cst.Call):
        return False
    if qualname(node.func) in unique.get("calls", []):
        return True
    if qualname(node.func) in unique.get("single_arg_calls", []) and len(node.args) == 1 and not node.args[0].star:
        return True  # ``tf.where(mask)``: the coordinates of the true elements, each once
    if qualname(node.func) in unique.get("stack_calls", []):
        return _rows_with_unique_column(node, unique, qualname, defined, depth, lambda name: None)
    function = defined(node) if depth < 3 else None
    if function is not None:
        return _returns_unique_indices(function, unique, qualname, defined, depth + 1)
    return isinstance(node.func, cst.Attribute) and node.func.attr.value in unique.get("methods", [])


Bound = Callable[[str], Optional[List[Optional[cst.BaseExpression]]]]  # a local name -> the values it is bound to


def _rows_with_unique_column(
    call: cst.Call, unique: Mapping[str, Any], qualname: QualName, defined: Definitions, depth: int, bound: Bound,
) -> bool:
    """``tf.stack([rows, tf.range(n)], axis=1)``: rows of indices one of whose columns
    holds distinct indices are distinct rows, whatever the other columns hold.  The list
    may be a name of the function bound to such lists, or reversed (``x = x[::-1]``)."""
    if literal_value(find_arg(call, "axis", 1), qualname) not in (1, -1):
        return False
    lists = _lists_bound(find_arg(call, "values", 0), bound)
    return bool(lists) and all(
        any(not isinstance(element, cst.StarredElement)
            and _evidently_unique(element.value, unique, qualname, defined, depth) for element in listed.elements)
        for listed in lists
    )


def _lists_bound(node: Optional[cst.BaseExpression], bound: Bound) -> List[Union[cst.List, cst.Tuple]]:
    """The literal lists ``node`` may hold: itself, or every value its name is bound to,
    a copy or reversal of the name itself (``x[::-1]``) adding nothing; [] when unknown."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return [node]
    values = bound(node.value) if isinstance(node, cst.Name) else None
    if isinstance(node, cst.Name) and values:
        lists: List[Union[cst.List, cst.Tuple]] = []
        for value in values:
            if isinstance(value, (cst.List, cst.Tuple)):
                lists.append(value)
            elif not _reorders(value, node.value):
                return []
        return lists
    return []


def _reorders(node: Optional[cst.BaseExpression], name: str) -> bool:
    """``name[::-1]``, ``name[-1::-1]``, ``name[:]``: the same elements, reordered or copied."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name):
        return False
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return False
    part = node.slice[0].slice
    values = [literal_value(bound, lambda n: None) if bound is not None else None for bound in (part.lower, part.upper, part.step)]
    return values[1] is None and (values[2] is None and values[0] is None or values[2] == -1 and values[0] in (None, -1))


def _returns_unique_indices(
    function: cst.FunctionDef, unique: Mapping[str, Any], qualname: QualName, defined: Definitions, depth: int,
) -> bool:
    """Every ``return`` of the function gives indices that cannot repeat, its names read
    through the function's own assignments."""
    index = ScopeIndex(function, lambda node: None)

    def bound(name: str) -> Optional[List[Optional[cst.BaseExpression]]]:
        bindings = index.bindings_of(name)
        if not bindings or any(binding.kind != "assign" for binding in bindings):
            return None
        return [binding.value for binding in bindings]

    returned = _returns_of(function)
    for value in returned:
        values = bound(value.value) if isinstance(value, cst.Name) else [value]
        if not values:
            return False
        for item in values:
            if isinstance(item, cst.Call) and qualname(item.func) in unique.get("stack_calls", []):
                if not _rows_with_unique_column(item, unique, qualname, defined, depth, bound):
                    return False
            elif not _evidently_unique(item, unique, qualname, defined, depth):
                return False
    return bool(returned)


def _returns_of(function: cst.FunctionDef) -> List[cst.BaseExpression]:
    """The values of the function's own ``return`` statements (not of functions inside
    it); a bare ``return`` gives None, which is no indices: the list is then empty."""
    found: List[cst.BaseExpression] = []
    stack: List[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            if node.value is None:
                return []
            found.append(node.value)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(node.children)
    return found


def exact_when_integer(entry: Mapping[str, Any]) -> bool:
    """Whether the entry is exact with integer values (a condition of it is ``exact``)."""
    return any("exact" in cond for cond in entry.get("when", []))


def integer_by_use(call: cst.Call, ancestors: Sequence[cst.CSTNode], uses: Mapping[str, Any], qualname: QualName) -> bool:
    """Whether the result of ``call`` is evidently an integer tensor by what reads it:
    assigned to a name that reaches, as it is or through ops that keep its dtype
    (``perm = tf.tensor_scatter_nd_update(perm, ...)``), an argument the op raises on
    unless it is an integer tensor (``tf.transpose(a, perm)``), after the call and not in
    another branch of an ``if`` around it.  A later assignment of anything else to those
    names, or one in a loop around the call, leaves it unknown.
    Works on the syntax tree alone (the walk has not reached what follows the call)."""
    statement = ancestors[-1] if ancestors else None
    if not (isinstance(statement, cst.Assign) and statement.value is call and len(statement.targets) == 1):
        return False
    target = statement.targets[0].target
    scope = next((node for node in reversed(ancestors) if isinstance(node, (cst.FunctionDef, cst.Module))), None)
    if not isinstance(target, cst.Name) or scope is None:
        return False
    index = ScopeIndex(scope, lambda node: None)
    start = index.end(statement)
    loops = [node for node in ancestors if isinstance(node, (cst.For, cst.While))]
    # a read in another branch of an ``if`` / ``try`` around the call never sees its result
    forks = [(node, ancestors[i + 1]) for i, node in enumerate(ancestors[:-1]) if isinstance(node, (cst.If, cst.Try))]
    keeping = {name: rule for rule in uses.get("keeping", []) for name in rule["names"]}
    integer = {name: rule for rule in uses.get("args", []) for name in rule["names"]}
    names = {target.value}
    changed = True
    while changed:  # names the result reaches through dtype-keeping ops
        changed = False
        for name in list(names):
            for binding in index.bindings_of(name):
                if binding.statement is statement:
                    continue
                value = binding.value
                rule = keeping.get(qualname(value.func) or "") if isinstance(value, cst.Call) else None
                kept = find_arg(value, rule["arg"], rule["pos"]) if rule is not None and isinstance(value, cst.Call) else None
                if binding.kind == "assign" and isinstance(kept, cst.Name) and kept.value in names:
                    continue
                after = index.position(binding.statement) > start
                if after or any(index.contains(loop, binding.statement) for loop in loops):
                    return False  # the name may hold something else where it is read
            for read in index.loads.get(name, ()):
                holder = _call_reading(read, index)
                if holder is None or index.position(read) <= start:
                    continue
                if any(index.contains(fork, read) and not index.contains(branch, read) for fork, branch in forks):
                    continue
                name_called = qualname(holder.func) or ""
                rule = keeping.get(name_called)
                if rule is not None and find_arg(holder, rule["arg"], rule["pos"]) is read:
                    for binding_target in _assigned_names(holder, index):
                        if binding_target not in names:
                            names.add(binding_target)
                            changed = True
                rule = integer.get(name_called)
                if rule is not None and find_arg(holder, rule["arg"], rule["pos"]) is read:
                    return True
    return False


def _call_reading(read: cst.Name, index: ScopeIndex) -> Optional[cst.Call]:
    """The call that takes ``read`` as an argument, found from the tree (no parents yet)."""
    for call in index.calls:
        if any(arg.value is read for arg in call.args):
            return call
    return None


def _assigned_names(call: cst.Call, index: ScopeIndex) -> List[str]:
    """The names ``name = call`` binds."""
    return [
        binding.name for bindings in index.bindings.values() for binding in bindings
        if binding.kind == "assign" and binding.value is call
    ]


def reported_at_calls(entry: Mapping[str, Any]) -> bool:
    """Whether some version reports the entry at its calls (``report``, or a status
    item's own ``report``: ``cumsum`` raises in old torch, is covered by ND205 in new)."""
    default = entry.get("report", "call")
    return any(item.get("report", default) == "call" for item in entry.get("status", [])) or (
        not entry.get("status") and default == "call"
    )


def covered_by_switch(entry: Mapping[str, Any]) -> bool:
    """Whether some version leaves the entry to the missing switch (ND205) rather than
    reporting it at its calls: convolutions, implicit backward passes."""
    default = entry.get("report", "call")
    return any(item.get("report", default) == "program" for item in entry.get("status", [])) or (
        not entry.get("status") and default == "program"
    )


def status_for(entry: Mapping[str, Any], version: Optional[Version]) -> Optional[Mapping[str, Any]]:
    """The first ``status`` item whose ``versions`` range holds the target version."""
    items: Sequence[Mapping[str, Any]] = entry.get("status", [])
    for item in items:
        spec = item.get("versions", "*")
        if version is None and spec in ("*", ""):
            return item
        if version is not None and in_range(version, spec):
            return item
    return None


def _assigned(
    target: cst.BaseExpression, value: cst.BaseExpression,
) -> List[Tuple[str, cst.BaseExpression, bool]]:
    """``(name, value, whole)`` for each name an assignment binds: ``a = v`` and, element
    by element, ``a, b = u, v`` (``whole``: the name holds that value); a name unpacked
    from anything else holds a part of the value (its package, not the value itself)."""
    if type(target) is cst.Name:  # (``type()``: none of these classes has subclasses)
        return [(target.value, value, True)]
    if type(target) is cst.Tuple or type(target) is cst.List:
        elements = [e.value for e in target.elements]
        if (type(value) is cst.Tuple or type(value) is cst.List) and len(value.elements) == len(elements):
            pairs = zip(elements, [e.value for e in value.elements])
            return [bound for t, v in pairs for bound in _assigned(t, v)]
        return [(e.value, value, False) for e in elements if type(e) is cst.Name]
    return []


# ---------------------------------------------------------------- pass 1 --------------
class WalkUnits:
    """``unit_of(ctx.ancestors)`` for the node being walked, kept by the walk's handlers
    (the definitions and ``__main__`` guards around it) and worked out once per change:
    scanning the ancestors at every call was a third of ``note_uses``."""

    def __init__(self) -> None:
        self.around: List[cst.CSTNode] = []  # the definitions and main guards entered, outermost first
        self.current: Optional[str] = None

    def enter(self, node: cst.CSTNode) -> None:
        self.around.append(node)
        self.current = None

    def leave(self, node: cst.CSTNode) -> None:
        if self.around and self.around[-1] is node:
            self.around.pop()
            self.current = None

    def unit(self) -> str:
        if self.current is None:
            self.current = unit_of(self.around)
        return self.current


@dataclass(frozen=True)
class OpCandidate:
    """A call of an op of the table (its deferred payload): its entry's id, the key of
    the function it is in (``Parser._parse_train_data``; "" at module level), and, for an
    op non-deterministic only in backward or one under a parameter's branch, the ``reach``
    unit it is in (``gpu.unit_of``): pass 2 asks which programs run it, or what its
    callers give; and the parameters whose branch it is in (``callers.parameter_gate``).
    A layer module-level code makes and binds to a name (``pool = nn.AvgPool3d(2)``) has
    that ``layer`` name, when its module only ever calls it, and the units whose calls of
    it may carry a gradient (``layer_users``).  A backward-only op on a parameter of the
    function it is in has that ``argument``: pass 2 asks whether every call gives it a
    tensor that carries no gradient."""

    op: str
    function: str = ""
    unit: Optional[str] = None
    gate: Gate = ()
    layer: str = ""
    layer_users: Tuple[str, ...] = ()
    argument: Optional[Argument] = None

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"op": self.op, "function": self.function}
        if self.unit is not None:
            out["unit"] = self.unit
        if self.gate:
            out["gate"] = [list(item) for item in self.gate]
        if self.layer:
            out["layer"] = self.layer
            out["layer_users"] = list(self.layer_users)
        if self.argument is not None:
            out["argument"] = list(self.argument)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "OpCandidate":
        gate = tuple((str(name), position) for name, position in data.get("gate", ()))
        return cls(
            data.get("op", ""), data.get("function", ""), data.get("unit"), gate,
            data.get("layer", ""), tuple(data.get("layer_users", ())),
            (str(data["argument"][0]), data["argument"][1]) if "argument" in data else None,
        )


@dataclass(frozen=True)
class ImplicitOp:
    """Where a program runs an op the missing switch leaves non-deterministic (an ND205
    anchor): the op's id, the rule whose table holds it, and the unit it is in (the op
    counts for programs that run that unit)."""

    op: str
    op_code: str
    unit: str
    gate: Tuple[str, ...] = ()  # attributes of its object that must be set for it to run (``attribute_gate``)
    # a layer made and bound to this attribute of the method's instance (``self.bag =
    # nn.EmbeddingBag(...)``): it runs where the program's code applies that name
    applied_as: str = ""

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"implicit_op": self.op, "op_code": self.op_code, "unit": self.unit}
        if self.gate:
            out["gate"] = list(self.gate)
        if self.applied_as:
            out["applied_as"] = self.applied_as
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Optional["ImplicitOp"]:
        if "implicit_op" not in data:
            return None
        return cls(
            data["implicit_op"], data.get("op_code", ""), data.get("unit", MODULE_UNIT), tuple(data.get("gate", ())),
            str(data.get("applied_as", "")),
        )


class OpCheck(Check):
    """Matches calls against one rule's op table (subclasses name the rule).  It also
    runs for ND205, whose message lists the ops the missing switch leaves unsafe: it
    defers where they run, ND205's check decides."""

    @classmethod
    def runs_on(cls, ctx: FileContext) -> bool:
        if cls.code in ctx.enabled:
            return True
        modules = ctx.rules["ND205"].data["frameworks"][cls.framework]["modules"]
        return ctx.imports.mentions(*modules)

    code: ClassVar[str] = ""
    framework: ClassVar[str] = ""

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self.table = op_table(self.data(self.code))
        modules = ctx.rules["ND205"].data["frameworks"][self.framework]["modules"]
        self.framework_imported = ctx.imports.mentions(*modules)
        self.foreign_roots = frozenset(self.data(self.code).get("foreign_roots", []))
        # names the file assigns: the package their value comes from (None: unknown), and
        # the value (in walk order, the latest assignment wins)
        self.bound_roots: Dict[str, Optional[str]] = {}
        self.values: Dict[str, cst.BaseExpression] = {}
        self.matched: Set[str] = set()
        self.matched_in: Dict[str, Set[str]] = {}  # op id -> the units that call it
        self.gated_in: Dict[str, Set[Tuple[str, Tuple[str, ...]]]] = {}  # op id -> (unit, gate) of gated calls
        self.applied_in: Dict[str, Set[Tuple[str, str]]] = {}  # op id -> (unit, attribute) of layers bound to one
        layers = ctx.rules["ND205"].data.get("layers", {})
        self.layer_namespaces = tuple(layers.get("namespaces", ()))
        self.layer_containers = frozenset(layers.get("containers", ()))
        self.gradient_free_uses = GradientFreeUseCounter()
        self.gradient_free_arguments = GradientFreeArgumentsCounter()
        self.given_arguments = GivenArgumentsCounter()
        self.units = WalkUnits()
        # backward-only layers module-level code binds to a name: deferred once the
        # walk has counted their calls (``module_layer``)
        self.module_layers: List[Tuple[cst.Call, OpCandidate, str]] = []
        self.integer_arrays = integer_arrays(self.data(self.code))
        self.scatter_facts = ScatterFacts(ctx.qualname, ScopeBindings(ctx.parent), lambda: ctx.ancestors)
        # class -> (the class, its ``optional_attributes``): asked again for every op in
        # its methods under an ``if self.X:``, and it walks the whole class
        self.optional: Dict[int, Tuple[cst.ClassDef, FrozenSet[str]]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.units.enter(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.units.leave(original_node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.units.enter(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.units.leave(original_node)

    def visit_If(self, node: cst.If) -> None:
        if is_main_guard(node.test):
            self.units.enter(node)

    def leave_If(self, original_node: cst.If) -> None:
        self.units.leave(original_node)

    def optional_attributes(self, cls: cst.ClassDef) -> FrozenSet[str]:
        found = self.optional.get(id(cls))
        if found is None:
            found = self.optional[id(cls)] = (cls, optional_attributes(cls))
        return found[1]

    # names bound from other libraries are not this framework's tensors, and a name the
    # file assigns is not the builtin it shadows (``input = torch.ones(3)``); recorded once
    # the value was walked (``m = tf.tensor_scatter_nd_add(m, ...)`` reads the earlier ``m``)
    def leave_Assign(self, original_node: cst.Assign) -> None:
        node = original_node
        root = self._root_package(node.value)
        for target in node.targets:
            for name, value, whole in _assigned(target.target, node.value):
                self.bound_roots[name] = root if value is node.value else self._root_package(value)
                if whole:
                    self.values[name] = value
                else:
                    self.values.pop(name, None)

    def function_run_by(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The module-level function a call of a bare name runs (the module binds that
        name once, by that ``def``)."""
        if not isinstance(call.func, cst.Name) or call.func.value in self.bound_roots:
            return None
        name = call.func.value
        found = [
            statement for statement in self.ctx.module.body
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name
        ]
        return found[0] if len(found) == 1 else None

    def value_of(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The value a name was assigned in this file, else the expression itself."""
        if isinstance(node, cst.Name):
            return self.values.get(node.value, node)
        return node

    def _root_package(self, node: cst.BaseExpression) -> Optional[str]:
        while True:
            kind = type(node)  # exact types: isinstance() on libcst's ABCs costs more here
            # cast() below: the exact type was just tested (mypy does not follow ``type(x) is``)
            if kind is cst.Call:
                node = cast(cst.Call, node).func
            elif kind is cst.Subscript:
                node = cast(cst.Subscript, node).value
            elif kind is cst.Attribute:
                name = self.ctx.qualname(node)
                if name is not None:
                    return name.split(".")[0]
                node = cast(cst.Attribute, node).value
            elif kind is cst.Name:
                identifier = cast(cst.Name, node).value
                if identifier in self.bound_roots:
                    return self.bound_roots[identifier]
                name = self.ctx.qualname(node)
                return name.split(".")[0] if name else None
            else:
                return None

    def matches(self, call: cst.Call) -> List[Tuple[Mapping[str, Any], int]]:
        """``(entry, positional shift)`` for each table entry the call is."""
        name = self.ctx.qualname(call.func)
        if name is not None:
            name = canonical(name, self.table.aliases)
            found = []
            for entry in self.table.by_name.get(name, []):
                # ``torch.index_add(x, ...)`` / ``torch.Tensor.index_add_(x, ...)``: the
                # tensor comes first, so method positions move by one
                found.append((entry, 1 if entry.get("tensor_op") else 0))
            return found
        if not isinstance(call.func, cst.Attribute):
            return []
        entries = self.table.by_method.get(call.func.attr.value, [])
        if not entries or self._root_package(call.func.value) in self.foreign_roots:
            return []
        return [(entry, 0) for entry, generic in entries if self.framework_imported or not generic]

    def visit_Call(self, node: cst.Call) -> None:
        self.note_uses(node)
        self.consider(node, self.matches(node))

    def note_uses(self, node: cst.Call) -> None:
        """Count the call's callee and the names it hands on, and whether each use is one
        where no gradient flows (``GradientFreeUses``); note what it gives its callee
        (``GivenArguments``)."""
        unit = self.units.unit()
        free = self.in_gradient_free_context()
        callee = used_name(node.func)
        self.gradient_free_uses.note(unit, callee, free)
        self.given_arguments.note(unit, node)
        self.gradient_free_arguments.note(unit, callee, [(arg, free or self.carries_no_gradient(arg.value)) for arg in node.args])
        for arg in node.args:
            value = arg.value
            if type(value) is cst.Name or type(value) is cst.Attribute:  # (neither has subclasses)
                name = used_name(value)
                self.gradient_free_uses.note(unit, name, free or self.hands_to_load_hook(node, arg))
                self.given_arguments.note_handed_on(unit, name)
                self.gradient_free_arguments.handed_on(unit, name)

    def in_gradient_free_context(self) -> bool:
        """Whether no gradient flows through what the code being walked computes."""
        return False

    def hands_to_load_hook(self, call: cst.Call, arg: cst.Arg) -> bool:
        """Whether ``arg`` of ``call`` is a function that runs when weights are loaded."""
        return False

    def carries_no_gradient(self, value: cst.BaseExpression) -> bool:
        """Whether an argument is a tensor no gradient flows through."""
        return False

    def parameter_of(self, node: cst.Call) -> Optional[Argument]:
        """The parameter of the function around a backward-only op that its input is."""
        return None

    def accumulator(self, call: cst.Call, entry: Mapping[str, Any], shift: int) -> Optional[cst.BaseExpression]:
        """The array an entry's scatter adds into (its ``accumulator``): the tensor a method
        is called on (``x`` of ``x.index_add_(...)`` or ``x.at[i].add(v)``), else the
        argument it names (``torch.index_add(x, ...)``, ``segment_sum(data, ...)``)."""
        spec = entry.get("accumulator")
        if spec is None:
            return None
        method_form = shift == 0 and isinstance(call.func, cst.Attribute) and self.ctx.qualname(call.func) is None
        if spec.get("receiver") and method_form:
            receiver = cast(cst.Attribute, call.func).value
            return at_receiver(receiver) or receiver
        return find_arg(call, spec.get("arg"), spec.get("pos"))

    def adds_integers(self, call: cst.Call, entry: Mapping[str, Any], shift: int) -> bool:
        """Whether the scatter adds into an evidently integer array: exact in any order."""
        if self.integer_arrays is None or "accumulator" not in entry:
            return False
        return self.scatter_facts.integer_array(self.accumulator(call, entry, shift), self.integer_arrays)

    def consider(self, node: cst.Call, candidates: Iterable[Tuple[Mapping[str, Any], int]]) -> None:
        for entry, shift in candidates:
            if self.adds_integers(node, entry, shift):
                continue
            if condition_holds(node, entry, shift, self.ctx.qualname, self.value_of, self.function_run_by) is not True:
                continue
            self.matched.add(entry["id"])
            gate = attribute_gate(self.ctx.ancestors, self.optional_attributes)
            applied_as = "" if gate else self.bound_layer(node)
            if gate:
                self.gated_in.setdefault(entry["id"], set()).add((self.units.unit(), gate))
            elif applied_as:
                self.applied_in.setdefault(entry["id"], set()).add((self.units.unit(), applied_as))
            else:
                self.matched_in.setdefault(entry["id"], set()).add(self.units.unit())
            if entry.get("device", "cuda") == "mps":
                continue
            backward = entry.get("phase") == "backward"
            if entry.get("varies") == "indices" and self.only_values_kept(node):
                continue  # the values are the same every run; under the switch it still raises (ND205)
            if reported_at_calls(entry) and (not backward or self.gradient_may_flow(node, entry, shift)):
                branch = parameter_gate(self.ctx.ancestors)
                unit = self.units.unit() if backward or branch else None
                candidate = OpCandidate(
                    entry["id"], self.function_of(node), unit, branch,
                    argument=self.parameter_of(node) if backward else None,
                )
                layer = self.module_layer(node) if backward and unit == MODULE_UNIT else None
                if layer is not None:
                    self.module_layers.append((node, candidate, layer))
                else:
                    self.ctx.defer(node, self.code, **candidate.to_json())
            if covered_by_switch(entry):
                # where the program runs it: ND205's message lists it, with its line
                self.ctx.defer(node, "ND205", **ImplicitOp(entry["id"], self.code, self.units.unit(), gate, applied_as).to_json())

    def bound_layer(self, call: cst.Call) -> str:
        """The attribute a method binds a layer it makes to on its own instance (``self.bag =
        nn.EmbeddingBag(...)``, rule data ``layers``), or "": a layer runs where it is applied.
        Not in a class derived from a container whose forward runs every child
        (``nn.Sequential``)."""
        name = self.ctx.qualname(call.func)
        if name is None:
            return ""
        name = canonical(name, self.table.aliases)
        last = name.rpartition(".")[2]
        if not last[:1].isupper() or not any(name.startswith(prefix) for prefix in self.layer_namespaces):
            return ""
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
            target: cst.BaseExpression = parent.targets[0].target
        elif isinstance(parent, cst.AnnAssign) and parent.value is call:
            target = parent.target
        else:
            return ""
        around = self.units.around
        if len(around) < 2 or not isinstance(around[-1], cst.FunctionDef) or not isinstance(around[-2], cst.ClassDef):
            return ""
        method, owner = around[-1], around[-2]
        params = method.params.params
        if not params or not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name):
            return ""
        if target.value.value != params[0].name.value:
            return ""
        for base in owner.bases:
            base_name = self.ctx.qualname(base.value)
            if base_name is not None and canonical(base_name, self.table.aliases) in self.layer_containers:
                return ""
        return target.attr.value

    def module_layer(self, call: cst.Call) -> Optional[str]:
        """The name module-level code binds a layer it makes to (``pool = nn.AvgPool3d(2)``)."""
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
            target = parent.targets[0].target
            if isinstance(target, cst.Name):
                return target.value
        return None

    def defer_module_layers(self) -> None:
        """Defer the module-level layers with the units whose calls of them may carry a
        gradient, where every use of the name in the module is a call (``NameUses``)."""
        for node, candidate, name in self.module_layers:
            uses = NameUses(name)
            visit_tree(self.ctx.module, uses)
            if uses.only_called():
                users = tuple(sorted(
                    unit for (unit, used), (free, total) in self.gradient_free_uses.uses.items()
                    if used == name and free < total
                ))
                candidate = replace(candidate, layer=name, layer_users=users)
            self.ctx.defer(node, self.code, **candidate.to_json())

    def only_values_kept(self, call: cst.Call) -> bool:
        """Whether the code keeps only the values of a ``(values, indices)`` result:
        ``.values``, ``[0]``, or unpacked into ``values, _``.  Ties make only the index
        vary (an entry's ``varies = "indices"``)."""
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.Attribute):
            return parent.value is call and parent.attr.value == "values"
        if isinstance(parent, cst.Subscript):
            index = parent.slice[0].slice if len(parent.slice) == 1 else None
            return (
                parent.value is call and isinstance(index, cst.Index)
                and isinstance(index.value, cst.Integer) and index.value.evaluated_value == 0
            )
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            return (
                isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
                and isinstance(target.elements[1].value, cst.Name) and target.elements[1].value.value == "_"
            )
        return False

    def gradient_may_flow(self, node: cst.Call, entry: Mapping[str, Any], shift: int) -> bool:
        """Whether a backward-only op may be differentiated here (pass 2 still asks
        whether the program differentiates at all)."""
        return True

    def function_of(self, node: cst.Call) -> str:
        """The function a candidate is in, when pass 2 needs it."""
        return ""

    @classmethod
    def skipped(cls, project: Any, rules: RuleSet) -> Callable[[str, OpCandidate], bool]:
        """Candidates pass 2 leaves out whatever the program (ND204: ops in ``tf.data``
        functions wired up in another module)."""
        return lambda path, candidate: False

    def finish(self) -> None:
        self.defer_module_layers()
        if self.matched:
            known = self.ctx.facts.get(KernelOps)
            by_code = {**(known.by_code if known is not None else {}), self.code: tuple(sorted(self.matched))}
            units = {
                **(known.units if known is not None else {}),
                self.code: {op: tuple(sorted(where)) for op, where in sorted(self.matched_in.items())},
            }
            gated = {**(known.gated if known is not None else {})}
            if self.gated_in:
                gated[self.code] = {op: tuple(sorted(where)) for op, where in sorted(self.gated_in.items())}
            applied = {**(known.applied if known is not None else {})}
            if self.applied_in:
                applied[self.code] = {op: tuple(sorted(where)) for op, where in sorted(self.applied_in.items())}
            self.ctx.facts.put(KernelOps(by_code, units, gated, applied))
        uses = self.gradient_free_uses.fact(self.ctx.facts.get(GradientFreeUses))
        if uses is not None:
            self.ctx.facts.put(uses)
        arguments = self.gradient_free_arguments.fact()
        if arguments is not None and self.framework == "torch":
            self.ctx.facts.put(arguments)  # only ND203 knows which tensors carry no gradient
        given = self.given_arguments.fact()
        if given is not None and self.ctx.facts.get(GivenArguments) is None:
            self.ctx.facts.put(given)  # the same calls whichever op check records them

    # ------------------------------------------------------------ pass 2 --------------
    switch: ClassVar[str] = ""  # the switch id that makes "switch" entries deterministic
    raises_need_switch_off: ClassVar[bool] = False  # ND204: raising ops only while off

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        rule = rules[cls.code]
        table = op_table(rule.data)
        view = program_view(project, rules)
        if not deferred or not view.is_gpu_program():
            return []
        version = view.target(cls.framework)
        kinds_text = rule.data.get("kinds", {})
        best: Dict[Tuple[str, int, int], Tuple[int, Finding]] = {}
        skipped = cls.skipped(project, rules)
        for item in deferred:
            candidate = OpCandidate.from_json(item.payload)
            entry = table.by_id.get(candidate.op)
            if entry is None or not view.module_in_gpu_program(item.path) or skipped(item.path, candidate):
                continue  # spec: "in a GPU program", decided per program
            if candidate.unit is not None and gate_never_opened(view, (item.path, candidate.unit), candidate.gate):
                continue  # under ``if do_colors:`` and every call leaves ``do_colors=False``
            status = status_for(entry, version)
            if status is None or status.get("kind") not in KIND_PRIORITY:
                continue
            if status.get("report", entry.get("report", "call")) != "call":
                continue
            kind = status["kind"]
            scopes = view.scopes_of_module(item.path)
            scopes = [s for s in scopes if cls.framework in view.frameworks(s)] or scopes
            if entry.get("phase") == "backward" and (
                not differentiated(view, item.path, candidate, scopes)
                or (candidate.unit is not None and used_only_without_gradient(view, (item.path, candidate.unit)))
                or (candidate.layer and layer_used_only_without_gradient(view, item.path, candidate.layer, candidate.layer_users))
                or (candidate.unit is not None and candidate.argument is not None
                    and argument_without_gradient(view, (item.path, candidate.unit), candidate.argument))
            ):
                continue
            # covered when a program that runs this module sets the switch (another entry
            # point that does not is ND205's finding, not one per op)
            switch_on = any(view.switch_on(s, cls.switch) for s in scopes)
            if kind == "switch" and switch_on:
                continue
            if kind == "raises" and cls.raises_need_switch_off and switch_on:
                continue
            problem = kinds_text.get(f"{kind}_{entry.get('device')}", kinds_text.get(kind, kind))  # ``switch_cpu``
            message = rule.format_message(
                api=entry["api"], problem=problem, advice=status.get("advice", entry.get("advice", "")),
            )
            finding = Finding(item.path, item.line, item.col, cls.code, message, item.end_line, item.end_col)
            key = (item.path, item.line, item.col)
            if key not in best or KIND_PRIORITY[kind] < best[key][0]:
                best[key] = (KIND_PRIORITY[kind], finding)
        return [finding for _, finding in best.values()]


def differentiated(view: ProgramView, path: str, candidate: OpCandidate, scopes: Sequence[FrozenSet[str]]) -> bool:
    """Whether a backward-only op may run its backward: some GPU program that runs the
    code it is in differentiates (spec: not in programs that never differentiate, such as
    an export tool or a CPU program that imports the model).  Code no program is seen to
    run (a library, a model looked up by string) counts where the modules around it
    differentiate; a definition filed in a registry runs, too, in the programs that use
    the registry (a trainer that builds the criterion its config names)."""
    here = (path, candidate.unit)
    running = [entry for entry in view.entries_reaching(path) if here in view.reached_units(entry)]
    if candidate.unit is None or not running:
        return any(view.differentiates(s) for s in scopes)
    running.extend(entry for entry in view.registry_users((path, candidate.unit)) if entry not in running)
    return any(view.entry_uses_gpu(entry) and view.runs_backward(entry) for entry in running)


_COMPUTED = (cst.Call, cst.Subscript, cst.BinaryOperation, cst.UnaryOperation)  # values an op computes


class TorchOps(OpCheck):
    """ND203: PyTorch ops without a deterministic CUDA kernel, or with one only under
    ``torch.use_deterministic_algorithms(True)``."""

    codes = ("ND203", "ND205")
    decides = ("ND203",)
    code = "ND203"
    framework = "torch"
    switch = "torch"

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        grad = self.data(self.code)["no_gradient"]
        self.no_grad_contexts = frozenset(grad["contexts"])
        self.detach_methods = frozenset(grad["methods"])
        self.load_hook_methods = frozenset(grad.get("load_hook_methods", ()))
        self.load_hook_keywords = {
            call: hook["keyword"] for hook in grad.get("load_hook_keywords", ()) for call in hook["calls"]
        }
        self.fresh_calls = frozenset(grad.get("fresh_calls", ()))
        self.fresh_methods = frozenset(grad.get("fresh_methods", ()))
        self.parameter_calls = frozenset(grad.get("parameter_calls", ()))
        self.state_dict_parameters = frozenset(grad.get("state_dict_parameters", ()))
        self.no_grad_depth = 0  # enclosing ``with torch.no_grad()`` blocks and decorated functions
        # per enclosing function: names holding tensors no gradient flows through, and
        # parameters holding a state dict (its entries are such tensors)
        self.gradient_free: List[Set[str]] = [set()]
        self.state_dicts: List[Set[str]] = [set()]
        self.parameters: List[Dict[str, Optional[int]]] = [{}]  # per function: its parameters, their positions
        cpu = self.data(self.code)["cpu_tensors"]
        self.cpu_methods = frozenset(cpu["methods"])
        self.move_methods = frozenset(cpu["move_methods"])
        self.cpu_devices = frozenset(cpu["devices"])
        self.device_calls = frozenset(cpu["device_calls"])
        # per enclosing function: names holding tensors moved to the CPU, with the block of
        # that assignment (an ``if`` branch's move says nothing of its ``else``)
        self.on_cpu: List[Dict[str, cst.CSTNode]] = [{}]

    def in_gradient_free_context(self) -> bool:
        return self.no_grad_depth > 0

    def hands_to_load_hook(self, call: cst.Call, arg: cst.Arg) -> bool:
        """``model.register_load_state_dict_pre_hook(fix_keys)``,
        ``build_model_with_cfg(..., pretrained_filter_fn=checkpoint_filter_fn)``."""
        if type(call.func) is cst.Attribute and call.func.attr.value in self.load_hook_methods:
            return arg is call.args[0] or (arg.keyword is not None and arg.keyword.value == "hook")
        if arg.keyword is None:
            return False
        return arg.keyword.value == self.load_hook_keywords.get(self.ctx.qualname(call.func) or "")

    def _turns_off_grad(self, expr: cst.BaseExpression) -> bool:
        return self.ctx.qualname(expr.func if isinstance(expr, cst.Call) else expr) in self.no_grad_contexts

    def visit_With(self, node: cst.With) -> None:
        self.no_grad_depth += any(self._turns_off_grad(item.item) for item in node.items)

    def leave_With(self, original_node: cst.With) -> None:
        self.no_grad_depth -= any(self._turns_off_grad(item.item) for item in original_node.items)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.no_grad_depth += any(self._turns_off_grad(d.decorator) for d in node.decorators)
        self.gradient_free.append(set())
        params = node.params
        self.state_dicts.append({
            param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)
            if param.name.value in self.state_dict_parameters
        })
        self.parameters.append(self._positions(node))
        self.on_cpu.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self.no_grad_depth -= any(self._turns_off_grad(d.decorator) for d in original_node.decorators)
        self.gradient_free.pop()
        self.state_dicts.pop()
        self.parameters.pop()
        self.on_cpu.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        """Track names holding tensors no gradient flows through, once the value was
        walked (``y = F.pad(y, ...)`` pads the detached ``y``), judged from what its names
        held before (``y = y.float()`` keeps what ``y`` was)."""
        names = [(name, self._bound_without_gradient(value) if whole else False, self._is_on_cpu(value) if whole else False)
                 for target in original_node.targets for name, value, whole in _assigned(target.target, original_node.value)]
        block = self._block_of(original_node) if any(on_cpu for _, _, on_cpu in names) else None
        for name, free, on_cpu in names:
            (self.gradient_free[-1].add if free else self.gradient_free[-1].discard)(name)
            self.state_dicts[-1].discard(name)
            if on_cpu and block is not None:
                self.on_cpu[-1][name] = block
            else:
                self.on_cpu[-1].pop(name, None)
        super().leave_Assign(original_node)

    def _block_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The block (an indented suite, or the module) that holds a statement."""
        current = self.ctx.parent(node)
        while current is not None and not isinstance(current, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)):
            current = self.ctx.parent(current)
        return current

    def _inside(self, block: cst.CSTNode) -> bool:
        """Whether the node being walked is inside ``block`` (its parents are known only
        up to the node the walk is at)."""
        return any(ancestor is block for ancestor in self.ctx.ancestors)

    def _is_on_cpu(self, node: cst.BaseExpression) -> bool:
        """``x.cpu()``, ``x.to("cpu")``, a method chain or index of one that does not move it
        again (``x.cpu().float()[0]``, not ``x.cpu().cuda()``), or a name assigned one."""
        while True:  # (``type() is``: none of these classes has subclasses)
            if type(node) is cst.Call and type(node.func) is cst.Attribute:
                method = node.func.attr.value
                if method in self.cpu_methods:
                    return True
                if method in self.move_methods:
                    return self._moves_to_cpu(node)
                node = node.func.value
            elif type(node) is cst.Subscript:
                node = node.value
            else:
                block = self.on_cpu[-1].get(node.value) if type(node) is cst.Name else None
                return block is not None and self._inside(block)

    def _moves_to_cpu(self, call: cst.Call) -> bool:
        """``.to("cpu")``, ``.to(device="cpu")``, ``.to(torch.device("cpu"))``; any other
        move (``.cuda()``, ``.to(device)``) may put the tensor on the GPU."""
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "to":
            return False
        device = find_arg(call, "device", 0)
        if isinstance(device, cst.Call) and self.ctx.qualname(device.func) in self.device_calls:
            device = find_arg(device, "type", 0)
        return isinstance(device, cst.SimpleString) and device.evaluated_value in self.cpu_devices

    def consider(self, node: cst.Call, candidates: Iterable[Tuple[Mapping[str, Any], int]]) -> None:
        """An op whose input was just moved to the CPU runs no CUDA kernel (spec: "no
        deterministic CUDA implementation"; ``ctc_loss``'s advice is this move)."""
        if not candidates:
            return
        subject = self._subject(node)
        super().consider(node, [
            (entry, shift) for entry, shift in candidates
            if (entry["api"].rsplit(".", 1)[-1][:1].isupper() or subject is None or not self._is_on_cpu(subject))
            and not (entry.get("device") == "cpu" and subject is not None and self._may_be_on_gpu(subject))
        ])

    def _may_be_on_gpu(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """A tensor the code may have put on a GPU: ``x.cuda()``, ``x.to(device)`` (any move
        but to the CPU), a torch constructor given a ``device`` other than the CPU
        (``torch.zeros(n, device=device)``), an index or method chain of one, or a name the
        file assigns one.  An entry whose non-determinism is its CPU kernel's
        (``index_put_(..., accumulate=True)``: its CUDA kernel sorts the indices and adds in
        order) is not reported on it."""
        while depth < 8:  # (``type() is``: none of these classes has subclasses)
            depth += 1
            if type(node) is cst.Call:
                call = node
                if type(call.func) is cst.Attribute:
                    method = call.func.attr.value
                    if method in self.cpu_methods:
                        return False
                    if method in self.move_methods and method != "type":
                        return not self._moves_to_cpu(call)
                name = self.ctx.qualname(call.func)
                if name is not None and name.startswith("torch."):
                    device = find_arg(call, "device", None)
                    if device is None:
                        return False
                    if isinstance(device, cst.Call) and self.ctx.qualname(device.func) in self.device_calls:
                        device = find_arg(device, "type", 0)
                    return not (isinstance(device, cst.SimpleString) and device.evaluated_value in self.cpu_devices)
                if type(call.func) is not cst.Attribute:
                    return False
                node = call.func.value
            elif type(node) is cst.Subscript:
                node = node.value
            elif type(node) is cst.Name:
                value = self.values.get(node.value)
                if value is None or value is node:
                    return False
                node = value
            else:
                return False
        return False

    def _subject(self, node: cst.Call) -> Optional[cst.BaseExpression]:
        """The tensor an op works on: a tensor method's receiver, else its first argument."""
        if self.ctx.qualname(node.func) is None and isinstance(node.func, cst.Attribute):
            return node.func.value
        return find_arg(node, "input", 0)

    def _positions(self, function: cst.FunctionDef) -> Dict[str, Optional[int]]:
        """A function's parameters and the positions a call fills them at: a method's
        instance (or class) is not among a call's arguments."""
        params = function.params
        positional = [param.name.value for param in (*params.posonly_params, *params.params)]
        block = self.ctx.parent(function)
        method = block is not None and isinstance(self.ctx.parent(block), cst.ClassDef) and not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators
        )
        found: Dict[str, Optional[int]] = {name: i - method for i, name in enumerate(positional) if i >= method}
        found.update((param.name.value, None) for param in params.kwonly_params)
        return found

    def carries_no_gradient(self, value: cst.BaseExpression) -> bool:
        return self._carries_no_gradient(value)

    def parameter_of(self, node: cst.Call) -> Optional[Argument]:
        """The input (``_subject``) followed through method chains and indexing to a
        parameter of the function around that the function never rebinds."""
        subject = self._subject(node)
        while subject is not None:
            if type(subject) is cst.Call and type(subject.func) is cst.Attribute and self.ctx.qualname(subject.func) is None:
                subject = subject.func.value
            elif type(subject) is cst.Subscript:
                subject = subject.value
            elif type(subject) is cst.Name and subject.value in self.parameters[-1]:
                bindings = self.scatter_facts.bindings.of(subject.value, self.ctx.ancestors)
                if bindings is None or any(binding.kind != "param" for binding in bindings):
                    return None
                return (subject.value, self.parameters[-1][subject.value])
            else:
                return None
        return None

    def _bound_without_gradient(self, value: cst.BaseExpression) -> bool:
        """Whether a name assigned ``value`` holds a tensor no gradient flows through:
        one that carries none (``_carries_no_gradient``), or a call's, an index's or an
        operator's result under ``torch.no_grad()`` (an op's result there does not require
        grad; a name or attribute bound as it is, one picked by ``a if c else b`` / ``a or
        b``, or a new ``nn.Parameter`` may still)."""
        if self._carries_no_gradient(value):
            return True
        if not self.no_grad_depth or type(value) not in _COMPUTED:
            return False
        return not (type(value) is cst.Call and self.ctx.qualname(value.func) in self.parameter_calls)

    def _carries_no_gradient(self, node: cst.BaseExpression) -> bool:
        """``x.detach()``, a tensor made from data (``torch.tensor(array)``, ``torch.load(f)``
        without ``requires_grad=True``), a module's ``.state_dict()``, a method chain or
        index of one (``x.detach().float()[0]``), an entry of a state-dict parameter
        (``state_dict["pos_embed"]``), or a name assigned one."""
        indexed = False
        while True:  # (``type() is``: none of these classes has subclasses)
            if type(node) is cst.Call:
                name = self.ctx.qualname(node.func)
                if name is not None:
                    if name not in self.fresh_calls:
                        return False
                    requires = find_arg(node, "requires_grad", None)
                    return requires is None or (type(requires) is cst.Name and requires.value == "False")
                if type(node.func) is not cst.Attribute:
                    return False
                if node.func.attr.value in self.detach_methods:
                    return True
                if node.func.attr.value in self.fresh_methods:
                    keep = find_arg(node, "keep_vars", None)
                    return keep is None or (type(keep) is cst.Name and keep.value == "False")
                node = node.func.value
            elif type(node) is cst.Subscript:
                node = node.value
                indexed = True
            else:
                return type(node) is cst.Name and (
                    node.value in self.gradient_free[-1] or (indexed and node.value in self.state_dicts[-1])
                )

    def gradient_may_flow(self, node: cst.Call, entry: Mapping[str, Any], shift: int) -> bool:
        """Not under ``torch.no_grad()`` / ``torch.inference_mode()``, and not on a
        detached input.  A layer (``nn.ReflectionPad2d(...)``) gets its input when called."""
        if entry["api"].rsplit(".", 1)[-1][:1].isupper():
            return True
        if self.no_grad_depth:
            return False
        subject = self._subject(node)
        return subject is None or not self._carries_no_gradient(subject)


class TensorFlowOps(OpCheck):
    """ND204: TensorFlow ops that are non-deterministic on GPU in the target version."""

    codes = ("ND204", "ND205")
    decides = ("ND204",)
    code = "ND204"
    framework = "tensorflow"
    switch = "tensorflow"
    raises_need_switch_off = True

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self.cpu_side = CpuSide.from_rule_data(ctx.rules[self.code].data)
        # where functions run is needed during the walk: one walk before it, shared with
        # the pipeline facts pass 2 follows across modules
        cpu = CpuSideCollector(self.cpu_side, ctx.qualname)
        facts = pipeline.FactsCollector(
            self.cpu_side.pipeline_methods, self.cpu_side.pipeline_keywords, ctx.qualname, ctx.module_name.split(".")[0],
        ) if self.code in ctx.enabled else None
        visit_tree(ctx.module, cpu, *([facts] if facts is not None else []))
        self.functions = cpu.functions()
        self.depth_on_cpu = 0  # enclosing functions that run in a tf.data pipeline
        self.summary_calls = frozenset(ctx.rules[self.code].data["no_gradient"].get("summary_calls", ()))
        self.summary_depth = 0  # enclosing summary calls: what their arguments compute is never differentiated
        self.depth_without_gradient = 0  # enclosing functions that get no gradient
        if facts is not None:
            ctx.facts.put(facts.facts())

    def function_of(self, node: cst.Call) -> str:
        return pipeline.enclosing_function(self.ctx.parent, node)

    def _canonical_name(self, expr: cst.BaseExpression) -> Optional[str]:
        name = self.ctx.qualname(expr)
        return canonical(name, self.table.aliases) if name is not None else None

    @classmethod
    def skipped(cls, project: Any, rules: RuleSet) -> Callable[[str, OpCandidate], bool]:
        hooks = frozenset(rules[cls.code].data["cpu_side"].get("framework_hooks", []))
        modules = [
            (record.path, record.module_name, facts)
            for record in project
            for facts in (record.facts.get(pipeline.PipelineFacts),) if facts is not None
        ]

        def lookup(name: str) -> Optional[str]:
            record = project.module(name)
            return record.path if record is not None else None

        units = {
            record.path: {unit: facts.refs for unit, facts in gpu.units.items()}
            for record in project
            for gpu in (record.facts.get(GpuModuleFacts),) if gpu is not None
        }
        index = pipeline.PipelineIndex(modules, hooks, lookup, units)
        return lambda path, candidate: index.runs_in_pipeline(path, candidate.function)

    def _records_summary(self, node: cst.Call) -> bool:
        return self._canonical_name(node.func) in self.summary_calls

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        self.summary_depth += self._records_summary(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        self.summary_depth -= self._records_summary(original_node)

    def in_gradient_free_context(self) -> bool:
        return self.summary_depth > 0

    def _enter(self, node: Union[cst.FunctionDef, cst.Lambda], step: int) -> None:
        self.depth_on_cpu += step * (node in self.functions.on_cpu)
        self.depth_without_gradient += step * (node in self.functions.without_gradient)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._enter(node, 1)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._enter(original_node, -1)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._enter(node, 1)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._enter(original_node, -1)

    def consider(self, node: cst.Call, candidates: Iterable[Tuple[Mapping[str, Any], int]]) -> None:
        """Ops of a ``tf.data`` function run on the CPU; a backward-only op on an input
        that gets no gradient, or in a function that gets none, never runs its backward."""
        if self.depth_on_cpu:
            return
        uses = self.data(self.code).get("integer_uses", {})
        kept = [
            (entry, shift)
            for entry, shift in candidates
            if not (
                exact_when_integer(entry) and integer_by_use(node, self.ctx.ancestors, uses, self._canonical_name)
            ) and not (
                entry.get("phase") == "backward"
                and (self.depth_without_gradient or self.summary_depth or (
                    not entry["api"].rsplit(".", 1)[-1][:1].isupper()  # a layer's input comes at its call
                    and carries_no_gradient(find_arg(node, None, 0, shift), self.ctx.qualname, self.cpu_side)
                ))
            )
        ]
        super().consider(node, kept)


class JaxScatter(OpCheck):
    """ND208: JAX scatter-add (``.at[].add()``, ``segment_sum``, ...) without
    ``--xla_gpu_deterministic_ops``."""

    codes = ("ND208", "ND205")
    decides = ("ND208",)
    code = "ND208"
    framework = "jax"
    switch = "xla_scatter"

    def visit_Call(self, node: cst.Call) -> None:
        self.consider(node, self.matches(node) or self.at_update(node))

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self.basic = BasicIndex.from_data(self.data(self.code).get("basic_index", {}))
        self.flag_values = FlagValues.from_data(self.data(self.code).get("flag_values", {}))
        self.flag_facts = FlagFacts(ctx.qualname, ScopeBindings(ctx.parent), ctx.parent, self.flag_values)

    def consider(self, node: cst.Call, candidates: Iterable[Tuple[Mapping[str, Any], int]]) -> None:
        super().consider(node, [(entry, shift) for entry, shift in candidates if not self.sums_flags(node, entry, shift)])

    def sums_flags(self, call: cst.Call, entry: Mapping[str, Any], shift: int) -> bool:
        """A sum that starts at zero (``segment_sum``) of 0s and 1s is a count: exact in
        any order (``FlagFacts``)."""
        return entry["id"] in self.flag_values.sums and self.flag_facts.flags(self.accumulator(call, entry, shift), self.ctx.ancestors)

    def at_update(self, call: cst.Call) -> List[Tuple[Mapping[str, Any], int]]:
        """``x.at[idx].add(v)``: the ``.at`` property of a JAX array (syntax, in a file
        that imports JAX).  Integer literals added are exact, and a basic index
        (``x.at[0:4, i].add(v)``) updates each element once: neither is reported."""
        func = call.func
        if not (self.framework_imported and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript)):
            return []
        at = func.value.value
        if not (isinstance(at, cst.Attribute) and at.attr.value == "at") or dotted_name(at) and self.ctx.qualname(at):
            return []
        entries = self.table.by_method.get(f".at[].{func.attr.value}", [])
        if not entries:
            return []
        value = literal_value(find_arg(call, None, 0), self.ctx.qualname)
        if isinstance(value, int):  # bool included: exact either way
            return []
        if self.scatter_facts.basic_index(func.value, self.basic):
            return []
        return [(entry, 0) for entry, _ in entries]


CHECKS = [TorchOps, TensorFlowOps, JaxScatter]
