"""GPU programs and determinism switches, as project facts.

A *GPU program* (docs/contract.md) is a project that selects a GPU somewhere (``.cuda()``,
``.to("cuda")``, ``torch.device("cuda")``, ``device="cuda"``, a Lightning ``Trainer`` not
told to use the CPU, the Hugging Face ``Trainer`` / ``accelerate``, CuPy / Numba CUDA /
Triton); TensorFlow and JAX programs use the GPU by default unless the config says
``devices = ["cpu"]``.  The determinism switches (``use_deterministic_algorithms``,
``cudnn.deterministic``, TF op determinism and its environment variables, ``XLA_FLAGS``,
``CUBLAS_WORKSPACE_CONFIG``, and helpers that set them) are recorded where they are set,
so that an op in ``model.py`` is judged by the switches ``train.py`` turns on.

Pass 1 (``GpuFacts``) records, per module, its ``GpuModuleFacts``.  Pass 2
(``ProgramView``) joins them along the project's imports: each entry point's *program* is
the modules it imports, transitively.  What counts as a switch, a GPU selection or a
training step is rule data (``[ND205.data]`` in ``rules/kernels.toml``), not code.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeBindings
from nondet_lint.analysis.defaultrun import DefaultRun
from nondet_lint.analysis.entrypoints import LAUNCHERS, EntryFacts, is_entry_point, is_main_guard
from nondet_lint.analysis.fieldsettings import LocalValues, names_assigned, names_given
from nondet_lint.analysis.project import Project
from nondet_lint.analysis.seeds import seed_helpers
from nondet_lint.analysis.switches import MAYBE, ON, SWITCH_RULE, SwitchState, regex, value_in
from nondet_lint.families.kernels.modes import (
    EstimatorModes, ProgramValues, passed_by_assignment, passed_by_call, training_gate, training_runs,
)
from nondet_lint.families.kernels.reach import (
    LOCAL, MAIN_UNIT, MODULE_UNIT, READ, ConditionalGpu, Implicit, MethodCalls, Reachability, UnitBuilder, UnitFacts, UnitKey,
)
from nondet_lint.versions import Version, allowed_versions, canonical_package, in_range, target_version
from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, literal_value, token_parts
from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.facts import ModuleFact
from nondet_lint.names import dotted_name, resolve_relative
from nondet_lint.ruledata import RuleSet
from nondet_lint.walk import calls_in, nodes_in

DATA_RULE = SWITCH_RULE  # the rule whose data holds the framework, switch and GPU tables


@dataclass(frozen=True)
class GpuModuleFacts(ModuleFact):
    """What pass 1 records about one module for the kernel rules.  The module-wide fields
    join its units; programs use the units."""

    key = "gpu"

    frameworks: Tuple[str, ...] = ()  # frameworks the module imports (rule data's names)
    selects_gpu: Optional[str] = None  # how it selects a GPU, shown in messages
    switches: Mapping[str, str] = field(default_factory=dict)  # switch -> ON or MAYBE
    differentiates: bool = False  # training code: a backward pass, an optimizer step
    seeds: bool = False  # it calls a seed function (ND206)
    imports: Tuple[str, ...] = ()  # the modules it imports, run by default (program closures)
    evaluates: bool = False  # it evaluates or samples from a model (``model.eval()``, ``no_grad``)
    saves_model: bool = False  # it writes a model out (a converter's mark)
    units: Mapping[str, UnitFacts] = field(default_factory=dict)  # module code, top-level definitions, methods
    exports: Mapping[str, str] = field(default_factory=dict)  # imported name -> what it names
    stars: Tuple[str, ...] = ()  # modules star-imported
    # module-level aliases of a registry object's method (``register_model =
    # Registries.models.register``) -> the registry object (``Registries.models``)
    registries: Mapping[str, str] = field(default_factory=dict)
    # project modules and names it imports under ``try: ... except ImportError``: optional
    # code the program is written to run without (a compiled extension, an internal add-on)
    optional: Tuple[str, ...] = ()
    # a package ``__init__``'s: the names it binds (``(build_, REGISTRY) = setup_registry()``)
    defined: Tuple[str, ...] = ()

    def to_json(self) -> Dict[str, Any]:
        return {"registries": dict(self.registries), "optional": list(self.optional), "defined": list(self.defined), **{
            "frameworks": list(self.frameworks), "selects_gpu": self.selects_gpu, "switches": dict(self.switches),
            "differentiates": self.differentiates, "seeds": self.seeds, "imports": list(self.imports),
            "evaluates": self.evaluates, "saves_model": self.saves_model,
            "units": {name: unit.to_json() for name, unit in self.units.items()},
            "exports": dict(self.exports), "stars": list(self.stars),
        }}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GpuModuleFacts":
        return cls(
            tuple(data.get("frameworks", ())), data.get("selects_gpu"), dict(data.get("switches", {})),
            bool(data.get("differentiates")), bool(data.get("seeds")), tuple(data.get("imports", ())),
            bool(data.get("evaluates")), bool(data.get("saves_model")),
            {name: UnitFacts.from_json(unit) for name, unit in data.get("units", {}).items()},
            dict(data.get("exports", {})), tuple(data.get("stars", ())), dict(data.get("registries", {})),
            tuple(data.get("optional", ())), tuple(data.get("defined", ())),
        )


@dataclass(frozen=True)
class GpuSelectionAnchor:
    """Where a unit of a module first selects the GPU (an ND205 / ND209 anchor: pass 2
    names its line in the message and reports there)."""

    how: str
    unit: str = MODULE_UNIT
    when: Optional[ConditionalGpu] = None  # it selects the GPU only for these versions

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"gpu_selection": self.how, "unit": self.unit}
        if self.when is not None:
            out["gpu_if"] = self.when.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Optional["GpuSelectionAnchor"]:
        if "gpu_selection" not in data:
            return None
        return cls(data["gpu_selection"], data.get("unit", MODULE_UNIT), ConditionalGpu.from_json(data.get("gpu_if")))


def unit_of(ancestors: Sequence[cst.CSTNode]) -> str:
    """The unit code with these ancestors belongs to, as ``GpuUse`` names units while it
    walks: a top-level function or class, a method of a top-level class
    (``Class.method``), the main block, else the module's own code.  (``type() is``: the
    op checks ask this for many calls, and isinstance() against libcst's ABCs costs much
    when it fails; none of these classes has subclasses.)"""
    outer: Optional[Union[cst.FunctionDef, cst.ClassDef]] = None
    for node in ancestors:
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            if outer is None:
                outer = node  # type: ignore[assignment]
            else:
                if type(outer) is cst.ClassDef and kind is cst.FunctionDef:
                    return f"{outer.name.value}.{node.name.value}"  # type: ignore[attr-defined]
                break
    if outer is not None:
        return outer.name.value
    if any(type(node) is cst.If and is_main_guard(node.test) for node in ancestors):
        return MAIN_UNIT
    return MODULE_UNIT


@dataclass(frozen=True)
class Selected:
    """How an expression selects the GPU, and what that depends on."""

    how: str
    when: Optional[ConditionalGpu] = None  # else: only for these versions
    options: Tuple[str, ...] = ()  # GPU when one of these options defaults to a GPU value
    unless_option: Optional[str] = None  # GPU unless this option defaults to a true value
    declared_only: bool = False  # an option declared elsewhere does not select (its default is unknown)
    given_option: Optional[str] = None  # GPU only where this option is declared here with a default
    places_value: bool = False  # it puts a value on the GPU (``.cuda()``, a device string), not the process
    framework: Optional[str] = None  # the framework the selecting call computes with (``transformers.Trainer``: torch)


def is_device_literal(node: cst.CSTNode, pattern: str, prefix: Optional[str] = None) -> bool:
    """A string naming a device ``pattern`` matches; with ``prefix``, also an f-string
    whose text before its first value matches it (``f"cuda:{rank}"``)."""
    if type(node) is cst.SimpleString and "\\" not in node.value:
        # no escapes: the value is the raw text between the quotes (evaluating every
        # string literal of a module cost more than the rest of this check)
        string_prefix, raw = token_parts(node.value)
        return "b" not in string_prefix and bool(regex(pattern).match(raw))
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return isinstance(value, str) and bool(regex(pattern).match(value))
    if isinstance(node, cst.FormattedString) and node.parts:
        first = node.parts[0]
        if not isinstance(first, cst.FormattedStringText):
            return False
        valued = prefix is not None and len(node.parts) > 1 and bool(regex(prefix).match(first.value))
        return valued or bool(regex(pattern).match(first.value))
    return False


# where a device string selects a device (not where it is compared or listed as a choice)
_SELECTING_PARENTS = (cst.Arg, cst.Assign, cst.AnnAssign, cst.IfExp, cst.Param, cst.DictElement, cst.Return)


class GpuSelection:
    """Finds the expressions that select a GPU; shared by the facts and the program checks."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.data = ctx.rules[DATA_RULE].data["gpu"]
        self.by_name = {name: entry for entry in self.data.get("gpu_by_default", []) for name in entry["names"]}
        self.with_arg = {name: entry for entry in self.data.get("calls_with_arg", []) for name in entry["names"]}
        self.follows = {name: entry for entry in self.data.get("follows_given", []) for name in entry["names"]}

    def by_import(self) -> bool:
        """Importing a GPU kernel library (CuPy, Numba CUDA, Triton) makes a GPU program."""
        libraries: Sequence[str] = self.data.get("kernel_imports", [])
        return self.ctx.imports.mentions(*libraries)

    def call(self, node: cst.Call, name: Optional[str]) -> Optional[Selected]:
        """How ``node`` selects the GPU, or None (``name``: what it calls, which the caller
        has resolved already)."""
        func = node.func
        if name is None and isinstance(func, cst.Attribute):
            # ``model.cuda()``: no other library has such a method (its receiver is a
            # torch object even in a file that does not import torch itself)
            if func.attr.value in self.data.get("methods", []):
                return Selected(f"`.{func.attr.value}()`", places_value=True)
        keyword = self._device_option(node)
        if keyword is not None:
            return keyword
        if name is None:
            return None
        follows = self.follows.get(name)
        if follows is not None:
            given = find_arg(node, follows["arg"], follows.get("pos"))
            if given is not None and _set_when_given(given, node, self.ctx.parent):
                # ``if self.device is not None: torch.cuda.set_device(self.device)``: the
                # device someone chose, if anyone did; an option's default decides
                option = option_name(given)
                return Selected(f"`{name}`", given_option=option) if option else None
        if name in self.data.get("calls", []):
            return Selected(f"`{name}`")
        needs = self.with_arg.get(name)
        if needs is not None:
            given = find_arg(node, needs["arg"], needs.get("pos"))
            if given is None or _follows_placement(given, needs.get("unless_from", ())):
                return None
            return Selected(f"`{name}`")
        entry = self.by_name.get(name)
        return self._by_default(node, name, entry) if entry is not None else None

    def _device_option(self, node: cst.Call) -> Optional[Selected]:
        """``device=args.device`` whose option defaults to ``"auto"`` or ``"cuda"``."""
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in self.data.get("auto_device_keywords", ()):
                option = option_name(arg.value)
                if option is not None:
                    return Selected(f"`--{option}`", options=(option,), declared_only=True)
        return None

    def _by_default(self, node: cst.Call, name: str, entry: Mapping[str, Any]) -> Optional[Selected]:
        """A call that takes the GPU unless told otherwise (Lightning, Hugging Face,
        ``accelerate``, Stable-Baselines3); before some version only when asked.  Its
        entry's ``framework`` is what it computes with: a script that imports only
        ``transformers`` and runs its ``Trainer`` is a PyTorch program."""
        selected = self._default_selection(node, name, entry)
        framework = entry.get("framework")
        return replace(selected, framework=framework) if selected is not None and framework else selected

    def _default_selection(self, node: cst.Call, name: str, entry: Mapping[str, Any]) -> Optional[Selected]:
        how = f"`{name}`"
        unless = entry.get("unless")
        if unless:
            given = find_arg(node, unless["arg"], unless.get("pos"))
            value = literal_value(given, self.ctx.qualname)
            option = option_name(given)
            if option is not None:
                return Selected(how, unless_option=option) if unless.get("option_means_cpu") else Selected(how)
            if value is not ABSENT and value is not UNKNOWN:
                if value_in(value, unless["in"]):
                    return None
                if isinstance(value, str) and value.lower() in self.data.get("gpu_words", ()):
                    return Selected(how)
                # another value (Lightning 1.x's ``accelerator="ddp"`` names a strategy):
                # the GPU arguments decide
        options: List[str] = []
        for spec in entry.get("gpu_args", []):
            given = find_arg(node, spec["arg"], spec.get("pos"))
            option = option_name(given)
            if option is not None:
                options.append(option)
            elif given is not None:
                value = literal_value(given, self.ctx.qualname)
                if value is not UNKNOWN and gpu_value(value, self.data):
                    return Selected(how)
            elif spec.get("from_namespace") and find_arg(node, None, 0) is not None:
                options.append(spec["arg"])  # ``Trainer.from_argparse_args(args)``: the parser's option
        default = entry.get("default_gpu")
        when = ConditionalGpu(how, default["package"], default["versions"]) if default else None
        if options or when is not None:
            return Selected(how, when=when, options=tuple(options))
        return Selected(how)

    def literal(self, node: cst.CSTNode) -> Optional[Selected]:
        """A ``"cuda"`` string passed, assigned or chosen (not compared): ``.to("cuda")``,
        ``device="cuda:0"``, ``"cuda" if ... else "cpu"``; ``device="auto"`` where a
        library picks the GPU when there is one."""
        parent = self.ctx.parent(node)
        if not is_device_literal(node, self.data["device_literal"], self.data.get("device_prefix")):
            if isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value in self.data.get(
                "auto_device_keywords", ()
            ) and is_device_literal(node, self.data["auto_device_literal"]):
                return Selected("a `\"auto\"` device")
            return None
        if isinstance(parent, _SELECTING_PARENTS):
            if isinstance(parent, cst.DictElement) and parent.key is node:
                return None
            if isinstance(parent, cst.Arg) and parent.keyword is None and _lists_or_prints(self.ctx.parent(parent)):
                return None  # ``devices.add("cuda")``, ``print("cuda")``: named, not selected
            if isinstance(node, cst.FormattedString) and self._enumerates(node):
                return None
            return Selected("a `\"cuda\"` device", places_value=True)
        return None

    def _enumerates(self, node: cst.FormattedString) -> bool:
        """``for i in range(torch.cuda.device_count()): ... f"cuda:{i}"``: every device in
        turn (restoring each one's RNG state), not one chosen to run on."""
        values = {
            part.expression.value for part in node.parts
            if isinstance(part, cst.FormattedStringExpression) and isinstance(part.expression, cst.Name)
        }
        current = self.ctx.parent(node)
        while values and current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            loops: List[Any] = [current] if isinstance(current, cst.For) else []
            if isinstance(current, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                loop: Optional[cst.CompFor] = current.for_in
                while loop is not None:
                    loops.append(loop)
                    loop = loop.inner_for_in
            if any(values & _bound_names(loop.target) for loop in loops):
                return True
            current = self.ctx.parent(current)
        return False


def _bound_names(target: cst.BaseExpression) -> Set[str]:
    """The names a loop target binds (``i``, ``i, state``)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_bound_names(element.value) for element in target.elements))
    return set()


def _follows_placement(node: cst.BaseExpression, attributes: Sequence[str]) -> bool:
    """``device_ids=[module.device]``: the device of something already placed, which
    follows wherever the program put it and selects nothing."""
    items = [e.value for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else [node]
    return bool(items) and all(isinstance(i, cst.Attribute) and i.attr.value in attributes for i in items)


def _set_when_given(value: cst.BaseExpression, node: cst.CSTNode, parent: Any) -> bool:
    """Whether ``node`` runs only under ``if value is not None:`` (in the branch taken
    when it is), ``value`` being the same name or attribute chain."""
    spelled = dotted_name(value)
    if spelled is None:
        return False
    child, current = node, parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        if isinstance(current, (cst.If, cst.IfExp)) and child is current.body and _is_not_none(current.test, spelled):
            return True
        child, current = current, parent(current)
    return False


def _conjuncts(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The parts of an ``and`` (``test`` itself where it is none)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _is_not_none(test: cst.BaseExpression, spelled: str) -> bool:
    """``spelled is not None`` (also as one side of an ``and``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _is_not_none(test.left, spelled) or _is_not_none(test.right, spelled)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    return (
        isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name)
        and target.comparator.value == "None" and dotted_name(test.left) == spelled
    )


def option_name(node: Optional[cst.CSTNode]) -> Optional[str]:
    """``args.gpus`` / ``FLAGS.cuda`` / ``opt.cuda``: the option it reads, by its last name."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return node.attr.value
    return None


def gpu_value(value: Any, data: Mapping[str, Any]) -> bool:
    """Whether an option's or argument's value asks for a GPU: a positive count, a
    non-empty device list, ``True``, a ``"cuda"`` / ``"gpu"`` / ``"auto"`` string."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value > 0
    if isinstance(value, str):
        text = value.strip().lower()
        return bool(regex(data["device_literal"]).match(text) or regex(data["auto_device_literal"]).match(text)
                    or text in data.get("gpu_words", ()) or (text.lstrip("-").isdigit() and text not in ("0", "-0")))
    if isinstance(value, (list, tuple)):
        return bool(value)
    return False


def _in_predicate(node: cst.CSTNode, parent: Any, qualname: Any) -> bool:
    """Whether ``node`` sits in a function declared to return ``bool`` (``def
    is_extension_usable() -> bool``): a capability check, whose values on the GPU never
    leave it; what the program computes is placed elsewhere."""
    current = parent(node)
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = parent(current)
    if current is None or current.returns is None:
        return False
    annotation = current.returns.annotation
    return qualname(annotation) in ("bool", "builtins.bool") or (isinstance(annotation, cst.Name) and annotation.value == "bool")


def _conditional(node: cst.CSTNode, parent: Any) -> bool:
    """Whether ``node`` runs only on some paths through its function or module: under an
    ``if``, in a ``try``, a conditional expression, a lambda or the right of ``and`` / ``or``."""
    current = parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        if isinstance(current, (cst.If, cst.IfExp, cst.Try, cst.While, cst.BooleanOperation, cst.Lambda)):
            return True
        current = parent(current)
    return False


def _guarding_options(node: cst.CSTNode, parent: Any) -> List[str]:
    """The options that choose whether a device literal is used: ``"cuda" if args.cuda
    else "cpu"``, ``if opt.cuda: device = torch.device("cuda")``."""
    found = []
    child, current = node, parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        if isinstance(current, cst.IfExp) and child is current.body:
            found.extend(_test_options(current.test))
        elif isinstance(current, cst.If) and child is current.body:
            found.extend(_test_options(current.test))
        child, current = current, parent(current)
    return found


def _test_options(test: cst.BaseExpression) -> List[str]:
    """The option a test reads directly (``args.cuda``, ``args.cuda and ...``, or a bare
    name: a parameter of the function, ``if cuda:``); a test of anything else
    (``torch.cuda.is_available()``) chooses nothing we can read."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _test_options(test.left) + _test_options(test.right)
    if isinstance(test, cst.Name) and test.value not in ("True", "False", "None"):
        return [test.value]
    name = option_name(test)
    return [name] if name is not None else []


def _parameter_defaults(node: cst.FunctionDef, qualname: Any) -> Dict[str, Tuple[Optional[int], Any]]:
    """A function's named parameters: name -> (its position, or None for a keyword-only
    one; its literal default, ABSENT without one, UNKNOWN when it is not a literal)."""
    found: Dict[str, Tuple[Optional[int], Any]] = {}
    params = node.params
    positional = [(index, param) for index, param in enumerate((*params.posonly_params, *params.params))]
    for position, param in [*positional, *((None, param) for param in params.kwonly_params)]:
        value = ABSENT if param.default is None else literal_value(param.default, qualname)
        found[param.name.value] = (position, value)
    return found


def _passed(call: cst.Call, name: str, position: Optional[int]) -> Optional[cst.BaseExpression]:
    """What ``call`` passes for parameter ``name`` (at ``position``): its argument, None
    when it leaves the default; UNKNOWN_ARG when it cannot tell (``*args``)."""
    positional = 0
    for arg in call.args:
        if arg.star:
            return UNKNOWN_ARG  # ``f(*args)`` / ``f(**kwargs)``: may pass anything
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
        else:
            if position is not None and positional == position:
                return arg.value
            positional += 1
    return None


UNKNOWN_ARG = cst.Name("__unknown_argument__")


# calls that keep or show a device name without selecting it
_NAMING_METHODS = frozenset({
    "add", "append", "extend", "insert", "remove", "discard", "index", "count", "startswith", "endswith",
    "get", "pop", "setdefault", "join", "format", "replace", "split", "info", "debug", "warning", "warn", "error",
})
_NAMING_FUNCTIONS = frozenset({"print", "str", "repr", "len", "isinstance"})


def _lists_or_prints(call: Optional[cst.CSTNode]) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value in _NAMING_METHODS
    return isinstance(call.func, cst.Name) and call.func.value in _NAMING_FUNCTIONS


def on_option_branch(node: cst.CSTNode, parent: Any) -> bool:
    """Whether a statement sits in a branch chosen by comparing with a string (``if
    args.format == "tflite":``, ``elif backend in ("tf", "jax"):``) or under
    ``if TYPE_CHECKING:``: code the default run does not take (or cannot tell it does)."""
    current = parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, cst.If) and not is_main_guard(current.test):
            test = current.test
            if _is_type_checking(test):
                return True
            if isinstance(test, cst.Comparison) and any(
                _names_a_choice(side) for side in (test.left, *(c.comparator for c in test.comparisons))
            ):
                return True
        current = parent(current)
    return False


def _named_in(name: Optional[str], names: Sequence[str]) -> bool:
    """``name`` is one of ``names``, or starts with one of them that ends in a dot (a
    namespace: ``tensorflow.lite.TFLiteConverter.``)."""
    return name is not None and (name in names or name.startswith(tuple(n for n in names if n.endswith("."))))


# calls that put a value into a container: the value is listed, not used
_LISTING_METHODS = frozenset({"append", "appendleft", "add", "insert", "extend"})
# where a read attribute is used as data (not called, not handed on): it runs a property only
_DATA_USES = frozenset({
    cst.Attribute, cst.Subscript, cst.Comparison, cst.ComparisonTarget, cst.BinaryOperation, cst.UnaryOperation,
    cst.BooleanOperation, cst.FormattedStringExpression, cst.If, cst.IfExp, cst.While, cst.Assert,
})


_LISTING_PARENTS = frozenset({cst.Element, cst.DictElement, cst.Arg})  # the only parents ``_listed`` accepts


def _listed(node: cst.BaseExpression, parent: Any, parent_of: Any) -> bool:
    """A name kept as a value in a container (``[ModelA, ModelB]``, ``{"a": ModelA}``,
    ``models.append(ModelA)``) or named as a base class; ``parent`` is the node's.
    (``type() is``: this runs for every name, and isinstance() against libcst's ABCs
    costs much when it fails.)"""
    kind = type(parent)
    if kind is cst.Element:
        return True
    if kind is cst.DictElement:
        return bool(parent.value is node)
    if kind is cst.Arg and parent.keyword is None and not parent.star:
        call = parent_of(parent)
        if type(call) is cst.ClassDef:
            return True  # a base class: subclassing it constructs nothing
        return (type(call) is cst.Call and type(call.func) is cst.Attribute
                and call.func.attr.value in _LISTING_METHODS)
    return False


def _stored_under(node: cst.BaseExpression, parent: Any, parent_of: Any) -> Optional[str]:
    """The field a definition is stored under in a record the module keeps
    (``CONFIGS["drums"] = Config(model_fn=model.model_fn)``: ``model_fn``): it runs where
    code reads that field back (``config.model_fn``), not at import."""
    if type(parent) is not cst.Arg or parent.keyword is None or parent.value is not node:
        return None
    call = parent_of(parent)
    if type(call) is not cst.Call or type(parent_of(call)) is not cst.Assign:
        return None
    return str(parent.keyword.value)


def _read_as_data(node: cst.Attribute, parent: Optional[cst.CSTNode]) -> bool:
    """``x.device.type``, ``x.device[0]``, ``x.device == y``, ``if x.training:``: the
    attribute's value is used, not called nor handed on.  (``type() is``, as in
    ``_listed``: none of these classes has subclasses.)"""
    kind = type(parent)
    if kind is cst.Attribute or kind is cst.Subscript:
        return parent.value is node  # type: ignore[union-attr]
    if kind is cst.If or kind is cst.IfExp or kind is cst.While:
        return parent.test is node  # type: ignore[union-attr]
    return kind in _DATA_USES


def _declared_returns(ctx: FileContext) -> Dict[str, str]:
    """The top-level functions of the module that declare returning one class
    (``def to_tensor(x) -> torch.Tensor``): name -> the class's qualified name."""
    found = {}
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.returns is not None:
            name = ctx.qualname(stmt.returns.annotation)
            if name is not None:
                found[stmt.name.value] = name
    return found


def _module_globals(ctx: FileContext) -> FrozenSet[str]:
    """The names the module's top-level statements assign or define (registries, and the
    functions that build them, live there)."""
    found: Set[str] = set()
    for stmt in ctx.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            found.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    found.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    found.add(small.target.value)
    return frozenset(found)


class _Bindings:
    """Every name the module binds anywhere: assignments, loop and ``with`` targets,
    parameters, definitions, imports, ``except ... as``, walrus targets.  Its handlers run
    in the walk that feeds the checks (a walk of its own cost half of ``GpuFacts``); the
    names are complete once the walk has left the module."""

    def __init__(self) -> None:
        # the globals Python gives every module
        self.names: Set[str] = {"__file__", "__name__", "__doc__", "__spec__", "__package__", "__path__", "__loader__", "__builtins__", "__cached__"}

    def _targets(self, node: Optional[cst.CSTNode]) -> None:
        # ``type() is``: this runs for every assignment; none of these classes has subclasses
        if type(node) is cst.Name:
            self.names.add(node.value)
        elif type(node) is cst.Tuple or type(node) is cst.List:
            for element in node.elements:
                self._targets(element.value)
        elif type(node) is cst.StarredElement:
            self._targets(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name: cst.BaseExpression = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                self.names.add(name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)


def _root_name(node: cst.BaseExpression) -> Optional[cst.Name]:
    """The name an expression starts from (``ALGOS`` of ``ALGOS["ppo"]``, ``models`` of
    ``models.Net``).  (``type() is``: this runs for most calls; none of these classes has
    subclasses.)"""
    while True:
        if type(node) is cst.Name:
            return node
        if type(node) is cst.Attribute:
            node = node.value
        elif type(node) is cst.Subscript:
            node = node.value
        elif type(node) is cst.Call:
            node = node.func
        else:
            return None


def _method_call(node: cst.BaseExpression) -> bool:
    """``x.method(...)``: a call of a name read on a value (its result's type is what
    the project's methods of that name declare returning)."""
    return type(node) is cst.Call and type(node.func) is cst.Attribute


def _is_super_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _on_super(func: cst.BaseExpression) -> bool:
    """``super().name`` / ``super(Cls, self).name``."""
    return (  # ``type() is``: this runs for every call; none of these classes has subclasses
        type(func) is cst.Attribute and type(func.value) is cst.Call
        and type(func.value.func) is cst.Name and func.value.func.value == "super"
    )


def _receiver(node: cst.FunctionDef) -> Optional[str]:
    """The parameter a method gets its instance or class in (``self``, ``cls``); None for
    a static method."""
    for decorator in node.decorators:
        if isinstance(decorator.decorator, cst.Name) and decorator.decorator.value == "staticmethod":
            return None
    params = node.params.posonly_params or node.params.params
    return params[0].name.value if params else None


def _assigned(node: cst.Attribute, parent: Any) -> bool:
    """``self.device = ...``: a store reads nothing."""
    return (type(parent) is cst.AssignTarget or type(parent) is cst.AnnAssign) and parent.target is node


IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _import_guarded(node: cst.CSTNode, parent: Any) -> bool:
    """The import is in the body of a ``try`` one of whose handlers catches a failed import
    (``except ImportError:``, ``except (ImportError, KeyError):``, ``except Exception:``,
    a bare ``except:``): the code is written to run without the module."""
    child, current = node, parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        if isinstance(current, cst.Try) and child is current.body:
            for handler in current.handlers:
                if handler.type is None:
                    return True
                types: List[cst.BaseExpression] = (
                    [element.value for element in handler.type.elements]
                    if isinstance(handler.type, cst.Tuple) else [handler.type]
                )
                if any((dotted_name(value) or "") in IMPORT_ERRORS for value in types):
                    return True
        child, current = current, parent(current)
    return False


def under_type_checking(node: cst.CSTNode, parent: Any) -> bool:
    """Whether a statement sits in the body of ``if TYPE_CHECKING:`` (or
    ``if typing.TYPE_CHECKING:``)."""
    current, child = parent(node), node
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, cst.If) and child is current.body and _is_type_checking(current.test):
            return True
        current, child = parent(current), current
    return False


def _is_type_checking(test: cst.BaseExpression) -> bool:
    name = dotted_name(test)
    return name is not None and name.rsplit(".", 1)[-1] == "TYPE_CHECKING"


def _names_a_choice(node: cst.BaseExpression) -> bool:
    """A string, or a tuple / list / set of strings: what an option is compared with
    (``sys.version_info >= (3, 8)`` is not a choice)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return any(isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString)) for e in node.elements)
    return False


# ---------------------------------------------------------------- pass 1: the facts ---
# names an import binds, not uses (a set of concrete types: ``type(x) in`` instead of
# isinstance(), whose ABC checks cost much in handlers that run for every name)
_IMPORT_PARTS = frozenset({cst.ImportAlias, cst.AsName, cst.Import, cst.ImportFrom})
_DEFINITIONS = frozenset({cst.FunctionDef, cst.ClassDef})
_CONDITIONAL = frozenset({cst.If, cst.Else, cst.IfExp, cst.For, cst.While, cst.BooleanOperation, cst.Match})

@dataclass(frozen=True)
class GradientUpdates:
    """Rule data ``differentiation``: JAX's gradient transforms (``jax.grad``,
    ``nnx.value_and_grad``) train only where the gradient feeds a parameter update (spec
    "Programs that matter"); a module that takes one and updates parameters trains there.
    A gradient of a nonlinearity a kernel library derives, or one a guide takes to show
    what it returns, trains nothing."""

    transforms: FrozenSet[str] = frozenset()
    prefixes: Tuple[str, ...] = ()  # an optimizer library's calls (``optax.adam``, ``tx.init``)
    tree_maps: FrozenSet[str] = frozenset()  # ``jax.tree.map(lambda p, g: p - lr * g, ...)``
    methods: Mapping[str, Sequence[str]] = field(default_factory=dict)  # ``tx.update(grads, state)``

    @classmethod
    def from_data(cls, diff: Mapping[str, Any]) -> "GradientUpdates":
        updates = diff.get("updates", {})
        return cls(
            frozenset(diff.get("gradient_transforms", ())), tuple(updates.get("prefixes", ())),
            frozenset(updates.get("tree_maps", ())), dict(updates.get("methods", {})),
        )

    def updates(self, node: cst.Call, name: Optional[str], mentions: Callable[..., bool]) -> bool:
        """Whether ``node`` updates parameters with a gradient: a call of an optimizer
        library, a tree map whose function subtracts, or an ``update`` method with
        arguments in a module that imports an optimizer library (``mentions``)."""
        if name is not None:
            if name.startswith(self.prefixes):
                return True
            return name in self.tree_maps and bool(node.args) and _subtracts(node.args[0].value)
        if isinstance(node.func, cst.Attribute) and node.args:
            needs = self.methods.get(node.func.attr.value, ())
            return bool(needs) and mentions(*needs)
        return False


def _returns_of(function: cst.FunctionDef) -> Iterator[cst.Return]:
    """The ``return`` statements of ``function``'s own body (not of a function or class
    defined in it)."""
    stack: List[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            yield node
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseExpression)):
            stack.extend(node.children)


def _subtracts(function: cst.BaseExpression) -> bool:
    """``lambda p, g: p - lr * g``: a function of two or more values whose body subtracts."""
    if not isinstance(function, cst.Lambda) or len(function.params.params) < 2:
        return False
    found = False

    def visit(node: cst.CSTNode) -> None:
        nonlocal found
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
            found = True
        for child in node.children:
            if not found:
                visit(child)

    visit(function.body)
    return found


def _assigned_from(value: cst.BaseExpression, parent: Callable[[cst.CSTNode], Any]) -> Set[str]:
    """The names a statement binds to ``value`` (``loss, grads = value``)."""
    statement = parent(value)
    if isinstance(statement, cst.Assign) and statement.value is value:
        return {name.value for target in statement.targets for name in _target_names(target.target)}
    return set()


def _subtracted(value: cst.BaseExpression, parent: Callable[[cst.CSTNode], Any]) -> bool:
    """``value`` is part of what an expression statement subtracts (``p - lr * value``)."""
    child: cst.CSTNode = value
    node = parent(value)
    while isinstance(node, cst.BaseExpression) or isinstance(node, (cst.Arg, cst.AugAssign)):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract) and child is node.right:
            return True
        if isinstance(node, cst.AugAssign):
            return isinstance(node.operator, cst.SubtractAssign) and child is node.value
        child, node = node, parent(node)
    return False


def _gradient_result_subtracted(call: cst.Call, scope: cst.CSTNode, parent: Callable[[cst.CSTNode], Any]) -> bool:
    """A hand-written update with the gradients ``call`` returns: an expression subtracts
    them (``p - lr * torch.autograd.grad(loss, p)[0]``), or ``scope`` subtracts, or
    hands to an in-place ``sub_``, a name bound to them or to an element of them (``grads
    = grad(loss, params)`` then ``for p, g in zip(params, grads): p.data -= lr * g``, or
    ``[w - lr * g for w, g in zip(weights, grads)]``), or stores them as gradients
    (``p.grad = g``) for an optimizer to apply."""
    value: cst.BaseExpression = call
    while isinstance(parent(value), cst.Subscript) and parent(value).value is value:
        value = parent(value)
    if _subtracted(value, parent):
        return True
    names = _assigned_from(value, parent)
    if not names:
        return False
    for _ in range(3):  # loop and comprehension targets over the gradients, nested a little
        names |= _bound_over(scope, names)
    return _subtracts_names(scope, names) or _subtracts_in_place(scope, names) or _stores_as_grad(scope, names)


def _stores_as_grad(scope: cst.CSTNode, names: Set[str]) -> bool:
    """``scope`` stores one of ``names`` as a parameter's gradient (``p.grad = g``), for
    an optimizer's ``step`` to apply."""
    def visit(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Assign) and _reads_names(node.value, names) and any(
            isinstance(target.target, cst.Attribute) and target.target.attr.value == "grad" for target in node.targets
        ):
            return True
        return any(visit(child) for child in node.children)

    return visit(scope)


def _reads_names(node: cst.CSTNode, names: Set[str]) -> bool:
    if isinstance(node, cst.Name):
        return node.value in names
    return any(_reads_names(child, names) for child in node.children)


def _bound_over(scope: cst.CSTNode, names: Set[str]) -> Set[str]:
    """The names a ``for`` loop or a comprehension in ``scope`` binds while iterating over
    a value that reads one of ``names`` (``for p, g in zip(params, grads)``)."""
    found: Set[str] = set()

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.For, cst.CompFor)) and _reads_names(node.iter, names):
            found.update(name.value for name in _target_names(node.target))
        for child in node.children:
            visit(child)

    visit(scope)
    return found


def _subtracts_in_place(scope: cst.CSTNode, names: Set[str]) -> bool:
    """``scope`` calls an in-place ``sub_`` with an argument that reads one of ``names``."""
    def visit(node: cst.CSTNode) -> bool:
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "sub_"
                and any(_reads_names(arg.value, names) for arg in node.args)):
            return True
        return any(visit(child) for child in node.children)

    return visit(scope)


def _target_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)


def _subtracts_names(scope: cst.CSTNode, names: Set[str]) -> bool:
    """Whether ``scope`` subtracts an expression that reads one of ``names`` (``p - lr * g``,
    ``w -= lr * g``)."""

    def reads(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            return node.value in names
        return any(reads(child) for child in node.children)

    def visit(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract) and reads(node.right):
            return True
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.SubtractAssign) and reads(node.value):
            return True
        return any(visit(child) for child in node.children)

    return visit(scope)


class GpuFacts(Check):
    """Records the module's ``GpuModuleFacts``: frameworks used, switches set, the modules
    imported (for program closures), and per unit (``reach``) GPU selection, differentiation
    (training code), evaluation, seeding and the names it refers to."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        data = ctx.rules[DATA_RULE].data
        self.frameworks = data["frameworks"]
        self.diff = data["differentiation"]
        self.evaluation = data.get("evaluation", {})
        self.program = data.get("program", {})
        # the lists every call is looked up in, as sets and prefix tuples
        self.training_calls = frozenset(self.diff["calls"])
        self.training_prefixes = tuple(self.diff["prefixes"])
        self.input_gradients = frozenset(self.diff.get("input_gradients", ()))
        self.not_training_prefixes = tuple(self.diff.get("not_prefixes", ()))
        self.gradient_updates = GradientUpdates.from_data(self.diff)
        self.evaluation_calls = frozenset(self.evaluation.get("calls", ()))
        self.evaluation_functions = tuple(self.evaluation.get("function_names", ()))
        self._evaluation_names: Dict[str, bool] = {}  # callee's last name -> whether it evaluates
        self.estimator_modes = EstimatorModes.from_data(data)
        self.save_calls = frozenset(self.evaluation.get("save_calls", ()))
        self.save_namespaces = tuple(name for name in self.save_calls if name.endswith("."))
        self.save_methods = frozenset(self.evaluation.get("save_methods", ()))
        self.load_calls = frozenset(self.evaluation.get("load_calls", ()))
        self.save_after_load_methods = frozenset(self.evaluation.get("save_methods_after_load", ()))
        writes = self.evaluation.get("array_writes", {})
        self.array_write_calls = frozenset(writes.get("calls", ()))
        self.array_write_methods = frozenset(writes.get("methods", ()))
        self.array_write_modes: Mapping[str, Any] = writes.get("modes", {})
        self._default_run: Optional[DefaultRun] = None
        self._required_options: Optional[FrozenSet[str]] = None  # options an ``assert`` of the module tests
        self.speed_benchmarks = tuple(self.program.get("speed_benchmarks", ()))
        self.viewer_calls = tuple(self.program.get("viewer_calls", ()))
        self.viewer_names = frozenset(self.viewer_calls)  # ``_named_in``'s names and namespaces, built once
        self.viewer_namespaces = tuple(n for n in self.viewer_calls if n.endswith("."))
        self.binders = frozenset(self.program.get("binders", ()))
        self.viewer_methods: Mapping[str, Sequence[str]] = self.program.get("viewer_methods", {})
        self.prompt_calls = frozenset(self.program.get("prompt_calls", ()))
        self.selection = GpuSelection(ctx)
        self.collectives = frozenset(self.selection.data.get("collectives", ()))
        self.process_group_starts = frozenset(self.selection.data.get("process_group_starts", ()))
        scope_bindings = self.scope_bindings = ScopeBindings(ctx.parent)
        self.switches = SwitchState(
            ctx.rules, ctx.qualname, sets_environ=ctx.imports.mentions("os"),
            bound=lambda name: scope_bindings.values(name, ctx.ancestors),
        )
        # frameworks imported where the default run goes, and only on an option's branch
        self.imported_by_default: Set[str] = set()
        self.imported_on_branch: Set[str] = set()
        self.running_imports: Set[str] = set()
        self.type_checking_imports: Set[str] = set()
        self.stars: List[str] = []
        self.registry_aliases: Dict[str, str] = {}  # ``register_model = Registries.models.register``
        self.gradient_functions: Set[str] = set()  # ``f_grad`` of ``Defun(python_grad_func=f_grad)``
        self.gradient_units: Set[str] = set()  # units that take a JAX gradient (``jax.grad``)
        self.gradient_calls: List[Tuple[cst.Call, cst.CSTNode]] = []  # each such call, with its function
        # gradients a call returns (``torch.autograd.grad``), with their function and unit
        self.input_gradient_calls: List[Tuple[cst.Call, cst.CSTNode, str]] = []
        self.updates_parameters = False  # some unit applies an update (``GradientUpdates``)
        self._gradient_names: Dict[int, FrozenSet[str]] = {}  # per enclosing function: its gradient arguments
        # where the GPU is selected: anchors pass 2 positions, for the ND205 message
        self.anchor_code = next((code for code in ("ND205", "ND209") if code in ctx.enabled), None)
        self.seed_calls = frozenset(name for name, seeder in seed_helpers(ctx.rules).items() if seeder.sets_a_seed)
        # the unit being walked: module code, a top-level function or class, or a method
        self.units: Dict[str, UnitBuilder] = {MODULE_UNIT: UnitBuilder()}
        self.unit = self.units[MODULE_UNIT]
        self.unit_name = MODULE_UNIT
        self.depth = 0  # nesting of definitions
        self.gradient_definitions = 0  # nesting of functions that define a gradient (no training in them)
        # classes a function defines and returns (a class factory), innermost last, with the
        # unit to go back to: what their methods do is walked into a builder no unit keeps
        self._factory_classes: List[Tuple[cst.ClassDef, UnitBuilder]] = []
        # per function being walked, innermost last: whether it defines a gradient (decided
        # when it is entered: the depth it is judged at differs when it is left)
        self._defining: List[bool] = []
        self.owner: Optional[str] = None  # the top-level class being walked
        self.receiver: Optional[str] = None  # the instance parameter of the method being walked (``self``)
        methods = self.program.get("methods", {})
        self.getters = frozenset(methods.get("attribute_getters", ()))
        self.property_decorators = frozenset(methods.get("property_decorators", ()))
        self.class_level_decorators = frozenset(methods.get("class_level_decorators", ()))
        self.value_types = frozenset(methods.get("value_types", ()))
        self.layer_runs = frozenset(data.get("layers", {}).get("runs", ()))
        # what a parameter or a local name is annotated with, or gets from a function of
        # this module that declares what it returns, in the function being walked
        self.returns = _declared_returns(ctx)
        self.annotations: List[Dict[str, str]] = [{}]
        # per unit: local name -> the container it was taken from (``cls`` of ``for cls in MODELS``)
        self.looked_up: Dict[str, Dict[str, str]] = {}
        self.globals = _module_globals(ctx)
        self.optional_imports: Set[str] = set()  # names imported under ``except ImportError``
        self._bindings = _Bindings()  # every name the module binds, gathered by the walk
        # per unit: bare names it calls or passes that nothing imports or defines at module
        # level; known once the walk has seen every binding of the module (``finish``)
        self._unresolved: Dict[str, Set[str]] = {}
        # the functions around the node being walked, innermost last; per function, the
        # values its code (nested functions included) assigns to plain names, and the
        # attribute stores ``names_assigned`` may find put a saved value back, decided when
        # the walk leaves the function (the names are assigned before and after the store)
        self.functions: List[cst.FunctionDef] = []
        # the ``with`` statements around the node being walked: what each says of the device
        # (``_device_of``) and the function it is in
        self.device_scopes: List[Tuple[Optional[str], Optional[cst.FunctionDef]]] = []
        self._local_values: List[Dict[str, List[cst.BaseExpression]]] = []
        self._restorable: List[List[Tuple[UnitBuilder, cst.Attribute, cst.Name]]] = []
        self.annotating = 0  # nesting of type annotations: the names in them run nothing
        self.main_guard: Optional[cst.If] = None  # the main block being walked
        self.selections: List[Tuple[cst.CSTNode, str, Selected]] = []  # decided at the end: options' defaults
        self.options: Dict[str, Any] = {}  # option -> its default (UNKNOWN: declared, not known)
        # top-level functions: parameter -> (position, default); and the calls of
        # each bare name in this module (a parameter every call leaves at its default is
        # an option of that function: ``def main(cuda=0)`` called as ``main()``)
        self.parameter_defaults: Dict[str, Dict[str, Tuple[Optional[int], Any]]] = {}
        self.bare_calls: Dict[str, List[Tuple[str, cst.Call]]] = {}
        self.hiding_switches = frozenset(
            str(spec["hidden_by"]) for spec in self.frameworks.values() if "hidden_by" in spec
        )
        # device scope calls -> the framework whose scope they open (``tf.device``), and the
        # training calls that only make an object whose methods compute (an optimizer, a tape)
        self.cpu_scopes = {
            call: framework for framework, spec in self.frameworks.items() for call in spec.get("cpu_scope", {}).get("calls", ())
        }
        self.training_objects = tuple(
            name for spec in self.frameworks.values() for name in spec.get("cpu_scope", {}).get("objects", ())
        )
        self.hints = {
            framework: tuple(spec["code_hint"]["names"]) for framework, spec in self.frameworks.items() if "code_hint" in spec
        }
        if self.selection.by_import():
            self.unit.selects_gpu = "kernel library import"

    # -- units
    def _unit_named(self, name: str) -> UnitBuilder:
        """The unit ``name``, made the first time (not a new builder per definition)."""
        unit = self.units.get(name)
        if unit is None:
            unit = self.units[name] = UnitBuilder()
        return unit

    def _enter(self, node: Union[cst.FunctionDef, cst.ClassDef]) -> None:
        name = None
        if self.depth == 0:
            name = node.name.value
            self.owner = name if isinstance(node, cst.ClassDef) else None
            self.unit_name = name
            self.unit = self._unit_named(name)
            self.unit.registered_by.update(self._registries(node))
            if isinstance(node, cst.ClassDef):
                self.unit.bases.extend(self._bases(node))
        elif self.depth == 1 and self.owner is not None and isinstance(node, cst.FunctionDef):
            # a method: a unit of its own, run once its name is read (``reach``)
            name = self.unit_name = f"{self.owner}.{node.name.value}"
            self.unit = self._unit_named(name)
            self.receiver = _receiver(node)
            decorators = {self.ctx.qualname(d.decorator) for d in node.decorators}
            self.unit.is_property = bool(decorators & self.property_decorators)
            self.unit.class_level = bool(decorators & self.class_level_decorators)
        self.depth += 1

    def _leave(self) -> None:
        self.depth -= 1
        if self.depth == 1 and self.owner is not None:
            self.unit_name = self.owner
            self.unit = self.units[self.owner]
            self.receiver = None
        elif self.depth == 0:
            self.owner = None
            self.unit_name = MAIN_UNIT if self.main_guard is not None else MODULE_UNIT
            self.unit = self.units[self.unit_name]

    def visit_If(self, node: cst.If) -> None:
        # ``if __name__ == "__main__":`` runs only when its module is the entry point
        if self.depth == 0 and self.unit_name == MODULE_UNIT and is_main_guard(node.test):
            self.unit_name = MAIN_UNIT
            self.unit = self._unit_named(MAIN_UNIT)
            self.main_guard = node

    def leave_If(self, original_node: cst.If) -> None:
        if original_node is self.main_guard:
            self.main_guard = None
            self.unit_name, self.unit = MODULE_UNIT, self.units[MODULE_UNIT]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.depth == 0:
            self.parameter_defaults[node.name.value] = _parameter_defaults(node, self.ctx.qualname)
        own_unit = self.depth == 0 or (self.depth == 1 and self.owner is not None)
        self._enter(node)
        if own_unit and node.returns is not None:
            self.unit.returns = self._type_of(node.returns.annotation) or ""
        defines = self._defines_gradient(node)
        self._defining.append(defines)
        self.gradient_definitions += defines
        params = node.params
        annotated = {}
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            kind = self._type_of(param.annotation.annotation) if param.annotation is not None else None
            if kind is not None:
                annotated[param.name.value] = kind
        self.annotations.append(annotated)
        self.functions.append(node)
        self._local_values.append({})
        self._restorable.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave()
        self.annotations.pop()
        self.functions.pop()
        local = LocalValues.gathered(original_node, self._local_values.pop())
        for unit, target, value in self._restorable.pop():
            unit.sets.update(names_assigned(target, value, original_node, local))
        self.gradient_definitions -= self._defining.pop()

    def _defines_gradient(self, node: cst.FunctionDef) -> bool:
        """``@tf.custom_gradient``, a torch autograd Function's ``backward``, a nested
        function its enclosing function hands to ``Defun(grad_func=...)``: the function
        computes a gradient for others' training."""
        if self.depth > 1 and node.name.value in self._gradient_arguments_around(node):
            return True
        if node.name.value in self.diff.get("gradient_methods", ()):
            block = self.ctx.parent(node)
            owner = self.ctx.parent(block) if block is not None else None
            if isinstance(owner, cst.ClassDef) and any(
                base in self.diff.get("gradient_classes", ()) for base in self._bases(owner)
            ):
                return True
        return any(
            self.ctx.qualname(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in self.diff.get("gradient_definitions", ())
            for d in node.decorators
        )

    def _gradient_arguments(self, node: cst.Call, name: Optional[str]) -> List[str]:
        """The names ``node`` takes as the function computing another's gradient (rule
        data ``gradient_arguments``: a keyword so named, or any function named to a call so
        named); none for a training call (``jax.grad(loss_fn)``)."""
        pattern = self.diff.get("gradient_arguments")
        # only a name can be one (``type() is``: this runs for every call)
        named = [arg for arg in node.args if type(arg.value) is cst.Name]
        if not named or not pattern or (name is not None and (
            self._training_name(name) or name in self.gradient_updates.transforms
        )):
            return []
        callee = name.rpartition(".")[2] if name is not None else (dotted_name(node.func) or "").rpartition(".")[2]
        by_call = regex(pattern).search(callee) is not None
        return [
            arg.value.value for arg in named  # type: ignore[attr-defined]
            if by_call or (arg.keyword is not None and regex(pattern).search(arg.keyword.value) is not None)
        ]

    def _gradient_arguments_around(self, node: cst.FunctionDef) -> FrozenSet[str]:
        """The names the function enclosing ``node`` hands to a call as the function
        computing a gradient."""
        enclosing = self._function()  # ``node`` is not on the stack while it is entered or left
        if enclosing is None or not self.diff.get("gradient_arguments"):
            return frozenset()
        found = self._gradient_names.get(id(enclosing))
        if found is None:
            names: Set[str] = set()
            for call in calls_in(enclosing):
                names.update(self._gradient_arguments(call, self.ctx.qualname(call.func)))
            found = self._gradient_names[id(enclosing)] = frozenset(names)
        return found

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.depth >= 1 and self._returned_by_enclosing(node):
            # a class factory (``def make_optimizer_class(cls): class DP(cls): ...; return DP``):
            # the class's methods run where code makes and uses what the factory returns, not
            # when the factory runs (a module-level ``DPAdam = make_optimizer_class(Adam)``);
            # what they do is no fact of the factory, and no training of it
            self._factory_classes.append((node, self.unit))
            self.unit = UnitBuilder()
            self.gradient_definitions += 1
        self._enter(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._leave()
        if self._factory_classes and self._factory_classes[-1][0] is original_node:
            self.unit = self._factory_classes.pop()[1]
            self.gradient_definitions -= 1

    def _returned_by_enclosing(self, node: cst.ClassDef) -> bool:
        """The function around ``node`` returns the class it defines (``return DP``)."""
        enclosing = self._function()
        if enclosing is None:
            return False
        name = node.name.value
        return any(
            type(ret.value) is cst.Name and ret.value.value == name
            for ret in _returns_of(enclosing)
        )

    def _bases(self, node: cst.ClassDef) -> List[str]:
        """A class's bases: qualified names, or bare names (a class of this module)."""
        found = []
        for arg in node.bases:
            name = self.ctx.qualname(arg.value)
            if name is not None:
                found.append(name)
            elif isinstance(arg.value, cst.Name):
                found.append(arg.value.value)
        return found

    def _registries(self, node: Union[cst.FunctionDef, cst.ClassDef]) -> List[str]:
        """The decorators that hand a definition to a registry at import
        (``@task_factory.register_task_cls(...)``): it may run through a lookup by string."""
        pattern = self.program.get("registering_decorator")
        lookup_only = self.program.get("lookup_registries", ())
        found = []
        for decorator in node.decorators:
            target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            name = dotted_name(target)
            if pattern and name is not None and regex(pattern).search(name.rsplit(".", 1)[-1]):
                qualified = self.ctx.qualname(target) or name
                if qualified not in lookup_only:
                    found.append(qualified)
        return found

    def visit_Name(self, node: cst.Name) -> None:
        parent: Any = self.ctx.parents.get(id(node))  # runs for every name: no method call
        kind = type(parent)
        if kind is cst.Attribute:
            if parent.value is node and self.ctx.qualname(parent) is None:
                self.unit.bare.add(node.value)  # ``Helper.build()`` of a class of this module
            return
        if kind in _IMPORT_PARTS or (kind in _DEFINITIONS and parent.name is node):
            return
        name = self.ctx.qualname(node)
        if self.depth == 0 and self.unit_name == MODULE_UNIT:
            keyword = _stored_under(node, parent, self.ctx.parent)
            if keyword is not None:
                self.unit.stored.setdefault(keyword, set()).add(name if name is not None else LOCAL + node.value)
                return
            alias = self._bound_to(node, parent)
            if alias is not None:
                self.unit.bound.setdefault(alias, set()).add(name if name is not None else LOCAL + node.value)
                return
        listed = self.annotating > 0 or (kind in _LISTING_PARENTS and _listed(node, parent, self.ctx.parent))
        if not listed and (self.device_scopes or self.unit.outside is not None):
            self.unit.note_name(name if name is not None else LOCAL + node.value, self._cpu_with())
        if name is not None:
            (self.unit.listed if listed else self.unit.refs).add(name)
        else:
            (self.unit.listed_bare if listed else self.unit.bare).add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent: Any = self.ctx.parent(node)
        kind = type(parent)
        if kind in _IMPORT_PARTS:
            return  # an import runs nothing
        if kind is cst.Attribute and parent.value is node:
            # the outer name is the one that refers to something; on a value, each name is read
            if self.ctx.qualname(parent) is None:
                self._read(node)
            return
        if self.depth > 0:
            root = node.value
            while type(root) is cst.Attribute:
                root = root.value
            chain = dotted_name(node) if type(root) is cst.Name and root.value in self.globals else None
            if chain is not None:
                self.unit.chains.add(chain)  # ``Registries.problems[name]``: a registry it may look up
        name = self.ctx.qualname(node)
        if name is not None and self.depth == 0 and self.unit_name == MODULE_UNIT:
            keyword = _stored_under(node, parent, self.ctx.parent)
            if keyword is not None:
                self.unit.stored.setdefault(keyword, set()).add(name)
                return
            alias = self._bound_to(node, parent)
            if alias is not None:
                self.unit.bound.setdefault(alias, set()).add(name)
                return
        if name is not None:
            listed = self.annotating > 0 or _listed(node, parent, self.ctx.parent)
            if not listed and (self.device_scopes or self.unit.outside is not None):
                self.unit.note_name(name, self._cpu_with())
            (self.unit.listed if listed else self.unit.refs).add(name)
        elif not _assigned(node, parent):
            self._read(node)

    def _bound_to(self, node: cst.BaseExpression, parent: Any) -> Optional[str]:
        """The module-level name a function is bound to without being run
        (``attention_sparse = functools.partial(attention, ...)``: rule data ``binders``): it
        runs where code names that name."""
        if type(parent) is not cst.Arg or parent.keyword is not None or parent.value is not node:
            return None
        call = self.ctx.parent(parent)
        if type(call) is not cst.Call or not call.args or call.args[0] is not parent or self.ctx.qualname(call.func) not in self.binders:
            return None
        assign = self.ctx.parent(call)
        if type(assign) is not cst.Assign or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return None
        return assign.targets[0].target.value

    def _read(self, node: cst.Attribute) -> None:
        """``x.name`` read.  On the method's own instance (``self.name``, ``super().name``)
        it can only run a method of its class's lineage; on a value annotated with a type,
        only one of that type's (none for a tensor's ``.device``); read as data
        (``x.device.type``, ``x.shape == y``) rather than called or handed on, only a
        property."""
        attr = node.attr.value
        value = node.value
        if self.receiver is not None and (
            (isinstance(value, cst.Name) and value.value == self.receiver) or _is_super_call(value)
        ):
            self.unit.self_reads.add(attr)
            if not self._read_without_running(node):
                self.unit.self_applied.add(attr)
            return
        kind = self.annotations[-1].get(value.value) if isinstance(value, cst.Name) else None
        if kind in self.value_types:
            return
        if kind is not None:
            self.unit.typed_reads.add(f"{kind}:{attr}")
        elif self._read_without_running(node):
            self.unit.data_reads.add(attr)
        else:
            if self.device_scopes or self.unit.outside is not None:
                self.unit.note_name(READ + attr, self._cpu_with())
            built = self._built_by(value.value) if isinstance(value, cst.Name) else None
            if built is not None:
                self.unit.built_reads.add(f"{built}:{attr}")
            elif _method_call(value) and self.ctx.qualname(value.func) is None:  # type: ignore[attr-defined]
                self.unit.returned_reads.add(f"{value.func.attr.value}:{attr}")  # type: ignore[attr-defined]
            else:
                self.unit.reads.add(attr)

    def _read_without_running(self, node: cst.Attribute) -> bool:
        """``x.device.type``, ``self.bag.weight``, ``self.bag is None``: the value is read as
        data, neither called nor handed on; not ``self.bag.forward(x)``, whose method runs
        the value (rule data ``layers.runs``)."""
        parent = self.ctx.parent(node)
        if type(parent) is cst.Attribute and parent.attr.value in self.layer_runs:
            return False
        return _read_as_data(node, parent)

    def _built_by(self, name: str) -> Optional[str]:
        """The callee every binding of the local ``name`` calls to make its value
        (``model = Net(cfg)``: ``pkg.nets.Net``), qualified; None where a binding is no
        call (a parameter, a loop variable, a value) or the bindings call different callees."""
        values = self.scope_bindings.values(name, self.ctx.ancestors)
        callees = set()
        for value in values or ():
            if type(value) is not cst.Call:
                return None
            callee = self.ctx.qualname(value.func)
            if callee is None and type(value.func) is cst.Name:
                module = self.ctx.module_name
                callee = f"{module}.{value.func.value}" if module else value.func.value
            if callee is None:
                return None
            callees.add(callee)
        return callees.pop() if len(callees) == 1 else None

    def _type_of(self, annotation: cst.BaseExpression) -> Optional[str]:
        """The qualified name of a type annotation naming one class (``torch.Tensor``,
        ``Model`` of this module)."""
        name = self.ctx.qualname(annotation)
        if name is None and isinstance(annotation, cst.Name):
            name = f"{self.ctx.module_name}.{annotation.value}" if self.ctx.module_name else annotation.value
        return name

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.annotating += 1

    def leave_Annotation(self, original_node: cst.Annotation) -> None:
        self.annotating -= 1

    def visit_For(self, node: cst.For) -> None:
        self.unit.implicit.add(Implicit.ITERATE)
        self._looked_up(node.target, self._iterated(node.iter))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.unit.implicit.add(Implicit.ITERATE)
        self._looked_up(node.target, self._iterated(node.iter))

    def _looked_up(self, target: cst.BaseExpression, container: Optional[str]) -> None:
        """``cls`` in ``for cls in MODELS`` / ``cls = MODELS[name]``: calling it constructs
        what the container holds."""
        if container is None:
            return
        targets = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for name in targets:
            if isinstance(name, cst.Name):
                self.looked_up.setdefault(self.unit_name, {})[name.value] = container

    def _container(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name of a container the project may define: an imported name, a
        module-level variable of this module (not a local or a parameter), or the function
        that builds it (``get_models()[name]``)."""
        if isinstance(node, cst.Call):
            node = node.func
        name = self.ctx.qualname(node)
        if name is None and isinstance(node, cst.Name) and node.value in self.globals:
            name = f"{self.ctx.module_name}.{node.value}" if self.ctx.module_name else node.value
        return name

    def _iterated(self, node: cst.BaseExpression) -> Optional[str]:
        """The container a loop goes over: ``MODELS``, ``MODELS.items()``, ``MODELS.values()``."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("items", "values"):
            node = node.func.value
        return self._container(node)

    def visit_With(self, node: cst.With) -> None:
        self.unit.implicit.add(Implicit.WITH)
        self.device_scopes.append((self._device_of(node, (*self.ctx.ancestors, node)), self._function()))

    def leave_With(self, original_node: cst.With) -> None:
        self.device_scopes.pop()

    def _cpu_with(self) -> Optional[str]:
        """The framework whose CPU device scope holds the node being walked (the innermost
        device scope of its function decides), else None."""
        function = self._function()
        for device, owner in reversed(self.device_scopes):
            if owner is not function:
                return None
            if device is not None:
                return device or None
        return None

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.ctx.qualname(node.value) is None:  # not ``typing.List[int]``
            self.unit.implicit.add(Implicit.SUBSCRIPT)

    # -- what the code does
    def _function(self) -> Optional[cst.FunctionDef]:
        """The innermost function the walk is in."""
        return self.functions[-1] if self.functions else None

    def _assigns(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """The attribute names an assignment gives a value (``names_assigned``); where
        it may put back a saved value (``k.x = saved`` in a function), once the walk has
        seen every assignment of the function."""
        if type(target) is cst.Attribute and type(value) is cst.Name and self.functions:
            self._restorable[-1].append((self.unit, target, value))
        else:
            self.unit.sets.update(names_assigned(target, value, self._function()))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assigns(node.target, None)

    def visit_Dict(self, node: cst.Dict) -> None:
        for element in node.elements:  # ``Kernel(**{"active_dims": [0]})``
            if isinstance(element, cst.DictElement):
                key = literal_value(element.key, lambda _: None)
                if isinstance(key, str):
                    self.unit.sets.add(key)

    def visit_Assign(self, node: cst.Assign) -> None:
        assigned = {t.target.value for t in node.targets if type(t.target) is cst.Name}
        for values in self._local_values:  # each function around it sees the values
            for name in assigned:
                values.setdefault(name, []).append(node.value)
        for target in node.targets:
            self._assigns(target.target, node.value)
            passed = passed_by_assignment(target.target, node.value, self.estimator_modes)
            if passed is not None:
                self.unit.passes.add(passed)
        if self.depth == 0 and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            chain = dotted_name(node.value) if isinstance(node.value, cst.Attribute) else None
            if chain is not None and chain.split(".", 1)[0] in self.globals:
                # ``register_model = Registries.models.register``: the registry is ``Registries.models``
                self.registry_aliases[node.targets[0].target.value] = chain.rpartition(".")[0]
            elif isinstance(node.value, cst.Name) and node.value.value in self.registry_aliases:
                # ``register_problem = register_base_problem``
                self.registry_aliases[node.targets[0].target.value] = self.registry_aliases[node.value.value]
        before = dict(self.switches.state)
        self.switches.assign(node)
        self._switched(before)
        if len(node.targets) == 1:
            self._looked_up(node.targets[0].target, self._lookup_source(node.value))
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(node.value, cst.Call):
            returned = self.returns.get(node.value.func.value) if isinstance(node.value.func, cst.Name) else None
            if returned is not None:
                self.annotations[-1][node.targets[0].target.value] = returned

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assigns(node.target, node.value)
        kind = self._type_of(node.annotation.annotation)
        if kind is not None and isinstance(node.target, cst.Name):
            self.annotations[-1][node.target.value] = kind

    def _lookup_source(self, node: cst.BaseExpression) -> Optional[str]:
        """The container of ``MODELS[name]``, ``MODELS.get(name)``, ``getattr(module,
        cfg.name)``: a value taken from it by a key (None: not such a lookup)."""
        # ``type() is``: this runs for every assignment; none of these classes has subclasses
        if type(node) is cst.Subscript:
            return self._container(node.value)
        if type(node) is not cst.Call:
            return None
        if type(node.func) is cst.Attribute and node.func.attr.value == "get":
            return self._container(node.func.value)
        if self.ctx.qualname(node.func) in self.getters and not isinstance(
            literal_value(find_arg(node, "name", 1), self.ctx.qualname), str
        ):
            source = find_arg(node, "o", 0)
            return self._container(source) if source is not None else None
        return None

    def _switched(self, before: Mapping[str, str]) -> None:
        """Credit the switches the last statement set to the unit that sets them.  A
        setting that hides a framework's GPUs counts as made only where it runs whenever
        its unit does: under a condition or in a loop it may not run (``MAYBE``)."""
        if self.switches.state != before:
            for switch, state in self.switches.state.items():
                if before.get(switch) != state and self.unit.switches.get(switch) != ON:
                    if state == ON and switch in self.hiding_switches and self._conditional():
                        state = MAYBE
                    self.unit.switches[switch] = state

    def _conditional(self) -> bool:
        """The current node runs only on some paths of its unit (an ``if``, a loop, a
        conditional expression or a short-circuit operand between it and its function)."""
        for ancestor in reversed(self.ctx.ancestors):
            kind = type(ancestor)
            if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Module:
                return False
            if kind in _CONDITIONAL:
                return True
        return False

    def visitors(self) -> Sequence[object]:
        return (self, self._bindings)

    def visit_Call(self, node: cst.Call) -> None:
        # (``type() is`` on the callee: an ABC's isinstance() costs much when it fails)
        self.unit.sets.update(names_given(node, self._function()))
        if type(node.func) is cst.Name:
            self.bare_calls.setdefault(node.func.value, []).append((self.unit_name, node))
        name = self.ctx.qualname(node.func)
        if not self.unit.calls_unknown:
            # ``Net()`` / ``ALGOS["ppo"](env)`` / ``trainer.fit(model)`` where nothing in the
            # module binds the name: code (a model) the analysis does not see
            roots = [_root_name(node.func)] if name is None else []
            roots.extend(arg.value for arg in node.args if type(arg.value) is cst.Name)
            for root in roots:
                if root is not None and self.ctx.qualname(root) is None:
                    self._unresolved.setdefault(self.unit_name, set()).add(root.value)
        if name is None:
            self.unit.implicit.add(Implicit.CALL)  # a value called (``model(x)``): it may run ``forward``
            func = node.func
            container = (
                self.looked_up.get(self.unit_name, {}).get(func.value) if type(func) is cst.Name
                else self._lookup_source(func)
            )
            if container is not None:
                self.unit.lookup_calls.add(container)  # ``MODELS[name](cfg)``
            if self.unit.class_level and self.owner is not None and type(func) is cst.Name and func.value == self.receiver:
                self.unit.bare.add(self.owner)  # ``cls(...)`` in a class method instantiates its class
        elif name in LAUNCHERS and not node.args:
            self.unit.bare.add("main")  # ``tf.compat.v1.app.run()`` runs the module's ``main``
        elif name in self.getters:
            read = literal_value(find_arg(node, "name", 1), self.ctx.qualname)
            if isinstance(read, str):
                self.unit.reads.add(read)  # ``getattr(obj, "run")``
            else:
                source = find_arg(node, "o", 0)
                module = self.ctx.qualname(source) if source is not None else None
                if module is not None:
                    self.unit.lookups.add(module)  # ``getattr(models, cfg.arch)``: any of its definitions
        self.gradient_functions.update(self._gradient_arguments(node, name))
        before = dict(self.switches.state)
        self.switches.call(node, name)
        self._switched(before)
        unit = self.unit
        self._selected(node, self.selection.call(node, name))
        if not self.gradient_definitions:
            if self._differentiates(node, name):
                if name is None or not name.startswith(self.training_objects):
                    unit.training_places.add(self._cpu_scope() or "")
                if not unit.differentiates:
                    self._trains(node)
            elif name is not None and name in self.input_gradients:
                unit.backward = True
                unit.training_places.add(self._cpu_scope() or "")
                scope = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)), self.ctx.module)
                self.input_gradient_calls.append((node, scope, self.unit_name))
            self._gradient_update(node, name)
        passed = passed_by_call(node, name if name is not None else LOCAL + node.func.value if type(
            node.func) is cst.Name else None, self.estimator_modes)
        if passed is not None:
            unit.passes.add(passed)
        if not unit.evaluates:
            unit.evaluates = self._evaluates(node, name)
        method = node.func.attr.value if type(node.func) is cst.Attribute else None
        if not unit.saves_model:
            unit.saves_model = (
                name is not None and (name in self.save_calls or name.startswith(self.save_namespaces))
            ) or method in self.save_methods
        if not unit.loads_model:
            unit.loads_model = name is not None and name in self.load_calls
        if not unit.saves_loaded:
            unit.saves_loaded = name is None and method in self.save_after_load_methods
        if not unit.writes_arrays:
            unit.writes_arrays = self._writes_arrays(node, name, method)
        if name in self.seed_calls:
            unit.seeds = True
        if not unit.serves:
            unit.serves = ((name in self.viewer_names or name.startswith(self.viewer_namespaces)
                            or (name in self.prompt_calls and self._in_loop())) if name is not None
                           else method is not None and bool(
                self.viewer_methods.get(method)) and self.ctx.imports.mentions(*self.viewer_methods[method]))
        if not unit.benchmarks_speed and name is not None and name.startswith(self.speed_benchmarks):
            unit.benchmarks_speed = True
        if name is not None:
            if name in self.collectives and not _conditional(node, self.ctx.parent):
                unit.needs_process_group = True
            if name in self.process_group_starts:
                unit.starts_process_group = True
        self._option(node, name)
        if name is not None and self.hints:
            hinted = [framework for framework, names in self.hints.items() if name.startswith(names)]
            # a call spelled through ``tf.compat.v1`` was written for a version that has the
            # alias: it says nothing of an older one
            dotted = dotted_name(node.func) if hinted else None
            if hinted and (dotted is None or not self.ctx.imports.via_same_api(dotted)):
                unit.version_hints.update(hinted)

    def _in_loop(self) -> bool:
        """The node being walked is inside a loop of its function (or of module code)."""
        for node in reversed(self.ctx.ancestors):
            if isinstance(node, (cst.For, cst.While)):
                return True
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
        return False

    def _writes_arrays(self, node: cst.Call, name: Optional[str], method: Optional[str]) -> bool:
        """``node`` writes arrays out as data files (rule data ``array_writes``: ``np.save``,
        ``soundfile.write``, ``ndarray.tofile``; ``h5py.File`` only opened to write) where
        the default run goes: not under ``if args.dump_features:`` of an option left off."""
        if name is not None:
            if name not in self.array_write_calls:
                return False
            mode = self.array_write_modes.get(name)
            if mode is not None:
                given = literal_value(find_arg(node, mode["kw"], mode["pos"]), self.ctx.qualname)
                if not isinstance(given, str) or not given.startswith(tuple(mode["writing"])):
                    return False
        elif method not in self.array_write_methods:
            return False
        return not self._off_default_run()

    def _off_default_run(self) -> bool:
        """The node being walked is on a branch of an ``if`` the default run does not take
        (``analysis.defaultrun``: an option's default, a literal)."""
        if self._default_run is None:
            self._default_run = DefaultRun(self.ctx.module, self.ctx.qualname)
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 2, -1, -1):
            node, child = ancestors[index], ancestors[index + 1]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(node, cst.If) and child is not node.test:
                truth = self._default_run.truth(node.test, ancestors[: index + 1])
                if truth is not None and truth != (child is node.body) and not self._tests_required_option(node.test):
                    return True
        return False

    def _tests_required_option(self, test: cst.BaseExpression) -> bool:
        """``test`` reads an option an ``assert`` of the module tests (``assert
        args.dump_features or args.dump_waveforms``): the program runs with one of them
        given, so their defaults do not say which branch a real run takes."""
        if self._required_options is None:
            self._required_options = frozenset(
                node.attr.value for check in nodes_in(self.ctx.module, cst.Assert)
                for node in nodes_in(check.test, cst.Attribute) if self.ctx.qualname(node) is None
            )
        return any(
            node.attr.value in self._required_options
            for node in nodes_in(test, cst.Attribute) if self.ctx.qualname(node) is None
        )

    def visit_BaseString(self, node: cst.BaseString) -> None:
        self._selected(node, self.selection.literal(node))

    def _selected(self, node: cst.CSTNode, selected: Optional[Selected]) -> None:
        if selected is None or (selected.places_value and _in_predicate(node, self.ctx.parent, self.ctx.qualname)):
            return
        if self._after_placed_test(node):
            return  # ``if device.type == "cuda": ...``: follows a placement made elsewhere
        guards = tuple(_guarding_options(node, self.ctx.parent))
        if guards and not selected.options and selected.when is None and selected.given_option is None:
            # ``if opt.cuda: model.cuda()``: the option's default decides
            selected = Selected(selected.how, options=guards, unless_option=selected.unless_option, declared_only=selected.declared_only)
        self.selections.append((node, self.unit_name, selected))

    def _after_placed_test(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` runs only where a test that a value is already on the GPU holds
        (the body of ``if x.is_cuda:`` / ``if device.type == "cuda" and ...:``, rule data
        ``placed_flags`` / ``placed_kinds``), within its function."""
        data = self.selection.data
        flags, kinds = frozenset(data.get("placed_flags", ())), frozenset(data.get("placed_kinds", ()))
        if not flags and not kinds:
            return False
        child, current = node, self.ctx.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            if isinstance(current, (cst.If, cst.IfExp)) and child is current.body and any(
                self._tests_placed(test, flags, kinds) for test in _conjuncts(current.test)
            ):
                return True
            child, current = current, self.ctx.parent(current)
        return False

    def _tests_placed(self, test: cst.BaseExpression, flags: FrozenSet[str], kinds: FrozenSet[str]) -> bool:
        """``x.is_cuda`` (a flag), ``x.type == "cuda"`` / ``"cuda" == x.type`` (a kind)."""
        if isinstance(test, cst.Attribute):
            return test.attr.value in flags and self.ctx.qualname(test) is None
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return False
        target = test.comparisons[0]
        if not isinstance(target.operator, cst.Equal):
            return False
        pattern = self.selection.data["device_literal"]
        for side, other in ((test.left, target.comparator), (target.comparator, test.left)):
            if isinstance(side, cst.Attribute) and side.attr.value in kinds and is_device_literal(other, pattern):
                return True
        return False

    def _option(self, node: cst.Call, name: Optional[str]) -> None:
        """``parser.add_argument("--gpus", default=1)``, ``flags.DEFINE_bool("cuda", ...)``:
        the defaults that decide an option-selected GPU."""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if method == "add_argument":
            flags = [
                value for value in (literal_value(a.value, self.ctx.qualname) for a in node.args if a.keyword is None)
                if isinstance(value, str)
            ]
            dest = literal_value(find_arg(node, "dest", None), self.ctx.qualname)
            if not isinstance(dest, str):
                longs = [f for f in flags if f.startswith("--")]
                dest = (longs[0] if longs else flags[0] if flags else "").lstrip("-").replace("-", "_")
            default = find_arg(node, "default", None)
            if default is not None:
                value = literal_value(default, self.ctx.qualname)
            elif literal_value(find_arg(node, "required", None), self.ctx.qualname) is True:
                value = UNKNOWN
            else:
                action = literal_value(find_arg(node, "action", None), self.ctx.qualname)
                value = {"store_true": False, "store_false": True}.get(action, None) if isinstance(action, str) else None
        elif name is not None and name.startswith("absl.flags.DEFINE_"):
            dest = literal_value(find_arg(node, "name", 0), self.ctx.qualname)
            value = literal_value(find_arg(node, "default", 1), self.ctx.qualname)
        else:
            return
        if isinstance(dest, str) and dest.isidentifier():
            self.options[dest] = UNKNOWN if dest in self.options and self.options[dest] != value else value

    def _parameter_options(self, unit_name: str, depth: int = 0) -> Dict[str, Any]:
        """The parameters of the top-level function ``unit_name`` (a method's unit is
        ``Class.method``: none) that every call of it in this module leaves at their
        literal default, or passes a parameter of its caller that is one (``def
        main(cuda=0)`` called as ``main()``, and ``evaluate(cuda)`` in it), with that
        value: the default run takes it. A function this module never calls gets none
        (its callers elsewhere may pass anything)."""
        calls = self.bare_calls.get(unit_name, [])
        if not calls or depth > 4:
            return {}
        found: Dict[str, Any] = {}
        callers: Dict[str, Dict[str, Any]] = {}
        for name, (position, default) in self.parameter_defaults.get(unit_name, {}).items():
            values = []
            for caller, call in calls:
                passed = _passed(call, name, position)
                if passed is None:
                    values.append(default)
                elif isinstance(passed, cst.Name) and passed is not UNKNOWN_ARG and caller != unit_name:
                    if caller not in callers:
                        callers[caller] = self._parameter_options(caller, depth + 1)
                    values.append(callers[caller].get(passed.value, UNKNOWN))
                else:
                    values.append(UNKNOWN)
            if values and all(v is not UNKNOWN and v is not ABSENT for v in values) and all(v == values[0] for v in values):
                found[name] = values[0]
        return found

    def _decide(self, selected: Selected, unit_name: str = MODULE_UNIT) -> Tuple[bool, Optional[ConditionalGpu]]:
        """Whether a selection holds with every option at its default (and every
        parameter of the function it is in that this module's calls leave at its
        default), and the versions it is limited to (None: all)."""
        data = self.selection.data
        options = {**self.options, **self._parameter_options(unit_name)}
        if selected.given_option is not None:
            return self.options.get(selected.given_option) is not None, None
        if selected.unless_option is not None:
            default = self.options.get(selected.unless_option, False)
            return (default is UNKNOWN or not default), None
        if selected.options:
            known = [options[o] for o in selected.options if o in options]
            if len(known) == len(selected.options) and UNKNOWN not in known:
                # every option is declared here with a default: they decide
                if all(gpu_value(value, data) for value in known):
                    return True, None
                return (selected.when is not None), selected.when
            if selected.declared_only:
                return False, None
            if selected.when is None:
                return True, None  # an option declared elsewhere: its default is not known
        return True, selected.when

    # -- imports
    def visit_Import(self, node: cst.Import) -> None:
        names = [dotted_name(alias.name) or "" for alias in node.names]
        self._framework_import(node, names)
        self._project_import(node, names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._framework_import(node, [dotted_name(node.module) or ""])
        base = dotted_name(node.module) if node.module is not None else ""
        if node.relative:
            base = resolve_relative(self.ctx.module_name, self.ctx.is_package, len(node.relative), base or "")
        names = [base or ""]
        if isinstance(node.names, cst.ImportStar):
            if base and self.depth == 0:
                self.stars.append(base)
        else:
            names.extend(f"{base}.{dotted_name(alias.name)}" if base else dotted_name(alias.name) or "" for alias in node.names)
        self._project_import(node, names)

    def _project_import(self, node: cst.CSTNode, names: List[str]) -> None:
        """Imports under ``if TYPE_CHECKING:`` never run: they add no module to a program
        (a package ``__init__`` that lists its whole library for type checkers)."""
        (self.type_checking_imports if under_type_checking(node, self.ctx.parent) else self.running_imports).update(names)
        if _import_guarded(node, self.ctx.parent):
            self.optional_imports.update(n for n in names if n)

    def _framework_import(self, node: cst.CSTNode, names: List[str]) -> None:
        for framework, spec in self.frameworks.items():
            if any(n == m or n.startswith(m + ".") for n in names for m in spec["modules"]):
                # a branch chosen by a string (``args.format == "tflite"``) or one the default
                # run does not take (``if config.compare_torch:`` of a field declared False)
                on_branch = on_option_branch(node, self.ctx.parent) or self._off_default_run()
                (self.imported_on_branch if on_branch else self.imported_by_default).add(framework)

    def _evaluates(self, node: cst.Call, name: Optional[str]) -> bool:
        if name is not None:
            return name in self.evaluation_calls or self._evaluation_function(name.rpartition(".")[2])
        if isinstance(node.func, cst.Attribute) and not node.args:
            needs = self.evaluation.get("methods", {}).get(node.func.attr.value)
            return bool(needs) and self.ctx.imports.mentions(*needs)
        return False

    def _evaluation_function(self, callee: str) -> bool:
        """``callee`` matches a pattern of rule data ``evaluation.function_names``; the same
        few names come back call after call."""
        found = self._evaluation_names.get(callee)
        if found is None:
            found = self._evaluation_names[callee] = any(
                fnmatch.fnmatchcase(callee, pattern) for pattern in self.evaluation_functions
            )
        return found

    def _trains(self, node: cst.Call) -> None:
        """A training call: the unit differentiates, or does so only where the tests on a
        parameter or a field that lead to the call pass (``if mode == 'train':``)."""
        gate = training_gate(self.ctx.ancestors, self.receiver, top_level=self.owner is None, modes=self.estimator_modes)
        if gate is None:
            self.unit.differentiates = True
        else:
            self.unit.gated_training.add(gate)

    def _cpu_scope(self) -> Optional[str]:
        """The framework whose device scope around the node being walked puts it on the CPU
        in the default run (``with tf.device("/cpu:0"):``, or a device the default run
        computes: ``"/gpu:0" if args.gpu >= 0 else "/cpu:0"`` with ``--gpu`` defaulting
        to -1), else None.  The innermost scope in the function decides."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            node = ancestors[index]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(node, cst.With):
                device = self._device_of(node, ancestors[: index + 1])
                if device is not None:
                    return device or None
        return None

    def _device_of(self, node: cst.With, context: Sequence[cst.CSTNode]) -> Optional[str]:
        """What a ``with`` statement's device scope says (``context``: the statement and its
        ancestors): the framework where it puts its body on the CPU in the default run, ""
        for a device scope that does not, None for a statement that sets no device."""
        for item in reversed(node.items):
            call = item.item
            name = self.ctx.qualname(call.func) if isinstance(call, cst.Call) else None
            framework = self.cpu_scopes.get(name) if name is not None else None
            if framework is None:
                continue
            device = find_arg(call, "device_name", 0) if isinstance(call, cst.Call) else None
            if device is None:
                return ""
            if self._default_run is None:
                self._default_run = DefaultRun(self.ctx.module, self.ctx.qualname)
            text = self._default_run.text(device, context)
            pattern = self.frameworks[framework]["cpu_scope"]["device"]
            return framework if text is not None and regex(pattern).match(text) else ""
        return None

    def _differentiates(self, node: cst.Call, name: Optional[str]) -> bool:
        """A training call (rule data).  ``super().apply_gradients(...)`` is not one: an
        override forwarding to its base implements the API, and its caller trains."""
        if _on_super(node.func):
            return False
        if name is not None:
            return self._training_name(name)
        if isinstance(node.func, cst.Attribute):
            needs = self.diff["methods"].get(node.func.attr.value)
            return bool(needs) and self.ctx.imports.mentions(*needs)
        return False

    def _training_name(self, name: str) -> bool:
        """A training call by its qualified name (rule data ``calls``, ``prefixes``), not
        one under ``not_prefixes``: a learning-rate schedule sets a rate, it steps nothing."""
        if name in self.training_calls:
            return True
        return name.startswith(self.training_prefixes) and not name.startswith(self.not_training_prefixes)

    def _gradient_update(self, node: cst.Call, name: Optional[str]) -> None:
        """Note a JAX gradient transform taken in the unit being walked, and whether the
        call updates parameters; ``finish`` joins them (``GradientUpdates``)."""
        if name is not None and name in self.gradient_updates.transforms:
            self.gradient_units.add(self.unit_name)
            scope = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)), self.ctx.module)
            self.gradient_calls.append((node, scope))
        elif not self.updates_parameters:
            self.updates_parameters = self.gradient_updates.updates(node, name, self.ctx.imports.mentions)

    def _gradient_subtracted(self, transform: cst.Call, scope: cst.CSTNode) -> bool:
        """A hand-written update: ``scope``, the function around ``transform`` (or the
        module), subtracts the gradient it gives (``grads = jax.grad(loss)(params)`` then
        ``params - lr * grads``, or ``grad_fn = jax.value_and_grad(loss)`` then
        ``_, grads = grad_fn(params)`` and ``w -= lr * grads``).  Asked once the walk is
        done: the names are bound and used after the transform."""
        invoked = self.ctx.parent(transform)
        if isinstance(invoked, cst.Call) and invoked.func is transform:
            if _subtracted(invoked, self.ctx.parent):
                return True  # ``params - lr * jax.grad(loss)(params)``
            gradients = _assigned_from(invoked, self.ctx.parent)
        else:  # the gradient function, called later in the scope
            functions = _assigned_from(transform, self.ctx.parent)
            gradients = set()
            for call in calls_in(scope):
                if isinstance(call.func, cst.Name) and call.func.value in functions:
                    gradients |= _assigned_from(call, self.ctx.parent)
        return bool(gradients) and _subtracts_names(scope, gradients)

    def finish(self) -> None:
        anchored: Set[Tuple[str, bool]] = set()
        computes_with: Set[str] = set()  # frameworks a selecting library call runs on
        for node, unit_name, selected in self.selections:
            holds, when = self._decide(selected, unit_name)
            if not holds:
                continue
            if selected.framework is not None:
                computes_with.add(selected.framework)
            unit = self.units[unit_name]
            if when is None:
                unit.selects_gpu = unit.selects_gpu or selected.how
            elif unit.gpu_if is None:
                unit.gpu_if = when
            if self.anchor_code is not None and (unit_name, when is None) not in anchored:
                anchored.add((unit_name, when is None))
                self.ctx.defer(node, self.anchor_code, **GpuSelectionAnchor(selected.how, unit_name, when).to_json())
        # a framework imported only on a branch the default run does not take (an export
        # backend for ``--format tflite``) is not one the program uses
        lazy = self.imported_on_branch - self.imported_by_default
        used = sorted(
            framework for framework, spec in self.frameworks.items()
            if framework not in lazy and (self.ctx.imports.mentions(*spec["modules"]) or framework in computes_with)
        )
        names = frozenset(name for name in self.units if name not in (MODULE_UNIT, MAIN_UNIT))
        if not self.updates_parameters:
            self.updates_parameters = any(self._gradient_subtracted(call, scope) for call, scope in self.gradient_calls)
        if self.updates_parameters:
            for name in self.gradient_units:  # a gradient this module feeds to an update
                self.units[name].differentiates = True
        for call, scope, name in self.input_gradient_calls:
            # a gradient ``torch.autograd.grad`` returns trains where the module updates
            # parameters (an optimizer library, a subtraction) or subtracts what it returns
            if self.updates_parameters or _gradient_result_subtracted(call, scope, self.ctx.parent):
                self.units[name].differentiates = True
        for name in self.gradient_functions:
            if name in self.units:  # a top-level function that computes another's gradient
                self.units[name].differentiates = False
                self.units[name].gated_training.clear()
        bound_anywhere = self._bindings.names
        for name, roots in self._unresolved.items():
            if not roots <= bound_anywhere:
                self.units[name].calls_unknown = True
        registries = set(self.registry_aliases.values())
        bound = {alias for alias in self.units[MODULE_UNIT].bound}
        units = {
            name: builder.build(self.ctx.module_name, names, registries, bound if name != MODULE_UNIT else ())
            for name, builder in self.units.items()
        }
        self.ctx.facts.put(GpuModuleFacts(
            frameworks=tuple(used),
            selects_gpu=next((u.selects_gpu for u in units.values() if u.selects_gpu), None),
            switches=dict(sorted(self.switches.state.items())),
            differentiates=any(u.differentiates or u.gated_training or u.backward for u in units.values()),
            seeds=any(u.seeds for u in units.values()),
            imports=tuple(sorted(
                name for name in self.ctx.imports.imported_modules
                if name and (name in self.running_imports or name not in self.type_checking_imports)
            )),
            evaluates=any(u.evaluates for u in units.values()),
            saves_model=any(u.saves_model for u in units.values()),
            units=units,
            exports={alias: target for alias, target in sorted(self.ctx.imports.aliases.items()) if "." in target},
            stars=tuple(self.stars),
            registries=dict(sorted(self.registry_aliases.items())),
            optional=tuple(sorted(self.optional_imports)),
            defined=tuple(sorted(bound_anywhere)) if self.ctx.is_package else (),
        ))


# ---------------------------------------------------------------- pass 2: the view ----
class _ScopeSummary:
    """Frameworks, switches (``ON`` wins over ``MAYBE``), seeding and differentiation of
    a set of modules' ``GpuModuleFacts``."""

    def __init__(self, facts: Iterable[GpuModuleFacts]) -> None:
        self.frameworks: Set[str] = set()
        self.switches: Dict[str, str] = {}
        self.seeds = False
        self.differentiates = False
        self.evaluates = False
        for fact in facts:
            self.frameworks.update(fact.frameworks)
            for switch, state in fact.switches.items():
                if self.switches.get(switch) != ON:
                    self.switches[switch] = state
            self.seeds = self.seeds or fact.seeds
            self.differentiates = self.differentiates or fact.differentiates
            self.evaluates = self.evaluates or fact.evaluates


class ProgramView:
    """Project-wide answers for the kernel rules: which modules form each entry point's
    program, whether the project is a GPU program, which switches a program sets, and
    the target version of each framework.

    ``earlier``: the view of the last project over the same files (a language server's):
    the import edges of the modules whose imports are as they were are taken over, and
    with them, when no edge changed, the programs; so are the declared versions
    (``engine.Decisions.forget`` drops the earlier view when a file changes on disk)."""

    def __init__(self, project: Project, data: Mapping[str, Any], earlier: Optional["ProgramView"] = None) -> None:
        self.project = project
        self.data = data
        self.estimator_modes = EstimatorModes.from_data(data)
        self.records = {record.path: record for record in project}
        self.facts = {path: record.facts.get(GpuModuleFacts) or GpuModuleFacts() for path, record in self.records.items()}
        self.entries = sorted(path for path, record in self.records.items() if is_entry_point(record.facts))
        self.names = [(path, record.module_name) for path, record in self.records.items()]
        if earlier is not None and (earlier.data is not data or earlier.names != self.names or earlier.project.root != project.root):
            earlier = None  # other modules answer to an import
        self.edges: Dict[str, FrozenSet[str]] = {path: self._imports_of(path, earlier) for path in self.records}
        self.closures: Dict[str, FrozenSet[str]]
        self.closures_of_modules: Dict[str, FrozenSet[str]]
        self.orphans: FrozenSet[str]
        if earlier is not None and earlier.entries == self.entries and earlier.edges == self.edges:
            self.closures = earlier.closures
            self.closures_of_modules = earlier.closures_of_modules
            self.orphans = earlier.orphans
        else:
            self.closures = {path: self._closure(path) for path in self.entries}
            self.closures_of_modules = {}
            reached: Set[str] = set().union(*self.closures.values()) if self.closures else set()
            # modules no entry point reaches (imported dynamically, or library code): their
            # switches count for every program, to give the benefit of the doubt
            self.orphans = frozenset(path for path in self.records if path not in reached)
        self._targets: Dict[Tuple[str, Optional[str], Optional[str]], Optional[Version]] = {}
        self._pins: Optional[Dict[str, str]] = None
        self._near_pins: Dict[str, Dict[str, str]] = {}
        self._files: Optional[List[str]] = None
        if earlier is not None:  # read from files that did not change: a change on disk drops the earlier view
            self._pins, self._near_pins, self._files = earlier._pins, earlier._near_pins, earlier._files
        self._everything = frozenset(self.records)
        self._programs: Dict[str, FrozenSet[str]] = {}
        self._scopes: Dict[str, List[FrozenSet[str]]] = {}
        self._summaries: Dict[FrozenSet[str], _ScopeSummary] = {}
        self.memo: Dict[str, Any] = {}  # what the kernel rules derive from the view, per run
        self.reach = Reachability(
            project, {path: fact.units for path, fact in self.facts.items()},
            {path: fact.exports for path, fact in self.facts.items()},
            {path: fact.stars for path, fact in self.facts.items()},
            MethodCalls.from_data(data.get("program", {}).get("methods", {}), data.get("program", {}).get("registering_decorator", "")),
            {path: fact.registries for path, fact in self.facts.items() if fact.registries},
            [name for entry in data.get("gpu", {}).get("gpu_by_default", []) for name in entry["names"]],
        )
        # modules grouped by what their facts add to a summary (a few dozen kinds on a
        # large project): a program's summary joins one fact per group it meets, instead
        # of the facts of each of its (often thousand) modules
        self._kinds: Dict[Tuple[Any, ...], Tuple[GpuModuleFacts, Set[str]]] = {}
        for path, fact in self.facts.items():
            kind = (fact.frameworks, tuple(sorted(fact.switches.items())), fact.seeds, fact.differentiates, fact.evaluates)
            self._kinds.setdefault(kind, (fact, set()))[1].add(path)

    # -- imports and programs
    def _imports_of(self, path: str, earlier: Optional["ProgramView"]) -> FrozenSet[str]:
        """The project modules ``path`` imports (``Project.module_near``), or, when its
        imports and search path are as in ``earlier``, the modules they found there."""
        imports = self.facts[path].imports
        if (earlier is not None and path in earlier.edges and earlier.facts[path].imports == imports
                and earlier._path_entries(path) == self._path_entries(path)):
            return earlier.edges[path]
        folders = self.project.search_path(path)
        found = set()
        for name in imports:
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                record = self.project.module_on_path(".".join(parts[:end]), folders)
                if record is not None and record.path != path:
                    found.add(record.path)
        return frozenset(found)

    def _path_entries(self, path: str) -> Tuple[str, ...]:
        """What the module adds to ``sys.path`` (its search path, ``Project.search_path``)."""
        entry = self.records[path].facts.get(EntryFacts)
        return entry.path_entries if entry is not None else ()

    def _closure(self, start: str) -> FrozenSet[str]:
        seen = {start}
        stack = [start]
        while stack:
            for nxt in self.edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)

    def closure_of(self, path: str) -> FrozenSet[str]:
        """The modules that run when ``path`` is imported."""
        found = self.closures.get(path)
        if found is None:
            found = self.closures_of_modules.get(path)
            if found is None:
                found = self.closures_of_modules[path] = self._closure(path)
        return found

    def program_of_entry(self, entry: str) -> FrozenSet[str]:
        """The modules that run when ``entry`` runs, plus the unreached ones."""
        found = self._programs.get(entry)
        if found is None:
            found = self._programs[entry] = self.closures.get(entry, frozenset({entry})) | self.orphans
        return found

    def entries_reaching(self, path: str) -> List[str]:
        return [entry for entry in self.entries if path in self.closures[entry]]

    def registry_users(self, key: UnitKey) -> List[str]:
        """The entry points whose programs run a function of a registry module the
        definition of ``key`` (a class or function, or a method of one) is filed in by a
        decorator (``@register_criterion("ctc")``): they may look it up by the name their
        config gives, and the registry's package may import its module by a computed name
        (``importlib.import_module("pkg." + name)`` over the package's files), which no
        import edge shows."""
        unit = self.reach.unit((key[0], key[1].split(".", 1)[0]))
        registries = {
            found for found in (self._registry_module(name, key[0]) for name in (unit.registered_by if unit else ()))
            if found is not None
        }
        cache: Dict[str, List[str]] = self.memo.setdefault("registry_users", {})
        users: Set[str] = set()
        for registry in registries:
            found = cache.get(registry)
            if found is None:
                found = cache[registry] = [
                    entry for entry in self.entries
                    if any(path == registry and name not in (MODULE_UNIT, MAIN_UNIT) for path, name in self.reached_units(entry))
                ]
            users.update(found)
        return sorted(users)

    def _registry_module(self, decorator: str, near: str) -> Optional[str]:
        """The project module a registering decorator's qualified name lives in."""
        parts = decorator.split(".")
        for end in range(len(parts) - 1, 0, -1):
            record = self.project.module_near(".".join(parts[:end]), near)
            if record is not None:
                return str(record.path)
        return None

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
        """Whether some program of the project is a GPU program (a quick way out for the
        op rules; which programs are is ``entry_uses_gpu``)."""
        if any(fact.selects_gpu or any(unit.gpu_if for unit in fact.units.values()) for fact in self.facts.values()):
            return True
        return self._gpu_by_default(set().union(*(f.frameworks for f in self.facts.values())))

    def _gpu_by_default(self, frameworks: Iterable[str]) -> bool:
        """TensorFlow and JAX take the GPU unless the config says ``devices = ["cpu"]``."""
        if "cpu" in [d.lower() for d in self.project.config.devices]:
            return False
        default_gpu = {name for name, spec in self.data["frameworks"].items() if spec.get("gpu_by_default")}
        return bool(default_gpu.intersection(frameworks))

    def entry_uses_gpu(self, entry: str) -> bool:
        """docs/contract.md "GPU program", decided per program: the code ``entry`` runs
        selects a GPU, or its modules use TensorFlow / JAX for more than file I/O and train
        somewhere other than under a CPU device scope."""
        cache: Dict[str, bool] = self.memo.setdefault("entry_uses_gpu", {})
        found = cache.get(entry)
        if found is None:
            program = self.closures.get(entry, frozenset({entry}))
            computing = self.frameworks(program) - self.io_only_frameworks(entry) - self.cpu_trained_frameworks(entry) \
                - self.gpus_hidden_from(entry)
            found = cache[entry] = self.gpu_selection(entry) is not None or self._gpu_by_default(computing)
        return found

    def gpus_hidden_from(self, entry: str) -> FrozenSet[str]:
        """The frameworks whose GPUs code the program of ``entry`` runs hides, wherever that
        code runs (not under a condition): ``tf.config.set_visible_devices([], "GPU")`` in a
        JAX program that reads its data with ``tf.data``, ``JAX_PLATFORMS=cpu``.  Their work
        runs on the CPU; a setting in a module no program reaches hides nothing."""
        hidden = {
            switch for unit in (self.reach.unit(key) for key in self.reached_units(entry)) if unit is not None
            for switch, state in unit.switches.items() if state == ON
        }
        return frozenset(
            name for name, spec in self.data["frameworks"].items() if spec.get("hidden_by") in hidden
        )

    def cpu_trained_frameworks(self, entry: str) -> FrozenSet[str]:
        """The frameworks whose device scope puts every training call of the program of
        ``entry`` on the CPU (``with tf.device("/cpu:0"):`` around the optimizer step, or a
        device the default run computes as the CPU: ``UnitFacts.training_places``): its model
        work is CPU work, where the framework's GPU kernels never run.  A program that
        trains nothing, or trains once outside such a scope, keeps its frameworks."""
        keyed = [(k, self.reach.unit(k)) for k in self.reached_units(entry)]
        places = {
            place for key, unit in keyed if unit is not None and self.unit_trains(entry, key, unit)
            for place in unit.training_places
        }
        if "" in places:
            # training reached only through calls made under a CPU scope (``with
            # tf.device("/cpu:0"): trainer.train(...)``) runs there too
            outside = self._reached_outside_cpu_scopes(entry, keyed)
            if outside is not None:
                reached, frameworks = outside
                places = {
                    place for key, unit in keyed if unit is not None and self.unit_trains(entry, key, unit)
                    for place in (unit.training_places if key in reached else frameworks)
                }
        return frozenset(places) if "" not in places else frozenset()

    def _reached_outside_cpu_scopes(self, entry: str, keyed: Sequence[Tuple[UnitKey, Optional[UnitFacts]]]
                                    ) -> Optional[Tuple[FrozenSet[UnitKey], FrozenSet[str]]]:
        """The units the program of ``entry`` runs when what its code names or calls only
        under a CPU device scope is left out (``UnitFacts.cpu_refs``), and the frameworks of
        those scopes; None where the program has no such call."""
        held = {key: unit for key, unit in keyed if unit is not None and (unit.cpu_refs or unit.cpu_reads)}
        if not held:
            return None
        units: Dict[str, Mapping[str, UnitFacts]] = dict(self.reach.units)  # modules without such calls shared
        frameworks: Set[str] = set()
        for (path, name), unit in held.items():
            refs = {ref for ref, _ in unit.cpu_refs}
            reads = {read for read, _ in unit.cpu_reads}
            frameworks.update(framework for _, framework in (*unit.cpu_refs, *unit.cpu_reads))
            units[path] = {**units[path], name: replace(
                unit, refs=tuple(ref for ref in unit.refs if ref not in refs),
                reads=tuple(read for read in unit.reads if read not in reads),
                built_reads=tuple(read for read in unit.built_reads if read.rpartition(":")[2] not in reads),
                returned_reads=tuple(read for read in unit.returned_reads if read.rpartition(":")[2] not in reads),
            )}
        cut = Reachability(
            self.project, units, self.reach.exports, self.reach.stars, self.reach.calls, self.reach.registries,
            self.reach.modeled,
        )
        return cut.reached(entry, self.closures.get(entry, frozenset({entry})), self._console_functions(entry)), frozenset(frameworks)

    def io_only_frameworks(self, entry: str) -> FrozenSet[str]:
        """The frameworks the program of ``entry`` uses only to read and write files
        (rule data ``io_only``: ``tf.io.gfile``, ``TFRecordWriter``, ``tf.train.Example``):
        the code it runs refers to names of theirs, and to none other.  They run no
        computation, on the GPU or elsewhere (docs/contract.md "GPU program")."""
        cache: Dict[str, FrozenSet[str]] = self.memo.setdefault("io_only_frameworks", {})
        found = cache.get(entry)
        if found is None:
            io_only = self.data.get("io_only", {})
            only: Dict[str, bool] = {}  # framework -> every name of it referred to is file I/O
            for unit in (self.reach.unit(key) for key in self.reached_units(entry)):
                for name in (*unit.refs, *unit.listed, *unit.bases) if unit is not None else ():
                    framework = self._framework_of(name)
                    if framework is not None:
                        only[framework] = only.get(framework, True) and _named_in(name, io_only.get(framework, ()))
            found = cache[entry] = frozenset(framework for framework, io in only.items() if io)
        return found

    def _framework_of(self, name: str) -> Optional[str]:
        for framework, spec in self.data["frameworks"].items():
            if any(name == module or name.startswith(module + ".") for module in spec["modules"]):
                return str(framework)
        return None

    def reached_units(self, entry: str) -> FrozenSet[UnitKey]:
        """The units the program of ``entry`` runs: the module code of every module it
        imports, and the functions and classes that code names, transitively."""
        cache: Dict[str, FrozenSet[UnitKey]] = self.memo.setdefault("reached_units", {})
        found = cache.get(entry)
        if found is None:
            found = cache[entry] = self.reach.reached(entry, self.closures.get(entry, frozenset({entry})), self._console_functions(entry))
        return found

    def _console_functions(self, entry: str) -> List[str]:
        """The functions of ``entry`` the project's packaging names as console scripts
        (``path:function``): they run when the program starts."""
        entry_facts = self.records[entry].facts.get(EntryFacts) if entry in self.records else None
        return [f"{entry}:{name}" for name in entry_facts.console] if entry_facts is not None else []

    def names_set(self, entry: str) -> FrozenSet[str]:
        """The field names the code the program of ``entry`` runs gives a value
        (``UnitFacts.sets``): an op gated by ``if self.x is not None:`` runs only where ``x``
        is among them."""
        cache: Dict[str, FrozenSet[str]] = self.memo.setdefault("names_set", {})
        found = cache.get(entry)
        if found is None:
            names: Set[str] = set()
            for key in self.reached_units(entry):
                unit = self.reach.unit(key)
                if unit is not None:
                    names.update(unit.sets)
            found = cache[entry] = frozenset(names)
        return found

    def names_applied(self, entry: str) -> Optional[FrozenSet[str]]:
        """The attribute names the code the program of ``entry`` runs may apply: calls or
        hands on (``self.bag(x)``, ``model.bag(x)``, ``nn.Sequential(self.bag)``), reads to
        call a method that runs the value (``self.bag.forward(x)``), by name whatever the
        object; not a read as data (``self.bag.weight``, ``self.bag is None``).  A layer a
        method binds to ``self.bag`` runs its kernels only where ``bag`` is among them.
        None where that code reaches a module's children without naming them (rule data
        ``layers.unnamed``: ``self.children()``): any layer may run."""
        cache: Dict[str, Optional[FrozenSet[str]]] = self.memo.setdefault("names_applied", {})
        if entry in cache:
            return cache[entry]
        unnamed = frozenset(self.data.get("layers", {}).get("unnamed", ()))
        names: Set[str] = set()
        for key in self.reached_units(entry):
            unit = self.reach.unit(key)
            if unit is None:
                continue
            if any(name in unnamed for name in (*unit.called, *unit.self_reads, *unit.data_reads)):
                cache[entry] = None  # ``self.children()``, ``self._modules.values()``
                return None
            names.update(unit.called)
            names.update(read.rpartition(":")[2] for read in unit.typed_reads)
            names.update(set(unit.self_reads).difference(unit.self_data))
        found = cache[entry] = frozenset(names)
        return found

    def unit_selects(self, key: UnitKey, entry: str) -> Optional[str]:
        """How a unit selects the GPU in the program of ``entry`` (a version-dependent
        default counts where the target version has it), or None."""
        unit = self.reach.unit(key)
        if unit is None or (unit.needs_process_group and not self.starts_process_group(entry)):
            return None
        if unit.selects_gpu:
            return unit.selects_gpu
        if unit.gpu_if is not None and self.holds(unit.gpu_if, entry):
            return unit.gpu_if.how
        return None

    def holds(self, when: ConditionalGpu, entry: str) -> bool:
        """Whether the target version of ``when.package`` for ``entry`` is in its range."""
        spec = self.data.get("packages", {}).get(when.package, {})
        version = target_version(
            when.package, self.project.config.target_versions, self.pins(entry), spec.get("known_versions", []),
            {name: when.package for name in spec.get("names", ())},
        )
        return version is not None and in_range(version, when.versions)

    def starts_process_group(self, entry: str) -> bool:
        """Whether code the program of ``entry`` runs starts a process group: else a unit
        that needs one (it calls a collective on every path) never runs to its end, and
        the GPU it selects is that of a distributed run, not the default one."""
        cache: Dict[str, bool] = self.memo.setdefault("starts_process_group", {})
        found = cache.get(entry)
        if found is None:
            units = (self.reach.unit(key) for key in self.reached_units(entry))
            found = cache[entry] = any(unit is not None and unit.starts_process_group for unit in units)
        return found

    def gpu_selection(self, entry: str) -> Optional[UnitKey]:
        """The unit that makes ``entry``'s program a GPU program: one of its own module
        first, then the other modules it runs, by path; None when no code it runs selects
        a GPU."""
        cache: Dict[str, Optional[UnitKey]] = self.memo.setdefault("gpu_selection", {})
        if entry in cache:
            return cache[entry]
        reached = sorted(self.reached_units(entry), key=lambda k: (k[0] != entry, k[0], k[1] != MODULE_UNIT, k[1]))
        found = cache[entry] = next((key for key in reached if self.unit_selects(key, entry)), None)
        return found

    def entry_switches(self, entry: str) -> Mapping[str, str]:
        """The switches the program of ``entry`` sets (``ON`` wins over ``MAYBE``): those
        of the code it runs, and those of modules no entry point reaches (loaded
        dynamically: the benefit of the doubt).  A switch in a function the program never
        calls (``DeterministicEngine._init_run`` of a library it imports) does not count."""
        cache: Dict[str, Dict[str, str]] = self.memo.setdefault("entry_switches", {})
        found = cache.get(entry)
        if found is None:
            found = {}
            sources = [u.switches for u in (self.reach.unit(k) for k in self.reached_units(entry)) if u is not None]
            sources.extend(self.facts[path].switches for path in self.orphans)
            for switches in sources:
                for switch, state in switches.items():
                    if found.get(switch) != ON:
                        found[switch] = state
            cache[entry] = found
        return found

    def entry_switch_on(self, entry: str, switch: str) -> bool:
        """A switch counts when set on, or set from a value the code computes."""
        return switch in self.entry_switches(entry)

    def entry_switch_definitely_on(self, entry: str, switch: str) -> bool:
        return self.entry_switches(entry).get(switch) == ON

    def reached_summary(self, entry: str) -> UnitFacts:
        """What the code ``entry`` runs does, joined: training, evaluation, seeds.  A seed
        counts as the program's wish for repeatable runs where its own module, a function
        or module code sets it, not a method of another module's class (a layer that
        seeds NumPy in its constructor does so whenever it is built)."""
        cache: Dict[str, UnitFacts] = self.memo.setdefault("reached_summary", {})
        found = cache.get(entry)
        if found is None:
            keyed = [(k, u) for k, u in ((k, self.reach.unit(k)) for k in self.reached_units(entry)) if u is not None]
            units = [u for _, u in keyed]
            own = [u for k, u in keyed if k[0] == entry]
            wishes = [u for k, u in keyed if k[0] == entry or "." not in k[1]]
            found = cache[entry] = UnitFacts(
                differentiates=any(self.unit_trains(entry, k, u) for k, u in keyed),
                backward=any(u.backward for u in units),
                evaluates=any(u.evaluates for u in units),
                seeds=any(u.seeds for u in wishes), saves_model=any(u.saves_model for u in own),
                benchmarks_speed=any(u.benchmarks_speed for u in own), loads_model=any(u.loads_model for u in units),
                saves_loaded=any(u.saves_loaded for u in own),
            )
        return found

    def runs_backward(self, entry: str) -> bool:
        """Whether code the program of ``entry`` runs takes a backward pass: it trains, or
        takes a gradient that trains nothing (``torch.autograd.grad`` for normals): the
        backward kernels of the ops on the way run either way."""
        summary = self.reached_summary(entry)
        return summary.differentiates or summary.backward

    def unit_trains(self, entry: str, key: UnitKey, unit: UnitFacts) -> bool:
        """Whether ``unit`` trains in the program of ``entry``: it has a training call that
        runs whenever it does, or one behind tests on a mode parameter or field that a value
        the program's code gives could pass (``get_build_graph_fn('generate', ...)`` builds
        no training step: ``modes``)."""
        if unit.differentiates:
            return True
        return bool(unit.gated_training) and training_runs(key, unit.gated_training, self.program_values(entry))

    def program_values(self, entry: str) -> ProgramValues:
        """The values the code the program of ``entry`` runs passes to the calls it makes
        (by the unit each resolves to) and gives fields of each name."""
        cache: Dict[str, ProgramValues] = self.memo.setdefault("program_values", {})
        found = cache.get(entry)
        if found is None:
            passed = []
            for key in sorted(self.reached_units(entry)):
                unit = self.reach.unit(key)
                for item in unit.passes if unit is not None else ():
                    target = None
                    if item.callee.startswith(LOCAL):
                        target = (key[0], item.callee[len(LOCAL):])
                    elif item.callee:
                        target = self.reach.resolve(item.callee, near=key[0])
                    passed.append((target or ("", ""), item))
            units = [u for u in (self.reach.unit(k) for k in self.reached_units(entry)) if u is not None]
            run = self.estimator_modes.run_by({r for u in units for r in u.called}, {r for u in units for r in u.refs})
            found = cache[entry] = ProgramValues.collect(passed, run)
        return found

    def hooks_differentiate(self, entry: str) -> bool:
        """A class the program of ``entry`` reaches has a framework hook that trains (a
        method rule data's implied lists name, ``train_step``, ``training_step``) that no
        code of the project calls: a trainer outside the project, which the code does not
        show, may call it.  A hook the project's own trainer calls (a task's ``train_step``
        called by the project's ``trainer.py``) runs only where the program reaches that
        caller, and ``reached_summary`` then sees it."""
        cache: Dict[str, bool] = self.memo.setdefault("hooks_differentiate", {})
        found = cache.get(entry)
        if found is None:
            hooks = tuple({name for names in self.reach.calls.implied.values() for name in names})
            called = self._called_names()
            unseen = self.calls_unseen_project_code(entry)
            found = cache[entry] = any(
                (unit.differentiates or bool(unit.gated_training)) and (unseen or method not in called)
                and fnmatch.fnmatchcase(method, hook)
                for path, cls in self.reached_units(entry) if "." not in cls
                for name, unit in self.facts[path].units.items() if name.startswith(cls + ".")
                for method in (name.split(".", 1)[1],)
                for hook in hooks
            )
        return found

    def calls_unseen_project_code(self, entry: str) -> bool:
        """Whether code the program of ``entry`` runs names a module of one of the
        project's packages that the checkout does not hold (``official.modeling.
        fast_training.progressive.train_lib.run_experiment`` where that folder is missing):
        what runs there, a trainer that calls the hooks of the task it is handed, is not
        seen, so a hook the project's other code calls may run as well."""
        cache: Dict[str, bool] = self.memo.setdefault("calls_unseen_project_code", {})
        found = cache.get(entry)
        if found is None:
            packages = self.memo.get("project_packages")
            if packages is None:
                packages = self.memo["project_packages"] = frozenset(
                    record.module_name.split(".")[0] for record in self.records.values()
                    if record.module_name and os.path.basename(record.path) == "__init__.py"
                )
            refs = {
                ref for key in self.reached_units(entry) for unit in (self.reach.unit(key),) if unit is not None
                for ref in unit.refs if ref.split(".")[0] in packages and not self._optional(key[0], ref)
            }
            found = cache[entry] = any(self._unseen_submodule(ref) for ref in sorted(refs))
        return found

    def _optional(self, path: str, name: str) -> bool:
        """``name`` is, or is under, what module ``path`` imports under ``except
        ImportError``: code the project is written to run without (a compiled extension not
        built yet, an internal add-on), not hidden code that runs."""
        facts = self.facts.get(path)
        return facts is not None and any(name == o or name.startswith(o + ".") for o in facts.optional)

    def _unseen_submodule(self, name: str) -> bool:
        """``name`` goes through a package of the project into a part it does not define
        (a submodule missing from the checkout)."""
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            record = self.project.module(".".join(parts[:end]))
            if record is None:
                continue
            if end == len(parts) or os.path.basename(record.path) != "__init__.py":
                return False  # a module's definition, or a name it binds: seen
            child = parts[end]
            facts = self.facts.get(record.path)
            if facts is None or child in facts.units or child in facts.exports or child in facts.defined or facts.stars:
                return False  # defined or imported there (a star import may bring anything)
            return True
        return False

    def _called_names(self) -> FrozenSet[str]:
        """The method names some code of the project calls or reads (on any value, on its
        own instance, on a typed value), whether or not a program runs that code.  Not
        test code (a test that calls ``model.training_step(batch, 0)`` is no trainer), nor
        an override naming its own name (``super().train_step(data)`` implements the hook)."""
        found: Optional[FrozenSet[str]] = self.memo.get("called_names")
        if found is None:
            names: Set[str] = set()
            for path, fact in self.facts.items():
                if self.project.is_test_code(path):
                    continue
                for name, unit in fact.units.items():
                    own = name.rpartition(".")[2]
                    reads = (*unit.called, *unit.self_reads, *(read.rpartition(":")[2] for read in unit.typed_reads))
                    names.update(read for read in reads if read != own)
            found = self.memo["called_names"] = frozenset(names)
        return found

    def entry_frameworks(self, entry: str) -> Set[str]:
        """The frameworks a program is written in (whose switch it needs): those its entry
        module imports itself, else those of the modules it runs (a script that only calls
        its project's ``train()``).  A converter importing a library that also holds JAX
        modules is a PyTorch program."""
        own = self.facts.get(entry)
        if own is not None and own.frameworks:
            return set(own.frameworks)
        return self.frameworks(self.closures.get(entry, frozenset({entry})))

    def module_in_gpu_program(self, path: str) -> bool:
        """Whether code of ``path`` runs in a GPU program: one of the programs that reach
        it is one, or, for code no entry point reaches, the project has one."""
        cache: Dict[str, bool] = self.memo.setdefault("module_in_gpu_program", {})
        found = cache.get(path)
        if found is None:
            entries = self.entries_reaching(path)
            found = cache[path] = (
                any(self.entry_uses_gpu(entry) for entry in entries) if entries else self.is_gpu_program()
            )
        return found

    def is_console_script(self, entry: str) -> bool:
        """A module whose functions the project's packaging names as console scripts."""
        record = self.records.get(entry)
        facts = record.facts.get(EntryFacts) if record is not None else None
        return facts is not None and bool(facts.console)

    def entry_matters(self, entry: str) -> bool:
        """docs/contract.md "programs that matter", for ND205 / ND209: never test code nor
        a speed benchmark (named one and reading a clock, or timing code with a benchmark
        harness); a program whose code trains or seeds (it wants repeatable runs), one
        whose own module puts work on the GPU, one that reaches a class with a training
        hook a trainer outside the project calls (``train_step``) and writes no model
        itself, and one that evaluates or samples from a model without saving one.  A
        converter loads a model, maybe checks a few outputs, and writes it out
        (``torch.save``, the TFLite converter; ``model.save(out)`` where loading it is all
        the program did with it; a checkpoint of a model it built from a task, whose
        training hooks nothing runs).  Only code the program runs counts: a library
        function it never calls does not make it train."""
        if self.project.is_test_code(entry) or self.project.is_speed_benchmark(entry):
            return False
        if self.illustrates_an_api(entry):
            return False
        summary = self.reached_summary(entry)
        if summary.benchmarks_speed or self.profiles_cost(entry):
            return False
        if self.writes_model_outputs(entry):
            return False
        selection = self.gpu_selection(entry)
        if selection is not None and selection[0] == entry:
            return True
        if self.views_or_converts(entry) and not self.trains_or_seeds_in_own_code(entry):
            # a viewer (it serves a page or a GUI, renders an environment) or a converter (it
            # writes a model out): what its own code does is not training, whatever the
            # library code it reaches could do in another mode
            return False
        if summary.differentiates or summary.seeds:
            return True
        if summary.saves_model:
            return False
        if self.hooks_differentiate(entry) and not self.writes_model(entry):
            return True
        # a program that loads a model and only writes it out again (``model.save(out)``)
        # converts it; one that loads it and writes no model predicts with it
        return summary.evaluates or (summary.loads_model and not summary.saves_loaded)

    def constructors_made(self, entry: str) -> List[UnitFacts]:
        """The constructors (``__init__``, ``__post_init__``, ...: rule data
        ``program.methods.with_class``) of the project classes the module of ``entry`` names
        in the code the program runs, and of their project bases: what making one runs
        (``ViewerState(config, pipeline=pipeline)`` whose ``__init__`` starts the web server)
        is the module's own doing, as a function it calls is."""
        constructors = frozenset(self.data.get("program", {}).get("methods", {}).get("with_class", ()))
        found: List[UnitFacts] = []
        seen: Set[UnitKey] = set()
        for key in self.reached_units(entry):
            unit = self.reach.unit(key) if key[0] == entry else None
            for ref in unit.refs if unit is not None else ():
                target = self.reach.target(ref, entry)
                if target is None or "." in target[1] or target in seen:
                    continue
                seen.add(target)
                found.extend(self.reach.lineage_methods(target, constructors))
        return found

    def views_or_converts(self, entry: str) -> bool:
        """The program of ``entry`` shows or writes out what it runs: its own module writes
        a model out, or its own code (``own_code``: its module, or a function of another
        module that code calls, directly or through other functions, such as a project's
        ``enjoy(cfg)`` whose ``render_frame`` calls ``env.render()``) serves a page or a GUI
        or renders an environment.  A method of a class it reaches does not count: a
        training loop's evaluation callback that renders is the trainer's, not the
        program's."""
        module = (self.reach.unit(k) for k in self.reached_units(entry) if k[0] == entry)
        if any(u is not None and (u.serves or u.saves_model) for u in module):
            return True
        if any(u.serves for u in self.constructors_made(entry)):
            return True  # a project class its module makes starts the server
        return any(unit is not None and unit.serves for unit in map(self.reach.unit, self.own_code(entry)))

    def profiles_cost(self, entry: str) -> bool:
        """The program of ``entry`` benchmarks a model's cost: its own code (its module, or
        a function of another module it runs) calls a FLOP counter and reads no data to
        evaluate on (rule data ``program.cost_benchmark``), and no code it runs trains or
        seeds.  A training or evaluation script that also counts its model's FLOPs trains or
        reads its data, and still matters."""
        data = self.data.get("program", {}).get("cost_benchmark", {})
        counters, evaluation_data = tuple(data.get("counters", ())), tuple(data.get("data", ()))
        summary = self.reached_summary(entry)
        if not counters or summary.differentiates or summary.seeds:
            return False
        refs = [ref for unit in self.own_units(entry) for ref in unit.refs]
        return any(_named_in(ref, counters) for ref in refs) and not any(_named_in(ref, evaluation_data) for ref in refs)

    def writes_model_outputs(self, entry: str) -> bool:
        """The program of ``entry`` is a converter of data: it runs models only forward and
        writes what they compute out as arrays (features, waveforms, embeddings) or writes
        a model out.  Its own code (its module, or a function of another module that code
        calls, ``own_code``) writes arrays in the default run (``writes_arrays``) or a model (``saves_model``)
        and names no evaluation function; no code it runs trains, no class it reaches has a training hook a trainer outside
        the project may call, and its own code seeds nothing (``seeds_in_own_code``: a seed
        says it wants repeatable runs)."""
        if self.reached_summary(entry).differentiates or self.seeds_in_own_code(entry):
            return False
        # the writes of its own code (``own_code``: its module, and the functions that code
        # calls), not of any function of the project a method it reaches calls (a viewer's
        # helper encoding an image into a buffer)
        written = [unit for unit in map(self.reach.unit, self.own_code(entry)) if unit is not None]
        if not any(unit.writes_arrays or unit.saves_model for unit in written):
            return False
        if self._names_an_evaluation(self.own_units(entry)):
            return False  # it evaluates a model and keeps the results (``evaluate_fold`` saving losses)
        return not self.hooks_differentiate(entry)

    def _names_an_evaluation(self, units: Sequence[UnitFacts]) -> bool:
        """Code that refers to a function named as an evaluation (``evaluation.function_names``:
        ``evaluate``, ``evaluate_*``): arrays it writes are results of that evaluation, not
        converted data."""
        patterns = tuple(self.data.get("evaluation", {}).get("function_names", ()))
        return any(
            fnmatch.fnmatchcase(ref.rpartition(".")[2], pattern)
            for unit in units for ref in unit.refs for pattern in patterns
        )

    def own_code(self, entry: str) -> FrozenSet[UnitKey]:
        """The code of the program of ``entry`` that is its own, not a library's: module
        code it imports, its module's code, and the functions that code calls (directly or
        through other functions); not a method (of its own classes, the walk reaches them
        by name; of another module's class, it is a library's)."""
        cache: Dict[str, FrozenSet[UnitKey]] = self.memo.setdefault("own_code", {})
        found = cache.get(entry)
        if found is None:
            reached = self.reached_units(entry)
            start = [key for key in reached if key[0] == entry or not key[1]]
            found = cache[entry] = self.reach.named_from(
                start, lambda key: key in reached and (key[0] == entry or "." not in key[1]),
            )
        return found

    def runs_a_seed(self, entry: str) -> bool:
        """The code the program of ``entry`` runs (``reached_units``: its modules' code and
        what that names, methods of the classes it reaches included) sets a seed: not a seed
        helper of a module it imports that nothing it runs calls (a play script that imports
        the training module, whose ``set_global_seeds`` only the training scripts call)."""
        return any(unit is not None and unit.seeds for unit in map(self.reach.unit, self.reached_units(entry))) \
            or self.seeds(self.orphans)

    def seeds_in_own_code(self, entry: str) -> bool:
        """The program of ``entry`` asks for repeatable runs: its own code (``own_code``)
        sets a seed; not a function only a method of another module's class calls (a
        dataset's ``numpy_seed`` context around its shuffle)."""
        return any(unit is not None and unit.seeds for unit in map(self.reach.unit, self.own_code(entry)))

    def trains_or_seeds_in_own_code(self, entry: str) -> bool:
        """The program of ``entry`` seeds in its module or trains in its own code
        (``own_code``: its module, or a function it calls; ``model = train(cfg)`` then
        ``torch.save(model)`` is a training script, not a converter).  A method of a class
        it reaches does not count (a viewer reaches the trainer's training step only by
        name), nor does a seed a shared helper sets (an exporter calling the project's
        ``set_random_seed`` converts all the same)."""
        in_module = [k for k in self.reached_units(entry) if k[0] == entry]
        called = [k for k in self.own_code(entry) if k[0] != entry and "." not in k[1]]
        return any(
            unit is not None and ((key[0] == entry and unit.seeds) or self.unit_trains(entry, key, unit))
            for key, unit in ((k, self.reach.unit(k)) for k in (*in_module, *called))
        )

    def illustrates_an_api(self, entry: str) -> bool:
        """docs/contract.md "Programs that matter": a documentation guide (a program in a
        folder rule data ``documentation.folders`` names, ``docs/guides/``) whose code
        (its own and that of the documentation it runs, not the library it shows) reads no
        dataset (``real_data``: ``tfds.load``, ``load_dataset``, a file it opens) and loads
        no model made elsewhere (``from_pretrained``, a model file) trains, if at all, on
        constants or random draws to show an API.  ``documentation-code = "check"``
        judges it as any program."""
        data = self.data.get("program", {}).get("documentation")
        if not data or self.project.config.documentation_code == "check" or not self._in_documentation(entry, data):
            return False
        if self.reached_summary(entry).loads_model:
            return False
        real_data = tuple(data.get("real_data", ()))
        pretrained = frozenset(data.get("pretrained_methods", ()))
        for key in self.reached_units(entry):
            unit = self.reach.unit(key)
            if unit is None or not self._in_documentation(key[0], data):
                continue
            if pretrained.intersection(unit.called) or any(
                _named_in(ref, real_data) or ref.rpartition(".")[2] in pretrained for ref in unit.refs
            ):
                return False
        return True

    def _in_documentation(self, path: str, data: Mapping[str, Any]) -> bool:
        """A module in a documentation folder (``documentation.folders``: ``docs``, ``docs_nnx``)."""
        folders = self.project.show(path).split("/")[:-1]
        return any(fnmatch.fnmatchcase(folder, pattern) for folder in folders for pattern in data["folders"])

    def writes_model(self, entry: str) -> bool:
        """The program of ``entry`` writes a model out: its own module does (``torch.save``,
        ``model.save(out)``), or a function of another module it runs does (an export
        helper: ``export_saved_model_lib.export_inference_graph``); a method of a class it
        reaches (a trainer's checkpointing) is not counted."""
        return any(unit.saves_model or unit.saves_loaded for unit in self.own_units(entry))

    def own_units(self, entry: str) -> List[UnitFacts]:
        """The units the program of ``entry`` reaches in its own module, and the top-level
        definitions of other modules it reaches (not a method of their classes: a
        library's)."""
        return [
            unit for key, unit in ((k, self.reach.unit(k)) for k in self.reached_units(entry))
            if unit is not None and (key[0] == entry or "." not in key[1])
        ]

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

    def show(self, path: str) -> str:
        return self.project.show(path)

    # -- versions
    def pins(self, entry: Optional[str] = None) -> Dict[str, str]:
        """The project's declared versions; for an entry point, those of the requirement
        files nearest to it first (spec "Target versions")."""
        if self._pins is None:
            self._pins = read_pins(self.project.root)
        if entry is None:
            return self._pins
        folder = os.path.dirname(os.path.abspath(entry))
        found = self._near_pins.get(folder)
        if found is None:
            if self._files is None:
                self._files = requirement_files(self.project.root)
            found = self._near_pins[folder] = {**self._pins, **read_pins_near(self.project.root, folder, self._files)}
        return found

    def framework_pins(self, framework: str, entry: Optional[str] = None) -> Dict[str, str]:
        """``pins(entry)``, plus the range the program's own code implies for
        ``framework`` where nothing pins it (a program calling ``tf.Session`` runs on
        TensorFlow 1)."""
        pins = self.pins(entry)
        hint = self.code_hint(framework, entry)
        aliases = self.data.get("package_aliases", {})
        if hint is None or any(canonical_package(name, aliases) == framework for name in pins):
            return pins
        return {**pins, framework: hint}

    def code_hint(self, framework: str, entry: Optional[str]) -> Optional[str]:
        spec = self.data["frameworks"].get(framework, {}).get("code_hint")
        if spec is None or entry is None:
            return None
        if entry not in self.records:
            return None
        cache: Dict[Tuple[str, str], Optional[str]] = self.memo.setdefault("code_hint", {})
        if (framework, entry) not in cache:
            units = (self.reach.unit(key) for key in self.reached_units(entry))
            hinted = any(unit is not None and framework in unit.version_hints for unit in units)
            cache[(framework, entry)] = str(spec["versions"]) if hinted else None
        return cache[(framework, entry)]

    def target(self, framework: str, entry: Optional[str] = None) -> Optional[Version]:
        """The target version of ``framework`` for the project, or for the program of
        ``entry`` (its nearest requirement file first, then what its code implies)."""
        key = (framework, os.path.dirname(os.path.abspath(entry)) if entry else None, self.code_hint(framework, entry))
        if key not in self._targets:
            spec = self.data["frameworks"].get(framework, {})
            aliases = self.data.get("package_aliases", {})
            self._targets[key] = target_version(
                framework, self.project.config.target_versions, self.framework_pins(framework, entry),
                spec.get("known_versions", []), aliases,
            )
        return self._targets[key]

    def allowed(self, framework: str, entry: Optional[str] = None) -> List[Version]:
        """Every version of ``framework`` the program of ``entry`` may run on (a fix must
        hold on each)."""
        spec = self.data["frameworks"].get(framework, {})
        return allowed_versions(
            framework, self.project.config.target_versions, self.framework_pins(framework, entry),
            spec.get("known_versions", []), self.data.get("package_aliases", {}),
        )


def read_pins(root: str) -> Dict[str, str]:
    """``{package: specifier}`` the project declares, its own version included where it is
    a built package (I/O: pass 2 only)."""
    try:
        from nondet_lint.families.environment.requirements import declared_versions
    except ImportError:  # pragma: no cover - the requirement parser is optional
        return {}
    return declared_versions(root)


def requirement_files(root: str) -> List[str]:
    """The project's requirement and lock files (I/O: pass 2 only)."""
    try:
        from nondet_lint.families.environment.requirements import project_files
    except ImportError:  # pragma: no cover - the requirement parser is optional
        return []
    try:
        return project_files(root)
    except OSError:
        return []


def read_pins_near(root: str, folder: str, files: Sequence[str]) -> Dict[str, str]:
    """``{package: specifier}`` of the requirement files in ``folder`` and the folders
    above it up to ``root``, the nearest folder's first (I/O: pass 2 only)."""
    try:
        from nondet_lint.families.environment.requirements import project_pins
    except ImportError:  # pragma: no cover - the requirement parser is optional
        return {}
    top = os.path.abspath(root or ".")
    folders = []
    current = folder
    while current.startswith(top) and current not in folders:
        folders.append(current)
        if current == top:
            break
        current = os.path.dirname(current)
    try:
        found: Dict[str, str] = {}
        for near in reversed(folders):  # outermost first: nearer folders overwrite
            here = [f for f in files if os.path.dirname(os.path.abspath(f)) == near]
            if here:
                found.update(project_pins(near, here))
        return found
    except (OSError, ValueError):
        return {}


_VIEW_KEY = "_nondet_lint_gpu_view"


def program_view(project: Project, rules: RuleSet) -> ProgramView:
    """The ``ProgramView`` of a project, built once per run and shared by the kernel rules."""
    return project.analysis(_VIEW_KEY, lambda earlier: ProgramView(project, rules[DATA_RULE].data, earlier))


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


