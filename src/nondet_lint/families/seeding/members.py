"""ND108: an estimator that is only the template of a seeded ensemble's members.

scikit-learn's ensembles that take an estimator (``BaggingClassifier(estimator=...)``,
``AdaBoostClassifier``, and those built on them) never fit the estimator they are given:
each member is a clone of it whose every ``random_state`` parameter, nested ones
included, the ensemble sets from its own RNG (``BaseEnsemble._make_estimator`` calls
``_set_random_states``).  The template's own ``random_state`` is never used, so an
unseeded estimator that only reaches such an argument is not a finding when the ensemble
decides its members' seeds: its ``random_state`` is set, or the ensemble is itself an
ND108 call (reported in its place when unseeded).  Which ensembles and arguments do this
is rule data (``[[ND108.data.seeds_members]]``).

The estimator may reach the argument directly or inside a pipeline or list
(``estimator=make_pipeline(SelectKBest(), DecisionTreeClassifier())``), through a local
name, a loop variable or a ``pytest.mark.parametrize`` parameter, as long as every read
of that name reaches such an argument or only inspects the object (``hasattr``,
``isinstance``, a parameter read to be compared).  Everything is syntactic and stays in one module; a name read anywhere
else (another scope, a method call, any other function) keeps the finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex, read_in_nested
from nondet_lint.callargs import find_arg, literal_value

MAX_DEPTH = 4  # names passed on to names passed on ...
_CONTAINERS = (cst.List, cst.Tuple, cst.Set)


@dataclass(frozen=True)
class MemberArgument:
    """An argument of an ensemble whose value is cloned into every member."""

    kw: str
    pos: Optional[int] = None


@dataclass(frozen=True)
class MemberTables:
    """``[ND108.data]``: the ensembles that seed their members, and the calls a name may
    reach without being used (``inspections``) or that bind it (``parametrize``)."""

    ensembles: Mapping[str, Tuple[MemberArgument, ...]]
    parametrize: FrozenSet[str]
    inspections: FrozenSet[str]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "MemberTables":
        ensembles: Dict[str, Tuple[MemberArgument, ...]] = {}
        for entry in data.get("seeds_members", ()):
            arguments = tuple(MemberArgument(a["kw"], a.get("pos")) for a in entry.get("arguments", ()))
            for name in entry["names"]:
                ensembles[name] = arguments
        return cls(ensembles, frozenset(data.get("parametrize", ())), frozenset(data.get("inspections", ())))


@dataclass(frozen=True)
class _Step:
    """One container the value was climbed out of, and the value's index in it."""

    container: cst.CSTNode
    index: int


class MemberTemplates:
    """Whether a call's value is only ever a member template of a seeding ensemble.

    Asked at the end of a module's walk, when every node's parent is known."""

    def __init__(self, tables: MemberTables, reported: Callable[[str], bool],
                 qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 index_for: Callable[[cst.CSTNode], ScopeIndex]) -> None:
        self.t = tables
        self.reported = reported  # an ND108 API: reported itself when unseeded
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for

    def seeded_by_ensemble(self, call: cst.Call) -> bool:
        return bool(self.t.ensembles) and self._reaches_member(call, 0) is True

    # ---- climbing from a value to where it goes -------------------------------------
    def _reaches_member(self, value: cst.CSTNode, depth: int) -> Optional[bool]:
        """True: the value is a member template of an ensemble that seeds its members;
        False: it goes somewhere else; None: it only meets an inspection."""
        node = value
        steps: List[_Step] = []
        while True:
            parent = self.parent(node)
            if isinstance(parent, cst.Element) and parent.value is node:
                container = self.parent(parent)
                if not isinstance(container, _CONTAINERS):
                    return False
                steps.append(_Step(container, _index_of(container.elements, parent)))
                node = container
                continue
            if isinstance(parent, cst.DictElement) and parent.value is node:
                container = self.parent(parent)
                if not isinstance(container, cst.Dict):
                    return False
                node = container
                continue
            if isinstance(parent, cst.Arg) and parent.value is node and not parent.star:
                call = self.parent(parent)
                if not isinstance(call, cst.Call):
                    return False
                name = self.qualname(call.func)
                if name is None:
                    return False
                if name in self.t.ensembles:
                    if _is_member_argument(call, parent, self.t.ensembles[name]):
                        return self._decides_seeds(call, name)
                    return False  # data or a setting of the ensemble, not its members
                if name in self.t.inspections and node is value and not steps:
                    return None
                if name in self.t.parametrize:
                    return self._parametrized(call, parent, steps, depth)
                node = call  # a pipeline, a list of steps: the estimator stays a parameter
                steps = []
                continue
            if isinstance(parent, cst.Attribute) and parent.value is node and node is value:
                compared = self.parent(parent)
                # ``estimator.n_estimators == 3``: a parameter read to be compared
                return None if isinstance(compared, (cst.Comparison, cst.ComparisonTarget)) else False
            break
        if depth >= MAX_DEPTH:
            return False
        if isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1:
            target = parent.targets[0].target
            if isinstance(target, cst.Name):
                return self._name_reaches(target, depth)
        if isinstance(parent, cst.For) and parent.iter is node and steps and isinstance(parent.target, cst.Name):
            return self._name_reaches(parent.target, depth)
        return False

    def _decides_seeds(self, call: cst.Call, name: str) -> bool:
        """The ensemble's ``random_state`` is set (not None), or the ensemble is reported
        in the template's place when it is not."""
        state = find_arg(call, "random_state", None)
        if state is not None:
            return literal_value(state, self.qualname) is not None
        return self.reported(name)

    def _parametrized(self, call: cst.Call, arg: cst.Arg, steps: Sequence[_Step], depth: int) -> bool:
        """A value among ``pytest.mark.parametrize``'s argument values: the decorated
        function's parameter of that name is where it goes."""
        if find_arg(call, "argvalues", 1) is not arg.value or not steps or depth >= MAX_DEPTH:
            return False
        names = _argnames(find_arg(call, "argnames", 0))
        if not names:
            return False
        if len(names) == 1:
            name = names[0]
        elif len(steps) >= 2 and isinstance(steps[-2].container, (cst.Tuple, cst.List)) and steps[-2].index < len(names):
            name = names[steps[-2].index]  # one element of a row of several parameters
        else:
            return False
        decorator = self.parent(call)
        function = self.parent(decorator) if isinstance(decorator, cst.Decorator) else None
        if not isinstance(function, cst.FunctionDef):
            return False
        index = self.index_for(function.body)
        bindings = index.bindings_of(name)
        if len(bindings) != 1 or bindings[0].kind != "param":
            return False
        return self._reads_reach(index, function, name, depth)

    def _name_reaches(self, target: cst.Name, depth: int) -> bool:
        index = self.index_for(target)
        if len(index.bindings_of(target.value)) != 1:
            return False  # a rebound name: which value a read sees depends on the path
        return self._reads_reach(index, index.scope, target.value, depth)

    def _reads_reach(self, index: ScopeIndex, scope: cst.CSTNode, name: str, depth: int) -> bool:
        """Every read of ``name`` in its scope reaches a member argument or only inspects
        it, at least one does, and no nested function or class reads it."""
        if read_in_nested(scope, name):
            return False
        found = False
        for load in index.loads.get(name, ()):
            reaches = self._reaches_member(load, depth + 1)
            if reaches is False:
                return False
            found = found or reaches is True
        return found


def _index_of(elements: Sequence[cst.BaseElement], element: cst.CSTNode) -> int:
    return next(i for i, e in enumerate(elements) if e is element)


def _is_member_argument(call: cst.Call, arg: cst.Arg, arguments: Sequence[MemberArgument]) -> bool:
    if arg.keyword is not None:
        return any(arg.keyword.value == a.kw for a in arguments)
    return any(a.pos is not None and find_arg(call, None, a.pos) is arg.value for a in arguments)


def _argnames(node: Optional[cst.BaseExpression]) -> List[str]:
    """``"a, b"`` or ``("a", "b")``: the parameter names ``parametrize`` binds."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return [n.strip() for n in value.split(",")] if isinstance(value, str) else []
    if isinstance(node, (cst.List, cst.Tuple)):
        names = [e.value.evaluated_value for e in node.elements if isinstance(e.value, cst.SimpleString)]
        return [n for n in names if isinstance(n, str)] if len(names) == len(node.elements) else []
    return []
