"""What the code of a module sets a named field to (``jitter_amount_ms=0``).

A config or hyper-parameter object (``hparams.jitter_amount_ms``, ``params.repeated_augment``,
``cfg.common.quantization_config_path``) is often not known where a guard reads it: it is
merged, looked up in a registry or loaded.  What is known is every place the project's
code can give a field of that name a value: a keyword argument of any call (``HParams(...,
jitter_amount_ms=0)``, ``dataclasses.field(default=None)`` for a field declared so), an
assignment to an attribute of that name (``cfg.x = 1``, ``self.x = x``), a declaration in a
class body (``repeated_augment: Optional[int] = None``), a string key of a dict display or
of a subscript assignment, ``setattr(obj, "x", v)``, and a command-line option of that name.
Each gives a literal, or ``VARIES`` where the value is not a literal.  Pass 2 unions the
modules of the project: a field every such place sets to the same falsy literal holds that
value in the default run (nothing in the project can set it otherwise, short of a command
line or a config file the default run does not read).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from nondet_lint.callargs import ABSENT, UNKNOWN, literal_value
from nondet_lint.walk import children, nodes_in

Plain = Union[None, bool, int, float, str]


class _Varies:
    """A field set somewhere to a value that is not a literal (or to different literals)."""

    def __repr__(self) -> str:
        return "VARIES"


VARIES: Any = _Varies()
VARIES_JSON = ["varies"]  # its JSON form (facts are stored as JSON)
_OPTION_CALLS = ("add_argument", "DEFINE_string", "DEFINE_bool", "DEFINE_boolean", "DEFINE_integer", "DEFINE_float",
                 "DEFINE_enum", "DEFINE_list", "DEFINE_multi_string", "DEFINE_multi_integer", "DEFINE_multi_float")


def _plain(value: object) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _literal(node: Optional[cst.BaseExpression]) -> Any:
    """A plain literal, else ``VARIES``; ``field(default=x)`` is ``x``.  (``type() is``
    here and in the other handlers that run for every argument and assignment: libcst's
    classes are ABCs, whose isinstance() costs much when it fails, and these have no
    subclasses.)"""
    if type(node) is cst.Call:
        func = node.func
        name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else None
        if name == "field":  # ``dataclasses.field(default=None, metadata=...)``
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "default":
                    return _literal(arg.value)
            return VARIES
    value = literal_value(node, lambda _: None)
    return value if value is not UNKNOWN and value is not ABSENT and _plain(value) else VARIES


class FieldSettings:
    """Field name -> the one literal this module's code sets it to, or ``VARIES``."""

    def __init__(self) -> None:
        self.found: Dict[str, Any] = {}

    def set(self, name: str, value: Any) -> None:
        if name in self.found and not same(self.found[name], value):
            value = VARIES
        self.found[name] = value

    def call(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is not None and not arg.star:
                self.set(arg.keyword.value, _literal(arg.value))
        func = node.func
        method = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        if method == "setattr" and len(node.args) >= 3:
            name = literal_value(node.args[1].value, lambda _: None)
            if isinstance(name, str):
                self.set(name, _literal(node.args[2].value))
        elif method in _OPTION_CALLS and node.args:
            name = literal_value(node.args[0].value, lambda _: None)
            if isinstance(name, str):  # an option: the command line sets it (its default is read elsewhere)
                self.set(name.lstrip("-").replace("-", "_"), VARIES)

    def assign(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """``obj.name = value`` / ``obj["name"] = value`` (``value`` None: not a literal)."""
        literal = _literal(value) if value is not None else VARIES
        if type(target) is cst.Attribute:
            self.set(target.attr.value, literal)
        elif type(target) is cst.Subscript and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index:
            key = literal_value(target.slice[0].slice.value, lambda _: None)
            if isinstance(key, str):
                self.set(key, literal)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for element in target.elements:
                self.assign(element.value, None)

    def declare(self, name: str, value: Optional[cst.BaseExpression]) -> None:
        """A name bound in a class body (a dataclass field, a class attribute)."""
        self.set(name, _literal(value) if value is not None else VARIES)

    def display(self, node: cst.Dict) -> None:
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = literal_value(element.key, lambda _: None)
                if isinstance(key, str):
                    self.set(key, _literal(element.value))

    def to_json(self) -> Dict[str, Any]:
        return {name: VARIES_JSON if value is VARIES else value for name, value in self.found.items()}


def same(a: Any, b: Any) -> bool:
    """Equal literals of the same type (``0`` and ``False`` differ)."""
    if a is VARIES or b is VARIES:
        return False
    return type(a) is type(b) and a == b


def from_json(value: Any) -> Any:
    return VARIES if value == VARIES_JSON else value


def settled(modules: Iterable[Mapping[str, Any]]) -> Dict[str, Plain]:
    """The fields every module that sets them sets to the same falsy literal (JSON forms in)."""
    agreed: Dict[str, Any] = {}
    for settings in modules:
        for name, raw in settings.items():
            value = from_json(raw)
            if name in agreed and not same(agreed[name], value):
                value = VARIES
            agreed[name] = value
    return {name: value for name, value in agreed.items() if value is not VARIES and not value}


# ---- attributes that gate code, and the names code sets (ND205's ops) -------------------
def attribute_gate(ancestors: Sequence[cst.CSTNode],
                   optional: Callable[[cst.ClassDef], FrozenSet[str]] = lambda cls: optional_attributes(cls)) -> Tuple[str, ...]:
    """The attributes ``X`` of the method's own object that the branches around a node
    (up to its method) require to be set: it is in the body of ``if self.X is not None:``
    or ``if self.X:`` (or of an ``and`` of such tests, or of the same conditional
    expression), and ``X`` is one of the class's ``optional_attributes``.  Code there runs
    only in a program that gives ``X`` a value."""
    found: Set[str] = set()
    for index in range(len(ancestors) - 2, -1, -1):
        node = ancestors[index]
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break
        if isinstance(node, (cst.If, cst.IfExp)) and ancestors[index + 1] is node.body:
            found.update(required_set(node.test, _own))
    if not found:
        return ()
    # the method's class: ``ClassDef > IndentedBlock > FunctionDef``
    cls = next((n for n in reversed(ancestors[:index]) if isinstance(n, cst.ClassDef)), None) \
        if isinstance(node, cst.FunctionDef) else None
    place = next((i for i, n in enumerate(ancestors) if n is cls), None)
    if cls is None or place is None or place + 2 >= len(ancestors) or ancestors[place + 2] is not node:
        return ()
    return tuple(sorted(found & optional(cls)))


def required_set(test: cst.BaseExpression, named: Callable[[cst.BaseExpression], Iterator[str]]) -> Iterator[str]:
    """What a test requires set: ``x``, ``x is not None`` and ``and`` of them, each ``x``
    read by ``named`` (a plain name, or ``self.x`` for the object's own fields)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from required_set(test.left, named)
        yield from required_set(test.right, named)
    elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if (isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name)
                and target.comparator.value == "None"):
            yield from named(test.left)
    else:
        yield from named(test)


def _own(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        yield node.attr.value


_STORING = ("setattr", "register_buffer", "register_parameter")


def names_given(call: cst.Call, function: Optional[cst.FunctionDef]) -> Iterator[str]:
    """The field names a call gives a value: its keyword arguments, and the name of
    ``setattr(obj, "x", v)`` / ``self.register_buffer("x", v)``.  Passing on what the
    function was given for the same name (``active_dims=active_dims`` with the parameter
    defaulting to None, ``active_dims=self.active_dims``) or None gives nothing new."""
    for arg in call.args:
        if arg.keyword is not None and not arg.star and not _passed_on(arg.keyword.value, arg.value, function):
            yield arg.keyword.value
    func = call.func
    name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    if name in _STORING:
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        offset = 1 if name == "setattr" else 0
        if len(positional) > offset:
            key = literal_value(positional[offset], lambda _: None)
            value = positional[offset + 1] if len(positional) > offset + 1 else None
            if isinstance(key, str) and (value is None or not _passed_on(key, value, function)):
                yield key


class LocalValues:
    """The values a function assigns to plain names (``saved = k.x``), by name: what
    ``_restored`` compares with.  A caller that asks about many assignments of one
    function (``self.a = a`` in a constructor) keeps one, so the function is walked once
    rather than once per assignment."""

    def __init__(self) -> None:
        self._function: Optional[cst.FunctionDef] = None
        self._values: Dict[str, List[cst.BaseExpression]] = {}

    def of(self, function: cst.FunctionDef) -> Dict[str, List[cst.BaseExpression]]:
        if function is not self._function:
            self._function, self._values = function, _values_of(nodes_in(function, cst.Assign))
        return self._values

    @classmethod
    def gathered(cls, function: cst.FunctionDef, values: Dict[str, List[cst.BaseExpression]]) -> "LocalValues":
        """The values of ``function`` as a walk over it gathered them (what ``of`` finds)."""
        local = cls()
        local._function, local._values = function, values
        return local


def _values_of(assignments: Iterable[cst.Assign]) -> Dict[str, List[cst.BaseExpression]]:
    values: Dict[str, List[cst.BaseExpression]] = {}
    for node in assignments:
        for name in {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}:
            values.setdefault(name, []).append(node.value)
    return values


def names_assigned(target: cst.BaseExpression, value: Optional[cst.BaseExpression],
                   function: Optional[cst.FunctionDef], local: Optional[LocalValues] = None) -> Iterator[str]:
    """The attribute names an assignment gives a value (``obj.x = v``); putting back a
    value saved from the same attribute (``saved = k.x; k.x = None; ...; k.x = saved``)
    gives nothing new, and neither does passing on (``names_given``)."""
    if type(target) is cst.Attribute:
        name = target.attr.value
        if value is None or not (_passed_on(name, value, function)
                                 or _restored(name, value, function, local or LocalValues())):
            yield name
    elif type(target) is cst.Tuple or type(target) is cst.List:
        for element in target.elements:
            yield from names_assigned(element.value, None, function)


def _passed_on(name: str, value: cst.BaseExpression, function: Optional[cst.FunctionDef]) -> bool:
    # ``type() is``: this runs for every keyword argument; none of these classes has subclasses
    if type(value) is cst.Name and value.value == "None":
        return True
    if type(value) is cst.Attribute and value.attr.value == name and type(value.value) is cst.Name \
            and value.value.value == "self":
        return True
    if not (type(value) is cst.Name and value.value == name and function is not None):
        return False
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return isinstance(param.default, cst.Name) and param.default.value == "None"
    return False


def _restored(name: str, value: cst.BaseExpression, function: Optional[cst.FunctionDef], local: LocalValues) -> bool:
    if not (isinstance(value, cst.Name) and function is not None):
        return False
    saved = local.of(function).get(value.value, [])
    return bool(saved) and all(isinstance(v, cst.Attribute) and v.attr.value == name for v in saved)


def optional_attributes(cls: cst.ClassDef) -> FrozenSet[str]:
    """The attributes a class's own methods set, and set only by handing on a parameter of
    the same name that defaults to None, or None (``self.register_buffer("active_dims",
    active_dims)``): None unless a caller gives it.  Attributes the class never sets
    (``self.training``, which the framework sets) are not among them."""
    setters: Dict[str, bool] = {}
    for function in nodes_in(cls, cst.FunctionDef):
        found = _nodes_by_type(function)
        assigns = cast(List[cst.Assign], found.get(cst.Assign, []))
        local = LocalValues.gathered(function, _values_of(assigns))
        pairs: List[Tuple[cst.BaseExpression, Optional[cst.BaseExpression]]] = []
        for assign in assigns:
            pairs.extend((t.target, assign.value) for t in assign.targets)
        pairs.extend((node.target, node.value) for node in cast(List[cst.AnnAssign], found.get(cst.AnnAssign, [])))
        pairs.extend((node.target, None) for node in cast(List[cst.AugAssign], found.get(cst.AugAssign, [])))
        for target, value in pairs:
            for name in _own(target):
                ok = value is not None and not isinstance(value, cst.Attribute) and (
                    _passed_on(name, value, function) or _restored(name, value, function, local))
                setters[name] = setters.get(name, True) and ok
        for call in cast(List[cst.Call], found.get(cst.Call, [])):
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value in _STORING[1:]
                    and isinstance(func.value, cst.Name) and func.value.value == "self"):
                continue
            positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
            key = literal_value(positional[0], lambda _: None) if positional else None
            if isinstance(key, str):
                ok = len(positional) > 1 and _passed_on(key, positional[1], function)
                setters[key] = setters.get(key, True) and ok
    return frozenset(name for name, ok in setters.items() if ok)


def _nodes_by_type(node: cst.CSTNode) -> Dict[type, List[cst.CSTNode]]:
    """The nodes inside ``node`` (itself included), by type, each in source order: one
    walk where ``nodes_in`` would take one per type."""
    found: Dict[type, List[cst.CSTNode]] = {}
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        found.setdefault(type(current), []).append(current)
        stack.extend(reversed(children(current)))
    return found
