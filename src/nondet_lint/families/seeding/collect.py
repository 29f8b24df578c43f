"""Pass 1 of the seeding analysis: one module's functions as ordered event lists.

Every function (and the module body, and the ``if __name__ == "__main__":`` block) becomes
a list of ``events.SeedingEvent`` in the order the code runs (calls are recorded when they
return, after their arguments): seeds, calls that may enter project code (with argument
descriptors, so that pass 2 can evaluate guards inside), functions passed as values,
uses of an RNG's global state, imports, where the main block runs, RNG states restored or
reseeded from OS entropy, evidence of training, and loaders with worker processes.

Values that change between runs are followed from where they are made (``time.time()``,
an unseeded draw) to the seeds they reach (``facts.Origin``).  Candidate findings and the
nodes whose positions pass 2 needs are collected in ``state.Candidates`` and handed to
``ctx.defer`` at the end of the file, each with its ``SeedingPayload``.  The module's
facts are a ``facts.ModuleSeeding``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex
from nondet_lint.analysis.entrypoints import LAUNCHER_DECORATORS, LAUNCHERS, EntryFacts, is_entry_point, is_main_guard
from nondet_lint.analysis.fieldsettings import FieldSettings
from nondet_lint.analysis.seedoption import config_seeds
from nondet_lint.analysis.seeds import Seeder
from nondet_lint.analysis.texttypes import TextTypes, scope_index_factory
from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, has_star_args, literal_value, string_value
from nondet_lint.context import FileContext
from nondet_lint.families.seeding.callsites import NAMESPACE, CallSites
from nondet_lint.families.seeding.conditions import (BoolOp, Cond, Plain, ValueDesc, ValueSource, any_holds, describe_test, negate, parse_guard,
                                                     plain)
from nondet_lint.families.seeding.events import FORWARDED_KEYWORDS, MARKED_TARGETS, NO_ARGS, CallArgs, EventKind, Guard, SeedingEvent, Trained, relative
from nondet_lint.families.seeding.facts import NO_FUNCTION, CallFlow, ClassFacts, FunctionFacts, ModuleSeeding, OriginKind
from nondet_lint.families.seeding.seedblock import option_blocks, seed_apis, seed_blocks
from nondet_lint.families.seeding.payloads import Draw, GeneratorCall, RandomBefore, SeedingPayload
from nondet_lint.families.seeding.state import MAIN, MODULE, Candidates, Scope
from nondet_lint.families.seeding.tables import Consumer, Tables, short_name, tables_for
from nondet_lint.families.seeding.textonly import only_makes_text
from nondet_lint.families.seeding.values import ValueFlow
from nondet_lint.names import dotted_name, resolve_relative

_MISSING = object()
_NAMES = frozenset({cst.Name, cst.Attribute})  # (neither has subclasses)
# expressions ``describe`` may value (other ones are not described)


class Collector:
    """Builds the ``ModuleSeeding`` of one module and defers the candidates of ``codes``
    (the walk calls its ``visit_`` / ``leave_`` handlers for ``check.Seeding``).

    It walks scopes and guards itself (``WalkPosition``) and hands values that vary per
    run to ``ValueFlow`` and the calls of the rule tables to ``CallSites``; the candidates
    all three find go to one ``Candidates``."""

    def __init__(self, ctx: FileContext, codes: Sequence[str]) -> None:
        self.ctx = ctx
        self.t: Tables = tables_for(ctx.rules)
        self.outside = self.t.outside_roots
        self.modq = ctx.module_name
        self.module_scope = Scope(MODULE)
        self.scopes: List[Scope] = [self.module_scope]
        self.classes: Dict[str, ClassFacts] = {}
        self.class_stack: List[Tuple[int, str]] = []  # (id of ClassDef, path)
        self.fns: Dict[str, FunctionFacts] = {}
        self.candidates = Candidates()
        self.flow = ValueFlow(ctx, self, self.candidates)
        self.calls = CallSites(ctx, self.t, self, self.candidates, self.flow)
        self.consts: Dict[str, Any] = {}
        self.index_for: Optional[Callable[[cst.CSTNode], ScopeIndex]] = None  # made on first use
        self.fields: Dict[str, Dict[str, List[Plain]]] = {}  # class path -> declared field -> [literal default]
        self.settings = FieldSettings()  # what the module sets each field name to
        self.callees: Dict[int, Tuple[Optional[str], Optional[str], bool]] = {}  # id(call) -> ``target`` of its callee
        # id(call) -> references held by a container built among its arguments
        # (``super().__init__(kwargs=dict(tokenizer=Tokenizer))``): they run with the call, after it starts
        self.held_references: Dict[int, List[Tuple[SeedingEvent, Optional[str]]]] = {}
        self.stars: List[str] = []
        self.registered: List[List[str]] = []  # [decorator, definition] of module-level decorated definitions
        self.registering: List[str] = []  # functions that store a parameter into a mapping
        # module-level functions that return a draw (``return random.randint(...)``): name -> its candidate
        self.returned_draws: Dict[str, int] = {}
        self.helper_draws: List[int] = []  # the candidates of calls of those functions
        self.pending_defs: Dict[int, Scope] = {}
        self.pushed: Dict[int, int] = {}
        self.guard_cache: Dict[int, Any] = {}
        self.rebinding: Set[str] = set()  # names the assignment whose value is being walked binds first
        self.guard_serial = 0  # numbers the branches pushed, so a value knows the ones it was bound in
        self.mentions_torch = ctx.imports.mentions("torch")
        self.mentions_tf = ctx.imports.mentions("tensorflow")
        # the code anchors are deferred under (pass 2 needs their positions)
        self.anchor_code = next((c for c in codes if c in ctx.enabled), None)
        self.text_types: Optional[TextTypes] = None
        # the reads of names so far, and the count at each name's last read (``visit_Name``)
        self.read_count = 0
        self.last_read: Dict[str, int] = {}
        self.holding = 0  # how many locals the open scopes hold (``Scope.held``)
        self.call_events: Dict[int, Tuple[Scope, int]] = {}  # id(call) -> where its CALL event is
        # graph constructors (``tf.Graph``) -> the RNGs whose seed is the graph's (rule data ``graphs``)
        self.graph_makers: Dict[str, Tuple[str, ...]] = {}
        for rng, info in self.t.rngs.items():
            for maker in info.get("graphs", ()):
                self.graph_makers[maker] = (*self.graph_makers.get(maker, ()), rng)
        self.new_graphs: Dict[int, Tuple[str, ...]] = {}  # id(With) entering a new graph -> its RNGs
        # calls that make a new default graph (``tf.reset_default_graph``) -> the RNGs they unseed
        self.graph_resets: Dict[str, Tuple[str, ...]] = {}
        for rng, info in self.t.rngs.items():
            for reset in info.get("graph_resets", ()):
                self.graph_resets[reset] = (*self.graph_resets.get(reset, ()), rng)
        self.entered_graphs: Set[Tuple[int, str]] = set()  # (id(scope), local) graphs entered once already

    def _text_types(self) -> TextTypes:
        """Whether a value is a str (``hash()`` of one varies per run), with ND302's tables."""
        if self.text_types is None:
            data = self.ctx.rules["ND302"].data.get("types", {}) if "ND302" in self.ctx.rules else {}
            self.text_types = TextTypes(data, self.ctx.qualname, self.ctx.parent, scope_index_factory(self.ctx.parent))
        return self.text_types

    # ---- scopes -------------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def lookup(self, table: str, name: str) -> Any:
        """``name`` in ``table`` of the current scope, else of the module's unless a local
        of the current function hides it.  (Runs for most names called.)"""
        scope, module = self.scopes[-1], self.module_scope
        found = getattr(scope, table).get(name)
        if found is not None or scope is module:
            return found
        if name in scope.assigned and name not in scope.globals:
            return None
        return getattr(module, table).get(name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        prefix = self._prefix()
        path = f"{prefix}{node.name.value}"
        bases = []
        for arg in node.bases:
            target = self.target(arg.value)[0]
            if target:
                bases.append(target)
        self.classes[path] = ClassFacts(bases)
        self._register(node, path)
        self.class_stack.append((id(node), path))
        if self.scope is not self.module_scope and self.scope.name != MAIN:
            self.scope.local_defs[node.name.value] = path

    def class_bases(self) -> List[str]:
        """The qualified bases of the class whose body (or method) the walk is in."""
        return list(self.classes[self.class_stack[-1][1]].bases) if self.class_stack else []

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        if self.class_stack and self.class_stack[-1][0] == id(node):
            self.class_stack.pop()

    def _prefix(self) -> str:
        """Path of the definition being entered: ``C.`` in a class, ``f.`` in a function."""
        # called from visit_*: the node itself is not on the ancestor chain yet
        parent = self.ctx.ancestors[-1] if self.ctx.ancestors else None
        grand = self.ctx.ancestors[-2] if len(self.ctx.ancestors) >= 2 else None
        if isinstance(grand, cst.ClassDef) and isinstance(parent, cst.IndentedBlock) and self.class_stack:
            return self.class_stack[-1][1] + "."
        if self.scope.name not in (MODULE, MAIN):
            return self.scope.name + "."
        return ""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        prefix = self._prefix()
        name = f"{prefix}{node.name.value}"
        params = node.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        defaults: Dict[str, Plain] = {}
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            if p.default is not None:
                value = literal_value(p.default, self.ctx.qualname)
                if value is not UNKNOWN and value is not ABSENT and plain(value):
                    defaults[p.name.value] = value
        cls = None
        if prefix and self.class_stack and prefix == self.class_stack[-1][1] + ".":
            cls = self.class_stack[-1][1]
            self.classes[cls].methods.append(node.name.value)
            if any(self.ctx.qualname(d.decorator) == "builtins.property" for d in node.decorators):
                self.classes[cls].properties.append(node.name.value)
        self._register(node, name)
        scope = Scope(name, positional, defaults, cls)
        scope.kwonly = [p.name.value for p in params.kwonly_params]
        if isinstance(params.star_kwarg, cst.Param):
            scope.varkw = params.star_kwarg.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            annotated = self._annotated_class(p.annotation.annotation) if p.annotation is not None else None
            if annotated is not None:
                scope.typed[p.name.value] = relative(annotated, self.modq)
        self.pending_defs[id(node)] = scope
        if self.scope is not self.module_scope and self.scope.name != MAIN and cls is None:
            self.scope.local_defs[node.name.value] = name

    def _register(self, node: Union[cst.FunctionDef, cst.ClassDef], path: str) -> None:
        """A module-level definition under a project decorator (``@register_task_cls(Config)``,
        ``@registry.register("resnet")``): pass 2 decides whether the decorator files it in
        a registry (``registering``)."""
        if "." in path or self.scope is not self.module_scope:
            return
        for decorator in node.decorators:
            func = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            q = self.target(func)[0] if isinstance(func, (cst.Name, cst.Attribute)) else None
            if q is not None and not q.startswith(MARKED_TARGETS) and not self._outside(q):
                self.registered.append([relative(q, self.modq), path])

    def _annotated_class(self, annotation: cst.BaseExpression) -> Optional[str]:
        """The project class a parameter's annotation names (``params: cfg.DataConfig``,
        also inside ``Optional[...]``)."""
        if isinstance(annotation, cst.Subscript) and len(annotation.slice) == 1 and self.ctx.qualname(annotation.value) == "typing.Optional":
            element = annotation.slice[0].slice
            if not isinstance(element, cst.Index):
                return None
            annotation = element.value
        if not isinstance(annotation, (cst.Name, cst.Attribute)):
            return None
        q = self.target(annotation)[0]
        return q if q is not None and not q.startswith(MARKED_TARGETS) and not self._outside(q) else None

    def visit_BaseSuite(self, node: cst.BaseSuite) -> None:
        parent = self.ctx.parent(node)
        if type(parent) is cst.FunctionDef:  # (``type() is``: it runs for every block; none of these has subclasses)
            scope = self.pending_defs.pop(id(parent), None)
            if scope is not None:
                self.scopes.append(scope)
                self.pushed[id(parent)] = -1
            return
        if type(parent) is cst.If:
            if self.scope is self.module_scope and is_main_guard(parent.test) and type(self.ctx.parent(parent)) is cst.Module:
                self.module_scope.add(SeedingEvent(EventKind.MAIN_BLOCK))
                self.scopes.append(Scope(MAIN, shared=self.module_scope))
                self.pushed[id(node)] = -1
                return
            self._push_guard(node, parent, negated=False)
        elif type(parent) is cst.Else:
            owner = self.ctx.parent(parent)
            if type(owner) is cst.If:
                self._push_guard(node, owner, negated=True)

    def leave_BaseSuite(self, node: cst.BaseSuite) -> None:
        self._pop(node)

    def visit_If(self, node: cst.If) -> None:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.If) and parent.orelse is node:  # elif
            self._push_guard(node, parent, negated=True)

    def leave_If(self, node: cst.If) -> None:
        self._pop(node)
        if (node.orelse is None and self.scope.name not in (MODULE, MAIN) and _ends_in_return(node.body)
                and not _ends_in_return(node.body, (cst.Raise,))):
            # a check that raises says nothing of the run that goes on: that run passed it
            cond = self._guard_cond(node)
            if cond is not None:  # ``if seed is None: return``: the rest runs when not
                self.scope.after.append({"c": negate(cond), "node": node.test})

    def visit_With(self, node: cst.With) -> None:
        if self.graph_makers and self.mentions_tf:
            rngs = self._new_graph(node)
            if rngs:
                self.new_graphs[id(node)] = rngs
                self.scope.add(SeedingEvent(EventKind.GRAPH, rngs=rngs))

    def leave_With(self, node: cst.With) -> None:
        rngs = self.new_graphs.pop(id(node), None)
        if rngs:
            self.scope.add(SeedingEvent(EventKind.GRAPH_END, rngs=rngs))

    def _new_graph(self, node: cst.With) -> Tuple[str, ...]:
        """The RNGs a ``with`` leaves unseeded as it makes a new graph the default: the graph
        made there (``tf.Graph().as_default()``), or one a local of this function holds
        (``g = tf.Graph()``) entered for the first time.  A graph kept elsewhere (``self.graph``)
        may be one the program seeded before: not a new one."""
        for item in node.items:
            call = item.item
            if not (type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value == "as_default"):
                continue
            receiver = call.func.value
            if type(receiver) is cst.Call:
                made = self.ctx.qualname(receiver.func)
                if made in self.graph_makers:
                    return self.graph_makers[made]
            elif type(receiver) is cst.Name:
                made = self.scope.types.get(receiver.value)
                entered = (id(self.scope), receiver.value)
                if made in self.graph_makers and entered not in self.entered_graphs and receiver.value in self.scope.assigned:
                    self.entered_graphs.add(entered)
                    return self.graph_makers[made]
        return ()

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.pushed.get(id(node)) == -1:
            del self.pushed[id(node)]
            scope = self.scopes.pop()
            if scope.returns and not _ends_in_return(node.body):
                scope.returns.append(None)  # it may also end without a value
            self._finish_scope(scope)
        self.pending_defs.pop(id(node), None)
        if self.scope is self.module_scope and any(
            self.ctx.qualname(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) in LAUNCHER_DECORATORS
            for d in node.decorators
        ):
            # fastai's ``@call_parse`` runs the function when its module is the program
            self.scope.add(self._call(self.target(node.name)[0] or node.name.value, NO_ARGS, [], False))

    def _pop(self, node: cst.CSTNode) -> None:
        mark = self.pushed.pop(id(node), None)
        if mark is None:
            return
        if mark == -1:
            self._finish_scope(self.scopes.pop())
        else:
            del self.scope.guards[mark:]

    def _push_guard(self, node: cst.CSTNode, owner: cst.If, negated: bool) -> None:
        self.pushed[id(node)] = len(self.scope.guards)
        self.guard_serial += 1
        self.scope.guards.append({"owner": owner, "neg": negated, "node": owner.test, "n": self.guard_serial})

    def _branches(self) -> Tuple[Tuple[int, Optional[Cond]], ...]:
        """The branches the walk is in, each as (its number, its condition or None when
        not recognised): a local bound here holds only inside them."""
        out = []
        for guard in self.scope.guards:
            cond = self._guard_cond(guard["owner"])
            out.append((guard["n"], negate(cond) if cond is not None and guard["neg"] else cond))
        return tuple(out)

    def _left(self, bound_in: Tuple[Tuple[int, Optional[Cond]], ...]) -> Tuple[Tuple[int, Optional[Cond]], ...]:
        """The branches of ``bound_in`` (where a local was bound) the walk has left since."""
        current = [guard["n"] for guard in self.scope.guards]
        same = 0
        while same < len(bound_in) and same < len(current) and bound_in[same][0] == current[same]:
            same += 1
        return bound_in[same:]

    def _guard_cond(self, owner: cst.If) -> Any:
        key = id(owner)
        if key not in self.guard_cache:
            self.guard_cache[key] = parse_guard(owner.test, self.describe)
        return self.guard_cache[key]

    def guards(self) -> List[Guard]:
        """The recognised conditions around the current point."""
        out = []
        for guard in (*self.scope.guards, *self.scope.after):
            if "c" in guard:
                cond = guard["c"]
            else:
                cond = self._guard_cond(guard["owner"])
                if cond is not None and guard["neg"]:
                    cond = negate(cond)
            if cond is not None:
                out.append(Guard(cond, self.candidates.anchor(guard["node"])))
        return out

    # ---- names --------------------------------------------------------------------
    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.scope.globals.add(item.name.value)

    def _assign_names(self, target: cst.BaseExpression, described: bool = False, fresh: Optional[Set[str]] = None) -> None:
        """Names ``target`` binds (into ``fresh`` too, those bound for the first time);
        unless the binding is an assignment whose value ``_bind`` describes, a local's
        described value is gone."""
        if type(target) is cst.Name:
            if fresh is not None and target.value not in self.scope.assigned:
                fresh.add(target.value)
            self.scope.assigned.add(target.value)
            if not described:
                self.scope.values[target.value] = None
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for element in target.elements:
                self._assign_names(element.value, fresh=fresh)
        elif type(target) is cst.StarredElement:
            self._assign_names(target.value, fresh=fresh)

    def visit_For(self, node: cst.For) -> None:
        self.scope.loops.append(self.read_count)
        self._assign_names(node.target)

    def leave_For(self, node: cst.For) -> None:
        self.scope.loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self.scope.loops.append(self.read_count)

    def leave_While(self, node: cst.While) -> None:
        self.scope.loops.pop()

    def visit_Name(self, node: cst.Name) -> None:
        """A read of a name.  The first read of a local that holds an object a project call
        made (``memory = Memory(...)``; then ``train(memory=memory)`` or ``memory.sample()``)
        is where the object's methods may start to run: an ``OBJECT_READ`` event, in the
        scope that holds it (a function defined inside that reads it reads it where it is
        defined).  The name of an attribute or of a keyword is no read."""
        parent = self.ctx.ancestors[-1] if self.ctx.ancestors else None
        if (type(parent) is cst.Attribute and parent.attr is node) or (type(parent) is cst.Arg and parent.keyword is node):
            return
        if type(parent) is cst.AssignTarget and parent.target is node:
            return
        self.read_count += 1
        name = node.value
        self.last_read[name] = self.read_count
        if not self.holding:
            return
        for scope in reversed(self.scopes):
            targets = scope.held.pop(name, None)
            if targets is not None:
                self.holding -= 1
                for target in targets:
                    scope.add(SeedingEvent(EventKind.OBJECT_READ, target))
                return
            if name in scope.assigned or name in scope.params or name in scope.kwonly or scope.name in (MODULE, MAIN):
                return  # a local of a function inside, or a global

    def _hold(self, scope: Scope, name: str, value: cst.Call) -> None:
        """``name = Class(...)`` in a function: the object's methods run from the name's first
        read on (``visit_Name``), so the CALL event is marked held.  Not in module code or a
        main block (any function may read a global), nor for a ``global``; nor in a loop
        that read the name before (``m.sample()`` above ``m = Memory()`` in the loop body
        reads the object the last round made)."""
        found = self.call_events.get(id(value))
        if found is None or found[0] is not scope or scope.name in (MODULE, MAIN) or name in scope.globals:
            return
        if scope.loops and self.last_read.get(name, -1) > scope.loops[0]:
            return
        event = scope.events[found[1]]
        event.held = True
        if name not in scope.held:
            scope.held[name] = []
            self.holding += 1
        scope.held[name].append(event.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._assign_names(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        parent = self.ctx.parent(node)
        if isinstance(parent, (cst.WithItem, cst.ExceptHandler)):
            self._assign_names(node.name)

    def visit_Return(self, node: cst.Return) -> None:
        if self.scope.name not in (MODULE, MAIN):
            value = node.value
            if value is not None and not (type(value) is cst.Name and value.value == "None"):
                self.scope.makes_found = True  # what it found may be what it returns
            self.scope.returns.append(self.describe(value) if value is not None else ValueDesc(ValueSource.LITERAL))

    def leave_Return(self, node: cst.Return) -> None:
        value = node.value
        if (value is not None and "." not in self.scope.name and self.scope.name not in (MODULE, MAIN)
                and self.flow.marks.get(id(value), ("",))[0] == "draw"):
            self.returned_draws.setdefault(self.scope.name, self.flow.marks[id(value)][2])

    def visit_Yield(self, node: cst.Yield) -> None:
        self.scope.makes_found = True
        self.scope.returns.append(None)  # a generator: a call gives the generator, not what it returns

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assign_names(node.target)
        self._setting(node.target, None)
        self._assign_attributes(node.target, None)
        if self.scope.trains is not Trained.MODEL and _is_gradient_step(node, self.ctx.parent):
            self._trains(Trained.MODEL)
        if self.scope is self.module_scope and isinstance(node.target, cst.Name):
            self.consts[node.target.value] = _MISSING

    def visit_Assign(self, node: cst.Assign) -> None:
        fresh: Set[str] = set()
        for target in node.targets:
            self._assign_names(target.target, described=len(node.targets) == 1, fresh=fresh)
        # read in the value, a parameter is still the argument (``seed = seed or random.randint(...)``)
        self.rebinding = fresh

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assign_names(node.target, described=node.value is not None)

    def leave_Assign(self, node: cst.Assign) -> None:
        self.rebinding = set()
        for index, target in enumerate(node.targets):
            self._setting(target.target, node.value)
            self._bind(target.target, node.value, first_target=index == 0)
            if type(target.target) is cst.Name and self._found(node.value):
                self.scope.found.add(target.target.value)  # ``task = TASK_REGISTRY[name]``
            if (type(target.target) is cst.Subscript and type(node.value) is cst.Name
                    and node.value.value in self.scope.params and self.scope.name not in self.registering):
                self.registering.append(self.scope.name)  # ``collection[key] = fn_or_cls``
        if len(node.targets) == 1:
            self._field(node, node.targets[0].target, node.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)
            self._setting(node.target, node.value)
        self._field(node, node.target, node.value)

    def _setting(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """An assignment that may set a config field (``FieldSettings``); an attribute of an
        imported module (``torch.backends.cudnn.benchmark = True``) is a library's setting."""
        if not (isinstance(target, cst.Attribute) and self.ctx.qualname(target.value) is not None):
            self.settings.assign(target, value)

    def visit_Dict(self, node: cst.Dict) -> None:
        self.settings.display(node)

    def _field(self, node: cst.CSTNode, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """A field declared in a class body (``type: Optional[str] = "bert"``), with its
        literal default: what a config object made without it holds.  A module constant
        assigned once before the class (``seed = GLOBAL_SEED``) gives its value."""
        line = self.ctx.parent(node)
        block = self.ctx.parent(line) if line is not None else None
        owner = self.ctx.parent(block) if block is not None else None
        if not (type(target) is cst.Name and type(owner) is cst.ClassDef and self.class_stack
                and self.class_stack[-1][0] == id(owner)):
            return
        self.settings.declare(target.value, value)
        literal = literal_value(value, lambda _: None) if value is not None else UNKNOWN
        if isinstance(value, cst.Name) and literal is UNKNOWN:
            literal = self.consts.get(value.value, UNKNOWN)
        default: List[Plain] = [literal] if literal is not UNKNOWN and literal is not ABSENT and plain(literal) else []
        self.fields.setdefault(self.class_stack[-1][1], {})[target.value] = default

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression, first_target: bool = True) -> None:
        """What assigning ``value`` to ``target`` binds (``first_target``: no earlier target
        of the same statement has rebound a name since the walk left the value)."""
        scope = self.scope
        self._assign_attributes(target, value)
        if type(target) is cst.Tuple and target.elements and type(value) is cst.Call:
            # ``args, rest = parser.parse_known_args()``
            if self._is_parse(value):
                first = target.elements[0].value
                if isinstance(first, cst.Name):
                    scope.types[first.value] = NAMESPACE
            return
        key = dotted_name(target)
        if key is None:
            return
        if type(target) is cst.Attribute:
            scope.assigned_attrs.add(key)
            if scope.values.get(key.partition(".")[0]) is not None:
                scope.values[key.partition(".")[0]] = None  # ``cfg.type = ...``: no longer as made
        elif type(target) is cst.Name:
            name = target.value
            described = name not in scope.values
            if described and scope.name in (MODULE, MAIN):  # module constants are ``consts``
                described = isinstance(value, cst.Call)
            scope.values[name] = (self.describe(value) or describe_test(value, self.describe)) if described else None
            scope.value_guards[name] = self._branches()
        mark = self.flow.value_mark(value)
        if mark is not None:
            scope.taint[key] = mark
        else:
            scope.taint.pop(key, None)
        if type(target) is cst.Name:
            name = target.value
            if type(value) is cst.Call:
                if self._is_parse(value):
                    scope.types[name] = NAMESPACE
                else:
                    made = (self.callees[id(value)] if first_target else self.target(value.func))[0]
                    if made:
                        scope.types[name] = made
                        self._hold(scope, name, value)
                    else:
                        scope.types.pop(name, None)
            elif self.t.flag_values and self.ctx.qualname(value) == self.t.flag_values:
                scope.types[name] = NAMESPACE  # ``FLAGS = flags.FLAGS``
            else:
                scope.types.pop(name, None)
            if scope is self.module_scope or scope.name == MAIN:
                literal = literal_value(value, lambda _: None)
                environ = self._environ_read(value) if literal is UNKNOWN else None
                if environ is not None:
                    literal = environ.literal  # ``smoke_test = ("CI" in os.environ)``
                if name in self.consts or literal is UNKNOWN or not plain(literal):
                    self.consts[name] = _MISSING
                else:
                    self.consts[name] = literal

    def _own_attribute(self, node: cst.BaseExpression) -> Optional[str]:
        """``x`` of ``self.x`` in a method of a class."""
        if (type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self"
                and self.scope.cls and self.scope.params[:1] == ["self"]):
            return node.attr.value
        return None

    def _enclosing_attribute(self, node: cst.BaseExpression) -> Optional[str]:
        """``x`` of ``self.x`` read in a function nested in a method (a closure handed to
        ``tf.nest.map_structure``), where ``self`` is the method's own."""
        if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"):
            return None
        for scope in reversed(self.scopes[1:-1]):
            if "self" in self.scopes[-1].params or "self" in self.scopes[-1].assigned or scope.name in (MODULE, MAIN):
                return None
            if scope.cls:
                return node.attr.value if scope.params[:1] == ["self"] else None
        return None

    def _assign_attributes(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """``self.seed = seed``: pass 2 values the object's attributes from its constructor's
        arguments (a value it cannot describe, or an unpacking, makes the attribute unknown)."""
        if type(target) is cst.Tuple or type(target) is cst.List:
            for element in target.elements:
                self._assign_attributes(element.value, None)
            return
        name = self._own_attribute(target)
        if name is None:
            return
        desc = self.describe(value) if value is not None and type(value) in _DESCRIBABLE else None
        self.scope.add(SeedingEvent(EventKind.ASSIGN, name, guards=tuple(self.guards()), value=desc))

    def _is_parse(self, call: cst.Call) -> bool:
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in self.t.parse_methods

    def target(self, func: cst.BaseExpression) -> Tuple[Optional[str], Optional[str], bool]:
        """(qualified name, import root it relied on, bound method call) of a callee.
        (``type() is``: this runs for every call, and isinstance() against libcst's
        classes, ABCs, costs much.)"""
        if type(func) is cst.Attribute and type(func.value) is cst.Call:
            inner = func.value
            if type(inner.func) is cst.Name and inner.func.value == "super" and self.scope.cls:
                return f"super:{self._qual(self.scope.cls)}:{func.attr.value}", None, True
            made = self.target(inner.func)[0]
            if made:
                return f"{made}.{func.attr.value}", None, True
            return None, None, False
        dotted = dotted_name(func)
        if dotted is None:
            return None, None, False
        root, _, rest = dotted.partition(".")
        if dotted == "cls" and self.scope.cls and self.scope.params[:1] == ["cls"]:
            return f"cls:{self._qual(self.scope.cls)}", None, False  # a class method makes its class
        if root in ("self", "cls") and self.scope.cls and rest and "." not in rest:
            if root == "self" and self.scope.params[:1] == ["self"] or root == "cls":
                return f"{self._qual(self.scope.cls)}.{rest}", None, True
        local = self.lookup("local_defs", root)
        if local is not None:
            tail = f".{rest}" if rest else ""
            return f"{self._qual(local)}{tail}", None, False
        if root in self.classes:
            # a module-level class defined (so far) under the name of an import it rebinds
            # (``class DeepGP(DeepGP):``): from here on, the name is the class
            own = self._qual(root)
            imported = self.ctx.qualname(func)
            if imported is not None and imported != own and not imported.startswith(own + "."):
                return f"{own}.{rest}" if rest else own, None, False
        typed = self.lookup("types", root)
        if typed is not None:
            if typed == NAMESPACE:
                return None, None, False
            return (f"{typed}.{rest}" if rest else None), None, bool(rest)
        q = self.ctx.qualname(func)
        if q is not None:
            return q, root, False
        if not rest and self.stars and root not in self.scope.assigned and root not in self.scope.params:
            for star in self.stars:  # ``from fastai.vision.all import *`` then ``set_seed(42)``
                if self.t.knows(f"{star}.{root}"):
                    return f"{star}.{root}", root, False
            if any(not self._outside(star) for star in self.stars):
                return f"*.{root}", root, False
        return None, None, False

    def _outside(self, qualname: str) -> bool:
        """A name in a framework the rule data knows or in the standard library: never
        project code, so its calls need no event."""
        root = qualname.partition(".")[0]
        return root in self.outside and root != self.modq.partition(".")[0]

    def _qual(self, local_path: str) -> str:
        return f"{self.modq}.{local_path}" if self.modq else local_path

    def describe(self, node: cst.BaseExpression) -> Optional[ValueDesc]:
        """What a guard or an argument reads: a literal, an option, a parameter, a global,
        a field of a config object, what a project call gives."""
        value = literal_value(node, lambda _: None)
        if value is not UNKNOWN and value is not ABSENT:
            return ValueDesc(ValueSource.LITERAL, literal=value) if plain(value) else None
        environ = self._environ_read(node)
        if environ is not None:
            return environ
        if type(node) is cst.Name:
            name = node.value
            scope = self.scope
            alias = scope.values.get(name)
            if alias is not None and name not in scope.globals:
                left = self._left(scope.value_guards.get(name, ()))
                if not left:
                    return alias  # bound once so far: ``encoder_type = config.type``
                # bound in a branch the walk has left (``if one_per_exp: shuffle = False``):
                # a parameter is the branch's value where the branch runs, else the argument
                # (a branch whose condition is not recognised leaves it unknown, unless
                # another is false)
                if (name in scope.params or name in scope.kwonly) and any(cond is not None for _, cond in left):
                    return ValueDesc(ValueSource.CHOICE, name, args=((alias,), ()), cond=_all_of([cond for _, cond in left]))
                return None
            if name in scope.params or name in scope.kwonly:
                # reassigned before this point (``seed = seed or random.randint(...)``): no
                # longer the argument, and its default says nothing
                return ValueDesc(ValueSource.PARAMETER, name) if name not in scope.assigned or name in self.rebinding else None
            if scope.name in (MODULE, MAIN) or (name not in scope.assigned or name in scope.globals):
                if self.ctx.qualname(node) is None:
                    return ValueDesc(ValueSource.GLOBAL, name)
            return None
        attribute = self._own_attribute(node) or self._enclosing_attribute(node)
        if attribute is not None:
            return ValueDesc(ValueSource.ATTRIBUTE, attribute)
        if type(node) is cst.Attribute:
            return self._describe_field(node.value, node.attr.value)
        if type(node) is cst.Call:
            return self._describe_call(node)
        return None

    def _environ_read(self, node: cst.BaseExpression) -> Optional[ValueDesc]:
        """A read of an environment variable named by a literal, valued as in the default
        run, which sets none (``"CI" in os.environ``, ``os.getenv("CI")``); else None."""
        t = self.t
        if type(node) is cst.Comparison and t.environ and len(node.comparisons) == 1:
            target = node.comparisons[0]
            name = literal_value(node.left, lambda _: None)
            negated = type(target.operator) is cst.NotIn
            if (negated or type(target.operator) is cst.In) and isinstance(name, str) \
                    and self.ctx.qualname(target.comparator) == t.environ:
                return ValueDesc(ValueSource.ENVIRON, name, negated)
            return None
        if type(node) is cst.Call and t.environ_reads and node.args and self.ctx.qualname(node.func) in t.environ_reads:
            name = literal_value(node.args[0].value, lambda _: None)
            default = find_arg(node, "default", 1)
            value = literal_value(default, lambda _: None) if default is not None else None
            if isinstance(name, str) and node.args[0].keyword is None and plain(value) and value is not UNKNOWN:
                return ValueDesc(ValueSource.ENVIRON, name, value)
        return None

    def _describe_field(self, owner: cst.BaseExpression, attr: str) -> Optional[ValueDesc]:
        """``owner.attr`` (or ``getattr(owner, "attr", ...)``): an option of the command
        line, or a field of the config object ``owner`` holds."""
        if isinstance(owner, cst.Name) and owner.value not in ("self", "cls"):
            name = owner.value
            scope = self.scope
            if f"{name}.{attr}" in scope.assigned_attrs or f"{name}.{attr}" in self.module_scope.assigned_attrs:
                return None
            typed = self.lookup("types", name)
            held = self.describe(owner) if name in scope.params or name in scope.kwonly or scope.values.get(name) else None
            if held is not None and held.source not in (ValueSource.PARAMETER, ValueSource.RESULT):
                held = None
            if typed == NAMESPACE or held is not None or name in scope.params or (typed is not None and self.ctx.qualname(owner) is None):
                return ValueDesc(ValueSource.OPTION, attr, owner=held)
        if self.t.flag_values and self.ctx.qualname(owner) == self.t.flag_values:
            return ValueDesc(ValueSource.OPTION, attr)  # ``flags.FLAGS.seed``
        held_by_self = self._own_attribute(owner) or self._enclosing_attribute(owner)
        if held_by_self is not None:
            # ``self.config.use_synthetic_data``: a field of the config object the constructor stored
            key = dotted_name(owner)
            if key is not None and f"{key}.{attr}" in self.scope.assigned_attrs:
                return None
            return ValueDesc(ValueSource.OPTION, attr, owner=ValueDesc(ValueSource.ATTRIBUTE, held_by_self))
        if isinstance(owner, cst.Attribute):
            # ``cfg.common.quantization_config_path``: a field of a field (``Program.value``
            # decides it only from what the project sets the field to, never from an option)
            key = dotted_name(owner)
            inner = self._describe_field(owner.value, owner.attr.value)
            if inner is not None and inner.source is ValueSource.OPTION and key is not None \
                    and f"{key}.{attr}" not in self.scope.assigned_attrs:
                return ValueDesc(ValueSource.OPTION, attr, owner=inner)
        return None

    def _describe_call(self, node: cst.Call) -> Optional[ValueDesc]:
        """``getattr(args, "name", default)`` as ``args.name``; a call of a project function
        or class as its result, with its arguments described."""
        if self.ctx.qualname(node.func) == "builtins.getattr" and len(node.args) in (2, 3):
            name = node.args[1].value
            if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                return self._describe_field(node.args[0].value, name.evaluated_value)
            return None
        found = self.callees.get(id(node))  # left before the call or assignment holding it
        q, _, bound = found if found is not None else self.target(node.func)
        if q is None or bound or q.startswith(MARKED_TARGETS) or self._outside(q):
            return None
        positional: List[Optional[ValueDesc]] = []
        keywords: List[Tuple[str, Optional[ValueDesc]]] = []
        for arg in node.args:
            if arg.star:
                return None
            desc = self.describe(arg.value) if type(arg.value) in _DESCRIBABLE else None
            if arg.keyword is None:
                positional.append(desc)
            else:
                keywords.append((arg.keyword.value, desc))
        return ValueDesc(ValueSource.RESULT, relative(q, self.modq), args=(tuple(positional), tuple(keywords)))

    # ---- imports ------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted_name(alias.name)
            if name and not self._outside(name):
                self.scope.add(SeedingEvent(EventKind.IMPORT, name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = dotted_name(node.module) if node.module is not None else ""
        if node.relative:
            is_package = self.ctx.path.endswith("__init__.py")
            base = resolve_relative(self.ctx.module_name, is_package, len(node.relative), base or "")
        if not base:
            return
        if isinstance(node.names, cst.ImportStar):
            self.stars.append(base)
        if self._outside(base):
            return
        self.scope.add(SeedingEvent(EventKind.IMPORT, base))
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if name:
                self.scope.add(SeedingEvent(EventKind.IMPORT, f"{base}.{name}"))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """A name read on an object may run a method of that name; a path inside a
        framework or standard-library module (``torch.backends.cudnn.benchmark``,
        ``np.random.rand``) names that module's attributes, not a method of the project's
        objects."""
        root: cst.BaseExpression = node.value
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is cst.Name:
            imported = self.ctx.imports.aliases.get(root.value)
            if imported is not None and self._outside(imported):
                return
        self.scope.names.add(node.attr.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        """A name in a string may be looked up on an object (``getattr(plugin, "before_training_exp")``)."""
        value = string_value(node.value)
        if isinstance(value, str) and value.isidentifier():
            self.scope.names.add(value)

    # ---- calls --------------------------------------------------------------------
    def leave_Call(self, node: cst.Call) -> None:
        q, root, bound = self.callees[id(node)] = self.target(node.func)
        self._uses_found(node, q)
        t = self.t
        if self.scope.trains is not Trained.MODEL:
            method = node.func.attr.value if type(node.func) is cst.Attribute else None
            if t.is_training(q, method):
                self._trains(t.trained(q))
        self._restores_weights(node, q)
        if q is not None and (q in t.live_input or (q in t.live_input_in_loops and self.scope.loops)):
            self.scope.add(SeedingEvent(EventKind.LIVE_INPUT, guards=tuple(self.guards())))
        handled = False
        if q is not None and not q.startswith(MARKED_TARGETS):
            seeder = t.seeders.get(q)
            if seeder is not None:
                self._seed(node, q, seeder, root)
                handled = True
            else:
                handled = self._known_call(node, q, root)
        if not handled and type(node.func) is cst.Attribute:
            handled = self._method_call(node, node.func.attr.value, q)
        if not handled and q is not None and not self._outside(q):
            self._call_event(node, q, root, bound)
            drawn = self.returned_draws.get(relative(q, self.modq)[1:]) if relative(q, self.modq).startswith(".") else None
            if drawn is not None:  # ``seed = _get_random_integer()``: the helper's draw, made here
                inner = self.candidates.items[drawn]
                self.helper_draws.append(self._use(node, self.flow.marks[id(inner.node)][1], inner.code, root))
        launched = self._launch(node, q) if q in LAUNCHERS else None
        inspects = type(node.func) is cst.Name and node.func.value in _INSPECTING and self.lookup("local_defs", node.func.value) is None
        holder = self._call_holding(node) if q in _CONTAINERS else None
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in t.seed_keywords:
                self.flow.sink(arg.value)
            elif arg is not launched and not arg.star and not inspects and type(arg.value) in _NAMES:
                ref, ref_root, _ = self.target(arg.value)
                if ref is not None and not ref.startswith(("super:", "cls:")) and not self._outside(ref):
                    event = SeedingEvent(EventKind.REFERENCE, relative(ref, self.modq), guards=tuple(self.guards()))
                    if holder is not None:
                        self.held_references.setdefault(id(holder), []).append((event, ref_root))
                    else:
                        self.scope.add(event, ref_root)
        for event, ref_root in self.held_references.pop(id(node), ()):
            self.scope.add(event, ref_root)

    def _call_holding(self, node: cst.Call) -> Optional[cst.Call]:
        """The call that ``node``, a container, is an argument of (``f(x=dict(...))``)."""
        ancestors = self.ctx.ancestors
        if len(ancestors) >= 2 and type(ancestors[-1]) is cst.Arg and type(ancestors[-2]) is cst.Call:
            return ancestors[-2]
        return None

    def _found(self, node: cst.BaseExpression) -> bool:
        """A value looked up in a mapping: ``REGISTRY[name]``, or a local bound to one."""
        if type(node) is cst.Name:
            return node.value in self.scope.found
        return type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index

    def _uses_found(self, node: cst.Call, q: Optional[str]) -> None:
        """A call that may make what the function looked up (calls it, or a value it
        computed or bound locally, or passes it to a project function), or calls a method
        on it (``REGISTRY[name].add_args(p)``, which runs that method of the class, not its
        constructor)."""
        func = node.func
        if type(func) is cst.Attribute and self._found(func.value):
            self.scope.found_methods.add(func.attr.value)
        elif type(func) in (cst.Subscript, cst.Call) or (type(func) is cst.Name and func.value in self.scope.assigned):
            self.scope.makes_found = True
        elif (q is not None and not q.startswith(MARKED_TARGETS) and not self._outside(q)
              and any(self._found(arg.value) for arg in node.args)):
            self.scope.makes_found = True  # ``build(MODEL_REGISTRY[name], cfg)``

    def _trains(self, trained: Trained) -> None:
        """Evidence of training: an event when it trains more than the function's earlier
        evidence (a framework model after a k-means fit)."""
        if trained > self.scope.trains:
            self.scope.trains = trained
            self.scope.add(SeedingEvent(EventKind.TRAINS, trained=trained))

    def _restores_weights(self, node: cst.Call, q: Optional[str]) -> None:
        """A call that restores all of a model's weights (``model.load_state_dict(...)``,
        ``saver.restore(sess, path)``; not ``strict=False``): an event pass 2 notes for the program."""
        method = node.func.attr.value if type(node.func) is cst.Attribute else None
        if not self.t.restores_weights(q, method):
            return
        if self.t.partial_restore and any_holds(node, self.t.partial_restore, {}, self.ctx.qualname) is not False:
            return
        self.scope.add(SeedingEvent(EventKind.RESTORES_WEIGHTS, guards=tuple(self.guards())))

    def _launch(self, node: cst.Call, q: str) -> Optional[cst.Arg]:
        """A launcher (``absl.app.run(main)``, ``fire.Fire(main)``, ``mp.spawn(main)``) runs
        the function it is given now, not later: a call of it.  ``app.run()`` with no
        function runs the module's ``main``.  Returns the argument that named it."""
        arg = next((a for a in node.args if not a.star), None)
        if arg is not None and arg.keyword is not None and arg.keyword.value not in ("main", "fn", "component", "function"):
            arg = None
        func = arg.value if arg is not None else (cst.Name("main") if q.endswith("app.run") else None)
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        target, root, bound = self.target(func)
        if target is None or target.startswith(("super:", "cls:")) or self._outside(target):
            return None
        self.scope.add(self._call(target, NO_ARGS, self.guards(), bound), root)
        return arg

    def _known_call(self, node: cst.Call, q: str, root: Optional[str]) -> bool:
        t = self.t
        if q in t.restorers:
            self.scope.add(SeedingEvent(EventKind.RESTORE, rngs=tuple(t.restorers[q])), root)
            return True
        if q in self.graph_resets:
            self.scope.add(SeedingEvent(EventKind.GRAPH_RESET, rngs=self.graph_resets[q], guards=tuple(self.guards())), root)
            return True
        consumer = t.consumers.get(q)
        if consumer is not None:
            self._consumer(node, consumer, root)
            return True
        keras = t.keras_rng(q)
        if keras is not None:
            if not self._has_value(node, t.op_seed_keyword):
                weights = t.draws_weights(q)
                if t.keras_built(q) and self.scope is self.module_scope:
                    self._use(node, keras, "ND105", root, Draw(built=True, weights=weights))  # made at import: pass 2 knows the Keras
                else:
                    self._use(node, keras, "ND105", root, Draw(weights=weights))
            return True
        if q in t.constructors:
            pos, kw = t.constructors[q]
            if not self._generator_seed_held(node, q, find_arg(node, kw, pos), root):
                self.calls.constructor(node, q, pos, kw)
            if only_makes_text(node, self.ctx.ancestors, self.ctx.qualname):  # a run id's letters seed nothing
                self.flow.seeds_text(find_arg(node, kw, pos))
            else:
                self.flow.sink(find_arg(node, kw, pos))
            return True
        if q in t.sklearn:
            self.calls.sklearn(node, q, t.sklearn[q], root)
            return True
        if q in t.loaders:
            self.calls.loader(node, root)
            return True
        if q in t.loader_factories:
            self.calls.loader_factory(node, q, t.loader_factories[q], root)
            return True
        if q in t.samplers:
            self.calls.sampler(node, q, t.samplers[q], root)
            return True
        if q in t.sources:
            self.flow.mark(node, ("src", q))
            return True
        if q == t.hash_function and node.args and self._text_types().is_str(node.args[0].value):
            self.flow.mark(node, ("src", "hash() of a str"))
            return True
        if q in t.sinks:
            pos, kw = t.sinks[q]
            self.flow.sink(find_arg(node, kw, pos))
            return True
        if q in t.option_decorators:
            self.calls.option(node)
            return True
        if q in t.flag_defines:
            self.calls.flag(node)
            return True
        return False

    def _method_call(self, node: cst.Call, attr: str, q: Optional[str]) -> bool:
        t = self.t
        if q is None and attr in t.tensor_methods and self.mentions_torch:
            if not self._has_value(node, t.generator_keyword):
                self._use(node, "torch", "ND104", None)
            return True
        if q is None and attr in t.hf_datasets.shuffles and self._hf_shuffle(node):
            return True
        if attr in t.dataset_methods and (q.startswith(t.dataset_prefixes) if q is not None else self._untyped_dataset(node)):
            seeded, seed = self._own_seed(node, t.op_seed_keyword)
            discarded = isinstance(self.ctx.parent(node), cst.Expr)  # a dataset is immutable: nothing is shuffled
            if (not seeded or seed is not None) and find_arg(node, None, 1) is None and not discarded:
                self._use(node, "tf", "ND105", None, own_seed=seed)
            return True
        if attr in t.sink_methods and (q is None or not q.startswith("builtins.")):
            pos, kw = t.sink_methods[attr]
            self.flow.sink(find_arg(node, kw, pos))
            return q is None
        if attr in t.option_methods:
            self.calls.option(node)
            return True
        if attr in t.defaults_methods:
            for arg in node.args:
                if arg.keyword is not None:
                    self.calls.declare(arg.keyword.value, arg.value, None, node)
            return True
        return False

    def _hf_shuffle(self, node: cst.Call) -> bool:
        """``ds.shuffle()`` of a Hugging Face map-style dataset: with no ``seed`` and no
        ``generator`` it takes its seed from NumPy's global state, a NumPy draw (ND102) that
        ``np.random.seed`` covers. A streaming dataset's shuffle makes an unseeded NumPy
        generator instead, which no seed call reaches (ND103, reported on the spot).
        Whether the call is one."""
        hf = self.t.hf_datasets
        func = node.func
        if not isinstance(func, cst.Attribute):
            return False
        if self.index_for is None:
            self.index_for = scope_index_factory(self.ctx.parent)
        origin = hf.origin(func.value, self.ctx.qualname, self.index_for, self.ctx.imports)
        if origin is None:
            return False
        if not hf.seeded(node) and not isinstance(self.ctx.parent(node), cst.Expr):
            if origin.streaming:
                self.calls.streaming_shuffle(node)
            else:
                self._use(node, "numpy", "ND102", None)
        return True

    def _untyped_dataset(self, node: cst.Call) -> bool:
        """``dataset.shuffle(buffer_size)`` on a value pass 1 cannot type (a parameter): a
        tf.data dataset when the module uses TensorFlow, no other library of the rule data
        whose objects shuffle, and the receiver is named as a dataset (``ds``, ``train_ds``)."""
        receivers = self.t.dataset_receivers
        if not receivers or not self.mentions_tf or self.ctx.imports.mentions(*receivers.get("unless_imports", ())):
            return False
        func = node.func
        receiver = func.value if isinstance(func, cst.Attribute) else None
        name = receiver.attr.value if isinstance(receiver, cst.Attribute) else receiver.value if isinstance(receiver, cst.Name) else ""
        words = receivers.get("words", ())
        return any(word in words for word in name.lower().split("_")) and find_arg(node, "buffer_size", 0) is not None

    def _own_seed(self, node: cst.Call, keyword: Optional[str]) -> Tuple[bool, Optional[ValueDesc]]:
        """Whether a call passes its own seed (``keyword=`` other than None) and, where that
        seed is a parameter, an option or an attribute pass 2 can value, its description: the
        call draws unseeded when that value is None (``shuffle(n, seed=seed)``, ``seed=None``)."""
        value = find_arg(node, keyword, None) if keyword else None
        if value is None:
            return False, None
        literal = literal_value(value, self.ctx.qualname)
        if literal is None:
            return False, None
        if literal is not UNKNOWN:
            return True, None
        desc = self.describe(value) if type(value) in _DESCRIBABLE else None
        return True, (desc if desc is not None and desc.source is not ValueSource.LITERAL else None)

    def _generator_seed_held(self, node: cst.Call, q: str, value: Optional[cst.BaseExpression], root: Optional[str]) -> bool:
        """A NumPy generator given a seed that a parameter, an option or an attribute holds
        (``np.random.RandomState(seed)``): pass 2 values it in each program that runs the
        call, and ND103 reports it where that value is None (a ``seed=None`` no caller
        sets). A generator's own state is no global RNG: no seed call covers it."""
        if value is None or has_star_args(node) or type(value) not in _DESCRIBABLE:
            return False
        if literal_value(value, self.ctx.qualname) is not UNKNOWN or self.calls.holds_none(value):
            return False  # judged where it is written
        desc = self.describe(value)
        if desc is None or desc.source not in _HELD_SEEDS:
            return False
        cid = self.candidates.add(node, "ND103", GeneratorCall(short_name(q), self.ctx.module.code_for_node(value)))
        guards = tuple(self.guards() + self.flow.branch_guards(node))
        self.scope.add(SeedingEvent(EventKind.USE, rng=GENERATOR_RNG, cid=cid, guards=guards, value=desc), root)
        return True

    def _has_value(self, node: cst.Call, keyword: Optional[str]) -> bool:
        """Whether ``keyword=`` is passed with a value other than None."""
        if not keyword:
            return False
        value = find_arg(node, keyword, None)
        return value is not None and literal_value(value, self.ctx.qualname) is not None

    def _call(self, target: str, args: CallArgs, guards: List[Guard], bound: bool) -> SeedingEvent:
        return SeedingEvent(EventKind.CALL, relative(target, self.modq), guards=tuple(guards), args=args, bound=bound)

    def _call_event(self, node: cst.Call, q: str, root: Optional[str], bound: bool) -> None:
        positional: List[Optional[ValueDesc]] = []
        keywords: Dict[str, Optional[ValueDesc]] = {}
        for arg in node.args:
            if arg.star == "**" and self._forwards_own_keywords(arg.value):
                keywords[FORWARDED_KEYWORDS] = ValueDesc(ValueSource.PARAMETER, self.scope.varkw or "")
                continue
            if arg.star:
                break
            desc = self.describe(arg.value) if type(arg.value) in _DESCRIBABLE else None
            if arg.keyword is None:
                positional.append(desc)
            else:
                keywords[arg.keyword.value] = desc
        args = CallArgs(tuple(positional), keywords)
        index = self.scope.add(self._call(q, args if args.describes_any() else NO_ARGS, self.guards() + self.flow.branch_guards(node), bound), root)
        self.call_events[id(node)] = (self.scope, index)
        if self.flow.may_hold_mark(node):
            for index, arg in enumerate(node.args):
                if arg.star:
                    break
                mark = self.flow.value_mark(arg.value)
                if mark is not None:
                    key = arg.keyword.value if arg.keyword is not None else index
                    self.flow.origin(mark).flows.append(CallFlow(q, key, bound))

    def _forwards_own_keywords(self, value: cst.BaseExpression) -> bool:
        """``**kwargs`` of the function's own ``**kwargs`` parameter, never rebound in it."""
        varkw = self.scope.varkw
        return varkw is not None and isinstance(value, cst.Name) and value.value == varkw and varkw not in self.scope.assigned

    # ---- seeds and uses -----------------------------------------------------------
    def _seed(self, node: cst.Call, q: str, seeder: Seeder, root: Optional[str]) -> None:
        if seeder.always_random:
            self.ctx.report(node, "ND107", problem=f"`{short_name(q)}()` reseeds the global RNG from OS entropy: every draw after it differs between runs, whatever was seeded before")
            self.scope.add(SeedingEvent(EventKind.RESEED, rngs=tuple(seeder.seeds)), root)
            return
        value = find_arg(node, seeder.kw, seeder.pos) if (seeder.kw or seeder.pos is not None) else None
        literal = literal_value(value, self.ctx.qualname)
        if (value is None or literal is None) and seeder.without_value == "entropy":
            given = "no value" if value is None else "None"
            self.ctx.report(node, "ND107", problem=f"`{short_name(q)}` is given {given}: it seeds from OS entropy, so it covers nothing")
            self.scope.add(SeedingEvent(EventKind.RESEED, rngs=tuple(seeder.seeds)), root)
            return
        if value is None and seeder.without_value == "required":
            return
        if (value is None or literal is None) and seeder.random_without_value_before:
            # random without a value in older versions: pass 2 knows the target version
            package = q.split(".")[0].replace("_", "-")
            bound = dict(seeder.random_without_value_before).get(package)
            if bound is not None:
                given = "no value" if value is None else "None"
                self.candidates.add(node, "ND107", RandomBefore(package, bound, tuple(seeder.known_versions), short_name(q), given))
        desc = self.describe(value) if value is not None else None
        self.flow.sink(value)
        event = SeedingEvent(EventKind.SEED, rngs=tuple(seeder.seeds), cid=self.candidates.anchor(node), guards=tuple(self.guards()),
                             value=desc if desc is not None and desc.source in _SEED_VALUES else None, without=seeder.without_value)
        self.scope.add(event, root)

    def _consumer(self, node: cst.Call, consumer: Consumer, root: Optional[str]) -> None:
        seeded, seed = self._own_seed(node, consumer.skip_keyword)
        if seeded and seed is None:
            return
        if consumer.unless and any_holds(node, consumer.unless, {}, self.ctx.qualname):
            return
        if consumer.when and not any_holds(node, consumer.when, {}, self.ctx.qualname):
            return
        if self._feeds_no_result(node):
            return
        self._use(node, consumer.rng, consumer.code, root, Draw(weights=consumer.weights, applied=consumer.applied), own_seed=seed)

    def _feeds_no_result(self, node: cst.Call) -> bool:
        """A draw whose value only picks something no result depends on: a network port
        (``os.environ["MASTER_PORT"] = str(random.randint(...))``, ``port = ...``,
        ``init(port=...)``), through conversions (``str``, ``int``, an f-string, arithmetic)."""
        table = self.t.no_result
        if not table:
            return False
        child: cst.CSTNode = node
        parent = self.ctx.parent(child)
        while True:
            if isinstance(parent, (cst.BinaryOperation, cst.FormattedStringExpression, cst.FormattedString)):
                pass
            elif isinstance(parent, cst.Arg) and parent.keyword is None:
                call = self.ctx.parent(parent)
                if not (isinstance(call, cst.Call) and self.ctx.qualname(call.func) in table.get("wrappers", ())):
                    return False
                parent = call
            else:
                break
            child, parent = parent, self.ctx.parent(parent)
        if isinstance(parent, cst.Arg):
            return parent.keyword is not None and parent.keyword.value in table.get("keywords", ())
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and getattr(parent, "value", None) is child:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            return bool(targets) and all(self._no_result_target(target) for target in targets)
        return False

    def _no_result_target(self, target: cst.BaseExpression) -> bool:
        """``os.environ["MASTER_PORT"]``, or a name whose words include ``port``."""
        table = self.t.no_result
        if isinstance(target, cst.Subscript):
            key = target.slice[0].slice if len(target.slice) == 1 else None
            return (
                self.ctx.qualname(target.value) == "os.environ" and isinstance(key, cst.Index)
                and isinstance(key.value, cst.SimpleString) and key.value.evaluated_value in table.get("env_vars", ())
            )
        name = target.attr.value if isinstance(target, cst.Attribute) else target.value if isinstance(target, cst.Name) else ""
        return any(word in table.get("target_words", ()) for word in name.lower().split("_"))

    def _use(self, node: cst.Call, rng: str, code: str, root: Optional[str], values: Draw = Draw(),
             own_seed: Optional[ValueDesc] = None) -> int:
        cid = self.candidates.add(node, code, values)
        guards = tuple(self.guards() + self.flow.branch_guards(node))
        self.scope.add(SeedingEvent(EventKind.USE, rng=rng, cid=cid, guards=guards, value=own_seed), root)
        self.flow.draw(node, rng, cid)
        return cid

    # ---- end of a scope and of the file -------------------------------------------------
    def _finish_scope(self, scope: Scope) -> None:
        self.holding -= len(scope.held)
        scope.held.clear()
        events = []
        shadowed = scope.assigned - scope.globals if scope.name not in (MODULE, MAIN) else set()
        for event, root in zip(scope.events, scope.roots):
            if root is not None and root in shadowed:
                if event.kind is EventKind.USE:
                    self.candidates.drop(event.cid)
                continue
            events.append(event)
        returns = set(scope.returns)
        self.fns[scope.name] = FunctionFacts(tuple(events), tuple(scope.params), tuple(scope.kwonly), scope.defaults,
                                             scope.cls, tuple(sorted(scope.sunk_params)),
                                             scope.returns[0] if len(returns) == 1 and None not in returns else None,
                                             scope.typed, self._found_methods(scope), tuple(sorted(scope.names)),
                                             scope.varkw)

    @staticmethod
    def _found_methods(scope: Scope) -> Optional[Tuple[str, ...]]:
        """``FunctionFacts.found_methods``: kept for module-level functions, which a call into
        a registry's module runs."""
        if scope.makes_found or "." in scope.name or scope.name in (MODULE, MAIN):
            return None
        return tuple(sorted(scope.found_methods))

    def finish(self) -> None:
        self.calls.drop_unused_results()
        for scope in reversed(self.scopes):
            self._finish_scope(scope)
        for cid in self.helper_draws:  # a helper's draw counts at its call only where it becomes a seed
            found = self.flow.origin_ids.get(id(self.candidates.items[cid].node))
            origin = self.flow.origins[found] if found is not None else None
            if origin is None or not (origin.sunk or origin.flows):
                self.candidates.drop(cid)
        for cid in self.flow.text_seeds:  # a draw that seeds only a generator of text, and nothing else
            found = self.flow.origin_ids.get(id(self.candidates.items[cid].node))
            if found is None:
                self.candidates.drop(cid)
        self.scopes = [self.module_scope]
        for name in self.flow.sunk_globals:
            mark = self.module_scope.taint.get(name)
            if mark is not None:
                self.flow.origin(mark).sunk = True
        # constants a guard may compare with (not docstrings and long texts)
        consts = {name: value for name, value in self.consts.items()
                  if value is not _MISSING and not (isinstance(value, str) and len(value) > 40)}
        is_entry = self._is_entry()
        for call in self.ctx.module_calls():
            self.settings.call(call)
        fns = {name: replace(facts, events=prune(self._live(facts.events), self.modq, self.classes, self.outside))
               for name, facts in self.fns.items()}
        facts = ModuleSeeding(
            fns=fns, classes=self.classes, opts=self.calls.opts, consts=consts,
            stars=[star for star in self.stars if not self._outside(star)],
            origins=tuple(o for o in self.flow.origins if o.sunk or o.flows or o.kind is OriginKind.SOURCE),
            sunk_options=sorted(self.flow.sunk_options),
            aliases={k: v for k, v in self.ctx.imports.aliases.items() if "." in v},
            blocks=seed_blocks(self.ctx, self.t, fns, self._first_draw(fns)) if is_entry else {},
            option_blocks=option_blocks(self.ctx, self.t, fns) if is_entry else None,
            seed_apis=seed_apis(self.ctx, self.t) if is_entry else {},
            config_seeds=config_seeds(self.ctx),
            fields=self.fields,
            settings=self.settings.to_json(),
            registered=self.registered,
            registering=self.registering,
        )
        self.ctx.facts.put(facts)
        self._emit()

    def _first_draw(self, fns: Mapping[str, FunctionFacts]) -> int:
        """The first top-level statement that draws from an RNG as the module runs (its
        body and main block), or -1."""
        tops = {id(stmt): index for index, stmt in enumerate(self.ctx.module.body)}
        first = -1
        for name in (MODULE, MAIN):
            for event in fns.get(name, NO_FUNCTION).events:
                if event.kind is not EventKind.USE or event.cid < 0:
                    continue
                node: Optional[cst.CSTNode] = self.candidates.items[event.cid].node
                while node is not None and id(node) not in tops:
                    node = self.ctx.parent(node)
                if node is not None and (first < 0 or tops[id(node)] < first):
                    first = tops[id(node)]
        return first

    def _live(self, events: Sequence[SeedingEvent]) -> Tuple[SeedingEvent, ...]:
        """Events without the uses whose candidate was dropped after its scope ended."""
        items = self.candidates.items
        return tuple(e for e in events if e.kind is not EventKind.USE or e.cid < 0 or items[e.cid].live)

    def _emit(self) -> None:
        """Hand candidates and anchors to the engine, which positions them."""
        for index, candidate in enumerate(self.candidates.items):
            node, code, values, fix = candidate.node, candidate.code, candidate.values, candidate.fix
            if not candidate.live:
                continue
            if isinstance(values, Draw) and values.seed_value:
                origin = self.flow.origin_of(node)
                if origin.sunk:
                    code, fix = "ND107", None
                values = replace(values, origin=origin.id)
            if code and code in self.ctx.enabled:
                self.ctx.defer(node, code, fix=fix, **SeedingPayload(index, values).to_json())
            elif self.anchor_code is not None:
                self.ctx.defer(node, self.anchor_code, **SeedingPayload(index).to_json())

    def _is_entry(self) -> bool:
        return EntryFacts not in self.ctx.facts or is_entry_point(self.ctx.facts)



# (exact types, tested with ``type() in``: none has subclasses)
_DESCRIBABLE = frozenset({cst.Name, cst.Attribute, cst.SimpleString, cst.Integer, cst.Float, cst.UnaryOperation, cst.Call})
# seed values pass 2 values (what a call gives is left unknown there)
_SEED_VALUES = (ValueSource.PARAMETER, ValueSource.OPTION, ValueSource.GLOBAL)
_HELD_SEEDS = (*_SEED_VALUES, ValueSource.ATTRIBUTE)  # a generator's seed pass 2 values (ND103)
# the state of a NumPy generator made in the code: no global seed covers it (ND103)
GENERATOR_RNG = "numpy-generator"


def _all_of(conds: Sequence[Optional[Cond]]) -> Cond:
    """The conjunction of conditions, at least one of them recognised (None: one that is
    not, unknown)."""
    out: Optional[Cond] = conds[0]
    for cond in conds[1:]:
        out = BoolOp("and", out, cond)
    assert out is not None
    return out


def _ends_in_return(body: cst.BaseSuite, ends: Tuple[type, ...] = (cst.Return, cst.Raise)) -> bool:
    """Whether every way through a function body (or a branch) ends in a return or a raise
    (in one of ``ends``).  (``type()``: none of these classes has subclasses.)"""
    if type(body) is cst.SimpleStatementSuite:
        return bool(body.body) and type(body.body[-1]) in ends
    statements = body.body if type(body) is cst.IndentedBlock else ()
    last = statements[-1] if statements else None
    if type(last) is cst.SimpleStatementLine:
        return type(last.body[-1]) in ends
    if type(last) is cst.If:
        orelse = last.orelse
        if orelse is None:
            return False
        rest = orelse.body if isinstance(orelse, cst.Else) else cst.IndentedBlock(body=[orelse])
        return _ends_in_return(last.body, ends) and _ends_in_return(rest, ends)
    return False


def _is_gradient_step(node: cst.AugAssign, parent: Any) -> bool:
    """A hand-written update in a loop: ``w -= lr * grad`` (a name holding "grad")."""
    if not isinstance(node.operator, cst.SubtractAssign):
        return False
    names = [n for n in _names_in(node.value) if "grad" in n.lower()]
    if not names:
        return False
    current = parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, (cst.For, cst.While)):
            return True
        current = parent(current)
    return False


def _names_in(node: cst.CSTNode) -> List[str]:
    out: List[str] = []
    stack: List[cst.CSTNode] = [node]
    while stack and len(out) < 64:
        item = stack.pop()
        if isinstance(item, cst.Name):
            out.append(item.value)
        elif isinstance(item, cst.Attribute):
            out.append(item.attr.value)
            stack.append(item.value)
        elif isinstance(item, (cst.BinaryOperation, cst.UnaryOperation, cst.Call, cst.Subscript, cst.Arg)):
            stack.extend(item.children)
    return out


def _inheritable(classes: Mapping[str, ClassFacts], cls: str, name: str, prefix: str, outside: FrozenSet[str], depth: int = 0) -> bool:
    """Whether ``cls.name`` may be a method: defined here, or in a base we cannot see."""
    entry = classes.get(cls)
    if entry is None or depth > 16:
        return True
    if name in entry.methods:
        return True
    for base in entry.bases:
        local = base[len(prefix):] if prefix and base.startswith(prefix) else None
        if local is not None and local in classes:
            if _inheritable(classes, local, name, prefix, outside, depth + 1):
                return True
        elif base.partition(".")[0] not in outside:
            return True  # a project class elsewhere: it may define the method
    return False


def prune(events: Sequence[SeedingEvent], module_name: str, classes: Mapping[str, ClassFacts],
          outside: FrozenSet[str]) -> Tuple[SeedingEvent, ...]:
    """A function's events without what pass 2 would learn nothing from:

    * ``self.fc(x)`` where ``fc`` is not a method of the class, nor can be inherited from a
      project class, is an attribute (a layer), not a call into project code;
    * a call repeated right after itself (the second changes no seed state).
    """
    prefix = f"{module_name}." if module_name else ""
    out: List[SeedingEvent] = []
    for event in events:
        kind = event.kind
        if kind is EventKind.CALL and event.bound and event.target.startswith("."):
            owner, _, name = event.target[1:].rpartition(".")
            if owner in classes and not _inheritable(classes, owner, name, prefix, outside):
                continue
        if out and kind in _REPEATABLE and out[-1] == event:
            continue
        out.append(event)
    return tuple(out)


# builtins that look at the function or class they are given without calling it
# calls that only store their arguments: a class or function among them runs later, if at all
_CONTAINERS = frozenset({"builtins.dict", "builtins.list", "builtins.tuple", "builtins.set", "collections.OrderedDict"})
_INSPECTING = frozenset({"isinstance", "issubclass", "super", "type", "id", "repr", "str", "print", "getattr", "hasattr", "setattr", "vars", "dir"})
_REPEATABLE = (EventKind.CALL, EventKind.REFERENCE, EventKind.IMPORT)
