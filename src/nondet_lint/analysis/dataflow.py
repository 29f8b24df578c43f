"""A small intra-function data-flow helper for the data rules (ND301, ND302, ND304, ND305).

The question these rules ask is "does the order of this value end up mattering?" (a
directory listing, a set of strings, a shuffled permutation), and the answer lives in
the few statements after it in the same function: assigned to a name, sorted two lines
later, appended to a list in a loop, passed to a dataset.  ``ScopeIndex`` records, in
source order, where each name of one scope (a function, a class body or the module) is
bound and read; ``OrderFlow`` follows a value through its uses until its order is
dropped (``sorted``, ``len``, a set, a membership test), kept (a list that is returned,
stored, indexed or handed to a function; a loop that appends, yields or numbers), or
the trail is lost.  Everything is syntactic, no code runs, and nested functions are
separate scopes: a value that escapes into one is not followed.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Type, TypeVar, Union, cast

import libcst as cst

from nondet_lint.names import dotted_name
from nondet_lint.walk import children, nodes_in

SCOPE_TYPES = (cst.Module, cst.FunctionDef, cst.ClassDef)
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_BLOCK_TYPES = (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_COMPREHENSION_TYPES = frozenset(_COMPREHENSIONS)
_NESTED_TYPES = frozenset(_NESTED)
_NOT_READ_TYPES = frozenset((cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal))
_BINDING_TYPES = frozenset((
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.WithItem, cst.NamedExpr,
    cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom,
))
NodeT = TypeVar("NodeT", bound=cst.CSTNode)
_ValueHolder = Union[cst.Attribute, cst.Arg]  # nodes whose ``value`` is the only part read
SEQ = "seq"  # an ordered sequence (list, iterator) whose order came from the source
SET = "set"  # a set: iterating it yields an order, keeping it as a set does not


@dataclass(frozen=True)
class Binding:
    """``name`` bound at ``target`` by ``statement``; ``value`` is what it was bound to
    (None when unknown: a loop variable, an unpacked element, a parameter)."""

    name: str
    target: cst.CSTNode
    value: Optional[cst.BaseExpression]
    statement: cst.CSTNode
    kind: str  # assign | augassign | for | comp | with | walrus | param | import | def


def _target_names(target: cst.CSTNode) -> Iterator[Tuple[cst.Name, Optional[int]]]:
    """Names a target binds, with their index when the target is a flat tuple."""
    if isinstance(target, cst.Name):
        yield target, None
    elif isinstance(target, (cst.Tuple, cst.List)):
        for index, element in enumerate(target.elements):
            inner = element.value
            if isinstance(inner, cst.Name):
                yield inner, index
            else:
                for name, _ in _target_names(inner):
                    yield name, None
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def statement_of(node: cst.CSTNode, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> cst.CSTNode:
    """The innermost (small or compound) statement holding ``node``."""
    current: Optional[cst.CSTNode] = node
    while current is not None and not isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
        current = parent(current)
    return current if current is not None else node


class ScopeIndex:
    """Source-ordered bindings and reads of the names of one scope."""

    def __init__(self, scope: cst.CSTNode, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 bindings_only: bool = False) -> None:
        self.scope = scope
        self.parent = parent
        self.order: Dict[int, int] = {}
        self.last: Dict[int, int] = {}  # id(node) -> order of its last descendant
        self.loads: Dict[str, List[cst.Name]] = {}
        self.bindings: Dict[str, List[Binding]] = {}
        self.calls: List[cst.Call] = []
        if bindings_only:
            self._index_bindings(scope)
        else:
            self._index(scope)

    # ---- building -----------------------------------------------------------------
    def _bind(self, name: cst.Name, value: Optional[cst.BaseExpression], statement: cst.CSTNode, kind: str) -> None:
        self.bindings.setdefault(name.value, []).append(Binding(name.value, name, value, statement, kind))

    def _bind_target(self, target: cst.CSTNode, value: Optional[cst.BaseExpression], statement: cst.CSTNode, kind: str) -> None:
        elements = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
        for name, index in _target_names(target):
            inner = value if index is None and isinstance(target, cst.Name) else None
            if elements is not None and index is not None and index < len(elements) and not isinstance(elements[index], cst.StarredElement):
                inner = elements[index].value
            self._bind(name, inner, statement, kind)

    def _bind_parameters(self, scope: cst.CSTNode, stores: Set[int]) -> None:
        if isinstance(scope, cst.FunctionDef):
            params = scope.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                self._bind(param.name, None, scope, "param")
                stores.add(id(param.name))
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    self._bind(star.name, None, scope, "param")
                    stores.add(id(star.name))

    def _index_bindings(self, scope: cst.CSTNode) -> None:
        """Only ``bindings``, in the order ``_index`` finds them (what ``ScopeBindings``
        asks for): the same walk without positions, reads and calls, at half its cost."""
        stores: Set[int] = set()
        self._bind_parameters(scope, stores)
        body_root = scope.body if isinstance(scope, (cst.FunctionDef, cst.ClassDef)) else scope
        stack: List[cst.CSTNode] = [body_root]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _BINDING_TYPES:
                self._record(node, stores)
            if (kind in _NESTED_TYPES and node is not body_root) or kind in _NOT_READ_TYPES:
                stack.extend(d.decorator for d in reversed(getattr(node, "decorators", ())))
                continue
            if kind is cst.Attribute or kind is cst.Arg:
                stack.append(cast(_ValueHolder, node).value)
            else:
                stack.extend(reversed(children(node)))

    def _index(self, scope: cst.CSTNode) -> None:
        counter = 0
        stores: Set[int] = set()
        self._bind_parameters(scope, stores)
        body_root = scope.body if isinstance(scope, (cst.FunctionDef, cst.ClassDef)) else scope
        stack: List[Tuple[cst.CSTNode, bool]] = [(body_root, False)]
        comprehension_names: List[Set[str]] = []  # names local to the comprehensions we are in
        # node types are compared exactly (``type(node) in``), not with isinstance(): the
        # parser builds only these concrete classes, and isinstance() against libcst's
        # abstract classes cost more than the rest of this loop
        while stack:
            node, leaving = stack.pop()
            kind = type(node)
            if leaving:
                self.last[id(node)] = counter
                if kind in _COMPREHENSION_TYPES:
                    comprehension_names.pop()
                continue
            counter += 1
            self.order[id(node)] = counter
            if kind in _COMPREHENSION_TYPES:
                comprehension_names.append(self._comprehension_targets(node, stores))
            # cast() below: the exact type was just tested (mypy does not follow ``type(x) is``)
            if kind is cst.Name:
                name = cast(cst.Name, node)
                if any(name.value in names for names in comprehension_names):
                    stores.add(id(name))  # the comprehension's own variable, not the scope's
                elif id(name) not in stores:
                    self.loads.setdefault(name.value, []).append(name)
            elif kind is cst.Call:
                self.calls.append(cast(cst.Call, node))
            elif kind in _BINDING_TYPES:
                self._record(node, stores)
            stack.append((node, True))
            if (kind in _NESTED_TYPES and node is not body_root) or kind in _NOT_READ_TYPES:
                # a nested scope binds only its name here, and its decorators are read
                # here (``@pytest.mark.parametrize("f", FILES)``); imports bind, never read
                decorators = getattr(node, "decorators", ())
                stack.extend((d.decorator, False) for d in reversed(decorators))
                continue
            if kind is cst.Attribute or kind is cst.Arg:
                stack.append((cast(_ValueHolder, node).value, False))
            else:
                stack.extend((kid, False) for kid in reversed(children(node)))

    @staticmethod
    def _comprehension_targets(node: cst.CSTNode, stores: Set[int]) -> Set[str]:
        names: Set[str] = set()
        comp_for = getattr(node, "for_in", None)
        while isinstance(comp_for, cst.CompFor):
            for name, _ in _target_names(comp_for.target):
                names.add(name.value)
            comp_for = comp_for.inner_for_in
        return names

    def _record(self, node: cst.CSTNode, stores: Set[int]) -> None:
        """The names a binding statement (one of ``_BINDING_TYPES``) binds."""
        targets: List[Tuple[cst.CSTNode, Optional[cst.BaseExpression], str]] = []
        if isinstance(node, cst.Assign):
            targets = [(t.target, node.value, "assign") for t in node.targets]
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            targets = [(node.target, node.value, "assign")]
        elif isinstance(node, cst.AugAssign):
            targets = [(node.target, node.value, "augassign")]
        elif isinstance(node, cst.For):
            targets = [(node.target, None, "for")]
        elif isinstance(node, cst.CompFor):
            targets = [(node.target, None, "comp")]
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = [(node.asname.name, node.item, "with")]
        elif isinstance(node, cst.NamedExpr):
            targets = [(node.target, node.value, "walrus")]
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not self.scope:
            self._bind(node.name, None, node, "def")
            stores.add(id(node.name))
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                bound: cst.BaseExpression = alias.asname.name if alias.asname is not None else alias.name
                while isinstance(bound, cst.Attribute):
                    bound = bound.value
                if isinstance(bound, cst.Name):
                    self._bind(bound, None, node, "import")
                    stores.add(id(bound))
                self._mark_stores(alias.name, stores)
        for target, value, kind in targets:
            if kind != "augassign":  # ``x += y`` reads x too
                self._mark_stores(target, stores)
            self._bind_target(target, value, node, kind)

    @staticmethod
    def _mark_stores(target: cst.CSTNode, stores: Set[int]) -> None:
        if isinstance(target, cst.Name):
            stores.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                ScopeIndex._mark_stores(element.value, stores)
        elif isinstance(target, cst.StarredElement):
            ScopeIndex._mark_stores(target.value, stores)
        elif isinstance(target, cst.Attribute):
            ScopeIndex._mark_stores(target.attr, stores)

    # ---- queries ------------------------------------------------------------------
    def position(self, node: cst.CSTNode) -> int:
        return self.order.get(id(node), 0)

    def end(self, node: cst.CSTNode) -> int:
        return self.last.get(id(node), self.position(node))

    def contains(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        return self.position(outer) <= self.position(node) <= self.end(outer) and id(outer) in self.order

    def block_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        current = self.parent(node)
        while current is not None and not isinstance(current, _BLOCK_TYPES):
            current = self.parent(current)
        return current

    def _dominates(self, rebinding: Binding, original: cst.CSTNode) -> bool:
        """Whether a later binding replaces the value on every path (same or outer block)."""
        return self.block_holds(rebinding.statement, original)

    def block_holds(self, statement: cst.CSTNode, node: cst.CSTNode) -> bool:
        """Whether the block of ``statement`` holds ``node`` (directly or in an inner block)."""
        block = self.block_of(statement)
        current = self.block_of(node)
        while current is not None:
            if current is block:
                return True
            current = self.block_of(current)
        return False

    def bindings_of(self, name: str) -> List[Binding]:
        return self.bindings.get(name, [])

    def reads_after(self, name: str, statement: cst.CSTNode, within: Optional[cst.CSTNode] = None) -> List[cst.Name]:
        """Reads of ``name`` after ``statement`` until a later binding replaces the value
        (reads in that binding's own value still count); only inside ``within`` if given."""
        start = self.end(statement)
        stop = None
        shadows = []  # later bindings on some paths: reads after them in their block see them
        for binding in self.bindings_of(name):
            if binding.kind in ("augassign", "param", "import", "def", "comp"):
                continue
            at = self.position(binding.statement)
            if at <= start:
                continue
            if self._dominates(binding, statement):
                stop = self.end(binding.statement) if stop is None else min(stop, self.end(binding.statement))
            else:
                shadows.append(binding)
        out = []
        for load in self.loads.get(name, ()):
            at = self.position(load)
            if at <= start or (stop is not None and at > stop):
                continue
            if within is not None and not self.contains(within, load):
                continue
            if any(self._shadowed_by(binding, load) for binding in shadows):
                continue
            out.append(load)
        return out

    def _shadowed_by(self, binding: Binding, load: cst.Name) -> bool:
        block = self.block_of(binding.statement)
        return block is not None and self.position(load) > self.end(binding.statement) and self.contains(block, load)

    def reaching(self, load: cst.Name) -> Optional[Binding]:
        """The binding of ``load``'s name that last took effect before it, in source order
        (``ds = ds.shuffle(n)``: the ``ds`` read on the right is the earlier one)."""
        at = self.position(load)
        best: Optional[Binding] = None
        best_at = -1
        for binding in self.bindings_of(load.value):
            effect = self._effect(binding)
            if effect < at and effect >= best_at:
                best, best_at = binding, effect
        return best

    def _effect(self, binding: Binding) -> int:
        """Where a binding takes effect: after its statement (an assignment), at its target
        (a loop or ``with`` variable), at the start (a parameter)."""
        if binding.kind == "param":
            return 0
        if binding.kind in ("for", "comp", "with", "walrus", "import", "def"):
            return self.end(binding.target)
        return self.end(binding.statement)

    def single_value(self, name: str) -> Optional[cst.BaseExpression]:
        """The value a name is bound to when the scope binds it exactly once."""
        found = [b for b in self.bindings_of(name) if b.kind != "import"]
        if len(found) == 1 and found[0].kind in ("assign", "walrus", "with"):
            return found[0].value
        return None

    def nodes_within(self, outer: cst.CSTNode, types: Tuple[Type[NodeT], ...]) -> Iterator[NodeT]:
        """Descendants of ``outer`` of the given types, not entering nested scopes."""
        stack = list(reversed(children(outer)))
        while stack:
            node = stack.pop()
            if isinstance(node, types):
                yield node
            if isinstance(node, _NESTED):
                continue
            stack.extend(reversed(children(node)))


def read_in_nested(scope: cst.CSTNode, name: str) -> bool:
    """Whether a function, lambda or class inside ``scope`` mentions ``name`` (a closure
    may read it whenever it is called)."""
    body = scope.body if isinstance(scope, (cst.FunctionDef, cst.ClassDef)) else scope
    stack: List[Tuple[cst.CSTNode, bool]] = [(body, False)]
    while stack:
        node, nested = stack.pop()
        if nested and isinstance(node, cst.Name) and node.value == name:
            return True
        inner = nested or isinstance(node, _NESTED)
        stack.extend((kid, inner) for kid in children(node))
    return False


def enclosing_scope(node: cst.CSTNode, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> cst.CSTNode:
    """The function, class body or module whose names ``node`` reads."""
    current = parent(node)
    previous = node
    while current is not None:
        if isinstance(current, SCOPE_TYPES):
            if isinstance(current, cst.Module) or previous is getattr(current, "body", None):
                return current
        previous = current
        current = parent(current)
    return previous


@dataclass(frozen=True)
class OrderUse:
    """Where an order ends up mattering: ``node`` is the expression whose order is kept
    (for a set, the place where it was first iterated: ``convert``), ``reason`` a short
    phrase for the message."""

    node: cst.CSTNode
    reason: str
    convert: Optional[cst.CSTNode] = None


@dataclass(frozen=True)
class FlowTables:
    """The API knowledge the flow needs (from rule data): qualified names of calls that
    drop order (``sorted``, ``len``, ``set``), pass it on (``list``, ``zip``, ``enumerate``),
    depend on it (``np.array``, ``json.dump``, a ``...Dataset``), or make a set; method
    names that accumulate in order (``append``, ``write``)."""

    order_free: FrozenSet[str]
    order_keeping: FrozenSet[str]
    order_sensitive: FrozenSet[str]
    order_sensitive_suffixes: FrozenSet[str]
    set_makers: FrozenSet[str]
    accumulate_methods: FrozenSet[str]
    output_methods: FrozenSet[str]
    neutral_methods: FrozenSet[str]
    set_methods: FrozenSet[str]
    key_reducers: FrozenSet[str]
    resorting_methods: FrozenSet[str]
    disposal_calls: FrozenSet[str]
    disposal_methods: FrozenSet[str]
    archive_types: FrozenSet[str]
    length_asserts: FrozenSet[str]
    basename_calls: FrozenSet[str] = frozenset()  # ``os.path.basename(entry)``: an entry's own name
    name_attributes: FrozenSet[str] = frozenset()  # ``entry.name`` of a ``DirEntry`` / ``Path``
    folder_listings: FrozenSet[str] = frozenset()  # list one folder: each name once
    pattern_listings: FrozenSet[str] = frozenset()  # list what a pattern matches: one folder if only its last part has wildcards
    key_sorts: FrozenSet[str] = frozenset()  # ``np.argsort(keys)``: positions in the order of their keys
    split_names: FrozenSet[str] = frozenset()  # ``"train" in folder``: a data split's folder, one per dataset root
    separators: FrozenSet[str] = frozenset()  # ``os.sep``: a pattern ending in one lists folders
    kept_first_picks: FrozenSet[str] = frozenset()  # ``.ckpt``: a kind a folder holds several of, picked in order
    openers: FrozenSet[str] = frozenset()  # ``open(path, "w")``: a stream of the file at its first argument

    @classmethod
    def from_data(cls, data: Mapping[str, Sequence[str]]) -> "FlowTables":
        return cls(*(frozenset(data.get(key, ())) for key in (
            "order_free", "order_keeping", "order_sensitive", "order_sensitive_suffixes", "set_makers", "accumulate_methods", "output_methods",
            "neutral_methods", "set_methods", "key_reducers", "resorting_methods", "disposal_calls", "disposal_methods", "archive_types",
            "length_asserts", "basename_calls", "name_attributes", "folder_listings", "pattern_listings", "key_sorts",
            "split_names", "separators", "kept_first_picks", "openers",
        )))

    def disposes(self, name: Optional[str]) -> bool:
        """A call that deletes, logs or uploads what it is given (``os.remove``, ``wandb.*``):
        whichever element reaches it, nothing is computed from it."""
        return name is not None and (name in self.disposal_calls or name.startswith(tuple(p for p in self.disposal_calls if p.endswith("."))))


class OrderFlow:
    """Follows a value whose order is arbitrary to the first place that keeps its order."""

    MAX_DEPTH = 12  # steps of a chain it follows (listing -> list() -> name -> + -> name -> comprehension -> return: 7)

    def __init__(self, tables: FlowTables, qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]], index_for: Callable[[cst.CSTNode], ScopeIndex],
                 call_sites: Callable[[cst.FunctionDef], List[cst.Call]] = lambda function: []) -> None:
        self.tables = tables
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for
        self.call_sites = call_sites
        self._active: Set[int] = set()  # functions whose callers are being followed
        # functions entered through a parameter (``_into_function``) and the call that
        # entered them: what they return or yield goes to that call's result
        self._entered: Dict[int, cst.Call] = {}
        # ``first_use_if_uncalled_drop``: top-level functions with no call in the module,
        # taken to hand their result to nobody, and the ones that were
        self._uncalled_drop = False
        self._assumed_uncalled: Set[str] = set()
        # ``first_use_unless_shuffled``: in-place shuffles of a global RNG (name -> RNG)
        # taken to reorder the value, and the RNGs of those met
        self._shuffles: Mapping[str, str] = {}
        self._shuffled_by: Set[str] = set()
        # ``first_use_if_drained``: a generator handed to functions of other modules,
        # taken to drain it without keeping its order, and those functions' arguments;
        # ``_handed`` records every argument given to a function not of this module
        self._drain = False
        self._handed: List[Tuple[str, str]] = []
        self._assumed_drains: Set[Tuple[str, str]] = set()
        # ``lookups``: the first element of a sequence taken alone (``files[0]``,
        # ``next(listing)``) is a lookup of the one entry expected, not an order kept
        self._lookups = False

    @contextmanager
    def lookups(self, enabled: bool = True) -> Iterator[None]:
        """Within it, a sequence read only for its first element (``glob(p)[0]``,
        ``next(path.glob(p))``) keeps no order: the code looks up the one entry it
        expects there (ND301's docs say when a careful user wants it anyway).  A set
        made into a list is not a lookup: its first element changes from run to run."""
        before, self._lookups = self._lookups, enabled
        try:
            yield
        finally:
            self._lookups = before

    # ---- entry points ---------------------------------------------------------------
    def first_use(self, expr: cst.BaseExpression, kind: str = SEQ) -> Optional[OrderUse]:
        """Where the order of ``expr`` (a sequence in arbitrary order, or a set) is kept."""
        return self._follow(expr, kind, None, 0, set())

    def first_use_if_uncalled_drop(self, expr: cst.BaseExpression, kind: str = SEQ) -> Tuple[Optional[OrderUse], FrozenSet[str]]:
        """``first_use`` where a top-level, undecorated function that nothing in the module
        calls hands its result to nobody, and the names of the functions so taken: when
        the order is then not kept, it is kept only if another module calls them (a
        question for the project)."""
        self._uncalled_drop, self._assumed_uncalled = True, set()
        try:
            return self._follow(expr, kind, None, 0, set()), frozenset(self._assumed_uncalled)
        finally:
            self._uncalled_drop = False

    def first_use_unless_shuffled(self, expr: cst.BaseExpression, shuffles: Mapping[str, str]) -> Tuple[Optional[OrderUse], FrozenSet[str]]:
        """``first_use`` where an in-place shuffle of a global RNG (``random.shuffle(files)``,
        ``shuffles`` maps its name to the RNG) reorders the value as a sort would, and the
        RNGs of the shuffles so taken: when that RNG is never seeded, the order that
        follows is random whatever the listing's order was."""
        self._shuffles, self._shuffled_by = shuffles, set()
        try:
            return self._follow(expr, SEQ, None, 0, set()), frozenset(self._shuffled_by)
        finally:
            self._shuffles = {}

    def first_use_if_drained(self, expr: cst.BaseExpression) -> Tuple[Optional[OrderUse], FrozenSet[Tuple[str, str]]]:
        """``first_use`` where a generator whose values reach only functions of other
        modules (``build_vocab(gen())``) is taken to be drained by them without keeping
        its order, and those functions with the argument (a position or a keyword) that
        gets the values: whether they keep the order is a question for the project."""
        self._drain, self._handed, self._assumed_drains = True, [], set()
        try:
            return self._follow(expr, SEQ, None, 0, set()), frozenset(self._assumed_drains)
        finally:
            self._drain = False

    def parameter_use(self, function: cst.FunctionDef, param: str) -> Optional[OrderUse]:
        """Where ``function`` keeps the order of what its parameter ``param`` is given."""
        return self._parameter_use(function, param, None, 0, set())

    def _shuffled(self, load: cst.Name) -> bool:
        """Under ``first_use_unless_shuffled``: ``load`` is shuffled in place (recorded)."""
        arg = self.parent(load)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and call.args and call.args[0] is arg and arg.keyword is None):
            return False
        rng = self._shuffles.get(self.qualname(call.func) or "")
        if rng is None:
            return False
        self._shuffled_by.add(rng)
        return True

    def _to_nobody(self, function: cst.FunctionDef) -> bool:
        """Under ``first_use_if_uncalled_drop``: a function with no call in the module whose
        result is taken to go nowhere (recorded)."""
        if not self._uncalled_drop or function.decorators or not isinstance(self.parent(function), cst.Module):
            return False
        self._assumed_uncalled.add(function.name.value)
        return True

    def _returned(self, expr: cst.CSTNode, statement: cst.CSTNode, convert: Optional[cst.CSTNode], depth: int, seen: Set[int],
                  position: Optional[Tuple[int, int]] = None) -> Optional[OrderUse]:
        """A returned value, followed into the calls of its function in this module: when
        every caller drops the order (sorts it, takes its length), it is not kept.  In a
        function the value was passed into (``_into_function``), it goes to the result of
        that call alone.  ``position`` (index, size) says which element of a returned tuple
        it is, for a caller that unpacks the result (``a, b = f(files)``)."""
        function = self._function_of(statement)
        if function is None:
            return OrderUse(expr, "returned", convert)
        entered = self._entered.get(id(function))
        if entered is not None:
            found = self._result_use(entered, position, depth + 1, seen)
            return OrderUse(expr, f"returned into the call's result, which is {found.reason}", convert) if found is not None else None
        if id(function) in self._active:
            return OrderUse(expr, "returned", convert)
        sites = self.call_sites(function)
        if not sites:
            return None if self._to_nobody(function) else OrderUse(expr, "returned", convert)
        self._active.add(id(function))
        try:
            for site in sites:
                found = self._result_use(site, position, depth + 1, seen)
                if found is not None:
                    return OrderUse(expr, f"returned by `{function.name.value}()` and {found.reason}", convert)
        finally:
            self._active.discard(id(function))
        return None

    def _result_use(self, site: cst.Call, position: Optional[Tuple[int, int]], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        """Where a call's result keeps the order of what its function returned: the whole
        result, or, for an element of a returned tuple that the caller unpacks into as
        many names (``a, b = f(files)``), the name at its position."""
        holder = self.parent(site)
        if position is not None and isinstance(holder, cst.Assign) and holder.value is site and len(holder.targets) == 1:
            target = holder.targets[0].target
            index, size = position
            if (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == size
                    and not any(isinstance(e, cst.StarredElement) for e in target.elements)):
                inner = target.elements[index].value
                if isinstance(inner, cst.Name):
                    return self._follow_name(inner.value, holder, SEQ, None, depth, seen)
                return OrderUse(site, "stored")
        return self._follow(site, SEQ, None, depth, seen)

    def _yielded(self, statement: cst.CSTNode, depth: int, seen: Set[int]) -> Optional[str]:
        """A value a generator yields, followed into the calls of the generator in this
        module (each gives the values in the order they were yielded): None when every
        caller hands it straight to a consumer that drops the order (``sorted(set(gen(d)))``,
        ``len(list(...))``, a ``for`` loop whose body keeps no order, such as one that only
        counts), else how it is kept.  A generator's callers include calls through a name
        bound to it (``gen = a if flag else b; gen()``).  A generator handed on to any other
        function is a stream of data consumed in its order (a dataset writer), unlike a
        list, which may only be copied or deleted."""
        function = self._function_of(statement)
        entered = self._entered.get(id(function)) if function is not None else None
        if function is None or entered is None and id(function) in self._active:
            return "yielded"
        sites = [entered] if entered is not None else self.call_sites(function)
        if not sites:
            return None if self._to_nobody(function) else "yielded"
        self._active.add(id(function))
        try:
            for site in sites:
                if self._drops_order_at_once(site):
                    continue
                assumed, handed = len(self._assumed_uncalled), len(self._handed)
                found = self._follow(site, SEQ, None, depth + 1, seen)
                if found is None and len(self._assumed_uncalled) > assumed:
                    continue  # its values end in the result of a function nothing calls
                if found is None and self._drain and len(self._handed) > handed:
                    self._assumed_drains.update(self._handed[handed:])
                    continue  # handed to other modules' functions: the project decides
                holder = self.parent(site)
                if found is None and isinstance(holder, cst.For) and holder.iter is site:
                    continue  # a loop over it whose body keeps no order (counts, sums)
                return f"yielded by `{function.name.value}()` and {found.reason}" if found is not None else "yielded"
        finally:
            if entered is None:
                self._active.discard(id(function))
        return None

    def _drops_order_at_once(self, call: cst.Call) -> bool:
        """The call's value goes straight into ``sorted`` / ``len`` / ``set`` (or another
        order-free consumer of the tables)."""
        parent = self.parent(call)
        holder = self.parent(parent) if isinstance(parent, cst.Arg) and not parent.star else None
        if not isinstance(holder, cst.Call):
            return False
        name = self.qualname(holder.func)
        return name in self.tables.order_free or name in self.tables.set_makers

    def _function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.Module)):
            current = self.parent(current)
        return current if isinstance(current, cst.FunctionDef) else None

    # ---- the walk up from a use ---------------------------------------------------------
    def _follow(self, expr: cst.CSTNode, kind: str, convert: Optional[cst.CSTNode], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        if depth > self.MAX_DEPTH:
            return None
        parent = self.parent(expr)
        if parent is None:
            return None
        step = depth + 1

        def keep(reason: str) -> OrderUse:
            return OrderUse(expr, reason, convert if convert is not None else (expr if kind == SET else None))

        def as_seq() -> Optional[cst.CSTNode]:
            return convert if convert is not None else (expr if kind == SET else None)

        if isinstance(parent, cst.Arg):
            call = self.parent(parent)
            if not isinstance(call, cst.Call):
                return None
            if parent.star == "*":
                return keep("unpacked into a call's arguments")
            if parent.star == "**":
                return None
            name = self.qualname(call.func)
            if name in self.tables.order_free:
                return None
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "join":
                if self._in_message(call):
                    return None  # a list shown in a message: nothing is computed from its order
                return keep("joined into a string")
            if name in self.tables.set_makers:
                return self._follow(call, SET, None, step, seen) if kind == SET else None
            if name in self.tables.order_keeping:
                return self._follow(call, SEQ, as_seq(), step, seen)
            if name == "builtins.next":
                if self._lookups and convert is None and kind == SEQ and self._read_once(expr):
                    return None  # ``next(path.glob("frame_*"))``: the one entry looked up
                return keep("read with `next()`")
            if kind == SEQ and self._collected(call):
                receiver = call.func.value  # type: ignore[attr-defined]
                found = self._follow_name(receiver.value, statement_of(call, self.parent), SEQ, as_seq(), step, seen)
                return OrderUse(expr, f"collected into `{receiver.value}`, which is {found.reason}", found.convert) if found else None
            if kind == SET:
                return None  # a set handed over as a set: its order is not used here
            if self._keeps_order(call, name):
                if self._reduced_by_key(call) or self._resorted_later(call):
                    return None
                return keep(f"passed to `{last_name(call.func)}`")
            return self._into_function(call, parent, convert, step, seen)  # else an unknown function: it may only copy or delete
        if isinstance(parent, cst.Attribute) and parent.value is expr:
            call = self.parent(parent)
            method = parent.attr.value
            if not (isinstance(call, cst.Call) and call.func is parent):
                return None
            if method == "sort":
                return None
            if method in ("pop", "popitem"):
                return keep("popped from")
            if kind == SET and method in self.tables.set_methods:
                return self._follow(call, SET, None, step, seen)
            if method in ("copy", "tolist"):
                return self._follow(call, kind, convert, step, seen)
            if method in self.tables.neutral_methods or kind == SET:
                return None
            return keep(f"used through `.{method}()`")
        if isinstance(parent, cst.For) and parent.iter is expr:
            return self._loop(parent, kind, expr if kind == SET else convert, step, seen)
        if isinstance(parent, cst.CompFor) and parent.iter is expr:
            return self._comprehension(parent, expr, kind, convert, step, seen)
        if isinstance(parent, cst.Subscript) and parent.value is expr:
            if kind != SEQ or self._single_guarded(parent, expr) or self._key_index(parent) or self._disposed(parent):
                return None
            if self._lookups and convert is None and _first_position(parent):
                return None  # ``glob(pattern)[0]``: the one file of that kind looked up
            return keep("indexed or sliced by position")
        if isinstance(parent, cst.BooleanOperation) or (isinstance(parent, cst.IfExp) and parent.test is not expr):
            return self._follow(parent, kind, convert, step, seen)
        if isinstance(parent, cst.BinaryOperation):
            if kind == SEQ and isinstance(parent.operator, (cst.Add, cst.Multiply)):
                return self._follow(parent, SEQ, convert, step, seen)
            if kind == SET and isinstance(parent.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)):
                if at_most_one_element(parent):
                    return None
                return self._follow(parent, SET, None, step, seen)
            return None
        if isinstance(parent, (cst.StarredElement, cst.Element)):
            container = self.parent(parent)
            if isinstance(container, cst.Set):
                return None
            if isinstance(container, (cst.List, cst.Tuple)):
                if isinstance(parent, cst.StarredElement):
                    return self._follow(container, SEQ, as_seq(), step, seen)
                return self._element(container, parent, kind, convert, step, seen)
            return None
        if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) and parent.value is expr:
            return self._assigned(parent, kind, convert, step, seen, keep)
        if isinstance(parent, cst.WithItem) and parent.item is expr:
            if parent.asname is not None and isinstance(parent.asname.name, cst.Name):
                return self._follow_name(parent.asname.name.value, parent, kind, convert, step, seen)
            return None
        if isinstance(parent, cst.Return):
            return self._returned(expr, parent, convert if convert is not None else as_seq(), step, seen) if kind == SEQ else None
        if isinstance(parent, cst.Yield):
            if kind != SEQ:
                return None
            how = self._yielded(parent, step, seen)
            return keep(how) if how is not None else None
        if isinstance(parent, cst.Await):
            return self._follow(parent, kind, convert, step, seen)
        if isinstance(parent, cst.DictElement) and parent.value is expr and kind == SEQ:
            return keep("stored")
        return None  # a test, a comparison, a discarded result, a formatted message

    def _read_once(self, expr: cst.CSTNode) -> bool:
        """``expr`` is the value itself or a name read nowhere else in its scope: a
        second ``next(it)`` would read on in the order."""
        if not isinstance(expr, cst.Name):
            return True
        return len(self.index_for(expr).loads.get(expr.value, ())) == 1

    def _in_message(self, node: cst.CSTNode) -> bool:
        """Inside an f-string or a ``%`` / ``.format`` text (``"...%s" % (e, "".join(names).strip())``):
        a message, not data."""
        current = self.parent(node)
        for _ in range(6):
            if current is None:
                return False
            if isinstance(current, (cst.FormattedString, cst.FormattedStringExpression)):
                return True
            if isinstance(current, cst.BinaryOperation) and isinstance(current.operator, cst.Modulo):
                return True
            if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute) and current.func.attr.value == "format":
                return True
            current = self.parent(current)
        return False

    def _collected(self, call: cst.Call) -> bool:
        """``files.extend(listing)``: the listing's order goes on in ``files``."""
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in self.tables.accumulate_methods and isinstance(func.value, cst.Name)

    def _reduced_by_key(self, call: cst.Call) -> bool:
        """``np.array(keys).argmax()``: only the position of the best key is used, and it
        picks the same element whatever the order (the list it indexes is kept in step)."""
        holder = self.parent(call)
        if isinstance(holder, cst.Attribute) and holder.value is call and holder.attr.value in self.tables.key_reducers:
            return isinstance(self.parent(holder), cst.Call)
        outer = self.parent(holder) if isinstance(holder, cst.Arg) else None
        return isinstance(outer, cst.Call) and self.qualname(outer.func) in self.tables.key_reducers

    def _resorted_later(self, call: cst.Call) -> bool:
        """``df = pd.concat(frames)`` then ``df.sort_values("t")``: the order is rebuilt from a key."""
        holder = self.parent(call)
        if isinstance(holder, cst.Attribute) and holder.value is call:
            return holder.attr.value in self.tables.resorting_methods
        if not (isinstance(holder, cst.Assign) and holder.value is call and len(holder.targets) == 1):
            return False
        target = holder.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        reads = self.index_for(holder).reads_after(target.value, holder)
        if not reads:
            return False
        attribute = self.parent(reads[0])
        return isinstance(attribute, cst.Attribute) and attribute.attr.value in self.tables.resorting_methods

    def _key_index(self, subscript: cst.Subscript) -> bool:
        """``files[scores.argmax()]``: the element is chosen by a key, not by its position;
        also ``files[order[i]]`` with ``order = sorted(range(n), key=steps.__getitem__)``."""
        if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
            return False
        index: Optional[cst.BaseExpression] = subscript.slice[0].slice.value
        if isinstance(index, cst.Name):
            index = self.index_for(subscript).single_value(index.value)
        value = index
        if value is not None and self._key_sorted_positions(value, self.index_for(subscript)):
            return True
        if not isinstance(value, cst.Call):
            return False
        return self.qualname(value.func) in self.tables.key_reducers or (
            isinstance(value.func, cst.Attribute) and value.func.attr.value in self.tables.key_reducers
        )

    def _key_sorted_positions(self, expr: cst.BaseExpression, index: ScopeIndex, depth: int = 0) -> bool:
        """Positions computed from a sort by key (``sorted(range(n), key=keys.__getitem__)``,
        ``np.argsort(keys)``), through names bound once: they put the elements in the order
        of their keys, which a listing's order does not change."""
        if depth > 3:
            return False
        stack: List[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call) and self._sorts_by_key(node):
                return True
            if isinstance(node, cst.Name):
                value = index.single_value(node.value)
                if value is not None and value is not expr and self._key_sorted_positions(value, index, depth + 1):
                    return True
            elif not isinstance(node, _NESTED):
                stack.extend(children(node))
        return False

    def _sorts_by_key(self, call: cst.Call) -> bool:
        name = self.qualname(call.func)
        if name in self.tables.key_sorts:
            return True
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in self.tables.key_sorts:
            return True
        return name == "builtins.sorted" and any(arg.keyword is not None and arg.keyword.value == "key" for arg in call.args)

    def _disposed(self, subscript: cst.Subscript) -> bool:
        """``os.remove(files[0])``, ``Path(files[0]).unlink()``, ``wandb.Video(files[-1])``:
        the element picked is deleted or logged, not used as data."""
        arg = self.parent(subscript)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call):
            return False
        if self.tables.disposes(self.qualname(call.func)):
            return True
        method = self.parent(call)
        return isinstance(method, cst.Attribute) and method.value is call and method.attr.value in self.tables.disposal_methods

    def _single_guarded(self, node: cst.CSTNode, expr: cst.CSTNode) -> bool:
        """Inside ``if len(x) == 1:`` / ``while len(x) == 1:`` about the same ``x``: one
        element has one order."""
        child, current = node, self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.Module)):
            if isinstance(current, (cst.If, cst.While)) and child is current.body and self._length_is_one(current.test, expr):
                return True
            child, current = current, self.parent(current)
        return False

    def _length_is_one(self, test: cst.BaseExpression, expr: cst.CSTNode) -> bool:
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Equal)):
            return False
        call, bound = test.left, test.comparisons[0].comparator
        return (
            isinstance(call, cst.Call) and self.qualname(call.func) == "builtins.len" and len(call.args) == 1
            and isinstance(bound, cst.Integer) and bound.value == "1" and call.args[0].value.deep_equals(expr)
        )

    def _into_function(self, call: cst.Call, arg: cst.Arg, convert: Optional[cst.CSTNode], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        """A function of this module given the value: followed through its parameter
        (``make_dataset(files)`` that builds a dataset from ``files``)."""
        function = self._module_function(call)
        if function is None and self._drain and not arg.star:
            name = self.qualname(call.func)
            if name is not None and not name.startswith("builtins."):
                self._handed.append((name, arg.keyword.value if arg.keyword is not None else str(call.args.index(arg))))
        if function is None or id(function) in self._active or arg.star:
            return None
        params = [*function.params.posonly_params, *function.params.params]
        if arg.keyword is not None:
            names = [p.name.value for p in (*params, *function.params.kwonly_params)]
            param = arg.keyword.value if arg.keyword.value in names else None
        else:
            position = call.args.index(arg)
            param = params[position].name.value if position < len(params) else None
        if param is None:
            return None
        found = self._parameter_use(function, param, convert, depth, seen, call)
        return OrderUse(found.node, f"passed to `{function.name.value}()`, where it is {found.reason}", found.convert) if found else None

    def _parameter_use(self, function: cst.FunctionDef, param: str, convert: Optional[cst.CSTNode], depth: int, seen: Set[int],
                       call: Optional[cst.Call] = None) -> Optional[OrderUse]:
        """Where ``function`` keeps the order of ``param``; entered from ``call``, what it
        returns or yields of it goes on in that call's result."""
        if id(function) in self._active:
            return None
        index = self.index_for(function.body)
        self._active.add(id(function))
        if call is not None:
            self._entered[id(function)] = call
        try:
            for load in self.reads_until_sorted(index, param, function):
                found = self._follow(load, SEQ, convert, depth + 1, seen)
                if found is not None:
                    return found
        finally:
            self._active.discard(id(function))
            self._entered.pop(id(function), None)
        return None

    def _module_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The top-level function of this module that ``call`` calls by name."""
        if not isinstance(call.func, cst.Name):
            return None
        module = self.parent(call)
        while module is not None and not isinstance(module, cst.Module):
            module = self.parent(module)
        if module is None:
            return None
        found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == call.func.value]
        return found[0] if len(found) == 1 else None

    def _keeps_order(self, call: cst.Call, name: Optional[str]) -> bool:
        """A consumer whose result depends on the order of its input: array and table
        constructors, serialisers, shuffles and samplers, dataset constructors."""
        if name in self.tables.order_sensitive:
            return True
        return last_name(call.func).endswith(tuple(self.tables.order_sensitive_suffixes))

    def _element(self, container: Union[cst.List, cst.Tuple], element: cst.BaseElement, kind: str,
                 convert: Optional[cst.CSTNode], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        """A value inside a tuple or list: followed when the tuple is unpacked into names,
        kept when the tuple itself is returned or stored."""
        holder = self.parent(container)
        if isinstance(holder, cst.Assign) and holder.value is container:
            for target in holder.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)) and len(target.target.elements) == len(container.elements):
                    position = list(container.elements).index(element)
                    inner = target.target.elements[position].value
                    if isinstance(inner, cst.Name):
                        found = self._follow_name(inner.value, holder, kind, convert, depth, seen)
                        if found:
                            return found
            return None
        if isinstance(holder, cst.Return) and kind == SEQ:
            place = (list(container.elements).index(element), len(container.elements))
            return self._returned(element.value, holder, convert, depth, seen, place)
        if isinstance(holder, cst.Yield) and kind == SEQ:
            how = self._yielded(holder, depth, seen)
            return OrderUse(element.value, how, convert) if how is not None else None
        return None

    def _assigned(self, statement: Union[cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr], kind: str,
                  convert: Optional[cst.CSTNode], depth: int, seen: Set[int],
                  keep: Callable[[str], OrderUse]) -> Optional[OrderUse]:
        targets: List[cst.BaseExpression]
        if isinstance(statement, cst.NamedExpr):
            targets = [statement.target]
            found = self._follow(statement, kind, convert, depth, seen)
            if found:
                return found
        elif isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        else:
            targets = [statement.target]
        for target in targets:
            if isinstance(target, cst.Name):
                found = self._follow_name(target.value, statement, kind, convert, depth, seen)
                if found:
                    return found
            elif isinstance(target, (cst.Attribute, cst.Subscript)) and kind == SEQ:
                if isinstance(target, cst.Attribute) and self._order_dropped_wherever_read(target):
                    continue
                return keep("stored")
        return None

    def _order_dropped_wherever_read(self, target: cst.Attribute) -> bool:
        """``self.files = glob(...)`` in a class whose every read of ``self.files`` drops
        the order (``for path in sorted(self.files)``, ``len(self.files)``, ``if
        self.files:``) and whose module reads no ``.files`` of another object: the stored
        order reaches nothing the module shows.  An attribute the class never reads is
        there for its users, who may keep the order."""
        if not (isinstance(target.value, cst.Name) and target.value.value == "self"):
            return False
        owner: Optional[cst.CSTNode] = self.parent(target)
        while owner is not None and not isinstance(owner, cst.ClassDef):
            owner = self.parent(owner)
        module: Optional[cst.CSTNode] = owner
        while module is not None and not isinstance(module, cst.Module):
            module = self.parent(module)
        if owner is None or module is None:
            return False
        attribute, inside = target.attr.value, {id(node) for node in nodes_in(owner, cst.Attribute)}
        reads = [node for node in nodes_in(module, cst.Attribute) if node.attr.value == attribute and not self._assigned_to(node)]
        return bool(reads) and all(
            id(node) in inside and isinstance(node.value, cst.Name) and node.value.value == "self" and self._order_free_read(node)
            for node in reads
        )

    def _assigned_to(self, node: cst.CSTNode) -> bool:
        holder = self.parent(node)
        return isinstance(holder, cst.AssignTarget) or (isinstance(holder, (cst.AnnAssign, cst.AugAssign)) and holder.target is node)

    def _order_free_read(self, node: cst.CSTNode) -> bool:
        """A read that drops the order: given to an order-free call (``sorted``, ``len``,
        ``set``), tested for truth, or tested for membership."""
        holder = self.parent(node)
        while isinstance(holder, cst.UnaryOperation) and isinstance(holder.operator, cst.Not):
            node, holder = holder, self.parent(holder)
        if isinstance(holder, cst.Arg) and not holder.star:
            call = self.parent(holder)
            name = self.qualname(call.func) if isinstance(call, cst.Call) else None
            return name in self.tables.order_free or name in self.tables.set_makers
        if isinstance(holder, (cst.If, cst.While)) and holder.test is node:
            return True
        return isinstance(holder, cst.ComparisonTarget) and holder.comparator is node and isinstance(holder.operator, (cst.In, cst.NotIn))

    def _follow_name(self, name: str, statement: cst.CSTNode, kind: str, convert: Optional[cst.CSTNode], depth: int, seen: Set[int],
                     within: Optional[cst.CSTNode] = None) -> Optional[OrderUse]:
        key = id(statement) * 31 + hash(name)
        if key in seen or depth > self.MAX_DEPTH:
            return None
        seen.add(key)
        index = self.index_for(statement)
        if kind == SEQ and within is None and isinstance(index.scope, cst.Module) and self._kept_for_others(index, name, statement):
            return OrderUse(statement, f"kept as the module-level name `{name}`", convert)
        for load in self.reads_until_sorted(index, name, statement, within):
            found = self._follow(load, kind, convert, depth + 1, seen)
            if found:
                return found
        return None

    def _kept_for_others(self, index: ScopeIndex, name: str, statement: cst.CSTNode) -> bool:
        """A module-level list nobody reads at module level is there for importers to use.
        Read only by decorators (``@pytest.mark.parametrize("f", FILES)``), it is there
        for the module's functions too when one of their bodies reads it (not followed)."""
        reads = index.reads_after(name, statement)
        if not reads:
            return True
        if not all(self._in_decorator(load) for load in reads):
            return False
        own = {id(load) for load in index.loads.get(name, ())}
        for node in nodes_in(index.scope, cst.Name):
            holder = self.parent(node)
            if node.value != name or id(node) in own or (isinstance(holder, cst.Attribute) and holder.attr is node):
                continue
            if not isinstance(holder, (cst.Param, cst.AssignTarget, cst.FunctionDef, cst.ClassDef)):
                return True
        return False

    def _in_decorator(self, node: cst.CSTNode) -> bool:
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.Decorator, cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.parent(current)
        return isinstance(current, cst.Decorator)

    def reads_until_sorted(self, index: ScopeIndex, name: str, statement: cst.CSTNode,
                           within: Optional[cst.CSTNode] = None) -> List[cst.Name]:
        """Reads of ``name`` after ``statement``, stopping at ``name.sort()``."""
        out = []
        for load in index.reads_after(name, statement, within):
            attribute = self.parent(load)
            if isinstance(attribute, cst.Attribute) and attribute.attr.value == "sort" and isinstance(self.parent(attribute), cst.Call):
                break
            if self._at_most_one(load):
                break  # ``assert len(x) == 1``: a single element has no order
            if self._resorted(load):
                break  # ``if sort: x = sorted(x)``: the code orders it (an option may skip that)
            if self._shuffles and self._shuffled(load):
                break  # ``random.shuffle(x)``: reordered by that RNG from here on
            out.append(load)
        return out

    def _resorted(self, load: cst.Name) -> bool:
        """``load`` is read by ``x = sorted(x, ...)`` (or a ``list.sort``-like rebinding)."""
        arg = self.parent(load)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and self.qualname(call.func) in self.tables.order_free):
            return False
        assign = self.parent(call)
        return isinstance(assign, cst.Assign) and assign.value is call and any(
            isinstance(t.target, cst.Name) and t.target.value == load.value for t in assign.targets
        )

    def _at_most_one(self, load: cst.Name) -> bool:
        """``load`` is checked to hold one element: ``assert len(x) == 1``,
        ``self.assertLen(x, 1)``, or ``if len(x) != 1:`` that raises, returns, breaks or
        continues."""
        arg = self.parent(load)
        call = self.parent(arg) if arg is not None else None
        if not isinstance(call, cst.Call):
            return False
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in self.tables.length_asserts:
            return len(call.args) == 2 and call.args[0].value is load and isinstance(call.args[1].value, cst.Integer) and call.args[1].value.value == "1"
        if self.qualname(call.func) != "builtins.len":
            return False
        comparison = self.parent(call)
        if not (isinstance(comparison, cst.Comparison) and comparison.left is call and len(comparison.comparisons) == 1):
            return False
        target = comparison.comparisons[0]
        bound = target.comparator.value if isinstance(target.comparator, cst.Integer) else None
        holder = self.parent(comparison)
        if isinstance(holder, cst.Assert):
            return (isinstance(target.operator, cst.Equal) and bound == "1") or (isinstance(target.operator, cst.LessThanEqual) and bound == "1")
        if isinstance(holder, cst.If) and holder.test is comparison:
            fails = (isinstance(target.operator, cst.GreaterThan) and bound == "1") or (isinstance(target.operator, cst.NotEqual) and bound == "1")
            body = holder.body.body if isinstance(holder.body, cst.IndentedBlock) else ()
            first = body[0] if body else None
            leaves = isinstance(first, cst.SimpleStatementLine) and any(
                isinstance(small, (cst.Raise, cst.Return, cst.Continue, cst.Break)) for small in first.body
            )
            return fails and leaves
        return False

    def _comprehension(self, comp_for: cst.CompFor, expr: cst.CSTNode, kind: str, convert: Optional[cst.CSTNode], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        comp = self.parent(comp_for)
        while isinstance(comp, cst.CompFor):
            comp = self.parent(comp)
        seq_convert = convert if convert is not None else (expr if kind == SET else None)
        if isinstance(comp, (cst.ListComp, cst.GeneratorExp)):
            return self._follow(comp, SEQ, seq_convert, depth, seen)
        if isinstance(comp, cst.DictComp) and self._numbers(comp_for, comp):
            return OrderUse(expr, "numbered in that order", seq_convert)
        return None

    def _numbers(self, comp_for: cst.CompFor, comp: cst.DictComp) -> bool:
        """A dict comprehension whose keys or values are positions (``enumerate``)."""
        iterable = comp_for.iter
        return isinstance(iterable, cst.Call) and self.qualname(iterable.func) == "builtins.enumerate"

    # ---- where a value goes, order or not --------------------------------------------------
    def reached_calls(self, expr: cst.CSTNode, depth: int = 0, seen: Optional[Set[int]] = None,
                      methods: FrozenSet[str] = frozenset(("copy", "tolist"))) -> Iterator[cst.Call]:
        """Calls that receive ``expr`` or what is built from it (through names, wrappers
        such as ``sorted`` / ``list``, comprehensions, lists collected in a loop, and the
        ``methods`` that return a transformed copy)."""
        seen = seen if seen is not None else set()
        if depth > self.MAX_DEPTH or id(expr) in seen:
            return
        seen.add(id(expr))
        step = depth + 1
        parent = self.parent(expr)
        if isinstance(parent, cst.Arg):
            call = self.parent(parent)
            if isinstance(call, cst.Call):
                yield call
                yield from self.reached_calls(call, step, seen, methods)
        elif isinstance(parent, cst.Attribute) and parent.value is expr:
            call = self.parent(parent)
            if isinstance(call, cst.Call) and call.func is parent and parent.attr.value in methods:
                yield from self.reached_calls(call, step, seen, methods)
        elif isinstance(parent, (cst.BooleanOperation, cst.IfExp, cst.BinaryOperation, cst.Await)):
            yield from self.reached_calls(parent, step, seen, methods)
        elif isinstance(parent, cst.CompFor) and parent.iter is expr:
            comp = self.parent(parent)
            while isinstance(comp, cst.CompFor):
                comp = self.parent(comp)
            if comp is not None:
                yield from self.reached_calls(comp, step, seen, methods)
        elif isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and parent.value is expr:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            for target in targets:
                if isinstance(target, cst.Name):
                    index = self.index_for(parent)
                    for load in index.reads_after(target.value, parent):
                        yield from self.reached_calls(load, step, seen, methods)
        elif isinstance(parent, cst.For) and parent.iter is expr:
            index = self.index_for(parent)
            for node in index.nodes_within(parent.body, (cst.Call,)):
                if isinstance(node.func, cst.Attribute) and node.func.attr.value in self.tables.accumulate_methods:
                    receiver = node.func.value
                    if isinstance(receiver, cst.Name):
                        for load in index.reads_after(receiver.value, parent):
                            yield from self.reached_calls(load, step, seen, methods)

    # ---- loops ------------------------------------------------------------------------
    def _loop(self, loop: cst.For, kind: str, convert: Optional[cst.CSTNode], depth: int, seen: Set[int]) -> Optional[OrderUse]:
        """A loop over the value: its order matters when the body accumulates in order
        (append to a list that is kept unsorted, write, yield) or numbers the items."""
        expr = loop.iter
        reason = self.loop_keeps_order(loop, depth, seen)
        if reason:
            return OrderUse(expr, reason, convert)
        return None

    def loop_keeps_order(self, loop: cst.For, depth: int = 0, seen: Optional[Set[int]] = None) -> Optional[str]:
        seen = seen if seen is not None else set()
        index = self.index_for(loop)
        counters = self._counters(loop, index)
        items = {name.value for name, _ in _target_names(loop.target)}
        derived = self._derived(loop, items, index)
        chosen = self._chosen_by_name(loop, items, index)
        kinds = self._chosen_by_kind(loop, items, index)
        for node in index.nodes_within(loop.body, (cst.Call, cst.Yield, cst.Assign, cst.AugAssign, cst.Return, cst.Break)):
            if any(index.contains(branch.body, node) for branch in chosen):
                continue  # runs for at most one entry: the one with that name
            if isinstance(node, (cst.Return, cst.Break)) and any(index.contains(branch.body, node) for branch in kinds):
                continue  # the first file of a kind: ``glob("*.jpg")[0]`` written as a loop
            if isinstance(node, cst.Yield):
                how = self._yielded(node, depth, seen)
                if how is not None:
                    return "yielded item by item in a loop" + how[len("yielded"):]
                continue
            if isinstance(node, cst.Return) and node.value is not None and self._reads_any(node.value, derived):
                return "searched in a loop that returns the first match"
            if isinstance(node, cst.Break) and self._kept_before_break(loop, items, index):
                return "searched in a loop that keeps the first match and breaks"
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                receiver = node.func.value
                if (method in self.tables.output_methods and not self._bound_in(receiver, loop, index) and not self._archive(receiver, index)
                        and not self._written_to_item(node, receiver, items, index)):
                    return "written out item by item in a loop"
                if method in self.tables.accumulate_methods:
                    found = self._accumulator(receiver, loop, index, depth, seen)
                    if found:
                        return found
            elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
                if isinstance(node.value, (cst.List, cst.ListComp, cst.Tuple)):
                    found = self._accumulator(node.target, loop, index, depth, seen)
                    if found:
                        return found
            elif isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Subscript) and self._mentions(node.value, counters, target.target.value):
                        return "numbered in that order in a loop"
                    if self._rebuilt(target.target, node.value, items):
                        found = self._accumulator(target.target, loop, index, depth, seen)
                        if found:
                            return found
        return None

    def _chosen_by_name(self, loop: cst.For, items: Set[str], index: ScopeIndex) -> List[cst.If]:
        """The ``if`` statements of the loop that compare an entry with a literal name
        (``if entry == "train.json"``, ``if os.path.basename(p) == "Color"``, through a
        name the body assigns one): a listing holds each entry once, and a folder each
        name once, so their bodies run for at most one entry, whatever the order.  An
        entry's base name counts only for a listing of one folder (``os.listdir``, a
        pattern with wildcards in its last part only): a recursive listing may hold
        the same name twice."""
        one_folder = self._lists_one_folder(loop.iter, index)
        bases: Set[str] = set()
        for node in index.nodes_within(loop.body, (cst.Assign,)):
            if one_folder and self._base_name(node.value, items):
                bases.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
        subfolders = self._lists_subfolders(loop.iter, index)
        found = []
        for branch in index.nodes_within(loop.body, (cst.If,)):
            test = branch.test
            if subfolders and self._names_split(test, items | bases):
                found.append(branch)
                continue
            if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Equal)):
                continue
            sides = (test.left, test.comparisons[0].comparator)
            for literal, other in (sides, sides[::-1]):
                if not isinstance(literal, cst.SimpleString):
                    continue
                if isinstance(other, cst.Name) and (other.value in items or other.value in bases):
                    found.append(branch)
                elif one_folder and self._base_name(other, items):
                    found.append(branch)
        return found

    def _chosen_by_kind(self, loop: cst.For, items: Set[str], index: ScopeIndex) -> List[cst.If]:
        """The ``if`` statements of a loop over one folder that test only an entry's
        extension (``if name.lower().endswith((".jpg", ".png")):``, ``if p.suffix ==
        ".csv":``): a return or break in them takes the first file of a kind, the loop
        form of ``glob(os.path.join(d, "*.jpg"))[0]``, which is a lookup (ND301's docs),
        unless the kind is one a folder holds several of, picked in order (``.ckpt``)."""
        if not self._lists_one_folder(loop.iter, index):
            return []
        found = []
        for branch in index.nodes_within(loop.body, (cst.If,)):
            suffixes = self._extension_test(branch.test, items)
            if suffixes and not any(word in suffix.lower() for suffix in suffixes for word in self.tables.kept_first_picks):
                found.append(branch)
        return found

    def _extension_test(self, test: cst.BaseExpression, items: Set[str]) -> List[str]:
        """The extensions a test compares an entry's name with (``entry.endswith(".jpg")``,
        also lower-cased, of ``entry.name``; ``entry.suffix in (".png", ".jpg")``); empty
        when it tests anything else."""
        def entry(node: cst.BaseExpression) -> bool:
            if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("lower", "casefold"):
                node = node.func.value
            if isinstance(node, cst.Attribute) and node.attr.value in self.tables.name_attributes:
                node = node.value
            return isinstance(node, cst.Name) and node.value in items

        def extensions(node: cst.BaseExpression) -> List[str]:
            literals = [e.value for e in node.elements] if isinstance(node, (cst.Tuple, cst.List, cst.Set)) else [node]
            texts = [str(lit.evaluated_value) for lit in literals if isinstance(lit, cst.SimpleString)]
            if len(texts) != len(literals) or not texts:
                return []
            return texts if all(t.startswith(".") and len(t) > 1 and not re.search(r"[/\\*?\[]", t) for t in texts) else []

        if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value == "endswith" and len(test.args) == 1:
            return extensions(test.args[0].value) if entry(test.func.value) else []
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, (cst.Equal, cst.In)):
            left = test.left
            if isinstance(left, cst.Call) and not left.args and isinstance(left.func, cst.Attribute) and left.func.attr.value in ("lower", "casefold"):
                left = left.func.value
            if isinstance(left, cst.Attribute) and left.attr.value == "suffix" and isinstance(left.value, cst.Name) and left.value.value in items:
                return extensions(test.comparisons[0].comparator)
        return []

    def _names_split(self, test: cst.BaseExpression, names: Set[str]) -> bool:
        """``"train" in folder`` (or ``folder.lower()``): an entry tested for the name of a
        data split (``[ND301.data.flow] split_names``)."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.In)):
            return False
        literal, entry = test.left, test.comparisons[0].comparator
        if not (isinstance(literal, cst.SimpleString) and str(literal.evaluated_value).lower() in self.tables.split_names):
            return False
        if isinstance(entry, cst.Call) and not entry.args and isinstance(entry.func, cst.Attribute) and entry.func.attr.value in ("lower", "casefold"):
            entry = entry.func.value
        return isinstance(entry, cst.Name) and entry.value in names

    def _lists_subfolders(self, iterable: cst.BaseExpression, index: ScopeIndex) -> bool:
        """Whether the loop goes over the folders of one folder: a ``glob`` pattern that
        ends with a separator (``root + os.sep + "*" + os.sep``, ``root + "/*/"``) and has
        wildcards in its last part only, directly or through a name bound once to it."""
        if isinstance(iterable, cst.Name):
            value = index.single_value(iterable.value)
            if value is None:
                return False
            iterable = value
        if not (isinstance(iterable, cst.Call) and iterable.args and self.qualname(iterable.func) in self.tables.pattern_listings):
            return False
        pattern = iterable.args[0].value
        pieces = _ordered_literals(pattern)
        if not pieces or not self._ends_with_separator(pattern):
            return False
        wild = re.compile(r"[*?\[]")
        *head, last = pieces
        folder, _, leaf = last.replace("\\", "/").rstrip("/").rpartition("/")
        return not any(wild.search(piece) for piece in head) and bool(wild.search(leaf)) and not wild.search(folder) and "**" not in leaf

    def _ends_with_separator(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.SimpleString):
            return str(expr.evaluated_value).endswith(("/", "\\"))
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            return self._ends_with_separator(expr.right)
        return self.qualname(expr) in self.tables.separators

    def _base_name(self, expr: cst.BaseExpression, items: Set[str]) -> bool:
        """``os.path.basename(p)``, ``p.name``, ``p.split(sep)[-1]`` of a loop item ``p``."""
        def item(node: cst.BaseExpression) -> bool:
            return isinstance(node, cst.Name) and node.value in items
        if isinstance(expr, cst.Call) and self.qualname(expr.func) in self.tables.basename_calls:
            return len(expr.args) == 1 and item(expr.args[0].value)
        if isinstance(expr, cst.Attribute) and expr.attr.value in self.tables.name_attributes:
            return item(expr.value)
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            last = expr.slice[0].slice.value
            split = expr.value
            return (
                isinstance(last, cst.UnaryOperation) and isinstance(last.operator, cst.Minus) and isinstance(last.expression, cst.Integer)
                and last.expression.value == "1" and isinstance(split, cst.Call) and isinstance(split.func, cst.Attribute)
                and split.func.attr.value == "split" and len(split.args) == 1 and item(split.func.value)
            )
        return False

    def _lists_one_folder(self, iterable: cst.BaseExpression, index: ScopeIndex) -> bool:
        """Whether the loop goes over a listing of one folder, directly or through a name
        bound once to it."""
        if isinstance(iterable, cst.Name):
            value = index.single_value(iterable.value)
            if value is None:
                return False
            iterable = value
        if not isinstance(iterable, cst.Call):
            return False
        name = self.qualname(iterable.func)
        if name in self.tables.folder_listings:
            return True
        if name is None and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "iterdir" and not iterable.args:
            return True  # ``Path(root).iterdir()``: the entries of one folder
        if name in self.tables.pattern_listings and iterable.args:
            return last_part_wildcards(iterable.args[0].value)
        return False

    def _rebuilt(self, target: cst.CSTNode, value: cst.CSTNode, items: Set[str]) -> bool:
        """``acc = [item, *acc]`` or ``acc = acc + [item]``: a list rebuilt with the item."""
        if not isinstance(target, cst.Name) or not isinstance(value, (cst.List, cst.Tuple, cst.BinaryOperation)):
            return False
        if isinstance(value, cst.BinaryOperation) and not isinstance(value.operator, cst.Add):
            return False
        return self._reads_any(value, {target.value}) and self._reads_any(value, items)

    @staticmethod
    def _reads_any(expr: cst.CSTNode, names: Set[str]) -> bool:
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name) and node.value in names:
                return True
            if not isinstance(node, _NESTED):
                stack.extend(children(node))
        return False

    def _derived(self, loop: cst.For, items: Set[str], index: ScopeIndex) -> Set[str]:
        """The loop's item names and the names its body computes from them (``parts =
        name.split(".")``): returning one of them returns something of the first match."""
        found = set(items)
        assigns = list(index.nodes_within(loop.body, (cst.Assign,)))
        for _ in range(3):
            grown = {
                name.value for node in assigns if self._reads_any(node.value, found)
                for target in node.targets for name, _ in _target_names(target.target) if isinstance(name, cst.Name)
            }
            if grown <= found:
                break
            found |= grown
        return found

    def _kept_before_break(self, loop: cst.For, items: Set[str], index: ScopeIndex) -> bool:
        """``found = entry`` then ``break``: the loop stops at the first match and keeps it."""
        for node in index.nodes_within(loop.body, (cst.Assign,)):
            if not self._reads_any(node.value, items):
                continue
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value not in items and index.reads_after(target.target.value, loop):
                    return True
        return False

    def _archive(self, receiver: cst.CSTNode, index: ScopeIndex) -> bool:
        """``archive.write(path)`` into a zip or tar file: members are found by name."""
        if not isinstance(receiver, cst.Name):
            return False
        binding = index.reaching(receiver)
        value = binding.value if binding is not None else None
        return isinstance(value, cst.Call) and self.qualname(value.func) in self.tables.archive_types

    def _written_to_item(self, call: cst.Call, receiver: cst.CSTNode, items: Set[str], index: ScopeIndex) -> bool:
        """``nbformat.write(notebook, path)`` with ``path`` the loop's item: a module's
        function writes each listed file in place, one output per entry, in no shared
        stream."""
        if not isinstance(receiver, cst.Name) or self.qualname(receiver) is None:
            return False
        binding = index.reaching(receiver)
        if binding is not None and binding.kind != "import":
            return False
        return any(isinstance(arg.value, cst.Name) and arg.value.value in items for arg in call.args)

    def _bound_in(self, receiver: cst.CSTNode, loop: cst.For, index: ScopeIndex) -> bool:
        """A file or list opened anew in each iteration: writing to it keeps no order.
        Also a stream made where it is written (``csv.writer(open(path, "w")).writerows(rows)``)
        whose file (the first argument of the ``openers`` call inside, through the first
        argument of the calls around it) is a name bound in the loop: one file per entry."""
        while isinstance(receiver, cst.Attribute):
            receiver = receiver.value
        if isinstance(receiver, cst.Call):
            while isinstance(receiver, cst.Call) and self.qualname(receiver.func) not in self.tables.openers and receiver.args:
                receiver = receiver.args[0].value
            if not (isinstance(receiver, cst.Call) and self.qualname(receiver.func) in self.tables.openers and receiver.args):
                return False
            receiver = receiver.args[0].value
        if not isinstance(receiver, cst.Name):
            return False
        binding = index.reaching(receiver)
        return binding is not None and index.contains(loop, binding.statement)

    def _accumulator(self, receiver: cst.CSTNode, loop: cst.For, index: ScopeIndex, depth: int, seen: Set[int]) -> Optional[str]:
        if isinstance(receiver, cst.Name):
            bindings = index.bindings_of(receiver.value)
            if not bindings:
                return f"collected into `{receiver.value}` in a loop, which outlives it"
            if all(index.contains(loop, b.statement) for b in bindings):
                return None  # a list local to one iteration
            found = self._follow_name(receiver.value, loop, SEQ, None, depth + 1, seen)
            return f"collected into `{receiver.value}` in a loop, which is {found.reason}" if found else None
        if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
            return f"collected into `self.{receiver.attr.value}` in a loop"
        return None  # a list inside some other structure: where it goes is not known

    def _counters(self, loop: cst.For, index: ScopeIndex) -> Set[str]:
        """Names that count iterations: an ``enumerate`` index, or ``n += 1`` in the body."""
        names: Set[str] = set()
        iterable = loop.iter
        if isinstance(iterable, cst.Call) and self.qualname(iterable.func) == "builtins.enumerate":
            target = loop.target
            if isinstance(target, cst.Tuple) and target.elements and isinstance(target.elements[0].value, cst.Name):
                names.add(target.elements[0].value.value)
        for node in index.nodes_within(loop.body, (cst.AugAssign,)):
            if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
                names.add(node.target.value)
        return names

    def _mentions(self, value: cst.CSTNode, counters: Set[str], container: cst.BaseExpression) -> bool:
        """Whether ``value`` is a counter: a counting name, or ``len(<the dict>)``."""
        if isinstance(value, cst.Name):
            return value.value in counters
        if isinstance(value, cst.Call) and self.qualname(value.func) == "builtins.len" and value.args:
            return dotted_name(value.args[0].value) is not None and dotted_name(value.args[0].value) == dotted_name(container)
        return False


def last_part_wildcards(pattern: cst.BaseExpression) -> bool:
    """A glob pattern whose wildcards are all in its last part, which its final literal
    gives (``root + "/*.png"``, ``os.path.join(root, "*")``): it matches within one folder
    (if the folder it names has none).  ``**`` is recursive only as a whole part
    (``"**/*.png"``); inside one (``"**.csv"``) it is a plain ``*``."""
    pieces = _ordered_literals(pattern)
    if not pieces:
        return False
    wild = re.compile(r"[*?\[]")
    *head, last = pieces
    if any(wild.search(piece) for piece in head) or "**" in last.replace("\\", "/").split("/"):
        return False
    folder, _, leaf = last.replace("\\", "/").rpartition("/")
    ends_pattern = isinstance(pattern, cst.SimpleString) or _ends_with_literal(pattern)
    return ends_pattern and bool(wild.search(leaf)) and not wild.search(folder)


def _ordered_literals(node: cst.CSTNode) -> List[str]:
    """The string literals inside ``node`` in source order (f-string text parts included)."""
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - malformed escapes: not a known pattern
            return ["["]
        return [value] if isinstance(value, str) else []
    if isinstance(node, cst.FormattedStringText):
        return [node.value]
    return [text for child in children(node) for text in _ordered_literals(child)]


def _ends_with_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.SimpleString):
        return True
    if isinstance(expr, cst.FormattedString):
        return bool(expr.parts) and isinstance(expr.parts[-1], cst.FormattedStringText)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _ends_with_literal(expr.right)
    if isinstance(expr, cst.Call) and expr.args and dotted_name(expr.func) in ("os.path.join", "path.join", "join"):
        return _ends_with_literal(expr.args[-1].value)
    return False


def _first_position(subscript: cst.Subscript) -> bool:
    """``x[0]``: the element at the first position alone, not a slice."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return False
    index = subscript.slice[0].slice.value
    return isinstance(index, cst.Integer) and index.value == "0"


def at_most_one_element(expr: cst.CSTNode) -> bool:
    """``{"loss"}``, or an intersection with one: a set of one element has one order."""
    if isinstance(expr, cst.Set):
        return len(expr.elements) <= 1 and not any(isinstance(e, cst.StarredElement) for e in expr.elements)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitAnd):
        return at_most_one_element(expr.left) or at_most_one_element(expr.right)
    return False


def last_name(func: cst.BaseExpression) -> str:
    """The called name as written, last part only (``np.random.shuffle`` → ``shuffle``).
    Asked by several checks of every call: exact type tests, not isinstance() on ABCs."""
    kind = type(func)
    # cast(): the exact type was just tested (mypy does not follow ``type(x) is``)
    if kind is cst.Attribute:
        return cast(cst.Attribute, func).attr.value
    return cast(cst.Name, func).value if kind is cst.Name else ""


def literal_strings(node: cst.CSTNode) -> Iterator[str]:
    """The text of every string literal inside ``node`` (f-string text parts included)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleString):
            try:
                value = current.evaluated_value
            except Exception:  # noqa: BLE001 - malformed escapes: skip the literal
                continue
            if isinstance(value, str):
                yield value
        elif isinstance(current, cst.FormattedStringText):
            yield current.value
        else:
            stack.extend(children(current))


class ScopeBindings:
    """The bindings a name read at the node being walked may hold: those of the innermost
    function (or class body, or module) around it that binds the name, each scope indexed
    once per file, for its bindings only (``ScopeIndex(bindings_only=True)``: half the
    cost of a full index, and GPU facts ask about names in most functions).  A name a
    ``lambda`` around it takes as a parameter has no known binding."""

    def __init__(self, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> None:
        self.parent = parent
        self.indexes: Dict[int, Tuple[cst.CSTNode, ScopeIndex]] = {}

    def _index(self, scope: cst.CSTNode) -> ScopeIndex:
        found = self.indexes.get(id(scope))
        if found is None or found[0] is not scope:
            found = self.indexes[id(scope)] = (scope, ScopeIndex(scope, self.parent, bindings_only=True))
        return found[1]

    def values(self, name: str, ancestors: Sequence[cst.CSTNode]) -> Optional[List[cst.BaseExpression]]:
        """What each binding of ``name`` in the scope it is read from gives it (an
        augmented assignment: what it adds); None where one is unknown (a parameter, a
        loop variable) or the name is bound nowhere the code shows."""
        bindings = self.of(name, ancestors)
        if not bindings or any(binding.value is None for binding in bindings):
            return None
        return [cast(cst.BaseExpression, binding.value) for binding in bindings]

    def of(self, name: str, ancestors: Sequence[cst.CSTNode]) -> Optional[List[Binding]]:
        """Every binding of ``name`` in the scope it is read from (None: bound nowhere the
        code shows, or a ``lambda``'s parameter)."""
        innermost = True
        for node in reversed(ancestors):
            if isinstance(node, cst.Lambda):
                params = node.params
                if any(param.name.value == name for param in (*params.posonly_params, *params.params, *params.kwonly_params)):
                    return None
            elif isinstance(node, (cst.FunctionDef, cst.Module)) or (isinstance(node, cst.ClassDef) and innermost):
                bindings = self._index(node).bindings_of(name)
                if bindings:
                    return bindings
                innermost = False
        return None
