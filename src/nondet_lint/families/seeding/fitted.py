"""ND108: the data an estimator is fitted on, and whether that size lets it draw.

Some scikit-learn estimators draw only on data of some size (``PCA``'s ``'auto'`` solver
turns randomized on large data; ``HistGradientBoosting*`` stops early, on a random
validation split, above 10,000 samples; a tree has no tie to break between features on a
single feature; ``QuantileTransformer`` subsamples above ``subsample`` rows).  Which ones,
and on which sizes they draw nothing, is rule data (``no_draw_on`` of
``[[ND108.data.apis]]``, with the versions where a policy holds).  ``FittedOn`` follows
an estimator's value to every place that fits it (``est.fit(X)``, ``est.fit_transform(X)``,
a step of a pipeline or union that is fitted, ``cross_val_score(est, X, y)``) and asks
``analysis.datasize`` for the size of that data; an estimator that no code fits (only
displayed or printed) draws nothing at all.  Everything is syntactic and stays in one
scope: a value that goes anywhere else (another function, a search over its parameters,
``set_params``) may be fitted on anything, and the call stays reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex, read_in_nested
from nondet_lint.analysis.datasize import DataSizes, Extent, Shape
from nondet_lint.callargs import find_arg
from nondet_lint.families.seeding.conditions import arguments_hold

MAX_DEPTH = 6  # names passed on to names passed on ...
ANY_VERSION = "*"
_BOUND = re.compile(r"^\s*(\w+)\s*(<=|>=)\s*(?:(\d+(?:\.\d+)?)\s*\*\s*)?(\w+|\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Bound:
    """``left <= factor * right`` or ``left >= factor * right``: each side the data's
    ``rows`` or ``cols``, an argument of the call, or a number."""

    left: str
    op: str
    factor: float
    right: str

    @classmethod
    def parse(cls, text: str) -> "Bound":
        match = _BOUND.match(text)
        if match is None:
            raise ValueError(f"not a size bound: {text!r}")
        return cls(match.group(1), match.group(2), float(match.group(3) or 1), match.group(4))


@dataclass(frozen=True)
class NoDraw:
    """One alternative of ``no_draw_on``: with these arguments (``args``, the argument
    conditions of the rule data) and data within these ``bounds``, the call draws nothing
    in the ``versions`` given (a specifier; ``*``: every version)."""

    versions: str
    args: Mapping[str, Any]
    bounds: Tuple[Bound, ...]
    positions: Mapping[str, int]  # arguments a bound reads that may be given by position

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "NoDraw":
        return cls(data.get("versions", ANY_VERSION), data.get("args", {}), tuple(Bound.parse(b) for b in data.get("bounds", ())),
                   data.get("positions", {}))


@dataclass(frozen=True)
class FitTables:
    """``[ND108.data.fits]``: how an estimator's value reaches the data it is fitted on."""

    fit_methods: FrozenSet[str]  # methods that fit on their ``X`` (first) argument
    returns_self: FrozenSet[str]  # those of them that return the estimator (``fit``)
    unknown_methods: FrozenSet[str]  # methods after which its settings or draws are not known
    pipelines: FrozenSet[str]  # each step is fitted on what the steps before it give
    unions: FrozenSet[str]  # each part is fitted on the data itself
    columns: FrozenSet[str]  # each part is fitted on some of the columns
    cross_fits: FrozenSet[str]  # fit the estimator on parts of the rows of their ``X``
    reads: FrozenSet[str]  # read an estimator, never fit it (``print``, ``from_estimator``)
    searchers: FrozenSet[str]  # fit clones with parameters from a grid: only never fitting them is known
    step_lists: Tuple[str, ...] = ()  # the first parameter of those that takes the list of steps or parts
    # hand an estimator (or a list of them) to scikit-learn's estimator checks: a test suite, not a fit
    test_suites: FrozenSet[str] = frozenset()
    # a dict or list the estimator is stored in (``models[name] = est.fit(X)``): methods that
    # give its items (``values``), its (key, item) pairs (``items``), its keys only (``keys``),
    # calls that read only its length or keys (``len``), and calls that give its items in
    # another order (``sorted``)
    item_views: FrozenSet[str] = frozenset()
    pair_views: FrozenSet[str] = frozenset()
    key_views: FrozenSet[str] = frozenset()
    key_reads: FrozenSet[str] = frozenset()
    orderings: FrozenSet[str] = frozenset()

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "FitTables":
        names = {key: frozenset(data.get(key, ())) for key in (
            "fit_methods", "returns_self", "unknown_methods", "pipelines", "unions", "columns", "cross_fits", "reads",
            "searchers", "test_suites")}
        stored = data.get("containers", {})
        views = {key: frozenset(stored.get(key, ())) for key in ("items", "pairs", "keys", "key_reads", "orderings")}
        return cls(names["fit_methods"], names["returns_self"], names["unknown_methods"], names["pipelines"],
                   names["unions"], names["columns"], names["cross_fits"], names["reads"], names["searchers"],
                   tuple(data.get("step_lists", ())), names["test_suites"], views["items"], views["pairs"],
                   views["keys"], views["key_reads"], views["orderings"])


@dataclass(frozen=True)
class _Feed:
    """How the data given to an outer fit reaches the estimator: other columns (after a
    step that changes them)."""

    new_columns: bool = False
    shown: bool = False  # not a fit: the estimator is displayed or printed here

    def then(self, other: "_Feed") -> "_Feed":
        return _Feed(self.new_columns or other.new_columns)

    def apply(self, shape: Optional[Shape]) -> Optional[Shape]:
        cols = shape.cols if shape is not None else None
        if shape is None or shape.rows is None or cols is None:
            return None
        shape = Shape((shape.rows, cols))  # ``fit`` takes 2-D data
        if self.new_columns:
            shape = Shape((shape.dims[0], Extent()))
        return shape


SHOWN = (_Feed(shown=True), None)


class FittedOn:
    """The shapes of the data an estimator call's value is fitted on.

    Asked at the end of a module's walk, when every node's parent is known."""

    def __init__(self, tables: FitTables, sizes: DataSizes, qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]], index_for: Callable[[cst.CSTNode], ScopeIndex]) -> None:
        self.t = tables
        self.sizes = sizes
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for

    def shapes(self, call: cst.Call) -> Optional[List[Optional[Shape]]]:
        """One shape per fit (None: a fit on data of unknown size); [] when nothing fits
        it and it is displayed (an estimator nothing reads may be imported and fitted
        elsewhere, or be an example's last line); None when the value goes somewhere not
        followed."""
        found = self._follow(call, _Feed(), 0)
        if found is None:
            return None
        fits = [feed.apply(shape) for feed, shape in found if not feed.shown]
        if not fits and not found:
            return None
        return fits

    def _follow(self, value: cst.CSTNode, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        parent = self.parent(value)
        if isinstance(parent, cst.Attribute) and parent.value is value:
            return self._method(parent, feed, depth)
        if isinstance(parent, cst.Arg) and parent.value is value and not parent.star:
            return self._argument(parent, feed, depth, step=None)
        if isinstance(parent, cst.Element) and parent.value is value:
            return self._element(parent, feed, depth)
        if isinstance(parent, cst.Subscript) and parent.value is value:
            # ``pipe[-1].C_``: a step read from a fitted pipeline; fitting it there is not followed
            reader = self.parent(parent)
            if isinstance(reader, cst.Attribute) and reader.value is parent and reader.attr.value not in self.t.fit_methods \
                    and reader.attr.value not in self.t.unknown_methods:
                return []
            return None
        if isinstance(parent, cst.Expr) and parent.value is value:
            return [SHOWN]  # a bare expression: displayed (a notebook cell's last line), not fitted
        if isinstance(parent, cst.Assign) and parent.value is value and len(parent.targets) == 1:
            target = parent.targets[0].target
            if isinstance(target, cst.Name):
                return self._name(target, parent, feed, depth)
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                return self._stored(target.value, feed, depth)  # ``models[name] = est.fit(X)``
            return None
        if (isinstance(parent, cst.DictComp) and parent.value is value) or (isinstance(parent, cst.ListComp) and parent.elt is value):
            holder = self.parent(parent)  # ``models = {q: Est(q).fit(X) for q in qs}``
            if isinstance(holder, cst.Assign) and holder.value is parent and len(holder.targets) == 1 \
                    and isinstance(holder.targets[0].target, cst.Name) and depth < MAX_DEPTH:
                target = holder.targets[0].target
                return self._each_read(target, holder, lambda read: self._container_read(read, feed, depth + 1))
        return None

    # ---- an estimator kept in a dict or a list ---------------------------------------
    def _stored(self, container: cst.Name, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        """Stored as an item of the container a local name holds: every read of that name
        after its binding must lead to known fits or to none."""
        binding = self.index_for(container).reaching(container)
        statement = binding.statement if binding is not None and binding.kind == "assign" else None
        if not isinstance(statement, cst.Assign) or binding is None or not isinstance(binding.target, cst.Name) \
                or depth >= MAX_DEPTH:
            return None
        target = binding.target
        return self._each_read(target, statement, lambda read: self._container_read(read, feed, depth + 1))

    def _container_read(self, read: cst.Name, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        """One read of a container that may hold the estimator: an item read is followed as
        the estimator, another item stored adds nothing, its keys or length fit nothing,
        and a loop over its items or (key, item) pairs follows the loop variable."""
        parent = self.parent(read)
        if isinstance(parent, cst.Subscript) and parent.value is read:
            holder = self.parent(parent)
            if isinstance(holder, cst.AssignTarget) and holder.target is parent:
                return []
            return self._follow(parent, feed, depth)
        if isinstance(parent, cst.Arg) and parent.value is read:
            call = self.parent(parent)
            return [] if isinstance(call, cst.Call) and self.qualname(call.func) in self.t.key_reads else None
        if not isinstance(parent, cst.Attribute) or parent.value is not read:
            return None
        call = self.parent(parent)
        if not isinstance(call, cst.Call) or call.func is not parent:
            return None
        method = parent.attr.value
        if method in self.t.key_views:
            return []
        if method in self.t.item_views or method in self.t.pair_views:
            return self._loop_over(call, method in self.t.pair_views, feed, depth)
        return None

    def _loop_over(self, view: cst.Call, pairs: bool, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        """``for name, est in sorted(models.items()):``: the reads of the loop variable
        that takes the items, in the loop and after it."""
        node: cst.CSTNode = view
        while True:
            arg = self.parent(node)
            call = self.parent(arg) if isinstance(arg, cst.Arg) and arg.value is node and arg.keyword is None else None
            if not isinstance(call, cst.Call) or self.qualname(call.func) not in self.t.orderings or call.args[0] is not arg:
                break
            node = call
        loop = self.parent(node)
        if not isinstance(loop, cst.For) or loop.iter is not node:
            return None
        bound: cst.BaseExpression = loop.target
        if pairs:
            if not isinstance(bound, (cst.Tuple, cst.List)) or len(bound.elements) != 2:
                return None
            bound = bound.elements[1].value
        if not isinstance(bound, cst.Name):
            return None
        target = bound
        index = self.index_for(target)
        if read_in_nested(index.scope, target.value):
            return None
        reads = [r for r in index.loads.get(target.value, ()) if index.contains(loop.body, r)]
        reads += index.reads_after(target.value, loop)
        out: List[Tuple[_Feed, Optional[Shape]]] = []
        for read in reads:
            found = self._follow(read, feed, depth + 1)
            if found is None:
                return None
            out.extend(found)
        return out

    def _method(self, attribute: cst.Attribute, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        method = attribute.attr.value
        call = self.parent(attribute)
        called = isinstance(call, cst.Call) and call.func is attribute
        if method in self.t.unknown_methods:
            return None
        if method not in self.t.fit_methods:
            return []  # an attribute read, or a method of a fitted estimator (``transform``)
        if not called or not isinstance(call, cst.Call):
            return None
        data = find_arg(call, "X", 0)
        fits = [(feed, self.sizes.shape_of(data) if data is not None else None)]
        if method in self.t.returns_self:
            rest = self._follow(call, feed, depth)
            return None if rest is None else fits + rest
        return fits

    def _argument(self, arg: cst.Arg, feed: _Feed, depth: int, step: Optional[Tuple[cst.CSTNode, int]]) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        call = self.parent(arg)
        if not isinstance(call, cst.Call) or depth >= MAX_DEPTH:
            return None
        name = self.qualname(call.func)
        if name is None:
            return None
        if name in self.t.reads or name in self.t.test_suites:
            return [SHOWN]
        if name in self.t.cross_fits:
            if find_arg(call, "estimator", 0) is not arg.value:
                return None
            data = find_arg(call, "X", 1)
            # each fit is on the training part of a fold: fewer rows, at most a splitter's bound
            part = self.sizes.training_part(self.sizes.shape_of(data) if data is not None else None, find_arg(call, "cv", None))
            return [(feed, part)]
        if name in self.t.searchers:
            if find_arg(call, "estimator", 0) is not arg.value:
                return None
            found = self._follow(call, feed, depth + 1)
            return found if found is not None and all(f.shown for f, _ in found) else None
        if name in self.t.unions:
            inner = feed
        elif name in self.t.columns:
            inner = feed.then(_Feed(new_columns=True))
        elif name in self.t.pipelines:
            container, position = step if step is not None else (call, _position(call, arg))
            if position is None:
                return None
            inner = feed if self._keeps_before(container, position) else feed.then(_Feed(new_columns=True))
        else:
            return None
        return self._follow(call, inner, depth + 1)

    def _keeps_before(self, container: cst.CSTNode, position: int) -> bool:
        """Every step before ``position`` keeps the shape of the data (a scaler)."""
        if isinstance(container, cst.Call):
            before = [a.value for a in container.args if a.keyword is None][:position]
        elif isinstance(container, (cst.List, cst.Tuple)):
            before = []
            for element in container.elements[:position]:
                pair = element.value
                if not isinstance(pair, cst.Tuple) or len(pair.elements) < 2:
                    return False
                before.append(pair.elements[1].value)
        else:
            return False
        return all(self.sizes.keeps_shape(v) for v in before)

    def _element(self, element: cst.Element, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        """``("pca", PCA(2))`` in a list of steps: the list goes to a pipeline or union,
        directly or through a name."""
        pair = self.parent(element)
        if isinstance(pair, cst.List) and self._given_to_suite(pair):
            return [SHOWN]  # ``parametrize_with_checks([LogisticRegression(), ...])``
        if not isinstance(pair, cst.Tuple) or len(pair.elements) < 2 or pair.elements[1] is not element:
            return None
        holder = self.parent(pair)
        steps = self.parent(holder) if isinstance(holder, cst.Element) else None
        if not isinstance(steps, cst.List) or not isinstance(holder, cst.Element):
            return None
        position = next(i for i, e in enumerate(steps.elements) if e is holder)
        return self._steps(steps, steps, position, feed, depth)

    def _given_to_suite(self, listing: cst.List) -> bool:
        arg = self.parent(listing)
        call = self.parent(arg) if isinstance(arg, cst.Arg) and arg.value is listing and not arg.star else None
        return isinstance(call, cst.Call) and self.qualname(call.func) in self.t.test_suites

    def _steps(self, steps: cst.List, value: cst.CSTNode, position: int, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        parent = self.parent(value)
        if isinstance(parent, cst.Arg) and parent.value is value:
            call = self.parent(parent)
            if not isinstance(call, cst.Call) or all(find_arg(call, name, 0) is not value for name in self.t.step_lists):
                return None
            return self._argument(parent, feed, depth, step=(steps, position))
        if isinstance(parent, cst.Assign) and parent.value is value and len(parent.targets) == 1 and depth < MAX_DEPTH:
            target = parent.targets[0].target
            if not isinstance(target, cst.Name):
                return None
            return self._each_read(target, parent, lambda read: self._steps(steps, read, position, feed, depth + 1))
        return None

    def _name(self, target: cst.Name, statement: cst.Assign, feed: _Feed, depth: int) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        if depth >= MAX_DEPTH:
            return None
        return self._each_read(target, statement, lambda read: self._follow(read, feed, depth + 1))

    def _each_read(self, target: cst.Name, statement: cst.Assign,
                   follow: Callable[[cst.Name], Optional[List[Tuple[_Feed, Optional[Shape]]]]]) -> Optional[List[Tuple[_Feed, Optional[Shape]]]]:
        """What ``follow`` finds from every read of the name ``statement`` binds; None when
        the reads are not all known or one of them leads nowhere known."""
        reads = self._reads(target, statement)
        if reads is None:
            return None
        out: List[Tuple[_Feed, Optional[Shape]]] = []
        for read in reads:
            found = follow(read)
            if found is None:
                return None
            out.extend(found)
        return out

    def _reads(self, target: cst.Name, statement: cst.Assign) -> Optional[Sequence[cst.Name]]:
        """The reads of the value bound here; None when a nested function or class may
        read the name (it runs at a time this walk does not know)."""
        index = self.index_for(target)
        if read_in_nested(index.scope, target.value):
            return None
        if isinstance(index.scope, cst.Module) or isinstance(index.scope, cst.FunctionDef):
            return index.reads_after(target.value, statement)
        return None


def _position(call: cst.Call, arg: cst.Arg) -> Optional[int]:
    """The step a positional argument of ``make_pipeline(a, b, c)`` is."""
    if arg.keyword is not None:
        return None
    positional = [a for a in call.args if a.keyword is None]
    return next((i for i, a in enumerate(positional) if a is arg), None)


# ---- judging a call on the sizes it is fitted on ------------------------------------

class SizeJudge:
    """For a call whose draws depend on the data's size: the versions in which each fit
    draws nothing."""

    def __init__(self, sizes: DataSizes, qualname: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        self.sizes = sizes
        self.qualname = qualname

    def quiet_versions(self, call: cst.Call, alternatives: Sequence[NoDraw], defaults: Mapping[str, str],
                       shape: Optional[Shape]) -> Tuple[str, ...]:
        """The version ranges in which the call draws nothing on data of ``shape``."""
        if shape is None or shape.rows is None or shape.cols is None:
            return ()
        out: List[str] = []
        for alternative in alternatives:
            if alternative.args and arguments_hold(call, alternative.args, defaults, self.qualname) is not True:
                continue
            if all(self._holds(call, bound, shape, defaults, alternative.positions) for bound in alternative.bounds):
                out.append(alternative.versions)
        return tuple(dict.fromkeys(out))

    def _holds(self, call: cst.Call, bound: Bound, shape: Shape, defaults: Mapping[str, str], positions: Mapping[str, int]) -> bool:
        left = self._extent(call, bound.left, shape, defaults, positions)
        right = self._extent(call, bound.right, shape, defaults, positions)
        if left is None or right is None:
            return False
        if bound.op == "<=":
            return left.hi is not None and left.hi <= bound.factor * right.lo
        return right.hi is not None and left.lo >= bound.factor * right.hi

    def _extent(self, call: cst.Call, term: str, shape: Shape, defaults: Mapping[str, str], positions: Mapping[str, int]) -> Optional[Extent]:
        if term == "rows":
            return shape.rows
        if term == "cols":
            return shape.cols
        if term[0].isdigit():
            value = float(term)
            return Extent.exactly(int(value)) if value.is_integer() else None
        given = find_arg(call, term, positions.get(term))
        if given is None:
            default = defaults.get(term)
            number = _int(default) if default is not None else None
        else:
            number = self.sizes.number(given)
        return Extent.exactly(number) if number is not None else None


def _int(text: str) -> Optional[int]:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None
