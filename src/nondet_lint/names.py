"""Lean import-alias resolution: which library object does a name or attribute chain mean?

libcst's ``QualifiedNameProvider`` answers this for every node of a module and costs
several times the parse; we only need it for the few names that rules ask about, and
imports are few and simple.  So a module's imports (anywhere in the file), its
top-level definitions and simple module aliases (``nn = torch.nn``) are collected once,
and a dotted name is resolved on demand.  Names bound as parameters of the enclosing
functions shadow imports (``def f(random): random.choice(x)`` is not the stdlib).

Some imports bind more than their spelling says (``ImportBindings``, from rule data): a
star import of a framework's convenience module (``from fastai.vision.all import *``
binds ``torch``, ``nn``, ``F``), and a module that is another module's API under a
second path (``import tensorflow.compat.v1 as tf``: ``tf.Session`` is ``tensorflow.Session``).
"""

from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, cast

import libcst as cst

BUILTIN_NAMES: FrozenSet[str] = frozenset(dir(builtins))


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None (spelling only, no resolution)."""
    parts: List[str] = []
    # type() rather than isinstance(): libcst nodes are ABCs, and this runs for every name
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_dotted(node: cst.BaseExpression) -> str:
    name = dotted_name(node)
    return name or ""


def resolve_relative(module_name: str, is_package: bool, dots: int, target: str) -> str:
    """``from ..x import y`` seen in ``module_name`` → absolute ``pkg.x``."""
    parts = module_name.split(".") if module_name else []
    if not is_package:
        parts = parts[:-1]
    if dots > 1:
        parts = parts[: len(parts) - (dots - 1)] if dots - 1 <= len(parts) else []
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


def _statements(body: Sequence[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Every statement of a body, descending into compound statements (not expressions)."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        kind = type(stmt)  # exact types: isinstance() against libcst's ABCs costs more here
        if kind is cst.SimpleStatementLine:
            # cast(): the exact type was just tested (mypy does not follow ``type(x) is``)
            stack.extend(reversed(cast(cst.SimpleStatementLine, stmt).body))
            continue
        if not _is_compound(kind):
            continue
        inner: List[cst.CSTNode] = []
        for attr in _block_fields(kind):
            part = getattr(stmt, attr)
            if part is None:
                continue
            part_kind = type(part)
            if part_kind is list or part_kind is tuple:
                inner.extend(part)
            elif part_kind is cst.IndentedBlock or part_kind is cst.SimpleStatementSuite:
                inner.extend(part.body)
            else:
                inner.append(part)
        stack.extend(reversed(inner))


_COMPOUND: Dict[type, bool] = {}
_BLOCKS: Dict[type, Tuple[str, ...]] = {}
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _block_fields(kind: type) -> Tuple[str, ...]:
    """Which of the fields that hold statements a compound statement's type has (asking
    for a missing attribute raises, which cost more than the rest of the loop)."""
    found = _BLOCKS.get(kind)
    if found is None:
        names = {f.name for f in dataclasses.fields(kind)}
        found = _BLOCKS[kind] = tuple(name for name in _BLOCK_FIELDS if name in names)
    return found


def _is_compound(kind: type) -> bool:
    """Whether statements of this type hold other statements (``if``, ``try``, ``else``...)."""
    found = _COMPOUND.get(kind)
    if found is None:
        found = _COMPOUND[kind] = not issubclass(kind, cst.BaseSmallStatement)
    return found


@dataclass(frozen=True)
class ImportBindings:
    """What imports of some modules bind (rule data ``[ND000.data.imports]``)."""

    # module -> {name: qualified name}: what ``from module import *`` binds
    star_exports: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # module path -> the module whose API it is (``tensorflow.compat.v1`` -> ``tensorflow``)
    same_api: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_rule_data(cls, data: Mapping[str, Any]) -> "ImportBindings":
        return cls(dict(data.get("star_exports", {})), dict(data.get("same_api", {})))

    def star(self, module: str) -> Dict[str, str]:
        """What ``from module import *`` binds: its table, with the tables it includes
        (its ``"*"`` key names another module of the table)."""
        bound: Dict[str, str] = {}
        seen: Set[str] = set()
        while module in self.star_exports and module not in seen:
            seen.add(module)
            table = self.star_exports[module]
            for name, target in table.items():
                if name != "*":
                    bound.setdefault(name, target)
            module = table.get("*", "")
        return bound

    def module(self, path: str) -> str:
        """The module ``path`` is the API of (itself, or after its longest ``same_api`` prefix)."""
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            target = self.same_api.get(".".join(parts[:end]))
            if target is not None:
                return ".".join([target, *parts[end:]])
        return path


NO_BINDINGS = ImportBindings()


def _literal_all(node: cst.BaseSmallStatement) -> Optional[FrozenSet[str]]:
    """The names of ``__all__ = ["a", "b"]`` (a list or tuple of string literals)."""
    if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
        return None
    target = node.targets[0].target
    if not (isinstance(target, cst.Name) and target.value == "__all__" and isinstance(node.value, (cst.List, cst.Tuple))):
        return None
    names = [e.value.evaluated_value for e in node.value.elements if isinstance(e.value, cst.SimpleString)]
    return frozenset(n for n in names if isinstance(n, str))


class ImportMap:
    """Names bound by imports and top-level definitions of one module."""

    def __init__(
        self, module: cst.Module, module_name: str = "", is_package: bool = False,
        bindings: ImportBindings = NO_BINDINGS,
    ) -> None:
        self.module_name = module_name
        self.aliases: Dict[str, str] = {}
        # names bound through a ``same_api`` module (``import tensorflow.compat.v1 as tf``):
        # the API is the same, but the code was written for the version that has the alias
        self.same_api_names: Set[str] = set()
        self.imported_modules: Set[str] = set()  # every module path imported, for pre-filters and indexes
        # modules star-imported whose bindings no rule data knows (project modules): they may bind anything
        self.unknown_stars: List[str] = []
        self._prefixes: Optional[Set[str]] = None  # their dotted prefixes (``mentions``)
        self.definitions: Dict[str, str] = {}
        self._bindings = bindings
        # a spelled-out ``tf.compat.v1.Session`` is the API ``import tensorflow.compat.v1 as tf`` binds
        self._same_api_prefixes = tuple(module + "." for module in bindings.same_api)
        for stmt in _statements(module.body):
            kind = type(stmt)
            # cast() below: the exact type was just tested (mypy does not follow ``type(x) is``)
            if kind is cst.Import:
                for alias in cast(cst.Import, stmt).names:
                    full = _module_dotted(alias.name)
                    self.imported_modules.add(full)
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        self.aliases[alias.asname.name.value] = bindings.module(full)
                        if bindings.module(full) != full:
                            self.same_api_names.add(alias.asname.name.value)
                        self.imported_modules.add(bindings.module(full))
                    else:
                        root = full.split(".")[0]
                        self.aliases.setdefault(root, root)
            elif kind is cst.ImportFrom:
                stmt = cast(cst.ImportFrom, stmt)
                base = _module_dotted(stmt.module) if stmt.module is not None else ""
                dots = len(stmt.relative)
                if dots:
                    base = resolve_relative(module_name, is_package, dots, base)
                self.imported_modules.add(base)
                written = base
                base = bindings.module(base)
                self.imported_modules.add(base)
                if isinstance(stmt.names, cst.ImportStar):
                    exported = bindings.star(base)
                    for bound, target in exported.items():
                        self.aliases[bound] = target
                        self.imported_modules.add(target)
                    if not exported:
                        self.unknown_stars.append(base)
                    continue
                for alias in stmt.names:
                    name = _module_dotted(alias.name)
                    bound = name
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        bound = alias.asname.name.value
                    target = bindings.module(f"{base}.{name}") if base else name
                    self.aliases[bound] = target
                    if written != base or (base and target != f"{base}.{name}"):
                        self.same_api_names.add(bound)
                    self.imported_modules.add(target)
        # what ``from this_module import *`` exports, when ``__all__`` lists it literally
        self.all_names: Optional[FrozenSet[str]] = None
        # top-level functions/classes and simple module aliases (``nn = torch.nn``)
        for stmt in module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.definitions[stmt.name.value] = f"{module_name}.{stmt.name.value}" if module_name else stmt.name.value
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    listed = _literal_all(small)
                    if listed is not None:
                        self.all_names = listed
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and isinstance(small.value, (cst.Name, cst.Attribute))
                    ):
                        target = small.targets[0].target.value
                        resolved = self.resolve_dotted(dotted_name(small.value) or "")
                        if resolved and target not in self.aliases:
                            self.aliases[target] = resolved

    def binds(self, name: str) -> bool:
        """Whether a bare ``name`` may resolve (``resolve_dotted`` gives None for any other)."""
        return name in self.aliases or name in self.definitions or name in BUILTIN_NAMES

    def resolve_dotted(self, dotted: str, shadowed: FrozenSet[str] = frozenset()) -> Optional[str]:
        """Qualify a dotted spelling; None when its root is local or unknown."""
        if not dotted:
            return None
        root, _, rest = dotted.partition(".")
        if root in shadowed:
            return None
        target = self.aliases.get(root)
        if target is None:
            target = self.definitions.get(root)
        if target is None:
            if root in BUILTIN_NAMES and not rest:
                return f"builtins.{root}"
            return None
        full = f"{target}.{rest}" if rest else target
        if full.startswith(self._same_api_prefixes) or full in self._bindings.same_api:
            return self._bindings.module(full)
        return full

    def via_same_api(self, dotted: str) -> bool:
        """Whether a dotted spelling reaches its API through a ``same_api`` module: a name
        bound by ``import tensorflow.compat.v1 as tf`` or a spelled-out ``tf.compat.v1.X``."""
        root, _, rest = dotted.partition(".")
        if root in self.same_api_names:
            return True
        target = self.aliases.get(root)
        if target is None:
            return False
        full = f"{target}.{rest}" if rest else target
        return full.startswith(self._same_api_prefixes) or full in self._bindings.same_api

    def mentions(self, *prefixes: str) -> bool:
        """Whether the module imports anything from one of the given packages (``torch``,
        ``torch.utils.data``): asked many times per file, so every dotted prefix of every
        imported name is collected once."""
        known = self._prefixes
        if known is None:
            known = self._prefixes = set()
            for name in self.imported_modules:
                parts = name.split(".")
                known.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        return any(prefix in known for prefix in prefixes)
