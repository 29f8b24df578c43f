"""Data size bounds of local values: how many rows and columns an array may have.

Some library calls draw only on data of some size (scikit-learn's PCA turns randomized on
large data, gradient boosting stops early above 10,000 samples), so a rule that knows
the data's size can tell that such a call draws nothing.  ``DataSizes.shape_of(expr)``
answers with lower and upper bounds of each dimension (``Extent``), or None when the size
is not known.  It knows, from tables of rule data (``SizeTables``): bundled data sets of a
fixed size (``load_iris()``, with ``return_X_y=True``, ``.data``, ``.target``), generators
whose size is an argument with a default (``make_regression(n_samples=...)``), NumPy
constructors and random draws with literal shapes (``rng.rand(80, 1)``,
``np.linspace(0, 5, 100)[:, np.newaxis]``), and operations that keep or only shrink a
size (``np.sort``, arithmetic with a number, slicing rows, selecting columns,
``train_test_split``, a scaler's ``fit_transform``).  Numbers may be module or local
constants (``n_samples = 500``).

Everything is syntactic and stays in one scope (a module constant is read from the module
when the function does not bind the name): a name whose reaching binding is not certain
(bound in a branch, rebound in a loop around the read) has no known size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint.analysis.dataflow import Binding, ScopeIndex
from nondet_lint.callargs import find_arg, literal_value
from nondet_lint.walk import children

MAX_DEPTH = 12  # names bound to names bound to ...
_LOOPS = (cst.For, cst.While)
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)


@dataclass(frozen=True)
class Extent:
    """A count known to lie between ``lo`` and ``hi`` (``hi`` None: no upper bound known)."""

    lo: int = 0
    hi: Optional[int] = None

    @classmethod
    def exactly(cls, count: int) -> "Extent":
        return cls(count, count)

    def at_most(self, limit: Optional[int] = None) -> "Extent":
        """A part of it: no lower bound, the same upper bound (or ``limit`` if smaller)."""
        his = [h for h in (self.hi, limit) if h is not None]
        return Extent(0, min(his) if his else None)

    def plus(self, other: "Extent") -> "Extent":
        return Extent(self.lo + other.lo, None if self.hi is None or other.hi is None else self.hi + other.hi)

    def times(self, other: "Extent") -> "Extent":
        return Extent(self.lo * other.lo, None if self.hi is None or other.hi is None else self.hi * other.hi)


@dataclass(frozen=True)
class Shape:
    """An array's dimensions (rows first).  ``more``: further dimensions may follow
    ``dims``, how many and of what size not known (``X[train, :]`` of data of unknown
    shape: the rows are known, not the rest)."""

    dims: Tuple[Extent, ...]
    more: bool = False

    @property
    def rows(self) -> Optional[Extent]:
        return self.dims[0] if self.dims else None

    @property
    def cols(self) -> Optional[Extent]:
        """The number of features of data given to ``fit`` (which takes 2-D data only): the
        second dimension of a 2-D array, not known (``Extent()``) where the dimensions
        after the known ones are not; None for any other number of dimensions."""
        if self.more:
            return self.dims[1] if len(self.dims) == 2 else Extent() if len(self.dims) == 1 else None
        return self.dims[1] if len(self.dims) == 2 else None

    def total(self) -> Extent:
        if self.more:
            return Extent()
        out = Extent.exactly(1)
        for dim in self.dims:
            out = out.times(dim)
        return out

    def fewer_rows(self) -> "Shape":
        return self.with_rows(self.dims[0].at_most()) if self.dims else self

    def with_rows(self, rows: Extent) -> "Shape":
        return Shape((rows, *self.dims[1:]), self.more) if self.dims else self


@dataclass(frozen=True)
class Record:
    """A data set bundle (scikit-learn's ``Bunch``): its arrays by attribute."""

    fields: Tuple[Tuple[str, Shape], ...]

    def field(self, name: str) -> Optional[Shape]:
        return next((shape for key, shape in self.fields if key == name), None)


@dataclass(frozen=True)
class Parts:
    """A tuple of values (``X, y = load_iris(return_X_y=True)``); None: not known."""

    items: Tuple[Optional["Size"], ...]


@dataclass(frozen=True)
class Folds:
    """A cross-validation splitter whose folds have bounded sizes
    (``TimeSeriesSplit(max_train_size=10000)``): the rows of each training and test part."""

    train: Extent
    test: Extent


@dataclass(frozen=True)
class Each:
    """A sequence whose every item has one size (the ``(train, test)`` index pairs a
    splitter's ``split`` gives); None: not known."""

    item: Optional["Size"]


Size = Union[Shape, Record, Parts, Folds, Each]


# ---- rule data ----------------------------------------------------------------------

@dataclass(frozen=True)
class Count:
    """A count a call takes as an argument (``n_samples``), with its default, or fixed."""

    kw: Optional[str] = None
    pos: Optional[int] = None
    default: Optional[int] = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Count":
        return cls(data.get("kw"), data.get("pos"), data.get("default"))


@dataclass(frozen=True)
class DataSource:
    """A call that returns data of a size its arguments tell: a bundled data set
    (``load_iris``: fixed), a generator (``make_classification``: ``n_samples``)."""

    rows: Count
    cols: Count
    returns: Tuple[str, ...]  # "data" (rows x cols), "target" (rows), "other"
    fields: Tuple[str, ...]  # a bundle's attributes that hold the data and the target
    split: Optional[str]  # the argument that makes it return ``returns`` (``return_X_y``)
    shrink_with: FrozenSet[str]  # arguments that keep only some of the rows (``n_class``)
    unknown_with: FrozenSet[str]  # arguments that change the shape or the kind of data

    @classmethod
    def from_data(cls, entry: Mapping[str, Any]) -> "DataSource":
        return cls(Count.from_data(entry["rows"]), Count.from_data(entry["cols"]), tuple(entry.get("returns", ("data",))),
                   tuple(entry.get("fields", ())), entry.get("split"), frozenset(entry.get("shrink_with", ())),
                   frozenset(entry.get("unknown_with", ())))


@dataclass(frozen=True)
class SizeTables:
    """``[ND108.data.sizes]``: what the analysis knows about the sizes calls give."""

    sources: Mapping[str, DataSource]
    dims_calls: FrozenSet[str]  # ``numpy.random.rand(80, 1)``: the arguments are the dimensions
    dims_methods: FrozenSet[str]  # the same as methods of a generator object (``rng.rand``)
    shape_calls: Mapping[str, Count]  # ``numpy.zeros((n, k))``, ``rng.normal(size=...)``: a shape argument
    shape_methods: Mapping[str, Count]
    generators: FrozenSet[str]  # calls that make a NumPy generator object (``RandomState``)
    length_calls: Mapping[str, Count]  # ``numpy.linspace(a, b, num=50)``: a 1-D length
    keep: FrozenSet[str]  # calls whose first argument's shape is their result's (``numpy.sort``)
    keep_methods: FrozenSet[str]  # methods that keep their object's shape (``astype``, ``copy``)
    column_stacks: FrozenSet[str]  # ``numpy.c_[a, b]``: columns side by side
    subsets: FrozenSet[str]  # ``train_test_split(*arrays)``: two parts of each array
    keep_transformers: FrozenSet[str]  # estimators whose ``fit_transform`` keeps the shape
    transform_methods: FrozenSet[str]
    new_axis: FrozenSet[str]  # ``numpy.newaxis``
    literal_arrays: FrozenSet[str]  # ``numpy.array([[0, 1], [2, 3]])``: the literal's shape
    self_methods: FrozenSet[str]  # methods that return their estimator (``fit``, ``set_output``)
    # ``rng.multivariate_normal(mean, cov, size)``: rows from ``size``, one more dimension
    # as long as the literal list this argument holds
    trailing: Mapping[str, Count]
    # ``train_test_split``'s size arguments: (test, train, the default test fraction)
    subset_sizes: Tuple[str, str, float] = ("test_size", "train_size", 0.25)
    # splitters whose folds have bounded sizes: (the train bound, the test bound) arguments
    splitters: Mapping[str, Tuple[Count, Count]] = field(default_factory=dict)
    split_methods: FrozenSet[str] = frozenset()  # ``cv.split(X)``: the (train, test) index pairs
    atleast_2d: FrozenSet[str] = frozenset()  # ``numpy.atleast_2d``: a 1-D array becomes one row
    transposes: FrozenSet[str] = frozenset()  # ``numpy.transpose(a)``: the dimensions reversed
    transpose_attributes: FrozenSet[str] = frozenset()  # ``a.T``
    positional_indexers: FrozenSet[str] = frozenset()  # ``frame.iloc[rows]``: rows by position

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "SizeTables":
        sources: Dict[str, DataSource] = {}
        for entry in data.get("sources", ()):
            source = DataSource.from_data(entry)
            for name in entry["names"]:
                sources[name] = source
        counts = {"shape_calls": {}, "shape_methods": {}, "length_calls": {}}  # type: Dict[str, Dict[str, Count]]
        for key, table in counts.items():
            for entry in data.get(key, ()):
                for name in entry["names"]:
                    table[name] = Count(entry.get("kw"), entry.get("pos"), entry.get("default"))
        names = {key: frozenset(data.get(key, ())) for key in (
            "dims_calls", "dims_methods", "generators", "keep", "keep_methods", "column_stacks", "subsets",
            "keep_transformers", "transform_methods", "new_axis", "literal_arrays", "self_methods")}
        trailing: Dict[str, Count] = {}
        for entry in data.get("shape_methods", ()):
            if "trailing" in entry:
                for name in entry["names"]:
                    trailing[name] = Count.from_data(entry["trailing"])
        splitters: Dict[str, Tuple[Count, Count]] = {}
        for entry in data.get("splitters", ()):
            for name in entry["names"]:
                splitters[name] = (Count.from_data(entry.get("train", {})), Count.from_data(entry.get("test", {})))
        sizes = data.get("subset_sizes", {})
        subset_sizes = (sizes.get("test", "test_size"), sizes.get("train", "train_size"), float(sizes.get("default_test", 0.25)))
        more = {key: frozenset(data.get(key, ())) for key in (
            "split_methods", "atleast_2d", "transposes", "transpose_attributes", "positional_indexers")}
        return cls(sources, names["dims_calls"], names["dims_methods"], counts["shape_calls"], counts["shape_methods"],
                   names["generators"], counts["length_calls"], names["keep"], names["keep_methods"], names["column_stacks"],
                   names["subsets"], names["keep_transformers"], names["transform_methods"], names["new_axis"],
                   names["literal_arrays"], names["self_methods"], trailing, subset_sizes, splitters,
                   more["split_methods"], more["atleast_2d"], more["transposes"], more["transpose_attributes"],
                   more["positional_indexers"])


# ---- the analysis -------------------------------------------------------------------

class DataSizes:
    """The sizes of the values of one module's expressions, as far as they are known.

    Asked at the end of a module's walk, when every node's parent is known."""

    def __init__(self, tables: SizeTables, qualname: Callable[[cst.BaseExpression], Optional[str]],
                 parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                 index_for: Callable[[cst.CSTNode], ScopeIndex], module: cst.Module) -> None:
        self.t = tables
        self.qualname = qualname
        self.parent = parent
        self.index_for = index_for
        self.module = module
        self._globals: Optional[FrozenSet[str]] = None

    def shape_of(self, expr: Optional[cst.BaseExpression]) -> Optional[Shape]:
        size = self.size_of(expr) if expr is not None else None
        return size if isinstance(size, Shape) else None

    def size_of(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[Size]:
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Attribute):
            owner = self.size_of(expr.value, depth + 1)
            if isinstance(owner, Shape) and expr.attr.value in self.t.transpose_attributes:
                return _transposed(owner)
            return owner.field(expr.attr.value) if isinstance(owner, Record) else None
        if isinstance(expr, cst.Tuple):  # ``X, y = iris.data, iris.target``
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return None
            return Parts(tuple(self.size_of(e.value, depth + 1) for e in expr.elements))
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.number(expr.left, depth) is not None, self.number(expr.right, depth) is not None
            if left != right:  # an array and a number: the array's shape
                return self.size_of(expr.right if left else expr.left, depth + 1)
            return None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self.size_of(expr.expression, depth + 1)
        return None

    # ---- numbers --------------------------------------------------------------------
    def number(self, expr: Optional[cst.BaseExpression], depth: int = 0) -> Optional[int]:
        """An integer a literal, a constant name or simple arithmetic gives (``int(1e4)``)."""
        if expr is None or depth > MAX_DEPTH:
            return None
        if isinstance(expr, (cst.Integer, cst.Float)):
            value = literal_value(expr, self.qualname)
            return int(value) if isinstance(value, (int, float)) and float(value).is_integer() and not isinstance(value, bool) else None
        if isinstance(expr, cst.Name):
            bound = self._bound_value(expr)
            return self.number(bound, depth + 1) if bound is not None else None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.number(expr.expression, depth + 1)
            return -inner if inner is not None else None
        if isinstance(expr, cst.Call) and self.qualname(expr.func) == "builtins.int" and len(expr.args) == 1:
            return self.number(expr.args[0].value, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.number(expr.left, depth + 1), self.number(expr.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(expr.operator, cst.Add):
                return left + right
            if isinstance(expr.operator, cst.Subtract):
                return left - right
            if isinstance(expr.operator, cst.Multiply):
                return left * right
            if isinstance(expr.operator, cst.FloorDivide) and right:
                return left // right
            return None
        return None

    def _count(self, call: cst.Call, count: Count, depth: int) -> Optional[int]:
        if count.kw is None and count.pos is None:
            return count.default
        given = find_arg(call, count.kw, count.pos)
        if given is None:
            return count.default
        return self.number(given, depth + 1)

    # ---- names ----------------------------------------------------------------------
    def _bound_value(self, load: cst.Name) -> Optional[cst.BaseExpression]:
        """The value the name's one certain binding at this read gives (an assignment of
        the whole value to the name), else None."""
        binding = self._certain_binding(load)
        if binding is None or binding.kind != "assign" or binding.value is None:
            return None
        return binding.value

    def _certain_binding(self, load: cst.Name) -> Optional[Binding]:
        index = self.index_for(load)
        bindings = index.bindings_of(load.value)
        if not bindings:
            if index.scope is self.module or load.value in self._declared_global():
                return None
            module = self.index_for(self.module)
            found = [b for b in module.bindings_of(load.value) if b.kind != "import"]
            return found[0] if len(found) == 1 and len(module.bindings_of(load.value)) == 1 else None
        binding = index.reaching(load)
        while binding is not None and binding.kind == "augassign" and isinstance(binding.target, cst.Name):
            binding = index.reaching(binding.target)  # ``X -= X.mean()``: in place, the same shape
        if binding is None or binding.kind not in ("assign", "for"):
            return None
        if not index.block_holds(binding.statement, load):
            return None  # bound in a branch the read may not follow
        for loop in _loops_around(load, self.parent, index.scope):
            if any(b is not binding and index.contains(loop, b.statement) for b in bindings):
                return None  # rebound in a loop around the read: an earlier pass's value
        return binding

    def _declared_global(self) -> FrozenSet[str]:
        """Names some function declares ``global``: it may rebind them when it runs."""
        if self._globals is None:
            found: Set[str] = set()
            stack: List[cst.CSTNode] = [self.module]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Global):
                    found.update(item.name.value for item in node.names)
                stack.extend(children(node))
            self._globals = frozenset(found)
        return self._globals

    def _name(self, load: cst.Name, depth: int) -> Optional[Size]:
        binding = self._certain_binding(load)
        if binding is None:
            return None
        statement = binding.statement
        if binding.kind == "for":  # ``for train, test in cv.split(X)``: an item of the sequence
            if not isinstance(statement, cst.For) or not self.index_for(load).contains(statement.body, load):
                return None
            items = self.size_of(statement.iter, depth + 1)
            return _unpacked(statement.target, load.value, items.item) if isinstance(items, Each) else None
        if binding.value is not None:
            return self.size_of(binding.value, depth + 1)
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            return _unpacked(statement.targets[0].target, load.value, self.size_of(statement.value, depth + 1))
        return None

    # ---- calls ----------------------------------------------------------------------
    def _call(self, call: cst.Call, depth: int) -> Optional[Size]:
        name = self.qualname(call.func)
        if name is not None:
            if name in self.t.sources:
                return self._source(call, self.t.sources[name], depth)
            if name in self.t.dims_calls:
                return self._dims(call, depth)
            if name in self.t.shape_calls:
                return self._shape_argument(call, self.t.shape_calls[name], depth)
            if name in self.t.length_calls:
                length = self._count(call, self.t.length_calls[name], depth)
                return Shape((Extent.exactly(length),)) if length is not None and length >= 0 else None
            if name in self.t.literal_arrays and call.args and isinstance(call.args[0].value, (cst.List, cst.Tuple)):
                return _literal_array(call.args[0].value)
            if name in self.t.keep and call.args:
                return self.size_of(call.args[0].value, depth + 1)
            if name in self.t.subsets:
                return self._subsets(call, depth)
            if name in self.t.atleast_2d and len(call.args) == 1:
                return _at_least_2d(self.shape_of_at(call.args[0].value, depth))
            if name in self.t.transposes and len(call.args) == 1:
                shape = self.shape_of_at(call.args[0].value, depth)
                return _transposed(shape) if shape is not None else None
            if name in self.t.splitters:
                train, test = self.t.splitters[name]
                return Folds(self._bound(call, train, depth), self._bound(call, test, depth))
        if isinstance(call.func, cst.Attribute):
            return self._method(call, call.func, depth)
        return None

    def _source(self, call: cst.Call, source: DataSource, depth: int) -> Optional[Size]:
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None and arg.keyword.value in source.unknown_with:
                value = literal_value(arg.value, self.qualname)
                if value is not None and value is not False:
                    return None
        rows, cols = self._count(call, source.rows, depth), self._count(call, source.cols, depth)
        if rows is None or cols is None or rows < 0 or cols < 0:
            return None
        shrink = any(arg.keyword is not None and arg.keyword.value in source.shrink_with for arg in call.args)
        extent = Extent(0, rows) if shrink else Extent.exactly(rows)
        data = Shape((extent, Extent.exactly(cols)))
        target = Shape((extent,))
        parts = tuple(data if kind == "data" else target if kind == "target" else None for kind in source.returns)
        if source.split is not None:
            split = literal_value(find_arg(call, source.split, None), self.qualname)
            if split is True:
                return Parts(parts)
            if split is not False and find_arg(call, source.split, None) is not None:
                return None
            shapes = [p for p in parts if p is not None]
            return Record(tuple(zip(source.fields, shapes)))
        return parts[0] if len(parts) == 1 else Parts(parts)

    def _dims(self, call: cst.Call, depth: int) -> Optional[Shape]:
        dims = []
        for arg in call.args:
            if arg.keyword is not None or arg.star:
                return None
            value = self.number(arg.value, depth + 1)
            if value is None or value < 0:
                return None
            dims.append(Extent.exactly(value))
        return Shape(tuple(dims)) if dims else None

    def _shape_argument(self, call: cst.Call, count: Count, depth: int) -> Optional[Shape]:
        given = find_arg(call, count.kw, count.pos)
        if given is None:
            return None
        if isinstance(given, (cst.Tuple, cst.List)):
            dims = [self.number(e.value, depth + 1) if not isinstance(e, cst.StarredElement) else None for e in given.elements]
            if any(d is None or d < 0 for d in dims):
                return None
            return Shape(tuple(Extent.exactly(d) for d in dims if d is not None))
        value = self.number(given, depth + 1)
        return Shape((Extent.exactly(value),)) if value is not None and value >= 0 else None

    def _bound(self, call: cst.Call, count: Count, depth: int) -> Extent:
        """At most the argument's count of items (a positive number), else not known."""
        given = find_arg(call, count.kw, count.pos) if count.kw is not None or count.pos is not None else None
        value = self.number(given, depth + 1) if given is not None else None
        return Extent(0, value) if value is not None and value > 0 else Extent()

    def _subsets(self, call: cst.Call, depth: int) -> Optional[Parts]:
        """``train_test_split(X, y, ...)``: a train and a test part of each array, in the
        order given."""
        items: List[Optional[Size]] = []
        sizes = self._split_sizes(call)
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None:
                continue
            shape = self.shape_of(arg.value) if depth <= MAX_DEPTH else None
            if shape is None or not shape.dims:
                items.extend((None, None))
                continue
            rows = shape.dims[0]
            if sizes is None:
                items.extend((shape.fewer_rows(), shape.fewer_rows()))
                continue
            items.extend((shape.with_rows(_apply(sizes[0], rows)), shape.with_rows(_apply(sizes[1], rows))))
        return Parts(tuple(items)) if items else None

    def _split_sizes(self, call: cst.Call) -> Optional[Tuple[Callable[[int], int], Callable[[int], int]]]:
        """How many rows of ``n`` the train and the test part get (scikit-learn's
        ``_validate_shuffle_split``: a fraction ``t`` of the test part is ``ceil(t * n)``,
        of the train part ``floor(t * n)``, a number is that many; the part not given is
        the rest; neither given: ``default_test``); None when a size is not a literal."""
        test_kw, train_kw, default_test = self.t.subset_sizes
        values = []
        for keyword in (test_kw, train_kw):
            given = find_arg(call, keyword, None)
            value = literal_value(given, self.qualname) if given is not None else None
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                return None
            values.append(value)
        test, train = values
        if test is None and train is None:
            test = default_test

        def part(size: Optional[float], rounding: Callable[[float], int]) -> Optional[Callable[[int], int]]:
            if size is None:
                return None
            if isinstance(size, float):
                return lambda n: rounding(size * n)
            return lambda n: int(size)

        n_test, n_train = part(test, math.ceil), part(train, math.floor)
        if n_train is None and n_test is not None:
            test_of = n_test
            n_train = lambda n: n - test_of(n)  # noqa: E731
        elif n_test is None and n_train is not None:
            train_of = n_train
            n_test = lambda n: n - train_of(n)  # noqa: E731
        if n_train is None or n_test is None:
            return None
        return n_train, n_test

    def _method(self, call: cst.Call, func: cst.Attribute, depth: int) -> Optional[Size]:
        method = func.attr.value
        owner = func.value
        if method in self.t.dims_methods or method in self.t.shape_methods:
            if self._is_generator(owner, depth):
                if method in self.t.dims_methods:
                    return self._dims(call, depth)
                shape = self._shape_argument(call, self.t.shape_methods[method], depth)
                if shape is not None and method in self.t.trailing:
                    extra = self.t.trailing[method]
                    given = find_arg(call, extra.kw, extra.pos)
                    if not isinstance(given, (cst.List, cst.Tuple)):
                        return None
                    shape = Shape((*shape.dims, Extent.exactly(len(given.elements))))
                return shape
            return None
        if method in self.t.keep_methods:
            return self.size_of(owner, depth + 1)
        if method in self.t.split_methods:
            folds = self.size_of(owner, depth + 1)
            if isinstance(folds, Folds):
                return Each(Parts((Shape((folds.train,)), Shape((folds.test,)))))
            return None
        if method == "reshape":
            return self._reshape(call, owner, depth)
        if method == "ravel" and not call.args:
            shape = self.shape_of_at(owner, depth)
            return Shape((shape.total(),)) if shape is not None else None
        if method in self.t.transform_methods and call.args and self.keeps_shape(owner):
            return self.size_of(call.args[0].value, depth + 1)
        return None

    def training_part(self, shape: Optional[Shape], cv: Optional[cst.BaseExpression]) -> Optional[Shape]:
        """The data a cross-validation fits on, given its data's shape and its ``cv``: fewer
        rows, at most a splitter's bound on its training part (``TimeSeriesSplit(
        max_train_size=N)``) whatever the data's size."""
        folds = self.size_of(cv) if cv is not None else None
        bound = folds.train.hi if isinstance(folds, Folds) else None
        if bound is None:
            return shape.fewer_rows() if shape is not None else None
        base = shape if shape is not None else Shape((Extent(),), more=True)
        return base.with_rows(base.dims[0].at_most(bound)) if base.dims else None

    def shape_of_at(self, expr: cst.BaseExpression, depth: int) -> Optional[Shape]:
        size = self.size_of(expr, depth + 1)
        return size if isinstance(size, Shape) else None

    def _is_generator(self, owner: cst.BaseExpression, depth: int) -> bool:
        """``rng`` bound to ``np.random.RandomState(0)``, or ``np.random`` itself."""
        if self.qualname(owner) == "numpy.random":
            return True
        if isinstance(owner, cst.Call):
            return self.qualname(owner.func) in self.t.generators
        if isinstance(owner, cst.Name):
            bound = self._bound_value(owner)
            return isinstance(bound, cst.Call) and self.qualname(bound.func) in self.t.generators
        return False

    def keeps_shape(self, owner: cst.BaseExpression) -> bool:
        """A transformer whose output has its input's shape (``StandardScaler()``)."""
        if isinstance(owner, cst.Name):
            bound = self._bound_value(owner)
            owner = bound if bound is not None else owner
        # ``StandardScaler().fit(X)``: scikit-learn's ``fit`` returns the estimator
        while isinstance(owner, cst.Call) and isinstance(owner.func, cst.Attribute) and owner.func.attr.value in self.t.self_methods:
            owner = owner.func.value
        return isinstance(owner, cst.Call) and self.qualname(owner.func) in self.t.keep_transformers

    def _reshape(self, call: cst.Call, owner: cst.BaseExpression, depth: int) -> Optional[Shape]:
        values = [a.value for a in call.args]
        if len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List)):
            values = [e.value for e in values[0].elements]
        numbers = [self.number(v, depth + 1) for v in values]
        if not numbers or any(n is None for n in numbers) or any(a.keyword is not None for a in call.args):
            return None
        known = [n for n in numbers if n is not None]
        if known.count(-1) > 1 or any(n < -1 for n in known):
            return None
        if -1 not in known:
            return Shape(tuple(Extent.exactly(n) for n in known))
        shape = self.shape_of_at(owner, depth)
        if shape is None:
            return None
        rest = 1
        for n in known:
            rest *= n if n != -1 else 1
        total = shape.total()
        if rest == 0:
            return None
        free = Extent(-(-total.lo // rest), None if total.hi is None else total.hi // rest)
        return Shape(tuple(free if n == -1 else Extent.exactly(n) for n in known))

    # ---- indexing -------------------------------------------------------------------
    def _subscript(self, expr: cst.Subscript, depth: int) -> Optional[Size]:
        if self.qualname(expr.value) in self.t.column_stacks:
            return self._column_stack(expr, depth)
        value = expr.value
        by_position = isinstance(value, cst.Attribute) and value.attr.value in self.t.positional_indexers
        whole = self.size_of(value.value if isinstance(value, cst.Attribute) and by_position else value, depth + 1)
        if isinstance(whole, Each):  # ``list(cv.split(X))[0]``: one item
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) \
                    and self.number(expr.slice[0].slice.value, depth + 1) is not None:
                return whole.item
            return None
        if whole is not None and not isinstance(whole, Shape):
            return None
        # rows picked by an index array: ``X[train, :]`` (NumPy, polars; a data frame's
        # ``X[train]`` would pick columns), ``X.iloc[train]``: of data of any shape
        picks = len(expr.slice) > 1 or by_position
        shape = whole if whole is not None else Shape((), more=True) if picks else None
        if shape is None:
            return None
        dims: List[Extent] = []
        rest = list(shape.dims)
        for position, element in enumerate(expr.slice):
            index = element.slice
            if isinstance(index, cst.Index) and self._is_new_axis(index.value):
                dims.append(Extent.exactly(1))
                continue
            if not rest and not shape.more:
                return None
            dim = rest.pop(0) if rest else Extent()
            picked = self._index_array(index, depth) if position == 0 and picks else None
            if picked is not None:
                dims.append(Extent(0, picked.hi))  # as many rows as the index has (a mask: fewer)
            elif isinstance(index, cst.Slice):
                dims.append(self._sliced(dim, index, depth))
            elif isinstance(index, cst.Index) and self.number(index.value, depth + 1) is not None:
                continue  # one position: the dimension goes
            elif isinstance(index, cst.Index) and isinstance(index.value, cst.List) and len(dims) >= 1:
                # a list of positions on a later axis (``X[:, [0, 2]]``): that many
                dims.append(Extent.exactly(len(index.value.elements)))
            elif (isinstance(index, cst.Index) and isinstance(index.value, cst.List) and len(expr.slice) == 1
                  and len(shape.dims) == 2 and index.value.elements
                  and all(isinstance(e.value, cst.SimpleString) for e in index.value.elements)):
                # ``frame[["a", "b"]]``: columns of a data frame by name
                return Shape((shape.dims[0], Extent.exactly(len(index.value.elements))))
            else:
                return None
        return Shape((*dims, *rest), shape.more)

    def _index_array(self, index: cst.BaseSlice, depth: int) -> Optional[Extent]:
        """The length of a 1-D array of positions or a mask used as an index."""
        if not isinstance(index, cst.Index) or not isinstance(index.value, cst.Name):
            return None
        shape = self.shape_of_at(index.value, depth)
        if shape is None or shape.more or len(shape.dims) != 1 or shape.dims[0].hi is None:
            return None
        return shape.dims[0]

    def _sliced(self, dim: Extent, index: cst.Slice, depth: int) -> Extent:
        """A slice keeps at most ``stop - start`` items, all of them when it has no bounds
        and no step."""
        if index.lower is None and index.upper is None and index.step is None:
            return dim
        lower = self.number(index.lower, depth + 1) if index.lower is not None else 0
        upper = self.number(index.upper, depth + 1) if index.upper is not None else None
        if lower is not None and upper is not None and lower >= 0 and upper >= 0:
            return dim.at_most(max(upper - lower, 0))
        return dim.at_most()

    def _is_new_axis(self, value: cst.BaseExpression) -> bool:
        return (isinstance(value, cst.Name) and value.value == "None") or self.qualname(value) in self.t.new_axis

    def _column_stack(self, expr: cst.Subscript, depth: int) -> Optional[Shape]:
        """``np.c_[a, b]``: 1-D arrays become columns; rows are shared."""
        rows: Optional[Extent] = None
        cols = Extent.exactly(0)
        for element in expr.slice:
            if not isinstance(element.slice, cst.Index):
                return None
            shape = self.shape_of_at(element.slice.value, depth)
            if shape is None or shape.more or len(shape.dims) not in (1, 2):
                return None
            rows = shape.dims[0] if rows is None else Extent(max(rows.lo, shape.dims[0].lo), _min_hi(rows.hi, shape.dims[0].hi))
            cols = cols.plus(shape.dims[1] if len(shape.dims) == 2 else Extent.exactly(1))
        return Shape((rows, cols)) if rows is not None else None


def _apply(part: Callable[[int], int], rows: Extent) -> Extent:
    """A part's rows of data with ``rows`` rows (the part's size grows with the data's)."""
    low = max(part(rows.lo), 0)
    return Extent(low, max(part(rows.hi), low) if rows.hi is not None else None)


def _transposed(shape: Shape) -> Optional[Shape]:
    return Shape(tuple(reversed(shape.dims))) if not shape.more else None


def _at_least_2d(shape: Optional[Shape]) -> Optional[Shape]:
    """``numpy.atleast_2d``: a scalar is 1x1, a 1-D array one row, the rest as they are."""
    if shape is None or shape.more:
        return None
    if len(shape.dims) == 0:
        return Shape((Extent.exactly(1), Extent.exactly(1)))
    if len(shape.dims) == 1:
        return Shape((Extent.exactly(1), shape.dims[0]))
    return shape


def _unpacked(target: cst.BaseExpression, name: str, whole: Optional[Size]) -> Optional[Size]:
    """The size ``name`` gets where ``target`` takes a value of size ``whole``."""
    if isinstance(target, cst.Name):
        return whole if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)):
        position = _position_in(target, name)
        if position is not None and isinstance(whole, Parts) and len(whole.items) == len(target.elements):
            return whole.items[position]
    return None


def _min_hi(a: Optional[int], b: Optional[int]) -> Optional[int]:
    return b if a is None else a if b is None else min(a, b)


def _literal_array(value: cst.BaseExpression) -> Optional[Shape]:
    """``np.array([0, 1, 2])`` (1-D) or ``np.array([[0, 1], [2, 3]])`` (2-D, rows of one length)."""
    if not isinstance(value, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    rows = [e.value for e in value.elements]
    if rows and all(isinstance(r, (cst.List, cst.Tuple)) for r in rows):
        lengths = {len(r.elements) for r in rows if isinstance(r, (cst.List, cst.Tuple))}
        if len(lengths) != 1:
            return None
        return Shape((Extent.exactly(len(rows)), Extent.exactly(lengths.pop())))
    if any(isinstance(r, (cst.List, cst.Tuple, cst.ListComp)) for r in rows):
        return None
    return Shape((Extent.exactly(len(rows)),))


def _position_in(target: Union[cst.Tuple, cst.List], name: str) -> Optional[int]:
    for position, element in enumerate(target.elements):
        if isinstance(element, cst.StarredElement):
            return None
        if isinstance(element.value, cst.Name) and element.value.value == name:
            return position
    return None


def _loops_around(node: cst.CSTNode, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                  scope: cst.CSTNode) -> Sequence[cst.CSTNode]:
    out = []
    current = parent(node)
    while current is not None and current is not scope and not isinstance(current, _SCOPES):
        if isinstance(current, _LOOPS):
            out.append(current)
        current = parent(current)
    return out
