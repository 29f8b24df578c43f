"""ND2xx: the determinism switches (ND201, ND202, ND205, ND206, ND209).

The op tables (ND203 / ND204 / ND208) are in ``ops``, custom kernels (ND207) in
``custom``.  What counts as a switch, which helper sets what, and the code a fix
inserts are rule data in ``rules/kernels.toml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.analysis.entrypoints import entry_facts, is_entry_point, named_as_benchmark
from nondet_lint.analysis.switches import value_in
from nondet_lint.versions import Version, format_version, in_range
from nondet_lint.callargs import UNKNOWN, find_arg, literal_value
from nondet_lint.names import dotted_name, resolve_relative
from nondet_lint.check import Check
from nondet_lint.context import FileContext, NodeEdit
from nondet_lint.facts import FileFacts, ModuleFact
from nondet_lint.families.kernels import ops as kernel_ops
from nondet_lint.families.kernels.gpu import DATA_RULE, GpuSelectionAnchor, ProgramView, program_view, unit_of
from nondet_lint.families.kernels.reach import MODULE_UNIT
from nondet_lint.families.kernels.ops import ImplicitOp, KernelOps, OpTable, op_table, status_for
from nondet_lint.fixes.builders import insert_after_imports, name_for, top_level
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Deferred, Finding, Fix, Related, UNSAFE
from nondet_lint.walk import calls_in, nodes_in


def is_true_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _flag_argument(call: cst.Call, spec: Mapping[str, Any]) -> Optional[cst.BaseExpression]:
    """The argument a ``{name, pos}`` spec points at, when it is passed."""
    return find_arg(call, spec.get("name"), spec.get("pos"))


@dataclass(frozen=True)
class SettingOff:
    """An ND202 candidate: cuDNN determinism turned off (its deferred payload)."""

    setting: str  # as shown in the message

    def to_json(self) -> Dict[str, Any]:
        return {"setting": self.setting}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SettingOff":
        return cls(data["setting"])


@dataclass(frozen=True)
class SwitchCandidate:
    """An ND205 candidate: the switch of one framework a fix may insert (its deferred payload)."""

    framework: str
    versions: str  # the framework versions the fix's code is for ("*": any)
    warn_only: bool = False  # the fix inserts ``warn_only=True`` (the program runs a raising op)
    cublas: bool = False  # the fix also sets ``CUBLAS_WORKSPACE_CONFIG`` (an allowed torch needs it)

    def to_json(self) -> Dict[str, Any]:
        return {"framework": self.framework, "versions": self.versions, "warn_only": self.warn_only, "cublas": self.cublas}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SwitchCandidate":
        return cls(
            data.get("framework", ""), data.get("versions", "*"), data.get("warn_only", False), data.get("cublas", False),
        )


@dataclass(frozen=True)
class ImportAnchor:
    """A top-level import of an entry point and the modules it names (an ND205 position
    when the entry point does not select the GPU or import the framework itself)."""

    modules: Tuple[str, ...]

    def to_json(self) -> Dict[str, Any]:
        return {"import_of": list(self.modules)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Optional["ImportAnchor"]:
        return cls(tuple(data["import_of"])) if "import_of" in data else None


@dataclass
class EntryAnchors:
    """What pass 1 deferred for the program rules, by kind."""

    candidates: Dict[str, List[Deferred]] = field(default_factory=dict)  # entry -> switch / cuBLAS candidates
    selections: Dict[Tuple[str, str], List[Deferred]] = field(default_factory=dict)  # (module, unit) -> GPU anchors
    implicit: Dict[str, List[Deferred]] = field(default_factory=dict)  # module -> ops the switch covers
    imports: Dict[str, List[Deferred]] = field(default_factory=dict)  # entry -> its top-level imports

    @classmethod
    def sort(cls, deferred: Iterable[Deferred]) -> "EntryAnchors":
        out = cls()
        for item in deferred:
            selection = GpuSelectionAnchor.from_json(item.payload)
            if selection is not None:
                out.selections.setdefault((item.path, selection.unit), []).append(item)
            elif ImplicitOp.from_json(item.payload) is not None:
                out.implicit.setdefault(item.path, []).append(item)
            elif ImportAnchor.from_json(item.payload) is not None:
                out.imports.setdefault(item.path, []).append(item)
            else:
                out.candidates.setdefault(item.path, []).append(item)
        return out


class ThreadPool(str, Enum):
    """What an ND206 candidate runs on several threads."""

    SESSION = "session"  # a TF1 session with multi-threaded op pools
    THREADING = "threading"  # ``tf.config.threading.set_*_parallelism_threads(n)``


@dataclass(frozen=True)
class ThreadsCandidate:
    """An ND206 candidate (its deferred payload)."""

    kind: ThreadPool
    api: str  # the call, as shown in the message
    unit: str = MODULE_UNIT  # the ``reach`` unit it is in: which programs run it

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind.value, "api": self.api, "unit": self.unit}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ThreadsCandidate":
        return cls(ThreadPool(data["kind"]), data["api"], data.get("unit", MODULE_UNIT))


@dataclass(frozen=True)
class StarBindings(ModuleFact):
    """What a star import of this module binds among the names ND201 resolves (those of
    the packages its data names): ``{"torch": "torch", "cudnn": "torch.backends.cudnn"}``."""

    key = "star_bindings"

    bound: Mapping[str, str]  # name -> the qualified name it stands for

    def to_json(self) -> Dict[str, Any]:
        return dict(self.bound)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StarBindings":
        return cls(dict(data))


@dataclass(frozen=True)
class StarCandidate:
    """An ND201 candidate whose root name may come from a star import of project modules
    (its deferred payload): the dotted spelling and the modules star-imported."""

    spelled: str
    modules: Tuple[str, ...]

    def to_json(self) -> Dict[str, Any]:
        return {"spelled": self.spelled, "modules": list(self.modules)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StarCandidate":
        return cls(data["spelled"], tuple(data["modules"]))


@dataclass(frozen=True)
class BenchmarkCandidate:
    """An ND201 setting in a module named like a speed benchmark (its deferred payload):
    reported in pass 2 unless the module is one (it also reads a clock), since autotuning
    is what a speed benchmark measures (spec: benchmarks of speed do not matter)."""

    setting: str  # the message's setting, "`torch.backends.cudnn.benchmark = True`"

    def to_json(self) -> Dict[str, Any]:
        return {"setting": self.setting}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "BenchmarkCandidate":
        return cls(data["setting"])


class CudnnBenchmark(Check):
    """ND201: ``torch.backends.cudnn.benchmark = True`` (also through aliases and star
    imports), and the calls that set it: ``cudnn.flags(benchmark=True)``, Lightning
    ``Trainer(benchmark=True)``.  A name bound by a star import of a project module is
    resolved in pass 2, from what that module binds (its ``star_bindings`` fact); so is a
    setting in a module named like a speed benchmark, which is not reported when the module
    is one."""

    codes = ("ND201",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.named_benchmark = named_as_benchmark(ctx)
        self.calls = self.data("ND201").get("calls", [])
        self.call_names = frozenset(name for spec in self.calls for name in spec["names"])  # (most calls are none)

    def _report(self, node: cst.CSTNode, value: cst.BaseExpression, setting: str) -> None:
        fix = self.ctx.fix("ND201", [NodeEdit(value, "False")])
        if self.named_benchmark:
            self.ctx.defer(node, "ND201", fix=fix, **BenchmarkCandidate(setting).to_json())
        else:
            self.ctx.report(node, "ND201", fix=fix, setting=setting)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not is_true_literal(node.value):
            return
        attributes = self.data("ND201")["attributes"]
        for target in node.targets:
            name = self.ctx.qualname(target.target)
            if name in attributes:
                self._report(target.target, node.value, f"`{name} = True`")
            elif name is None and self.ctx.imports.unknown_stars:
                spelled = dotted_name(target.target)
                if spelled is not None and any(a.endswith("." + spelled.split(".", 1)[-1]) for a in attributes):
                    fix = self.ctx.fix("ND201", [NodeEdit(node.value, "False")])
                    candidate = StarCandidate(spelled, tuple(self.ctx.imports.unknown_stars))
                    self.ctx.defer(target.target, "ND201", fix=fix, **candidate.to_json())

    def finish(self) -> None:
        """What a star import of this module binds, for the names ND201 resolves."""
        data = self.data("ND201")
        roots = {name.split(".")[0] for name in data["attributes"]}
        exported = self.ctx.imports.all_names
        bound = {
            name: target for name, target in self.ctx.imports.aliases.items()
            if target.split(".")[0] in roots and not name.startswith("_") and (exported is None or name in exported)
        }
        if bound:
            self.ctx.facts.put(StarBindings(bound))

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        rule = rules["ND201"]
        attributes = rule.data["attributes"]
        findings = []
        for item in deferred:
            if project.is_speed_benchmark(item.path):
                continue
            if "setting" in item.payload:
                setting = BenchmarkCandidate.from_json(item.payload).setting
                findings.append(Finding(item.path, item.line, item.col, "ND201", rule.format_message(setting=setting), item.end_line, item.end_col, item.fix))
                continue
            candidate = StarCandidate.from_json(item.payload)
            root, _, rest = candidate.spelled.partition(".")
            for module in candidate.modules:
                record = project.module(module)
                stars = record.facts.get(StarBindings) if record is not None else None
                target = stars.bound.get(root) if stars is not None else None
                name = f"{target}.{rest}" if target and rest else target
                if name in attributes:
                    message = rule.format_message(setting=f"`{name} = True`")
                    findings.append(Finding(item.path, item.line, item.col, "ND201", message, item.end_line, item.end_col, item.fix))
                    break
        return findings

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        if name not in self.call_names:
            return
        for spec in self.calls:
            if name in spec["names"]:
                value = _flag_argument(node, spec["arg"])
                if value is not None and is_true_literal(value):
                    self._report(node, value, f"`benchmark=True` in `{name}`")


class CudnnDeterministicOff(Check):
    """ND202: ``torch.backends.cudnn.deterministic = False`` or
    ``torch.backends.cudnn.flags(deterministic=False)``, in a GPU program."""

    codes = ("ND202",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.calls = self.data("ND202").get("calls", [])
        self.call_names = frozenset(name for spec in self.calls for name in spec["names"])  # (most calls are none)

    def _defer(self, at: cst.CSTNode, value: cst.BaseExpression, setting: str) -> None:
        fix = self.ctx.fix("ND202", [NodeEdit(value, "True")])
        self.ctx.defer(at, "ND202", fix=fix, **SettingOff(setting).to_json())

    def visit_Assign(self, node: cst.Assign) -> None:
        if literal_value(node.value, self.ctx.qualname) is not False:
            return
        for target in node.targets:
            name = self.ctx.qualname(target.target)
            if name in self.data("ND202")["attributes"]:
                self._defer(target.target, node.value, f"`{name} = False`")

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        if name not in self.call_names:
            return
        for spec in self.calls:
            if name in spec["names"]:
                value = _flag_argument(node, spec["arg"])
                if value is not None and literal_value(value, self.ctx.qualname) is False:
                    self._defer(node, value, f"`deterministic=False` in `{name}`")

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        view = program_view(project, rules)
        if not deferred or not view.is_gpu_program():
            return []
        rule = rules["ND202"]
        return [
            Finding(d.path, d.line, d.col, "ND202", rule.format_message(setting=SettingOff.from_json(d.payload).setting),
                    d.end_line, d.end_col, d.fix)
            for d in deferred if view.module_in_gpu_program(d.path)  # spec: per program
        ]


# ---------------------------------------------------------------- program-level -------
class ProgramSwitches(Check):
    """ND205 (no determinism switch) and ND209 (``CUBLAS_WORKSPACE_CONFIG`` missing), once
    per entry point, at its first line that selects the GPU (TensorFlow / JAX: their
    import).  Pass 1 defers one candidate per framework the fix may be for; pass 2 keeps
    the ones the entry point's program needs."""

    codes = ("ND205", "ND209")

    @classmethod
    def runs_on(cls, ctx: Any) -> bool:
        return is_entry_point(FileFacts((entry_facts(ctx),)))

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.frameworks = ctx.rules[DATA_RULE].data["frameworks"]
        self.framework_imports: Dict[str, cst.CSTNode] = {}
        self.depth = 0  # inside a definition: its imports run only if it is called

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def _imported(self, node: cst.CSTNode, names: List[str]) -> None:
        for framework, spec in self.frameworks.items():
            if framework not in self.framework_imports and any(
                n == m or n.startswith(m + ".") for n in names for m in spec["modules"]
            ):
                self.framework_imports[framework] = node
        if self.depth == 0:
            # where the report goes when the entry point neither selects the GPU nor
            # imports the framework itself: the import that brings the framework in
            self.ctx.defer(node, "ND205", **ImportAnchor(tuple(names)).to_json())

    def visit_Import(self, node: cst.Import) -> None:
        self._imported(node, [self.ctx.code_for(alias.name) for alias in node.names])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative:
            base = resolve_relative(self.ctx.module_name, self.ctx.is_package, len(node.relative), dotted_name(node.module) or "" if node.module is not None else "")
        else:
            base = self.ctx.code_for(node.module) if node.module is not None else ""
        names = [base]
        if not isinstance(node.names, cst.ImportStar):
            names.extend(f"{base}.{dotted_name(alias.name)}" for alias in node.names)
        self._imported(node, names)

    def finish(self) -> None:
        body = self.ctx.module.body
        if not body:
            return
        anchor = (
            self.framework_imports.get("tensorflow")
            or self.framework_imports.get("jax")
            or self.framework_imports.get("torch")
            or body[0]
        )
        module = self.ctx.module
        cublas = self.ctx.rules["ND209"].data["fix"]
        for framework, spec in self.frameworks.items():
            for option in spec.get("switch_code", []):
                # pass 2 knows the program's ops and versions: one candidate for each form
                # the switch may need (``warn_only=True``, with ``CUBLAS_WORKSPACE_CONFIG``)
                forms = [False, True] if "warn_only_statements" in option else [False]
                with_cublas = [False, True] if framework == CUBLAS_FRAMEWORK else [False]
                for warn_only in forms:
                    for cublas_too in with_cublas:
                        edits = self._switch_edits(module, option, warn_only, cublas if cublas_too else None)
                        fix = self.ctx.fix("ND205", edits, framework=framework) if edits else None
                        candidate = SwitchCandidate(framework, option.get("versions", "*"), warn_only, cublas_too)
                        self.ctx.defer(anchor, "ND205", fix=fix, **candidate.to_json())
        # cuBLAS reads the variable at its first call, not at ``import torch``: after the
        # imports it is in time, and no import follows code
        edits = insert_after_imports(module, cublas["statements"], cublas["imports"], top_level(self.ctx))
        self.ctx.defer(anchor, "ND209", fix=self.ctx.fix("ND209", edits) if edits else None)

    def _switch_edits(
        self, module: cst.Module, option: Mapping[str, Any], warn_only: bool, cublas: Optional[Mapping[str, Any]],
    ) -> List[Any]:
        names: Dict[str, str] = {}
        imports = list(option.get("imports", []))
        statements = option["warn_only_statements" if warn_only else "statements"]
        for placeholder, qualified in option.get("names", {}).items():
            spelled = name_for(module, qualified, top=top_level(self.ctx))
            if spelled is None:
                return []
            names[placeholder] = spelled[0]
            if spelled[1] and spelled[1] not in imports:
                imports.append(spelled[1])
        statements = statements.format(**names)
        if cublas is not None:
            statements = cublas["statements"] + "\n" + statements
            imports = [*cublas["imports"], *(i for i in imports if i not in cublas["imports"])]
        return insert_after_imports(module, statements, imports, top_level(self.ctx))

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        view = program_view(project, rules)
        if not deferred or not view.is_gpu_program():
            return []
        anchors = EntryAnchors.sort(deferred)
        findings: List[Finding] = []
        entries = dict(anchors.candidates)
        for path in view.closures:
            # a console script's module looks like a library in pass 1, which leaves it no
            # candidates (and so no fix): judged all the same, reported at its GPU selection
            if path not in entries and view.is_console_script(path):
                entries[path] = []
        for path, items in sorted(entries.items()):
            if path not in view.closures:
                continue  # not an entry point after all
            if project.same_program_as(path) in view.closures:
                continue  # ``python -m pkg`` starts the console script's program: reported there
            if not view.entry_uses_gpu(path) or not view.entry_matters(path):
                continue  # spec: per program, for GPU programs that train or evaluate
            reason, where = gpu_reason(view, path, anchors)
            findings.extend(cls._missing_switch(view, path, [i for i in items if i.code == "ND205"], rules, reason, anchors, where))
            cublas_at = where or import_position(view, path, anchors, CUBLAS_FRAMEWORK)
            findings.extend(cls._missing_cublas(view, path, [i for i in items if i.code == "ND209"], rules, cublas_at))
        return findings

    @staticmethod
    def _missing_switch(
        view: ProgramView, path: str, items: List[Deferred], rules: RuleSet, reason: str, anchors: EntryAnchors,
        where: Optional[Deferred],
    ) -> List[Finding]:
        if not items and where is None:
            return []
        frameworks = view.data["frameworks"]
        used = view.entry_frameworks(path) - view.io_only_frameworks(path) - view.gpus_hidden_from(path)
        missing = [
            fw for fw in frameworks  # data order: torch, tensorflow, jax
            if fw in used and not view.entry_switch_on(path, frameworks[fw]["switch"])
        ]
        if not missing:
            return []
        first = missing[0]
        version = view.target(first, path)
        raising = raising_ops(view, path, first, rules)
        cublas = first == CUBLAS_FRAMEWORK and needs_cublas(view, path, rules)
        offered = [(i, SwitchCandidate.from_json(i.payload)) for i in items]
        candidates = [
            i for i, c in offered
            if c.framework == first and c.cublas == cublas and c.warn_only == bool(raising)
        ] or [i for i, c in offered if c.framework == first and not c.warn_only]
        chosen = next(
            (i for i in candidates if version is None or in_range(version, SwitchCandidate.from_json(i.payload).versions)),
            candidates[0] if candidates else items[0] if items else None,
        )
        switches = " and ".join(switch_text(view, path, fw) for fw in missing)
        data = rules["ND205"].data
        raising_text = ""
        fix = chosen.fix if chosen is not None else None
        if raising:
            names, versions = _ops_text(raising)
            values = {"ops": names, "have": "have" if len(raising) > 1 else "has", "versions": versions}
            raising_text = data.get("raising", {}).get(first, "").format(**values)
            title = data.get("raising_fix_title", {}).get(first)
            if fix is not None and title:
                safe = first == CUBLAS_FRAMEWORK  # only PyTorch has a form that warns instead
                fix = Fix(title.format(**values), fix.applicability if safe else UNSAFE, fix.edits)
        elif cublas and fix is not None and "cublas_fix_title" in data:
            fix = Fix(data["cublas_fix_title"].format(versions=_range_text(view.allowed("torch", path), rules)), fix.applicability, fix.edits)
        ops = implicit_ops(view, path, anchors, rules, frozenset(missing))
        # an op that raises only with inputs the code does not show (a 4-D ``NLLLoss``) makes
        # the fix warn, but is no reason to report a program the switch changes nothing in
        shown = raising_ops(view, path, first, rules, shown_only=True) if raising else []
        if not ops and not shown and switch_changes_nothing(view, path, rules, missing):
            return []
        if not ops and training_changes_nothing(view, path, rules, missing):
            return []
        if first == CUBLAS_FRAMEWORK and cudnn_covers(view, path):
            # cuDNN determinism already makes the convolutions deterministic: name only
            # what it leaves, and leave alone a program it covers entirely
            covered = frozenset(data.get("cudnn_covers", ()))
            ops = [(api, op) for api, op in ops if api not in covered]
            if not ops and not shown and not switch_ops(view, path, rules, first, covered):
                return []
        position = where or import_position(view, path, anchors, first) or chosen
        if position is None:
            return []
        message = rules["ND205"].format_message(
            switches=switches, reason=reason, examples=ops_text(view, ops), raising=raising_text,
        )
        related = tuple(Related(op.path, op.line, op.col, f"`{api}` runs here") for api, op in ops[:3])
        return [Finding(path, position.line, position.col, "ND205", message, position.end_line, position.end_col, fix, related=related)]

    @staticmethod
    def _missing_cublas(view: ProgramView, path: str, items: List[Deferred], rules: RuleSet, where: Optional[Deferred]) -> List[Finding]:
        if not items:
            return []
        data = rules["ND209"].data
        version = view.target("torch", path)
        if version is None or not in_range(version, data["needed_for"]):
            return []
        if "torch" not in view.entry_frameworks(path):
            return []
        # each entry point is its own process: the variable must be set in its program
        if not view.entry_switch_definitely_on(path, "torch") or view.entry_switch_on(path, "cublas"):
            return []
        item = items[0]
        position = where or item
        message = rules["ND209"].format_message(version=format_version(version))
        return [Finding(path, position.line, position.col, "ND209", message, position.end_line, position.end_col, item.fix)]


CUBLAS_FRAMEWORK = "torch"  # the framework whose switch needs ``CUBLAS_WORKSPACE_CONFIG`` (ND209)
RAISING_RULES = {"torch": "ND203", "tensorflow": "ND204"}  # op tables with ``raises`` entries


def raising_ops(
    view: ProgramView, entry: str, framework: str, rules: RuleSet, shown_only: bool = False,
) -> List[Tuple[str, List[Version]]]:
    """The ops the program of ``entry`` runs that have no deterministic implementation (the
    switch makes them raise) in some version of ``framework`` the project allows, each with
    those versions; backward-only ops only when the program differentiates.  With
    ``shown_only``, not those whose condition the code cannot show (``report = "none"``, a
    4-D ``NLLLoss``): a reason for the fix to warn, not one to report a program."""
    code = RAISING_RULES.get(framework)
    if code is None or code not in rules:
        return []
    table = op_table(rules[code].data)
    allowed = view.allowed(framework, entry)
    program = view.closures.get(entry, frozenset({entry}))
    differentiates = may_differentiate(view, entry)
    found: Dict[str, List[Version]] = {}
    for path in sorted(program):
        ops = view.records[path].facts.get(KernelOps)
        for op_id in ops.by_code.get(code, ()) if ops is not None else ():
            op = table.by_id.get(op_id)
            if op is None or op.get("device") == "mps" or (op.get("phase") == "backward" and not differentiates):
                continue
            if shown_only and op.get("report") == "none":
                continue
            versions = [v for v in allowed if (status_for(op, v) or {}).get("kind") == "raises"]
            if versions:
                # ``report = "none"``: it raises only with inputs the code does not show (NLLLoss on
                # 4-D inputs): still a reason to warn instead of raising
                label = f"`{op['api']}`" + (" (backward)" if op.get("phase") == "backward" else "") + (
                    " (with some inputs)" if op.get("report") == "none" else ""
                )
                found.setdefault(label, versions)
    return sorted(found.items())


def switch_ops(
    view: ProgramView, entry: str, rules: RuleSet, framework: str, covered: FrozenSet[str] = frozenset(),
    forward_only: bool = False,
) -> List[str]:
    """The ops of ``framework``'s table (implicit or explicit: ``index_add_``, ``gather``)
    the modules of the program of ``entry`` call that the switch changes in its target
    version, but those ``covered`` (by cuDNN determinism) and those whose condition the code
    cannot show (``report = "none"``); with ``forward_only``, those whose forward pass it
    changes."""
    check = OP_CHECKS_BY_FRAMEWORK.get(framework)
    if check is None or check.code not in rules:
        return []
    table = op_table(rules[check.code].data)
    version = view.target(framework, entry)
    found = []
    for path in sorted(view.closures.get(entry, frozenset({entry}))):
        kernel_ops = view.records[path].facts.get(KernelOps)
        for op_id in kernel_ops.by_code.get(check.code, ()) if kernel_ops is not None else ():
            op = table.by_id.get(op_id)
            if op is None or op.get("device") in ("mps", "cpu") or op["api"] in covered:
                continue
            if op.get("report") == "none":
                continue  # its condition is not shown (a 4-D ``NLLLoss``, memory read before written)
            if forward_only and op.get("phase") == "backward":
                op = implied_autotuning(table, op_id)
                if op is None:
                    continue
            if (status_for(op, version) or {}).get("kind") in ("switch", "raises"):
                found.append(op["api"])
    return found


def implied_autotuning(table: OpTable, op_id: str) -> Optional[Mapping[str, Any]]:
    """The entry whose ``implied_by`` names ``op_id``: what the op's forward pass runs
    that the switch changes (TensorFlow's cuDNN autotuning of a convolution)."""
    return next((entry for entry in table.by_id.values() if op_id in entry.get("implied_by", ())), None)


def may_differentiate(view: ProgramView, entry: str) -> bool:
    """Whether the program of ``entry`` may run a backward pass: code it runs trains or
    takes a gradient (``torch.autograd.grad``), or a class it reaches has a training hook that a trainer outside the project may call (a
    Lightning module's ``training_step``; not one the project's own trainer calls, which
    trains only where the program runs that trainer)."""
    return view.runs_backward(entry) or view.hooks_differentiate(entry)


def switch_changes_nothing(view: ProgramView, entry: str, rules: RuleSet, frameworks: Iterable[str]) -> bool:
    """docs/contract.md "Programs that matter": the switch would change nothing the
    program of ``entry`` runs.  It never differentiates (no backward pass, no optimizer
    step, no trainer or ``learn``), loads no model whose ops the code does not show (a
    model file, ``torch.hub.load``, ``from_pretrained``: ``loads_by_name``), does
    not turn cuDNN autotuning on, and runs no op whose forward pass the switch changes
    (op tables: ``phase``, and an autotuning entry a forward convolution implies) in code it
    runs: an op of an imported module's function the program never calls does not count."""
    frameworks = list(frameworks)
    if may_differentiate(view, entry) or view.reached_summary(entry).loads_model or view.entry_switch_on(entry, "cudnn_benchmark"):
        return False
    data = rules["ND205"].data.get("complete_models")
    if data and data["framework"] in frameworks and loads_by_name(view, entry, data):
        return False  # ``from_pretrained``: a model load whose code may come from elsewhere, as ``torch.hub.load``
    return not any(reached_switch_ops(view, entry, rules, framework, forward_only=True) for framework in frameworks)


def training_changes_nothing(view: ProgramView, entry: str, rules: RuleSet, frameworks: Iterable[str]) -> bool:
    """docs/contract.md "Programs that matter", for a program that trains (or takes a
    gradient, ``torch.autograd.grad``, and so runs a backward pass): the switch
    changes nothing it runs when the analysis sees its models completely (their code is
    the project's, or ``torch.nn`` layers rule data knows are deterministic forward and
    backward on CUDA: ``complete_models``), and the code it runs calls no op the switch
    changes or makes raise (op tables; not the entries whose condition the code cannot
    show, ``report = "none"``), loads no model and does not turn cuDNN autotuning on."""
    data = rules["ND205"].data.get("complete_models")
    missing = set(frameworks)
    if not data or missing != {data["framework"]}:
        return False
    if not view.runs_backward(entry) or view.hooks_differentiate(entry):
        # it runs no backward pass (switch_changes_nothing decides), or a class it reaches
        # has a hook a trainer outside the project may call, whose ops are not counted as run
        return False
    if view.reached_summary(entry).loads_model or view.entry_switch_on(entry, "cudnn_benchmark"):
        return False
    if reached_switch_ops(view, entry, rules, data["framework"]):
        return False
    return models_seen_completely(view, entry, data)


def reached_switch_ops(
    view: ProgramView, entry: str, rules: RuleSet, framework: str, forward_only: bool = False,
) -> List[str]:
    """The ops of ``framework``'s table that code the program of ``entry`` runs (the
    units it reaches) calls, that the switch changes or makes raise in a version the
    project allows, but those whose condition the code cannot show (``report = "none"``:
    a 4-D ``NLLLoss``, memory read before it is written)."""
    check = OP_CHECKS_BY_FRAMEWORK.get(framework)
    if check is None or check.code not in rules:
        return []
    table = op_table(rules[check.code].data)
    allowed: List[Optional[Version]] = [*view.allowed(framework, entry)] or [None]
    by_module: Dict[str, Set[str]] = {}
    for path, unit in view.reached_units(entry):
        by_module.setdefault(path, set()).add(unit)
    found: List[str] = []
    for path, units in sorted(by_module.items()):
        record = view.records.get(path)
        kernel_ops = record.facts.get(KernelOps) if record is not None else None
        for op_id in kernel_ops.ops_in(check.code, units, view.names_set(entry), view.names_applied(entry)) if kernel_ops is not None else ():
            op = table.by_id.get(op_id)
            if op is None or op.get("device") in ("mps", "cpu"):
                continue
            if forward_only and op.get("phase") == "backward":
                op = implied_autotuning(table, op_id)
                if op is None:
                    continue
            statuses = [status_for(op, version) for version in allowed]
            if any(
                status is not None and status.get("kind") in ("switch", "raises")
                and status.get("report", op.get("report")) != "none"
                for status in statuses
            ):
                found.append(op["api"])
    return found


def models_seen_completely(view: ProgramView, entry: str, data: Mapping[str, Any]) -> bool:
    """Whether every model the program of ``entry`` builds is code the analysis sees: the
    code it runs names no ``namespace`` layer (``torch.nn.Conv2d``) but the deterministic
    ones and those that are no layer (containers, ``torch.nn.init``), nothing of a
    library whose models' code is outside the project (``torchvision.models``, ``timm``,
    ``transformers``), calls no ``from_pretrained`` on a value, and calls nothing its
    module does not bind (``Net()`` of a script that never defines ``Net``)."""
    namespace = str(data["namespace"])
    deterministic = frozenset(data.get("deterministic", ()))
    no_layer = tuple(data.get("no_layer", ()))
    if runs_unseen_code(view, entry, data):
        return False
    for key in view.reached_units(entry):
        unit = view.reach.unit(key)
        for ref in unit.refs if unit is not None else ():
            if ref.startswith(namespace) and ref not in deterministic and not _named_in(ref, no_layer):
                return False
    return True


def runs_unseen_code(view: ProgramView, entry: str, data: Mapping[str, Any]) -> bool:
    """Whether the code the program of ``entry`` runs builds a model whose code the analysis
    does not see: it names a library whose models' code is outside the project
    (``outside_code``: ``torchvision.models``, ``transformers``), loads one by name
    (``loads_by_name``) or calls something its module never binds (``Net()``)."""
    outside = tuple(data.get("outside_code", ()))
    if loads_by_name(view, entry, data):
        return True
    for key in view.reached_units(entry):
        unit = view.reach.unit(key)
        if unit is None:
            continue
        if unit.calls_unknown or any(_named_in(ref, outside) and not _in_project(view, ref) for ref in unit.refs):
            return True
    return False


def loads_by_name(view: ProgramView, entry: str, data: Mapping[str, Any]) -> bool:
    """Whether code the program of ``entry`` runs loads a model by name (``outside_methods``:
    ``from_pretrained``), whose weights and maybe code come from elsewhere."""
    methods = frozenset(data.get("outside_methods", ()))
    for key in view.reached_units(entry):
        unit = view.reach.unit(key)
        if unit is not None and (methods.intersection(unit.called) or any(ref.rpartition(".")[2] in methods for ref in unit.refs)):
            return True
    return False


def _named_in(name: str, names: Iterable[str]) -> bool:
    """``name`` is one of ``names``, or under one that ends in a dot (a namespace)."""
    return any(name == n or (n.endswith(".") and name.startswith(n)) for n in names)


def _in_project(view: ProgramView, name: str) -> bool:
    """A qualified name of a module of the project (or a definition in one)."""
    parts = name.split(".")
    return any(view.project.module(".".join(parts[:end])) is not None for end in range(len(parts), 0, -1))


def needs_cublas(view: ProgramView, entry: str, rules: RuleSet) -> bool:
    """Whether a torch the project allows needs ``CUBLAS_WORKSPACE_CONFIG`` with the switch
    (before 2.10) and the program does not set it already."""
    needed_for = rules["ND209"].data["needed_for"]
    return not view.entry_switch_on(entry, "cublas") and any(in_range(v, needed_for) for v in view.allowed("torch", entry))


def _ops_text(raising: List[Tuple[str, List[Version]]], limit: int = 3) -> Tuple[str, str]:
    """``"`a` (backward) and `b`"`` and the versions they raise on (``"1.8.1-2.15.0"``)."""
    names = [name for name, _ in raising]
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    if len(names) == 2:
        shown = " and ".join(names)
    versions = sorted({v for _, vs in raising for v in vs})
    return shown, _span(versions)


def _span(versions: List[Version]) -> str:
    if not versions:
        return ""
    low, high = format_version(versions[0]), format_version(versions[-1])
    return low if low == high else f"{low} to {high}"


def _range_text(allowed: List[Version], rules: RuleSet) -> str:
    """The allowed torch versions that need ``CUBLAS_WORKSPACE_CONFIG``."""
    needed_for = rules["ND209"].data["needed_for"]
    return _span(sorted(v for v in allowed if in_range(v, needed_for)))


def gpu_reason(view: ProgramView, path: str, anchors: EntryAnchors) -> Tuple[str, Optional[Deferred]]:
    """What makes the program of ``path`` a GPU program, for the message (``.cuda()`` in
    `train.py` at line 12), and where the entry point itself selects the GPU (the
    finding's position; None when it does not): code the program runs, its own module
    first, then the other modules, by path; TensorFlow / JAX when nothing selects a GPU."""
    key = view.gpu_selection(path)
    if key is None:
        return "TensorFlow / JAX use the GPU by default", None
    # the first line of that module that selects the GPU in a unit the program runs
    holding = [
        (item, unit) for unit in sorted(k for k in view.reached_units(path) if k[0] == key[0])
        for item in anchors.selections.get(unit, ())
        if _anchor_holds(view, GpuSelectionAnchor.from_json(item.payload), path)
    ]
    anchor, key = min(holding, key=lambda pair: (pair[0].line, pair[0].col)) if holding else (None, key)
    how = view.unit_selects(key, path)
    line = f" at {view.project.line_words(key[0], anchor.line)}" if anchor is not None else ""
    reason = f"{how} in `{view.show(key[0])}`{line}"
    own = [
        item for (module, unit), found in anchors.selections.items()
        if module == path and (module, unit) in view.reached_units(path)
        for item in found if _anchor_holds(view, GpuSelectionAnchor.from_json(item.payload), path)
    ]
    return reason, min(own, key=lambda d: (d.line, d.col)) if own else None


def _anchor_holds(view: ProgramView, anchor: Optional[GpuSelectionAnchor], entry: str) -> bool:
    return anchor is not None and (anchor.when is None or view.holds(anchor.when, entry))


def import_position(view: ProgramView, entry: str, anchors: EntryAnchors, framework: str) -> Optional[Deferred]:
    """The entry point's first top-level import of ``framework``, else its first import of
    a project module whose program uses it (spec: the entry point's first import of the
    framework; a script that only calls its project's ``train()`` brings it in there)."""
    imports = sorted(anchors.imports.get(entry, ()), key=lambda d: (d.line, d.col))
    modules = view.data["frameworks"][framework]["modules"]
    for item in imports:
        names = item.payload["import_of"]
        if any(n == m or n.startswith(m + ".") for n in names for m in modules):
            return item
    for item in imports:
        for name in item.payload["import_of"]:
            record = view.project.module(name)
            if record is not None and record.path != entry and framework in view.frameworks(view.closure_of(record.path)):
                return item
    return None


def switch_text(view: ProgramView, entry: str, framework: str) -> str:
    """How the message names a framework's switch, for its target version (TensorFlow
    1.x has no ``enable_op_determinism``)."""
    spec = view.data["frameworks"][framework]
    version = view.target(framework, entry)
    for option in spec.get("switch_texts", ()):
        if version is None or in_range(version, option["versions"]):
            return str(option["text"])
    return str(spec["switch_text"])


def cudnn_covers(view: ProgramView, entry: str) -> bool:
    """cuDNN determinism is on (and autotuning not turned on): convolutions are
    deterministic without the global switch."""
    return view.entry_switch_on(entry, "cudnn_deterministic") and not view.entry_switch_on(entry, "cudnn_benchmark")


def implicit_ops(
    view: ProgramView, entry: str, anchors: EntryAnchors, rules: RuleSet, frameworks: FrozenSet[str],
) -> List[Tuple[str, Deferred]]:
    """``(api, where)`` for each op the program of ``entry`` runs (code it reaches, not
    functions it never calls) that the missing switches would make deterministic in its
    target versions: first place of each op, entry module first, then by path and line."""
    program = view.closures.get(entry, frozenset({entry}))
    reached = view.reached_units(entry)
    differentiates = may_differentiate(view, entry)
    out: List[Tuple[str, Deferred]] = []
    seen: Set[str] = set()
    for path in sorted(program, key=lambda p: (p != entry, p)):
        for item in sorted(anchors.implicit.get(path, ()), key=lambda d: (d.line, d.col)):
            anchor = ImplicitOp.from_json(item.payload)
            check = OP_CHECKS.get(anchor.op_code) if anchor is not None else None
            if anchor is None or check is None or check.framework not in frameworks:
                continue
            if (path, anchor.unit) not in reached:
                continue
            if anchor.gate and not view.names_set(entry).issuperset(anchor.gate):
                continue  # ``if self.active_dims is not None:`` with no code setting ``active_dims``
            if anchor.applied_as and not _applied(view, entry, anchor.applied_as):
                continue  # ``self.bag = nn.EmbeddingBag(...)`` that no code of the program calls
            table = op_table(rules[check.code].data)
            entry_data = table.by_id.get(anchor.op)
            if entry_data is not None and entry_data.get("phase") == "backward" and not differentiates:
                # only its forward pass runs: what the switch changes there, if anything
                entry_data = implied_autotuning(table, anchor.op)
            if entry_data is None or entry_data["api"] in seen:
                continue
            status = status_for(entry_data, view.target(check.framework, entry))
            if status and status.get("kind") == "switch" and status.get("report", entry_data.get("report")) == "program":
                seen.add(entry_data["api"])
                out.append((entry_data["api"], item))
    return out


def _applied(view: ProgramView, entry: str, name: str) -> bool:
    """Whether the code the program of ``entry`` runs may apply the attribute ``name``."""
    applied = view.names_applied(entry)
    return applied is None or name in applied


def ops_text(view: ProgramView, ops: List[Tuple[str, Deferred]], limit: int = 3) -> str:
    """``; it runs `torch.nn.EmbeddingBag` (train.py:6), ...`` for the message."""
    if not ops:
        return ""
    shown = ", ".join(f"`{api}` ({view.project.place(item.path, item.line)})" for api, item in ops[:limit])
    more = f" and {len(ops) - limit} more" if len(ops) > limit else ""
    return f"; it runs {shown}{more}"


OP_CHECKS = {check.code: check for check in kernel_ops.CHECKS}
OP_CHECKS_BY_FRAMEWORK = {check.framework: check for check in kernel_ops.CHECKS}


# ---------------------------------------------------------------- TensorFlow threads --
class TensorFlowThreads(Check):
    """ND206: TF1 sessions with multi-threaded op pools in a program that seeds, and
    ``tf.config.threading.set_*_parallelism_threads(n)`` with n != 1 while op
    determinism is off."""

    codes = ("ND206",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.trained_model_scopes: Dict[int, bool] = {}  # id of a function (or the module) -> it runs a restored model
        self.converter_scopes: Dict[int, bool] = {}  # id of a function (or the module) -> it converts a checkpoint

    def visit_Call(self, node: cst.Call) -> None:
        data = self.data("ND206")
        name = self.ctx.qualname(node.func)
        if name is None:
            return
        if name in data["config_calls"]:
            values = [literal_value(find_arg(node, arg, None), self.ctx.qualname) for arg in data["thread_args"]]
            if all(value_in(v, [1]) for v in values) or any(v is UNKNOWN for v in values):
                return
            if self._runs_trained_model() or self._converts_checkpoint():
                return
            self.ctx.defer(node, "ND206", **ThreadsCandidate(ThreadPool.SESSION, name, unit_of(self.ctx.ancestors)).to_json())
        elif name in data["session_calls"]:
            config = find_arg(node, "config", 2)
            if config is None and not self._no_float_work(node) and not self._runs_trained_model() and not self._converts_checkpoint():
                self.ctx.defer(node, "ND206", **ThreadsCandidate(ThreadPool.SESSION, name, unit_of(self.ctx.ancestors)).to_json())
        elif name in data["threading_calls"]:
            value = literal_value(find_arg(node, "num_threads", 0), self.ctx.qualname)
            if isinstance(value, int) and not isinstance(value, bool) and value != 1:
                self.ctx.defer(node, "ND206", **ThreadsCandidate(ThreadPool.THREADING, name).to_json())

    def _scope(self) -> cst.CSTNode:
        """The function around the node being walked, else the module."""
        return next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)), self.ctx.module)

    def _converts_checkpoint(self) -> bool:
        """The function that opens the session (or the module, at top level) reads a
        checkpoint's variables by name (``tf.train.load_variable``, ``list_variables``,
        ``NewCheckpointReader``: rule data ``checkpoint_reads``) and trains nothing (ND205's
        ``differentiation`` calls and methods): a converter, which casts, renames or merges
        the values it read and writes them out (saving is its job here, not a mark of
        training).  What it writes is the values it read: no step compounds the order of a
        CPU reduction."""
        scope = self._scope()
        cache = self.converter_scopes
        found = cache.get(id(scope))
        if found is None:
            reads = frozenset(self.data("ND206")["checkpoint_reads"])
            training = self.data("ND205")["differentiation"]
            found = False
            for call in calls_in(scope, into_definitions=False):
                name = self.ctx.qualname(call.func)
                if name is None:
                    if isinstance(call.func, cst.Attribute) and call.func.attr.value in training["methods"]:
                        found = False
                        break
                elif name in training["calls"] or name.startswith(tuple(training["prefixes"])):
                    found = False
                    break
                elif name in reads:
                    found = True
            cache[id(scope)] = found
        return found

    def _runs_trained_model(self) -> bool:
        """The function that opens the session (or the module, at top level) restores a
        trained model into it (``saver.restore(sess, ckpt)``, ``tf.train.init_from_checkpoint``,
        slim's ``assign_from_checkpoint_fn``) and neither trains (an optimizer, ``minimize``,
        ``tf.gradients``) nor saves a checkpoint: it runs the model forward (sampling,
        decoding, scoring, encoding), where the order of CPU reductions does not compound
        as it does over training steps."""
        data = self.data("ND206")["trained_model"]
        scope: cst.CSTNode = next(
            (a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)), self.ctx.module,
        )
        cache = self.trained_model_scopes
        found = cache.get(id(scope))
        if found is not None:
            return found
        training = self.data("ND205")["differentiation"]
        restores = False
        for call in calls_in(scope, into_definitions=False):
            name = self.ctx.qualname(call.func)
            method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
            if name is not None and (name in training["calls"] or name.startswith(tuple(training["prefixes"]))):
                restores = False
                break
            if name is None and method is not None and (method in data["forbidden_methods"] or method in training["methods"]):
                restores = False
                break
            if (name is not None and name in data["restore_calls"]) or (name is None and method in data["restore_methods"]):
                restores = True
        cache[id(scope)] = restores
        return restores

    def _no_float_work(self, node: cst.Call) -> bool:
        """``with tf.Session() as sess:`` whose body only runs initialisers and saves or
        restores (a checkpoint converter): every use of ``sess`` is one the data lists."""
        item = self.ctx.parent(node)
        block = self.ctx.parent(item) if isinstance(item, cst.WithItem) else None
        if not (isinstance(item, cst.WithItem) and isinstance(block, cst.With) and item.asname is not None):
            return False
        if not isinstance(item.asname.name, cst.Name):
            return False
        session = item.asname.name.value
        allowed = self.data("ND206")["no_float_work"]
        uses = 0
        for call in calls_in(block.body):
            func = call.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == session:
                uses += 1
                runs = find_arg(call, "fetches", 0)
                if func.attr.value != "run" or runs is None or not self._copies_or_initialises(runs, block, allowed):
                    return False
            elif any(isinstance(a.value, cst.Name) and a.value.value == session for a in call.args):
                uses += 1
                if not (isinstance(func, cst.Attribute) and func.attr.value in allowed["methods"]):
                    return False
        return uses > 0

    def _copies_or_initialises(self, fetch: cst.BaseExpression, block: cst.With, allowed: Mapping[str, Any]) -> bool:
        """A fetch that only initialises or copies values in: an initialiser call, or a name
        the enclosing function binds to one (``init_op = tf.global_variables_initializer()``)
        or to an assignment of given values (``assign_op`` of ``for p, assign_op in zip(ps,
        assign_ops)`` with ``assign_ops = [tf.assign(v, p) for ...]``)."""
        if isinstance(fetch, cst.Call):
            return self.ctx.qualname(fetch.func) in allowed["runs"]
        if not isinstance(fetch, cst.Name):
            return False
        scope = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)), self.ctx.module)
        return self._bound_to_copies(fetch.value, scope, allowed, 0)

    def _bound_to_copies(self, name: str, scope: cst.CSTNode, allowed: Mapping[str, Any], depth: int) -> bool:
        """Every value ``scope`` binds ``name`` to (or takes it from, as a loop's element)
        is an initialiser or an assignment of given values (rule data ``copies``)."""
        values: List[cst.BaseExpression] = []  # what it is bound to, or the container it is an element of
        for assign in nodes_in(scope, cst.Assign, into_definitions=False):
            if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == name:
                values.append(assign.value)
        for loop in nodes_in(scope, cst.For, into_definitions=False):
            if isinstance(loop.target, cst.Name):
                if loop.target.value == name:
                    values.append(loop.iter)
                continue
            if not (isinstance(loop.target, (cst.Tuple, cst.List)) and isinstance(loop.iter, cst.Call)
                    and self.ctx.qualname(loop.iter.func) in ("builtins.zip", "six.moves.zip")):
                continue
            for index, element in enumerate(loop.target.elements):
                if isinstance(element.value, cst.Name) and element.value.value == name and index < len(loop.iter.args):
                    values.append(loop.iter.args[index].value)
        if not values or depth > 3:
            return False
        copies = {*allowed["runs"], *allowed.get("copies", ())}
        for value in values:
            if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
                value = value.elt
            if isinstance(value, cst.Call) and self.ctx.qualname(value.func) in copies:
                continue
            if isinstance(value, cst.Name) and self._bound_to_copies(value.value, scope, allowed, depth + 1):
                continue
            return False
        return True

    @staticmethod
    def _seeded(view: ProgramView, project: Any, path: str, unit: str) -> bool:
        """Whether a program that runs the session's code (``unit`` of ``path``) seeds
        (wants determinism): a program of an entry point that is not test code, or, for a
        module no such entry point reaches, the module itself.  A session in code only
        test programs are seen to run (an ``in_session`` decorator's wrapper that a
        module's self-tests use) runs in no program that matters.  A library module that does not differentiate opens its sessions
        for work no seed is about (a vocabulary lookup, a checkpoint conversion, reading
        ground truth): the seeds of the programs that import it do not count."""
        reaching = view.entries_reaching(path)
        entries = [entry for entry in reaching if not project.is_test_code(entry)]
        if not entries:
            return view.seeds(frozenset({path}))
        running = [entry for entry in reaching if (path, unit) in view.reached_units(entry)]
        if running:  # else no program is seen to run it: the programs that import it judge
            entries = [entry for entry in running if not project.is_test_code(entry)]
            if not entries:
                return False
        if path not in entries and not view.differentiates(frozenset({path})):
            return False
        return any(view.runs_a_seed(entry) for entry in entries)

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        view = program_view(project, rules)
        rule = rules["ND206"]
        findings = []
        for item in deferred:
            scopes = view.scopes_of_module(item.path)
            candidate = ThreadsCandidate.from_json(item.payload)
            if candidate.kind is ThreadPool.SESSION:
                if project.is_test_code(item.path) or not cls._seeded(view, project, item.path, candidate.unit):
                    continue
                advice = rule.data["advice"]["session"]
            else:
                if any(view.switch_on(s, "tensorflow") for s in scopes):
                    continue
                advice = rule.data["advice"]["threading"]
            message = rule.format_message(api=candidate.api, advice=advice)
            findings.append(Finding(item.path, item.line, item.col, "ND206", message, item.end_line, item.end_col))
        return findings

