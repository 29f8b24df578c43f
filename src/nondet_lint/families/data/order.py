"""ND301 (filesystem listing order) and ND302 (iteration order of a set of strings).

Both are "an arbitrary order that the program keeps": the candidates are collected
during the walk and followed with ``OrderFlow`` once the whole file is known, so a
listing sorted three lines later, or a set only used for membership, is not reported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import OrderUse, SEQ, SET, at_most_one_element, last_name, last_part_wildcards, literal_strings
from nondet_lint.analysis.entrypoints import EntryFacts, imported_names, is_entry_point
from nondet_lint.analysis.moduleview import spellings
from nondet_lint.check import Check
from nondet_lint.context import FileContext, NodeEdit, PendingFix
from nondet_lint.facts import ModuleFact
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding
from nondet_lint.families.data.context import DataContext
from nondet_lint.families.data.listings import Listings
from nondet_lint.families.data.split import DataSeedingFacts
from nondet_lint.families.data.tempdirs import Temporaries, TemporaryFixtures
from nondet_lint.fixes.builders import wrap_in_call
from nondet_lint.walk import nodes_in


@dataclass(frozen=True)
class ListingFunctions(ModuleFact):
    """The module's functions (``name``, ``Class.method``) that return a directory listing
    as it comes (``def ls(path): return os.listdir(path)``): their callers in other modules
    decide whether the order is kept."""

    key = "listing_functions"

    functions: Mapping[str, str]  # function -> the listing API it returns

    def to_json(self) -> Dict[str, Any]:
        return dict(self.functions)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ListingFunctions":
        return cls(dict(data))


@dataclass(frozen=True)
class DrainingFunctions(ModuleFact):
    """The module's functions (``name``, ``Class.method`` of a static or class method)
    that iterate a parameter without keeping its order (``for item in generator:
    counts[item] += 1``), with their positional parameters (``cls`` left out) and the
    parameters so drained: a generator of another module handed to one keeps no order."""

    key = "draining_functions"

    functions: Mapping[str, Tuple[Tuple[str, ...], FrozenSet[str]]]  # function -> (positional, drained)

    def drains(self, function: str, argument: str) -> bool:
        """Whether ``function`` drains what it gets as ``argument`` (a position or a keyword)."""
        found = self.functions.get(function)
        if found is None:
            return False
        positional, drained = found
        name = positional[int(argument)] if argument.isdigit() and int(argument) < len(positional) else argument
        return name in drained

    def to_json(self) -> Dict[str, Any]:
        return {name: {"positional": list(positional), "drained": sorted(drained)} for name, (positional, drained) in self.functions.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DrainingFunctions":
        return cls({name: (tuple(entry["positional"]), frozenset(entry["drained"])) for name, entry in data.items()})


class ListingOrder(Check):
    """ND301: a directory listing whose filesystem order is kept; also a call of another
    module's function that returns one (``PathManager.ls(path)`` of a project's file layer),
    decided in pass 2 with that module's ``ListingFunctions``."""

    codes = ("ND301",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.Call] = []
        data = self.data("ND301")
        self.display: Dict[str, str] = dict(data.get("display", {}))
        self.getters = {name: table["kw"] for table in data.get("item_getters", ()) for name in table["names"]}
        self.spellings = spellings(ctx, data.get("functions", ()), data.get("path_methods", ()))
        self.getter_spellings = spellings(ctx, self.getters)
        self.wrapper_names = frozenset(data.get("wrapper_names", ()))
        self.wrapper_calls: List[cst.Call] = []
        self.returned: Dict[str, str] = {}  # this module's listing functions
        self.packaging_calls = frozenset(data.get("packaging_calls", ()))
        self.packaging_spellings = spellings(ctx, self.packaging_calls)
        self.packages = False  # the module calls ``setuptools.setup``: a packaging script
        self.fixtures: List[cst.FunctionDef] = []  # functions decorated like a pytest fixture
        self.loops: List[cst.For] = []  # ``for item in name:``, a parameter perhaps drained
        self.temporaries: Optional[Temporaries] = None  # built on first need
        self.several = tuple(word.lower() for word in data.get("kept_first_picks", ()))
        self.lookup_listings = frozenset(data.get("lookup_listings", ()))

    def visit_Call(self, node: cst.Call) -> None:
        last = last_name(node.func)
        if last in self.spellings:
            self.candidates.append(node)
        elif last in self.wrapper_names:
            self.wrapper_calls.append(node)
        if last in self.getter_spellings:
            self._item_getter(node)
        if not self.packages and last in self.packaging_spellings:
            self.packages = self.ctx.qualname(node.func) in self.packaging_calls

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.iter, cst.Name):
            self.loops.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if any(last_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == "fixture" for d in node.decorators):
            self.fixtures.append(node)

    def _item_getter(self, node: cst.Call) -> None:
        """``DataBlock(get_items=get_image_files)``: the listing function is handed over,
        and the block numbers and splits what it returns in that order."""
        owner = self.ctx.qualname(node.func)
        keyword = self.getters.get(owner or "")
        functions = frozenset(self.data("ND301").get("functions", ()))
        for arg in node.args:
            if keyword and arg.keyword is not None and arg.keyword.value == keyword and self.ctx.qualname(arg.value) in functions:
                reason = f"given to `{last_name(node.func)}` as `{keyword}=`, which numbers and splits the items in that order"
                self.ctx.report(arg.value, "ND301", name=self._short(self.ctx.qualname(arg.value) or ""), reason=reason)

    def finish(self) -> None:
        self._temporary_fixtures()
        self._draining_functions()
        if self.packages:
            return  # a packaging script lists the files a package ships, not data
        self._listings()
        self._wrapper_calls()
        if self.returned:
            self.ctx.facts.put(ListingFunctions(dict(sorted(self.returned.items()))))

    def _wrapper_calls(self) -> None:
        """Calls of another project module's function named like a listing whose result's
        order is kept: pass 2 reports those whose function returns a listing."""
        if not self.wrapper_calls:
            return
        dctx = DataContext.of(self.ctx)
        outside = frozenset(self.data("ND301").get("functions", ()))
        own = f"{self.ctx.module_name}." if self.ctx.module_name else ""
        for call in self.wrapper_calls:
            name = self.ctx.qualname(call.func)
            if name is None or name in outside or name.startswith("builtins.") or (own and name.startswith(own)):
                continue
            use = dctx.flow.first_use(call, SEQ)
            if use is None or use.reason.startswith("returned") and isinstance(self.ctx.parent(call), cst.Return):
                continue
            shown = ".".join(name.split(".")[-2:])
            self.ctx.defer(call, "ND301", fix=self._fix(call, name, frozenset()), function=name, shown=shown, reason=use.reason)

    def _draining_functions(self) -> None:
        """The module's functions that loop over a parameter and keep no order of it
        anywhere (``DrainingFunctions``), for the generators other modules hand them."""
        found: Dict[str, Tuple[Tuple[str, ...], FrozenSet[str]]] = {}
        for loop in self.loops:
            function = self.ctx.parent(loop)
            while function is not None and not isinstance(function, (cst.FunctionDef, cst.Lambda, cst.Module)):
                function = self.ctx.parent(function)
            if not isinstance(function, cst.FunctionDef):
                continue
            key = _function_key(self.ctx, loop)
            positional = _positional(self.ctx, function)
            param = loop.iter.value if isinstance(loop.iter, cst.Name) else ""
            if key is None or positional is None or param not in positional or param in found.get(key, ((), frozenset()))[1]:
                continue
            if not _aggregates(loop):
                continue
            if DataContext.of(self.ctx).flow.parameter_use(function, param) is None:
                found[key] = (positional, found.get(key, (positional, frozenset()))[1] | {param})
        if found:
            self.ctx.facts.put(DrainingFunctions(dict(sorted(found.items()))))

    def _temporaries(self) -> Temporaries:
        if self.temporaries is None:
            data = self.data("ND301")
            self.temporaries = Temporaries(DataContext.of(self.ctx), data.get("temporary", {}), data.get("path_types", ()))
        return self.temporaries

    def _temporary_fixtures(self) -> None:
        """The module's pytest fixtures that give a temporary folder, for the tests of
        the folders below a ``conftest.py`` (pass 2)."""
        if not self.fixtures:
            return
        temporaries = self._temporaries()
        names = frozenset(
            fn.name.value for fn in self.fixtures
            if temporaries.is_fixture(fn) and temporaries.fixture_value(fn) == frozenset()
        )
        if names:
            self.ctx.facts.put(TemporaryFixtures(names))

    @classmethod
    def resolve(cls, project: Any, deferred: List[Any], rules: RuleSet) -> Iterable[Finding]:
        rule = rules["ND301"]
        importers: List[Set[str]] = []  # the module names project modules import, made once
        for item in deferred:
            if "uncalled" in item.payload:
                if not _never_called(project, item.path, item.payload["uncalled"], importers):
                    message = rule.format_message(name=item.payload["name"], reason=item.payload["reason"])
                    yield Finding(item.path, item.line, item.col, "ND301", message, item.end_line, item.end_col, getattr(item, "fix", None))
                continue
            if "drained" in item.payload:
                if not _drained(project, item.payload["drained"]):
                    message = rule.format_message(name=item.payload["name"], reason=item.payload["reason"])
                    yield Finding(item.path, item.line, item.col, "ND301", message, item.end_line, item.end_col, getattr(item, "fix", None))
                continue
            if "shuffled" in item.payload:
                if not _program_never_seeds(project, item.path, item.payload["shuffled"]):
                    message = rule.format_message(name=item.payload["name"], reason=item.payload["reason"])
                    yield Finding(item.path, item.line, item.col, "ND301", message, item.end_line, item.end_col, getattr(item, "fix", None))
                continue
            if "fixtures" in item.payload:
                if not _own_temporary_folder(project, item.path, item.payload["fixtures"]):
                    message = rule.format_message(name=item.payload["name"], reason=item.payload["reason"])
                    yield Finding(item.path, item.line, item.col, "ND301", message, item.end_line, item.end_col, getattr(item, "fix", None))
                continue
            function = str(item.payload["function"])
            api = _listing_function(project, function)
            if api is None:
                continue
            message = rule.format_message(name=item.payload["shown"], reason=f"{item.payload['reason']}; `{item.payload['shown']}` hands back `{api}` unsorted")
            yield Finding(item.path, item.line, item.col, "ND301", message, item.end_line, item.end_col, getattr(item, "fix", None))

    def _listings(self) -> None:
        if not self.candidates:
            return
        dctx = DataContext.of(self.ctx)
        listings = Listings(dctx, self.data("ND301"))
        walks = frozenset(self.data("ND301").get("walks", ()))
        keyed = frozenset(self.data("ND301").get("keyed_builders", ()))
        for call in self.candidates:
            name = listings.name(call)
            if name is None or self._in_keyed_builder(dctx, call, keyed):
                continue
            with dctx.flow.lookups(self._looks_up(call, name)):
                self._listing(dctx, call, name, walks)

    def _looks_up(self, call: cst.Call, name: Optional[str]) -> bool:
        """Its first element alone is a lookup: a pattern naming a kind of file in one
        folder (``os.path.join(folder, "*.json")``), unless that kind is one a folder holds
        several of, picked in order (``glob("*.ckpt")[0]``: which weights load).  A bare
        folder listing (``os.listdir(d)[0]``) names no kind: its first entry is any entry."""
        if name not in self.lookup_listings or not call.args or not last_part_wildcards(call.args[0].value):
            return False
        return not any(word in text.lower() for text in literal_strings(call.args[0].value) for word in self.several)

    def _listing(self, dctx: DataContext, call: cst.Call, name: str, walks: FrozenSet[str]) -> None:
        """Report (or defer) one listing whose order is kept."""
        use = self._walk_use(dctx, call) if name in walks else None
        if use is None and not (name in walks and self._walk_is_ordered(call)):
            use = dctx.flow.first_use(call, SEQ)
        if use is None:
            return
        if use.reason == "returned" and _mirrors_listing(self.ctx, call, name) or (
            use.reason.startswith("returned") and isinstance(self.ctx.parent(call), cst.Return)
        ):
            function = _function_key(self.ctx, call)
            if function is not None:
                self.returned[function] = self._short(name)
            return  # ``return os.listdir(d)``: a listing function; its callers decide
        shuffled = self._shuffled_unless_seeded(dctx, call) if name not in walks else frozenset()
        if shuffled:  # decided in pass 2: does the program seed that RNG?
            self.ctx.defer(call, "ND301", fix=self._fix(call, name, walks), name=self._short(name), reason=use.reason, shuffled=sorted(shuffled))
            return
        drained = self._drained_elsewhere(dctx, call) if name not in walks and "yielded" in use.reason else frozenset()
        if drained:  # decided in pass 2: do those functions keep the order?
            self.ctx.defer(call, "ND301", fix=self._fix(call, name, walks), name=self._short(name), reason=use.reason, drained=sorted(map(list, drained)))
            return
        uncalled = self._kept_only_by_uncalled(dctx, call) if name not in walks and _hands_on(use) else frozenset()
        if uncalled:  # decided in pass 2: does another module call them?
            self.ctx.defer(call, "ND301", fix=self._fix(call, name, walks), name=self._short(name), reason=use.reason, uncalled=sorted(uncalled))
            return
        temporaries = self._temporaries()
        folder = temporaries.listed_folder(call, name)
        fixtures = temporaries.folder(folder) if folder is not None else None
        if fixtures is not None:  # a temporary folder: not reported in test code (pass 2)
            self.ctx.defer(call, "ND301", fix=self._fix(call, name, walks), name=self._short(name), reason=use.reason, fixtures=sorted(fixtures))
            return
        self.ctx.report(call, "ND301", fix=self._fix(call, name, walks), name=self._short(name), reason=use.reason)

    def _shuffled_unless_seeded(self, dctx: DataContext, call: cst.Call) -> FrozenSet[str]:
        """The global RNGs whose in-place shuffle (``random.shuffle(files)``) is all that
        keeps the listing's order: if the program never seeds them, the order after the
        shuffle is random whatever the listing's order was, and sorting would not make
        the run repeat (an unseeded shuffle is the seeding rules' finding)."""
        shuffles = self.data("ND301").get("reshuffles", {})
        if not shuffles:
            return frozenset()
        use, rngs = dctx.flow.first_use_unless_shuffled(call, shuffles)
        return rngs if use is None else frozenset()

    def _drained_elsewhere(self, dctx: DataContext, call: cst.Call) -> FrozenSet[Tuple[str, str]]:
        """The functions of other modules (with the argument that gets the values) to
        which a generator yielding the listing's entries hands them, when nothing else
        keeps their order (``build_vocab(lines())`` in a module whose ``lines()`` yields
        the lines of the listed files): if they only count or sum, no order is kept."""
        use, drains = dctx.flow.first_use_if_drained(call)
        return drains if use is None else frozenset()

    def _kept_only_by_uncalled(self, dctx: DataContext, call: cst.Call) -> FrozenSet[str]:
        """The module's top-level functions that nothing in it calls or names, when the
        listing's order is kept only by being returned from them (``def debug_files(): return
        [f for f in my_glob(d)]`` in a script): if no other module calls them either, the
        order reaches nothing."""
        use, assumed = dctx.flow.first_use_if_uncalled_drop(call, SEQ)
        if use is not None or not assumed:
            return frozenset()
        named = {n.value for n in nodes_in(self.ctx.module, cst.Name) if n.value in assumed and not isinstance(self.ctx.parent(n), cst.FunctionDef)}
        return frozenset() if named else assumed

    def _short(self, name: str) -> str:
        for prefix, shown in self.display.items():
            if name.startswith(prefix):
                return shown + name[len(prefix):]
        return name

    def _in_keyed_builder(self, dctx: DataContext, call: cst.Call, keyed: FrozenSet[str]) -> bool:
        """Inside a TFDS builder: examples are keyed and stored in the order of their
        keys' hash, whatever order the files were listed in."""
        current = self.ctx.parent(call)
        while current is not None:
            if isinstance(current, cst.ClassDef):
                return any(dctx.qualname(base.value) in keyed for base in current.bases)
            current = self.ctx.parent(current)
        return False

    # ---- os.walk: ``dirs.sort()`` in the loop fixes the walk order; files still matter
    def _walk_targets(self, call: cst.Call) -> Optional[Tuple[cst.For, List[str]]]:
        loop = self.ctx.parent(call)
        if not (isinstance(loop, cst.For) and loop.iter is call and isinstance(loop.target, cst.Tuple)):
            return None
        names = [e.value.value if isinstance(e.value, cst.Name) else "" for e in loop.target.elements]
        return (loop, names) if len(names) == 3 else None

    def _walk_is_ordered(self, call: cst.Call) -> bool:
        found = self._walk_targets(call)
        if found is None:
            return False
        loop, (_, dirs, _) = found
        dctx = DataContext.of(self.ctx)
        for node in dctx.index(loop).nodes_within(loop.body, (cst.Call, cst.Assign)):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "sort":
                if isinstance(node.func.value, cst.Name) and node.func.value.value == dirs:
                    return True
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and dctx.qualname(node.value.func) == "builtins.sorted":
                for target in node.targets:
                    if isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name) and target.target.value.value == dirs:
                        return True
        return False

    def _walk_use(self, dctx: DataContext, call: cst.Call) -> Optional[OrderUse]:
        """With the walk order fixed, the file names of each folder are still unsorted."""
        found = self._walk_targets(call)
        if found is None or not self._walk_is_ordered(call):
            return None
        loop, (_, _, files) = found
        index = dctx.index(loop)
        for load in index.loads.get(files, ()):
            if index.contains(loop.body, load):
                use = dctx.flow.first_use(load, SEQ)
                if use is not None:
                    return use
        return None

    def _fix(self, call: cst.Call, name: str, walks: FrozenSet[str]) -> Optional[PendingFix]:
        if name in walks:
            return None  # sorting a walk would defeat pruning ``dirs`` in place
        holder = self.ctx.parent(call)
        if isinstance(holder, cst.WithItem):
            return None
        if isinstance(holder, cst.Arg):
            outer = self.ctx.parent(holder)
            if isinstance(outer, cst.Call) and DataContext.of(self.ctx).qualname(outer.func) == "builtins.next":
                return None
        edits = wrap_in_call(self.ctx, call, "sorted")
        if not edits:
            return None
        key = self.data("ND301").get("sort_keys", {}).get(name)
        if key:
            edits[-1] = NodeEdit(edits[-1].node, f", key={key})", "after")
        return self.ctx.fix("ND301", edits)


def _function_key(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """``name`` of the top-level function, or ``Class.method`` of the top-level class,
    holding ``node``; None elsewhere (nested functions, module code)."""
    names: List[str] = []
    current = ctx.parent(node)
    while current is not None and not isinstance(current, cst.Module):
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            names.append(current.name.value)
        current = ctx.parent(current)
    names.reverse()
    return ".".join(names) if 1 <= len(names) <= 2 else None


def _positional(ctx: FileContext, function: cst.FunctionDef) -> Optional[Tuple[str, ...]]:
    """The names a call's positional arguments bind: a top-level function's
    parameters, a static or class method's (``cls`` left out); None for other methods,
    whose calls through the class and through an instance count positions differently."""
    params = tuple(p.name.value for p in (*function.params.posonly_params, *function.params.params))
    owner = ctx.parent(ctx.parent(function) or function)
    if not isinstance(owner, cst.ClassDef):
        return params
    decorators = {d.decorator.value for d in function.decorators if isinstance(d.decorator, cst.Name)}
    if "staticmethod" in decorators:
        return params
    return params[1:] if "classmethod" in decorators else None


def _aggregates(loop: cst.For) -> bool:
    """The loop only aggregates what it iterates, which no order can change: it counts
    into a mapping or counts items (``counts[token] += 1``, ``n += 1``) or fills a set or
    a counter (``seen.add(x)``, ``counter.update(x)``), and calls nothing else for its
    effect (``train_step(batch)``, ``out.write(line)`` consume the items in order; ``text
    += line`` grows in order)."""
    aggregated = False
    for added in nodes_in(loop.body, cst.AugAssign, into_definitions=False):
        if isinstance(added.operator, cst.AddAssign):
            if not (isinstance(added.target, cst.Subscript) or isinstance(added.value, (cst.Integer, cst.Float))):
                return False  # ``text += line``: a string or list grows in order
            aggregated = True
    for statement in nodes_in(loop.body, cst.Expr, into_definitions=False):
        if isinstance(statement.value, cst.Call):
            func = statement.value.func
            if not (isinstance(func, cst.Attribute) and func.attr.value in _AGGREGATING_METHODS):
                return False
            aggregated = True
    return aggregated


_AGGREGATING_METHODS = frozenset({"add", "update"})  # a set's or a ``Counter``'s: no order kept


def _module_fact(project: Any, function: str, kind: Any) -> Tuple[Optional[Any], str]:
    """The fact of ``kind`` of the project module a qualified function name lies in (the
    longest module name it starts with), and the function's name in that module."""
    parts = function.split(".")
    for end in range(len(parts) - 1, 0, -1):
        record = project.module(".".join(parts[:end])) if project is not None else None
        if record is not None:
            return record.facts.get(kind), ".".join(parts[end:])
    return None, function


def _drained(project: Any, consumers: Sequence[Sequence[str]]) -> bool:
    """Every function a generator's values were handed to drains them without keeping
    their order (``DrainingFunctions`` of its module)."""
    for function, argument in consumers:
        facts, local = _module_fact(project, function, DrainingFunctions)
        if facts is None or not facts.drains(local, argument):
            return False
    return True


def _listing_function(project: Any, function: str) -> Optional[str]:
    """The listing API a project function returns as listed (``ListingFunctions``), found
    under the longest module name its qualified name starts with."""
    facts, local = _module_fact(project, function, ListingFunctions)
    return facts.functions.get(local) if facts is not None else None


def _hands_on(use: OrderUse) -> bool:
    """The order is kept by a function's result (returned or yielded somewhere on the way):
    the only case where who calls that function can change the answer."""
    return "returned" in use.reason or "yielded" in use.reason


def _never_called(project: Any, path: str, functions: Sequence[str], importers: List[Set[str]]) -> bool:
    """Functions of an entry point that no project module imports (and the packaging does
    not run as console scripts): only the module itself could call them, and it does not.
    A library module's functions may have callers outside the project."""
    record = project.modules.get(path) if project is not None else None
    if record is None:
        return False
    entry = record.facts.get(EntryFacts)
    if entry is None or not is_entry_point(record.facts) or entry.imported or set(functions) & set(entry.console):
        return False
    if not importers:
        importers.append(imported_names(module.facts for module in project))
    parts = record.module_name.split(".")
    return not any(".".join(parts[i:]) in importers[0] for i in range(len(parts)))


def _program_never_seeds(project: Any, path: str, rngs: Sequence[str]) -> bool:
    """The module at ``path`` is an entry point that no project module imports, and
    neither it nor a project module it imports (transitively: its program, spec
    "Program") seeds any of ``rngs``.  A library module's programs, and so their
    seeds, are not known: its callers may seed."""
    record = project.modules.get(path) if project is not None else None
    entry = record.facts.get(EntryFacts) if record is not None else None
    if record is None or entry is None or not is_entry_point(record.facts) or entry.imported or entry.console:
        return False
    for module in project.import_closure(record):
        fact = module.facts.get(DataSeedingFacts)
        if fact is not None and set(fact.seeded) & set(rngs):
            return False
    return True


def _own_temporary_folder(project: Any, path: str, fixtures: Sequence[str]) -> bool:
    """Test code listing a temporary folder it made: the fixtures it still depends on
    are temporary in a ``conftest.py`` of its folder or of a folder above (as pytest
    finds them)."""
    if project is None or not project.is_test_code(path):
        return False
    missing = set(fixtures)
    folder = os.path.dirname(path)
    root = os.path.abspath(project.root or ".")
    while missing:
        record = project.modules.get(os.path.join(folder, "conftest.py"))
        facts = record.facts.get(TemporaryFixtures) if record is not None else None
        if facts is not None:
            missing -= facts.names
        parent = os.path.dirname(folder)
        if not folder or parent == folder or os.path.abspath(folder) == root:
            break
        folder = parent
    return not missing


def _mirrors_listing(ctx: FileContext, call: cst.Call, name: str) -> bool:
    """``def glob(pattern): return [p.rstrip("/") for p in glob_module.glob(pattern)]``: a
    filesystem layer that offers the listing under its own name, entry by entry; the
    callers of that API decide whether they sort."""
    holder = ctx.parent(call)
    comp = ctx.parent(holder) if isinstance(holder, cst.CompFor) and holder.iter is call else None
    if not (isinstance(comp, (cst.ListComp, cst.GeneratorExp)) and comp.for_in is holder and isinstance(ctx.parent(comp), cst.Return)):
        return False
    function = ctx.parent(comp)
    while function is not None and not isinstance(function, (cst.FunctionDef, cst.Module)):
        function = ctx.parent(function)
    return isinstance(function, cst.FunctionDef) and function.name.value == name.rsplit(".", 1)[-1]


class StringSetOrder(Check):
    """ND302: the iteration order of a set of strings decides an order that is kept."""

    codes = ("ND302",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.BaseExpression] = []
        flow = self.ctx.rules["ND301"].data.get("flow", {}) if "ND301" in self.ctx.rules else {}
        self.spellings = spellings(ctx, flow.get("set_makers", ()))

    def visit_Call(self, node: cst.Call) -> None:
        if last_name(node.func) in self.spellings:
            self.candidates.append(node)

    def visit_Set(self, node: cst.Set) -> None:
        self.candidates.append(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.candidates.append(node)

    def finish(self) -> None:
        if not self.candidates:
            return
        dctx = DataContext.of(self.ctx)
        makers = dctx.text.set_makers
        for expr in self.candidates:
            if isinstance(expr, cst.Call) and dctx.qualname(expr.func) not in makers:
                continue
            if not dctx.text.is_str_set(expr) or at_most_one_element(expr):
                continue
            use = dctx.flow.first_use(expr, SET)
            if use is None:
                continue
            where = use.convert if use.convert is not None else use.node
            node, edits = self._fix_edits(dctx, where)
            fix = self.ctx.fix("ND302", edits) if edits else None
            self.ctx.report(node, "ND302", fix=fix, reason=use.reason)

    def _fix_edits(self, dctx: DataContext, where: cst.CSTNode) -> Tuple[cst.CSTNode, List[NodeEdit]]:
        """``list(s)`` becomes ``sorted(s)``; elsewhere the set is wrapped in ``sorted(...)``."""
        holder = self.ctx.parent(where)
        call = self.ctx.parent(holder) if isinstance(holder, cst.Arg) else None
        if isinstance(call, cst.Call) and len(call.args) == 1 and dctx.qualname(call.func) == "builtins.list":
            sorted_edits = wrap_in_call(self.ctx, where, "sorted")
            if sorted_edits and isinstance(call.func, cst.Name):
                return call, [NodeEdit(call.func, "sorted")]
        return where, wrap_in_call(self.ctx, where, "sorted")

