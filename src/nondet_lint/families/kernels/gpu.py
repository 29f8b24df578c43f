"""GPU programs and determinism switches, as project facts.

A *GPU program* (docs/contract.md) is a project that selects a GPU somewhere (``.cuda()``,
``.to("cuda")``, ``torch.device("cuda")``, ``device="cuda"``, a Lightning ``Trainer`` not
told to use the CPU, the Hugging Face ``Trainer`` / ``accelerate``, CuPy / Numba CUDA /
Triton); TensorFlow and JAX programs use the GPU by default unless the config says
``devices = ["cpu"]``.  The determinism switches (``use_deterministic_algorithms``,
``cudnn.deterministic``, TF op determinism and its environment variables, ``XLA_FLAGS``,
``CUBLAS_WORKSPACE_CONFIG``, and helpers that set them) are recorded where they are set,
so that an op in ``model.py`` is judged by the switches ``train.py`` turns on.

Pass 1 (``GpuFacts``) records, per module, plain data under ``facts["gpu"]``.  Pass 2
(``ProgramView``) joins them along the project's imports: each entry point's *program* is
the modules it imports, transitively.  What counts as a switch, a GPU selection or a
training step is rule data (``[ND205.data]`` in ``rules/kernels.toml``), not code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.analysis.entrypoints import is_entry_point
from nondet_lint.analysis.seeds import seed_helpers
from nondet_lint.analysis.switches import ON, SWITCH_RULE, SwitchState, regex, value_in
from nondet_lint.analysis.versions import Version, target_version
from nondet_lint.callargs import UNKNOWN, find_arg, literal_value
from nondet_lint.check import Check

FACT = "gpu"
DATA_RULE = SWITCH_RULE  # the rule whose data holds the framework, switch and GPU tables


@dataclass(frozen=True)
class GpuModuleFacts:
    """What pass 1 records about one module for the kernel rules (``facts["gpu"]`` is its
    JSON form)."""

    frameworks: Tuple[str, ...] = ()  # frameworks the module imports (rule data's names)
    selects_gpu: Optional[str] = None  # how it selects a GPU, shown in messages
    switches: Mapping[str, str] = field(default_factory=dict)  # switch -> ON or MAYBE
    differentiates: bool = False  # training code: a backward pass, an optimizer step
    seeds: bool = False  # it calls a seed function (ND206)
    imports: Tuple[str, ...] = ()  # the modules it imports (program closures)

    def to_json(self) -> Dict[str, Any]:
        return {
            "frameworks": list(self.frameworks), "selects_gpu": self.selects_gpu, "switches": dict(self.switches),
            "differentiates": self.differentiates, "seeds": self.seeds, "imports": list(self.imports),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GpuModuleFacts":
        return cls(
            tuple(data.get("frameworks", ())), data.get("selects_gpu"), dict(data.get("switches", {})),
            bool(data.get("differentiates")), bool(data.get("seeds")), tuple(data.get("imports", ())),
        )


def is_device_literal(node: cst.CSTNode, pattern: str) -> bool:
    if type(node) is cst.SimpleString and "\\" not in node.value:
        # no escapes: the value is the raw text between the quotes (evaluating every
        # string literal of a module cost more than the rest of this check)
        return "b" not in node.prefix.lower() and bool(regex(pattern).match(node.raw_value))
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return isinstance(value, str) and bool(regex(pattern).match(value))
    if isinstance(node, cst.FormattedString) and node.parts:
        first = node.parts[0]
        return isinstance(first, cst.FormattedStringText) and bool(regex(pattern).match(first.value))
    return False


# where a device string selects a device (not where it is compared or listed as a choice)
_SELECTING_PARENTS = (cst.Arg, cst.Assign, cst.AnnAssign, cst.IfExp, cst.Param, cst.DictElement, cst.Return)


class GpuSelection:
    """Finds the expressions that select a GPU; shared by the facts and the program checks."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.data = ctx.rules[DATA_RULE].data["gpu"]
        self.by_name = {name: entry for entry in self.data.get("gpu_by_default", []) for name in entry["names"]}

    def by_import(self) -> bool:
        """Importing a GPU kernel library (CuPy, Numba CUDA, Triton) makes a GPU program."""
        return self.ctx.imports.mentions(*self.data.get("kernel_imports", []))

    def call(self, node: cst.Call) -> Optional[str]:
        """A short description of how ``node`` selects the GPU, or None."""
        func = node.func
        name = self.ctx.qualname(func)
        if name is None and isinstance(func, cst.Attribute):
            # ``model.cuda()``: no other library has such a method (its receiver is a
            # torch object even in a file that does not import torch itself)
            if func.attr.value in self.data.get("methods", []):
                return f"`.{func.attr.value}()`"
        if name in self.data.get("calls", []):
            return f"`{name}`"
        entry = self.by_name.get(name or "")
        if entry is not None:
            unless = entry.get("unless")
            if unless:
                value = literal_value(find_arg(node, unless["arg"], unless.get("pos")), self.ctx.qualname)
                if value is UNKNOWN or value_in(value, unless["in"]):
                    return None
            return f"`{name}`"
        return None

    def literal(self, node: cst.CSTNode) -> Optional[str]:
        """A ``"cuda"`` string passed, assigned or chosen (not compared): ``.to("cuda")``,
        ``device="cuda:0"``, ``"cuda" if ... else "cpu"``."""
        if not is_device_literal(node, self.data["device_literal"]):
            return None
        parent = self.ctx.parent(node)
        if isinstance(parent, _SELECTING_PARENTS):
            if isinstance(parent, cst.DictElement) and parent.key is node:
                return None
            return "a `\"cuda\"` device"
        return None


# ---------------------------------------------------------------- pass 1: the facts ---
class GpuFacts(Check):
    """Records ``facts["gpu"]``: frameworks used, GPU selection, switches set,
    differentiation (training code), and the modules imported (for program closures)."""

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data = ctx.rules[DATA_RULE].data
        self.frameworks = data["frameworks"]
        self.diff = data["differentiation"]
        self.selection = GpuSelection(ctx)
        self.switches = SwitchState(ctx.rules, ctx.qualname, sets_environ=ctx.imports.mentions("os"))
        self.selects: Optional[str] = "kernel library import" if self.selection.by_import() else None
        self.differentiates = False
        self.seed_calls = frozenset(name for name, seeder in seed_helpers(ctx.rules).items() if seeder.sets_a_seed)
        self.seeds = False

    def visit_Assign(self, node: cst.Assign) -> None:
        self.switches.assign(node)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        self.switches.call(node, name)
        if self.selects is None:
            self.selects = self.selection.call(node)
        if not self.differentiates:
            self.differentiates = self._differentiates(node, name)
        if name in self.seed_calls:
            self.seeds = True

    def visit_BaseString(self, node: cst.BaseString) -> None:
        if self.selects is None:
            self.selects = self.selection.literal(node)

    def _differentiates(self, node: cst.Call, name: Optional[str]) -> bool:
        if name is not None:
            return name in self.diff["calls"] or name.startswith(tuple(self.diff["prefixes"]))
        if isinstance(node.func, cst.Attribute):
            needs = self.diff["methods"].get(node.func.attr.value)
            return bool(needs) and self.ctx.imports.mentions(*needs)
        return False

    def finish(self) -> None:
        used = sorted(
            framework for framework, spec in self.frameworks.items()
            if self.ctx.imports.mentions(*spec["modules"])
        )
        self.ctx.facts[FACT] = GpuModuleFacts(
            frameworks=tuple(used),
            selects_gpu=self.selects,
            switches=dict(sorted(self.switches.state.items())),
            differentiates=self.differentiates,
            seeds=self.seeds,
            imports=tuple(sorted(name for name in self.ctx.imports.imported_modules if name)),
        ).to_json()


# ---------------------------------------------------------------- pass 2: the view ----
class _ScopeSummary:
    """Frameworks, switches (``ON`` wins over ``MAYBE``), seeding and differentiation of
    a set of modules' facts."""

    def __init__(self, facts: Iterable[GpuModuleFacts]) -> None:
        self.frameworks: Set[str] = set()
        self.switches: Dict[str, str] = {}
        self.seeds = False
        self.differentiates = False
        for fact in facts:
            self.frameworks.update(fact.frameworks)
            for switch, state in fact.switches.items():
                if self.switches.get(switch) != ON:
                    self.switches[switch] = state
            self.seeds = self.seeds or fact.seeds
            self.differentiates = self.differentiates or fact.differentiates


class ProgramView:
    """Project-wide answers for the kernel rules: which modules form each entry point's
    program, whether the project is a GPU program, which switches a program sets, and
    the target version of each framework."""

    def __init__(self, project: Any, data: Mapping[str, Any]) -> None:
        self.project = project
        self.data = data
        self.records = {record.path: record for record in project}
        self.facts = {path: GpuModuleFacts.from_json(record.facts.get(FACT, {})) for path, record in self.records.items()}
        self.entries = sorted(path for path, record in self.records.items() if is_entry_point(record.facts))
        self.edges = {path: self._imports_of(path) for path in self.records}
        self.closures = {path: self._closure(path) for path in self.entries}
        reached: Set[str] = set().union(*self.closures.values()) if self.closures else set()
        # modules no entry point reaches (imported dynamically, or library code): their
        # switches count for every program, to give the benefit of the doubt
        self.orphans = frozenset(path for path in self.records if path not in reached)
        self._targets: Dict[str, Optional[Version]] = {}
        self._pins: Optional[Dict[str, str]] = None
        self._everything = frozenset(self.records)
        self._programs: Dict[str, FrozenSet[str]] = {}
        self._scopes: Dict[str, List[FrozenSet[str]]] = {}
        self._summaries: Dict[FrozenSet[str], _ScopeSummary] = {}
        self._selections: Optional[Dict[str, str]] = None
        self.memo: Dict[str, Any] = {}  # what the kernel rules derive from the view, per run
        # modules grouped by what their facts add to a summary (a few dozen kinds on a
        # large project): a program's summary joins one fact per group it meets, instead
        # of the facts of each of its (often thousand) modules
        self._kinds: Dict[Tuple[Any, ...], Tuple[GpuModuleFacts, Set[str]]] = {}
        for path, fact in self.facts.items():
            kind = (fact.frameworks, tuple(sorted(fact.switches.items())), fact.seeds, fact.differentiates)
            self._kinds.setdefault(kind, (fact, set()))[1].add(path)

    # -- imports and programs
    def _imports_of(self, path: str) -> FrozenSet[str]:
        found = set()
        for name in self.facts[path].imports:
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                record = self.project.module(".".join(parts[:end]))
                if record is not None and record.path != path:
                    found.add(record.path)
        return frozenset(found)

    def _closure(self, start: str) -> FrozenSet[str]:
        seen = {start}
        stack = [start]
        while stack:
            for nxt in self.edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)

    def program_of_entry(self, entry: str) -> FrozenSet[str]:
        """The modules that run when ``entry`` runs, plus the unreached ones."""
        found = self._programs.get(entry)
        if found is None:
            found = self._programs[entry] = self.closures.get(entry, frozenset({entry})) | self.orphans
        return found

    def entries_reaching(self, path: str) -> List[str]:
        return [entry for entry in self.entries if path in self.closures[entry]]

    def scopes_of_module(self, path: str) -> List[FrozenSet[str]]:
        """The programs a module's code runs in: one per entry point that reaches it, or,
        for code no entry point reaches, the whole project."""
        found = self._scopes.get(path)
        if found is None:
            entries = self.entries_reaching(path)
            found = self._scopes[path] = (
                [self.program_of_entry(entry) for entry in entries] if entries else [self._everything]
            )
        return found

    # -- facts over a set of modules
    def is_gpu_program(self) -> bool:
        """docs/contract.md: the project selects a GPU somewhere, or uses TensorFlow / JAX (unless the
        config says ``devices = ["cpu"]``)."""
        if any(f.selects_gpu for f in self.facts.values()):
            return True
        if "cpu" in [d.lower() for d in self.project.config.devices]:
            return False
        default_gpu = {name for name, spec in self.data["frameworks"].items() if spec.get("gpu_by_default")}
        return any(default_gpu.intersection(f.frameworks) for f in self.facts.values())

    def gpu_selections(self) -> Dict[str, str]:
        """Module path -> how it selects a GPU, for the modules that do, sorted by path."""
        if self._selections is None:
            self._selections = {
                path: fact.selects_gpu for path, fact in sorted(self.facts.items()) if fact.selects_gpu
            }
        return self._selections

    def _summary(self, scope: Iterable[str]) -> "_ScopeSummary":
        """The facts of a set of modules taken together; programs are asked about once per
        deferred op, so the summaries of the (few, cached) program sets are kept."""
        if not isinstance(scope, frozenset):
            return self._summarize(frozenset(scope))
        found = self._summaries.get(scope)
        if found is None:
            found = self._summaries[scope] = self._summarize(scope)
        return found

    def _summarize(self, scope: FrozenSet[str]) -> "_ScopeSummary":
        return _ScopeSummary(fact for fact, paths in self._kinds.values() if not paths.isdisjoint(scope))

    def frameworks(self, scope: Iterable[str]) -> Set[str]:
        return set(self._summary(scope).frameworks)

    def switch_on(self, scope: Iterable[str], switch: str) -> bool:
        """A switch counts when set on, or set from a value the code computes."""
        return switch in self._summary(scope).switches

    def switch_definitely_on(self, scope: Iterable[str], switch: str) -> bool:
        """Set on with a literal value (not from a flag the code reads)."""
        return self._summary(scope).switches.get(switch) == ON

    def seeds(self, scope: Iterable[str]) -> bool:
        return self._summary(scope).seeds

    def differentiates(self, scope: Iterable[str]) -> bool:
        return self._summary(scope).differentiates

    # -- versions
    def pins(self) -> Dict[str, str]:
        if self._pins is None:
            self._pins = read_pins(self.project.root)
        return self._pins

    def target(self, framework: str) -> Optional[Version]:
        if framework not in self._targets:
            spec = self.data["frameworks"].get(framework, {})
            aliases = self.data.get("package_aliases", {})
            self._targets[framework] = target_version(
                framework, self.project.config.target_versions, self.pins(), spec.get("known_versions", []), aliases,
            )
        return self._targets[framework]


def read_pins(root: str) -> Dict[str, str]:
    """``{package: specifier}`` the project declares (I/O: pass 2 only)."""
    try:
        from nondet_lint.families.environment.requirements import project_pins
    except ImportError:  # pragma: no cover - the requirement parser is optional
        return {}
    try:
        return project_pins(root)
    except (OSError, ValueError):
        return {}


_VIEW_KEY = "_nondet_lint_gpu_view"


def program_view(project: Any, rules: Mapping[str, Any]) -> ProgramView:
    """The ``ProgramView`` of a project, built once per run and shared by the kernel rules."""
    view = project.__dict__.get(_VIEW_KEY)
    if view is None:
        view = ProgramView(project, rules[DATA_RULE].data)
        project.__dict__[_VIEW_KEY] = view
    return view


def canonical(name: str, aliases: Mapping[str, str]) -> str:
    """Map a qualified name through namespace aliases (``tensorflow.compat.v1.`` →
    ``tensorflow.``, ``tensorflow.keras.`` → ``keras.``), longest prefix first."""
    for _ in range(len(aliases)):  # ``tf.compat.v1.keras.x`` takes two steps
        for prefix in sorted(aliases, key=len, reverse=True):
            if name.startswith(prefix):
                name = aliases[prefix] + name[len(prefix):]
                break
        else:
            return name
    return name


