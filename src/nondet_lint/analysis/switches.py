"""The determinism switches, recognised in one place from rule data (``[ND205.data.switches]``).

A switch is a named framework setting that makes kernels deterministic: ``torch`` (
``use_deterministic_algorithms``), ``cudnn_deterministic``, ``tensorflow`` (op
determinism, or ``TF_DETERMINISTIC_OPS``), ``xla`` / ``xla_scatter`` (``XLA_FLAGS``),
``cublas`` (``CUBLAS_WORKSPACE_CONFIG``).  It is set by a call (helpers included), an
attribute, or an environment variable (``os.environ[K] = v``, ``setdefault``, ``update``,
``os.putenv``).  Every rule that asks whether a switch is on (the kernel rules, ND307)
asks ``SwitchState``; none recognises switches itself.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.callargs import ABSENT, UNKNOWN, find_arg, literal_value, string_parts
from nondet_lint.ruledata import RuleSet

SWITCH_RULE = "ND205"  # the rule whose data holds the switch tables
ON, MAYBE = "on", "unknown"
TENSORFLOW = "tensorflow"  # the switch of TensorFlow op determinism

# the calls that set environment variables (besides ``os.environ[K] = v``)
ENVIRON_SETTERS = ("os.environ.setdefault", "os.environ.update", "os.putenv")

QualName = Callable[[cst.BaseExpression], Optional[str]]


@lru_cache(maxsize=32)
def regex(pattern: str) -> "re.Pattern[str]":
    return re.compile(pattern, re.IGNORECASE)


def value_in(value: Any, allowed: Iterable[Any]) -> bool:
    """``value`` equals one of ``allowed`` (``True`` is not ``1`` here)."""
    return any(type(value) is type(item) and value == item for item in allowed)


def environ_key(target: cst.BaseExpression, qualname: QualName) -> Optional[str]:
    """``os.environ["X"]`` (through any alias of ``os.environ``) → ``"X"``."""
    if not isinstance(target, cst.Subscript) or qualname(target.value) != "os.environ":
        return None
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    key = literal_value(target.slice[0].slice.value, qualname)
    return key if isinstance(key, str) else None


def environ_settings(node: cst.CSTNode, qualname: QualName) -> List[Tuple[str, cst.BaseExpression]]:
    """Environment variables a statement or call sets: ``os.environ[K] = v``,
    ``os.environ.setdefault(K, v)``, ``os.environ.update({K: v}, K=v)``, ``os.putenv(K, v)``."""
    out: List[Tuple[str, cst.BaseExpression]] = []
    if isinstance(node, cst.Assign):
        for target in node.targets:
            key = environ_key(target.target, qualname)
            if key is not None:
                out.append((key, node.value))
        return out
    if not isinstance(node, cst.Call):
        return out
    name = qualname(node.func)
    if name in ("os.environ.setdefault", "os.putenv"):
        key = literal_value(find_arg(node, None, 0), qualname)
        value = find_arg(node, None, 1)
        if isinstance(key, str) and value is not None:
            out.append((key, value))
    elif name == "os.environ.update":
        for arg in node.args:
            if arg.keyword is not None:
                out.append((arg.keyword.value, arg.value))
            elif isinstance(arg.value, cst.Dict):
                for element in arg.value.elements:
                    if isinstance(element, cst.DictElement):
                        key = literal_value(element.key, qualname)
                        if isinstance(key, str):
                            out.append((key, element.value))
    return out


def _reads_variable(node: cst.BaseExpression, var: str, qualname: QualName) -> bool:
    """``os.environ.get(var, ...)``, ``os.getenv(var)`` or ``os.environ[var]``."""
    if isinstance(node, cst.Call) and qualname(node.func) in ("os.environ.get", "os.getenv"):
        return bool(literal_value(find_arg(node, None, 0), qualname) == var)
    return environ_key(node, qualname) == var


# the values a name read where the switch is set was bound to in its scope (an augmented
# assignment: what it adds); None: unknown
BoundValues = Callable[[str], Optional[Sequence[cst.BaseExpression]]]
_MAX_NAME_DEPTH = 4


def env_value_state(value: cst.BaseExpression, var: str, pattern: str, qualname: QualName,
                    bound: Optional[BoundValues] = None, depth: int = 0) -> Optional[str]:
    """``ON`` when the literal text of ``value`` matches ``pattern``; ``MAYBE`` when the value
    is computed (other than re-reading ``var`` itself, as appending to ``XLA_FLAGS`` does);
    None when it is a literal that does not turn the switch on.  A name is judged by what
    its scope binds it to (``flags = os.environ.get("XLA_FLAGS", "")`` then ``flags += "
    --xla_gpu_triton_gemm_any=True"`` turns nothing on), where ``bound`` tells."""
    text, other = string_parts(value)
    if regex(pattern).search(text):
        return ON
    if not other:
        return None
    parts: List[cst.BaseExpression] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.BinaryOperation):
            stack.extend((item.left, item.right))
        elif isinstance(item, cst.FormattedString):
            parts.extend(p.expression for p in item.parts if isinstance(p, cst.FormattedStringExpression))
        elif not isinstance(item, (cst.SimpleString, cst.ConcatenatedString)):
            parts.append(item)
    state: Optional[str] = None
    for part in parts:
        if _reads_variable(part, var, qualname):
            continue
        values = bound(part.value) if bound is not None and isinstance(part, cst.Name) and depth < _MAX_NAME_DEPTH else None
        if values is None:
            return MAYBE
        for item in values:
            found = env_value_state(item, var, pattern, qualname, bound, depth + 1)
            if found == ON:
                return ON
            state = state or found
    return state


def _dict_entry(node: cst.BaseExpression, key: str) -> Optional[cst.BaseExpression]:
    """The value ``key`` has in a dict the code spells out (``{"deterministic": True}``,
    ``dict(deterministic=True)``): None where it has no such key; the node itself where the
    dict is not spelled out (computed: its entries are unknown)."""
    if isinstance(node, cst.Dict):
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return node  # ``**other``: any key
            if isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key:
                return element.value
        return None
    if (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict"
        and all(arg.keyword is not None for arg in node.args)
    ):
        return next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == key), None)
    return node


def call_switch_state(call: cst.Call, entry: Mapping[str, Any], qualname: QualName) -> Optional[str]:
    """The state a switch call sets, per its data entry (see ``[[ND205.data.switches.calls]]``;
    ``arg.key``: the entry of a dict the argument is, ``trainer_defaults={"deterministic": True}``)."""
    arg = entry.get("arg")
    if arg is None:
        return ON
    given = find_arg(call, arg.get("name"), arg.get("pos"))
    if arg.get("empty"):  # on when given an empty list or tuple (``set_visible_devices([], "GPU")``)
        return ON if isinstance(given, (cst.List, cst.Tuple)) and not given.elements else None
    if given is not None and "key" in arg:
        entry_value = _dict_entry(given, arg["key"])
        if entry_value is given:
            return MAYBE
        given = entry_value
    value = literal_value(given, qualname)
    if value is ABSENT:
        return ON if entry.get("absent") == "on" else None
    if value is UNKNOWN:
        return MAYBE
    return ON if value_in(value, entry.get("on", [True])) else None


class SwitchState:
    """The switches one module sets, and how surely (``ON`` wins over ``MAYBE``: a value
    the code computes)."""

    def __init__(self, rules: RuleSet, qualname: QualName, sets_environ: bool, bound: Optional[BoundValues] = None) -> None:
        switches = rules[SWITCH_RULE].data["switches"] if SWITCH_RULE in rules else {}
        self.qualname = qualname
        self.bound = bound  # what a name given as a variable's value was bound to
        self.calls = {name: entry for entry in switches.get("calls", []) for name in entry["names"]}
        self.attributes = {name: entry for entry in switches.get("attributes", []) for name in entry["names"]}
        self.env = {entry["var"]: entry for entry in switches.get("env", [])}
        # only ``os`` sets environment variables: a module that never imports it needs no
        # look at each call and assignment (most modules of a large project)
        self.sets_environ = bool(self.env) and sets_environ
        self.state: Dict[str, str] = {}

    def _set(self, switches: Iterable[str], state: Optional[str]) -> None:
        if state is None:
            return
        for switch in switches:
            if self.state.get(switch) != ON:
                self.state[switch] = state

    def _environ(self, node: cst.CSTNode) -> None:
        if not self.sets_environ:
            return
        for var, value in environ_settings(node, self.qualname):
            entry = self.env.get(var)
            if entry is None:
                continue
            for rule in entry["patterns"]:
                self._set(rule["sets"], env_value_state(value, var, rule["pattern"], self.qualname, self.bound))

    def assign(self, node: cst.Assign) -> None:
        self._environ(node)
        for target in node.targets:
            entry = self.attributes.get(self.qualname(target.target) or "")
            if entry is not None:
                value = literal_value(node.value, self.qualname)
                if value is UNKNOWN:
                    self._set(entry["sets"], MAYBE)
                elif value_in(value, entry.get("on", [True])):
                    self._set(entry["sets"], ON)

    def call(self, node: cst.Call, name: Optional[str]) -> None:
        """A call (``name``: its qualified name, which the caller has resolved already)."""
        self._environ(node)
        entry = self.calls.get(name or "")
        if entry is not None:
            self._set(entry["sets"], call_switch_state(node, entry, self.qualname))

    def is_set(self, switch: str) -> bool:
        """Set on, or set from a value the code computes (as the kernel rules count it)."""
        return switch in self.state
