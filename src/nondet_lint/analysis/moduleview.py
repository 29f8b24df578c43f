"""One module seen after its walk: qualified names with shadowing, its calls, the call
sites of its functions and one ``ScopeIndex`` per scope, built lazily and shared by every
rule that asks (through a family's per-file context)."""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Set

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex
from nondet_lint.analysis.texttypes import scope_index_factory
from nondet_lint.context import FileContext, parameter_names
from nondet_lint.names import dotted_name


class ModuleView:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.index_for = scope_index_factory(ctx.parent)
        self._parameters: Dict[int, FrozenSet[str]] = {}  # by function node

    def _hidden(self, name: str, node: cst.CSTNode) -> bool:
        """Whether a parameter of a function around ``node`` is called ``name`` (it hides
        an import of that name); parameters are read once per function."""
        cache = self._parameters
        current = self.ctx.parent(node)
        while current is not None:
            if type(current) is cst.FunctionDef or type(current) is cst.Lambda:
                names = cache.get(id(current))
                if names is None:
                    names = cache[id(current)] = parameter_names((current,))
                if name in names:
                    return True
            current = self.ctx.parent(current)
        return False

    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """``ctx.qualname`` usable after the walk (shadowing found through the parents)."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        resolved = self.ctx.imports.resolve_dotted(dotted)
        if resolved is None or not self._hidden(dotted.partition(".")[0], expr):
            return resolved
        return None  # a parameter hides the import

    def qualname_starting(self, expr: cst.BaseExpression, prefix: str) -> Optional[str]:
        """``qualname(expr)`` when it starts with ``prefix``, else None: the parents are
        searched for parameters only for names that could match."""
        dotted = dotted_name(expr)
        resolved = self.ctx.imports.resolve_dotted(dotted) if dotted is not None else None
        if resolved is None or not resolved.startswith(prefix):
            return None
        return self.qualname(expr)

    def module_calls(self) -> List[cst.Call]:
        """Every call of the module, in source order."""
        return self.ctx.module_calls()

    def call_sites(self, function: cst.FunctionDef) -> List[cst.Call]:
        """Calls of a function of this module: ``f(...)`` for a top-level function,
        ``self.f(...)`` / ``cls.f(...)`` / ``Class.f(...)`` for a method."""
        name = function.name.value
        block = self.ctx.parent(function)
        owner = self.ctx.parent(block) if block is not None else None  # IndentedBlock -> ClassDef
        in_class = isinstance(owner, cst.ClassDef)
        if isinstance(owner, cst.ClassDef) and name == "__init__":
            name, in_class = owner.name.value, False  # ``Class(...)`` runs ``__init__``
        sites = []
        for call in self.module_calls():
            func = call.func
            if in_class and isinstance(func, cst.Attribute) and func.attr.value == name:
                sites.append(call)
            elif not in_class and isinstance(func, cst.Name) and func.value == name:
                sites.append(call)
        if not in_class and block is not None:
            sites.extend(self._alias_calls(name, block))
        return sites

    def _alias_calls(self, name: str, block: cst.CSTNode) -> List[cst.Call]:
        """Calls of a function through a name bound to it in the scope that defines it
        (``gen = _tfds_gen if tfds_name else _file_gen`` then ``gen()``)."""
        index = self.index_for(block)
        aliases: Set[str] = set()
        for load in index.loads.get(name, ()):
            holder: Optional[cst.CSTNode] = self.ctx.parent(load)
            child: cst.CSTNode = load
            while isinstance(holder, cst.IfExp) and holder.test is not child:
                child, holder = holder, self.ctx.parent(holder)
            if child is load and not isinstance(holder, cst.Assign):
                continue
            if isinstance(holder, cst.Assign) and holder.value is child and len(holder.targets) == 1:
                target = holder.targets[0].target
                if isinstance(target, cst.Name) and target.value != name:
                    aliases.add(target.value)
        return [call for call in index.calls if aliases and isinstance(call.func, cst.Name) and call.func.value in aliases
                and all(b.kind == "assign" for b in index.bindings_of(call.func.value))]

    def index(self, node: cst.CSTNode) -> ScopeIndex:
        return self.index_for(node)


def call_arg(call: cst.Call, pos: Optional[int], kw: Optional[str]) -> Optional[cst.Arg]:
    """The argument passed for a parameter, by keyword ``kw`` or at position ``pos``."""
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if kw is not None and arg.keyword.value == kw:
                return arg
        elif arg.star:
            return None
        else:
            if pos is not None and positional == pos:
                return arg
            positional += 1
    return None


def method_of(call: cst.Call) -> cst.Attribute:
    """The ``.name`` of a call a check collected as a method call (``ds.take(n)``)."""
    func = call.func
    assert isinstance(func, cst.Attribute), "collected as a method call"
    return func


def has_double_star(call: cst.Call) -> bool:
    """``f(**kwargs)``: any keyword may be in there."""
    return any(arg.star == "**" for arg in call.args)


def is_none(expr: Optional[cst.BaseExpression]) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def spellings(ctx: FileContext, qualnames: Iterable[str], extra: Iterable[str] = ()) -> FrozenSet[str]:
    """Last names a call to one of ``qualnames`` can be written with in this module: the
    real last part, or a ``from x import f as g`` alias (a cheap filter before resolving)."""
    names = set(extra)
    wanted = set(qualnames)
    for name in wanted:
        names.add(name.rsplit(".", 1)[-1])
    for alias, target in ctx.imports.aliases.items():
        if target in wanted:
            names.add(alias)
    return frozenset(names)

