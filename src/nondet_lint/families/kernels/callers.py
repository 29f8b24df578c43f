"""Who uses a top-level function of the project, and what its calls give it (the op
rules' questions about the callers of the function an op is in).

The units that refer to a function are found from the reach facts of ``GpuModuleFacts``
(what each unit refers to, reads or stores), matched by the last part of the name: two
functions of one name count together, which can only keep a finding.  Pass 1 records,
per unit, the arguments its calls give each name (``GivenArguments``): an op under ``if
do_colors:``, with ``do_colors=False`` by default, runs only where a call gives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, cast

import libcst as cst

from nondet_lint.analysis.fieldsettings import required_set
from nondet_lint.callargs import literal_value
from nondet_lint.facts import ModuleFact
from nondet_lint.families.kernels.gpu import ProgramView
from nondet_lint.families.kernels.reach import MAIN_UNIT, MODULE_UNIT, UnitFacts, UnitKey

ALL_POSITIONS = 1 << 16  # a call with ``*args`` may fill any position


def used_name(node: cst.BaseExpression) -> str:
    """The name a call or an argument uses: ``f`` for ``f`` and ``util.f``; "" otherwise."""
    kind = type(node)  # (neither class has subclasses; isinstance() on libcst's ABCs costs more)
    if kind is cst.Name:
        return cast(cst.Name, node).value
    if kind is cst.Attribute:
        return cast(cst.Attribute, node).attr.value
    return ""


def _referred_names(unit: UnitFacts) -> Iterable[str]:
    """The last part of every name a unit refers to, reads or stores (its reach facts)."""
    for group in (unit.refs, unit.listed, unit.bases, unit.called, unit.data_reads, unit.self_reads, unit.lookup_calls):
        for name in group:
            yield name.rsplit(".", 1)[-1]
    for typed in unit.typed_reads:
        yield typed.rsplit(":", 1)[-1]
    for table in (unit.stored, unit.bound):
        for names in table.values():
            for name in names:
                yield name.rsplit(".", 1)[-1]


def referrers(view: ProgramView, key: UnitKey) -> List[UnitKey]:
    """The units of the project, other than ``key`` itself, that refer to something of
    its name (the index is built once per view)."""
    index = view.memo.get("referrers")
    if index is None:
        found: Dict[str, Set[UnitKey]] = {}
        for path, facts in view.facts.items():
            for unit_name, unit in facts.units.items():
                for name in _referred_names(unit):
                    found.setdefault(name, set()).add((path, unit_name))
        index = view.memo["referrers"] = {name: tuple(sorted(keys)) for name, keys in found.items()}
    return [other for other in index.get(key[1], ()) if other != key]


def is_top_level_function(view: ProgramView, key: UnitKey) -> bool:
    """Whether the unit is a function at the top of its module (not a class or a method)."""
    path, name = key
    units = view.facts[path].units if path in view.facts else {}
    return (
        name not in (MODULE_UNIT, MAIN_UNIT) and "." not in name and name in units
        and not any(other.startswith(name + ".") for other in units)
    )


def every_use(view: ProgramView, key: UnitKey, holds: Callable[[UnitKey], bool]) -> bool:
    """Whether the top-level function ``key`` is referred to and ``holds`` for every unit
    that refers to it (a function nothing refers to may be called from anywhere, with
    anything: looked up by a string, or by code outside the project)."""
    if not is_top_level_function(view, key):
        return False
    users = referrers(view, key)
    return bool(users) and all(holds(user) for user in users)


def called_name(view: ProgramView, key: UnitKey) -> Optional[str]:
    """The name the project's code calls the unit by: a top-level function's, or that of
    a method of a top-level class with no base class (``TSDF.integrate_tsdf``), other
    than a dunder: no library calls its methods, so the units that refer to the name are
    all its callers.  None for anything else (a ``Module``'s ``forward`` runs when the
    module is called)."""
    if is_top_level_function(view, key):
        return key[1]
    path, name = key
    owner, _, method = name.partition(".")
    units = view.facts[path].units if path in view.facts else {}
    cls = units.get(owner)
    if (
        cls is None or not method or "." in method or method.startswith("__") or cls.bases
        or name not in units or any(other.startswith(name + ".") for other in units)
    ):
        return None
    return method


def every_call(view: ProgramView, key: UnitKey, holds: Callable[[UnitKey, str], bool]) -> bool:
    """Whether a function or a method of a base-less class (``called_name``) is referred
    to and ``holds`` for every unit that refers to its name (a method nothing refers to
    may be looked up by a string)."""
    name = called_name(view, key)
    if name is None:
        return False
    users = referrers(view, (key[0], name))
    return bool(users) and all(holds(user, name) for user in users if user != key)


# ---------------------------------------------------------------- the arguments calls give ----
@dataclass(frozen=True)
class Given:
    """What a unit's calls of one name give it, all together: the most positional
    arguments one passes, and the keywords given a value other than a false literal."""

    positional: int
    keywords: Tuple[str, ...]

    def sets(self, parameter: str, position: Optional[int]) -> bool:
        return parameter in self.keywords or (position is not None and self.positional > position)


@dataclass(frozen=True)
class GivenArguments(ModuleFact):
    """Per unit of a module: per name it calls, what its calls give (``Given``)."""

    key = "given_arguments"

    by_unit: Mapping[str, Mapping[str, Given]] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"by_unit": {unit: {name: [given.positional, list(given.keywords)] for name, given in calls.items()}
                            for unit, calls in self.by_unit.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GivenArguments":
        return cls({unit: {name: Given(int(given[0]), tuple(given[1])) for name, given in calls.items()}
                    for unit, calls in data.get("by_unit", {}).items()})


def _false_literal(node: cst.BaseExpression) -> bool:
    """``None``, ``False``, ``0``, ``""``: a default or an argument that leaves a branch shut."""
    if type(node) is cst.Name and node.value == "None":  # (an ABC's isinstance() costs much when it fails)
        return True
    value = literal_value(node, lambda _: None)
    return isinstance(value, (bool, int, str)) and not value


class GivenArgumentsCounter:
    """Collects ``GivenArguments`` from the calls of a module as the walk meets them."""

    def __init__(self) -> None:
        self.calls: Dict[str, Dict[str, Tuple[int, Set[str]]]] = {}

    def note(self, unit: str, call: cst.Call) -> None:
        name = used_name(call.func)
        if not name:
            return
        calls = self.calls.get(unit)
        if calls is None:
            calls = self.calls[unit] = {}
        positional, keywords = calls.get(name) or (0, set())
        count = 0
        for arg in call.args:
            if arg.star:
                count = ALL_POSITIONS
            elif arg.keyword is None:
                count += 1
            elif not _false_literal(arg.value):
                keywords.add(arg.keyword.value)
        calls[name] = (max(positional, count), keywords)

    def note_handed_on(self, unit: str, name: str) -> None:
        """A name handed on as a value (``map(f, xs)``) may be called with anything."""
        if name:
            keywords = self.calls.setdefault(unit, {}).get(name, (0, set()))[1]
            self.calls[unit][name] = (ALL_POSITIONS, keywords)

    def fact(self) -> Optional[GivenArguments]:
        if not self.calls:
            return None
        return GivenArguments({
            unit: {name: Given(positional, tuple(sorted(keywords))) for name, (positional, keywords) in sorted(calls.items())}
            for unit, calls in sorted(self.calls.items())
        })


Gate = Tuple[Tuple[str, Optional[int]], ...]  # (parameter, its position; None: keyword-only)


def parameter_gate(ancestors: Sequence[cst.CSTNode]) -> Gate:
    """The parameters of the top-level function around a node that the branches around it
    (up to that function) require true or not None, each defaulting to a false literal
    (``def f(x, do_colors=False)`` with the node under ``if do_colors:``): the code there
    runs only where a call gives one of them."""
    function = next((node for node in ancestors if isinstance(node, (cst.FunctionDef, cst.ClassDef))), None)
    if not isinstance(function, cst.FunctionDef):
        return ()
    start = next(i for i, node in enumerate(ancestors) if node is function)
    required: Set[str] = set()
    for index in range(start + 1, len(ancestors) - 1):
        node = ancestors[index]
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return ()
        if isinstance(node, (cst.If, cst.IfExp)) and ancestors[index + 1] is node.body:
            required.update(required_set(node.test, _plain_name))
    params = function.params
    positions = {param.name.value: i for i, param in enumerate((*params.posonly_params, *params.params))}
    gate = []
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value in required and param.default is not None and _false_literal(param.default):
            gate.append((param.name.value, positions.get(param.name.value)))
    return tuple(sorted(gate, key=lambda item: item[0]))


def _plain_name(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, cst.Name):
        yield node.value


def gate_never_opened(view: ProgramView, key: UnitKey, gate: Gate) -> bool:
    """Whether every use of the top-level function ``key`` is a call that leaves the
    gate's parameters at their false defaults (a function nothing refers to may be
    called with anything)."""
    def leaves_it_closed(user: UnitKey) -> bool:
        path, unit = user
        record = view.records.get(path)
        given_facts = record.facts.get(GivenArguments) if record is not None else None
        given = given_facts.by_unit.get(unit, {}).get(key[1]) if given_facts is not None else None
        return given is not None and not any(given.sets(parameter, position) for parameter, position in gate)

    return bool(gate) and every_use(view, key, leaves_it_closed)
