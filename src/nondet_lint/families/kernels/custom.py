"""ND207: custom GPU kernels that accumulate floats with atomics.

Three shapes, all rule data (``[ND207.data]``):

- atomic calls in Python kernels: ``numba.cuda.atomic.add``, Triton ``tl.atomic_add``;
  not when the value added is an integer literal (integer atomics are exact);
- library calls implemented with float atomics (``cupyx.scatter_add``, ``cupy.add.at``);
- CUDA C++ source strings compiled at run time (CuPy ``RawKernel`` / ``ElementwiseKernel``
  / ``RawModule``, ``torch.utils.cpp_extension.load_inline``) whose text calls
  ``atomicAdd`` and its kin: reported at the compiling call.  An atomic whose operands are
  evidently integers (an integer literal, or a name the source declares with an integer
  type) is exact and not reported.  A source held in a variable is followed to the
  string assigned to it in the same file.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

import libcst as cst

from nondet_lint.callargs import find_arg, literal_value, string_parts
from nondet_lint.check import Check


@lru_cache(maxsize=16)
def _compiled(patterns: Tuple[str, ...]) -> List["re.Pattern[str]"]:
    return [re.compile(p) for p in patterns]


def _call_arguments(text: str, start: int) -> List[str]:
    """The top-level comma-separated arguments of the call whose ``(`` is at ``start``."""
    depth = 0
    args: List[str] = []
    current: List[str] = []
    for char in text[start:]:
        if char in "([{":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return args
        elif char == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    return args


_INT_LITERAL = re.compile(r"^-?\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def integer_names(source: str, integer_types: Iterable[str]) -> FrozenSet[str]:
    """Names the CUDA source declares with an integer type (``int n``, ``unsigned *count``)."""
    types = "|".join(sorted((re.escape(t) for t in integer_types), key=len, reverse=True))
    pattern = re.compile(rf"\b(?:const\s+)?(?:{types})\b[\s*&]+(?:const\s+)?(?:__restrict__\s+)?([A-Za-z_]\w*)")
    return frozenset(match.group(1) for match in pattern.finditer(source))


def _base_name(expression: str) -> Optional[str]:
    """``&out[i]`` → ``out``; ``counts + j`` → ``counts``."""
    match = _IDENT.search(expression.lstrip("&*( "))
    return match.group(0) if match else None


def _integer_cast(integer_types: Iterable[str]) -> "re.Pattern[str]":
    """``(int)x``, ``(unsigned long long) x``, ``static_cast<int>(x)``: an integer whatever ``x`` is."""
    types = "|".join(sorted((re.escape(t) for t in integer_types), key=len, reverse=True))
    return re.compile(rf"^(?:\(\s*(?:const\s+)?(?:{types})\s*\)|static_cast\s*<\s*(?:{types})\s*>)")


_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\.\d+|\d+[eE][-+]?\d+|\d+[fF])(?!\w)")


def _integer_value(value: str, ints: FrozenSet[str], cast: "re.Pattern[str]") -> bool:
    """An integer literal or cast, or an expression of names the source declares with
    integer types only (``width * grad`` mixes in a float: not an integer)."""
    if _INT_LITERAL.match(value) or cast.match(value):
        return True
    if _FLOAT_LITERAL.search(value):
        return False
    names = _IDENT.findall(value)
    return bool(names) and all(name in ints for name in names)


def float_atomic_sites(source: str, patterns: Iterable[str], integer_types: Iterable[str]) -> List[Tuple[int, str]]:
    """``(offset, name)`` of each atomic call in a CUDA source whose operands are not
    evidently integers (an integer literal or cast, a name declared with an integer type)."""
    ints = integer_names(source, integer_types)
    cast = _integer_cast(tuple(integer_types))
    found = []
    for regex in _compiled(tuple(patterns)):
        for match in regex.finditer(source):
            args = _call_arguments(source, source.index("(", match.start()))
            if len(args) < 2:
                continue
            target, values = _base_name(args[0]), args[1:]
            if target in ints or all(_integer_value(v, ints, cast) for v in values):
                continue
            found.append((match.start(), match.group(0).rstrip("( \t")))
    return found


def float_atomics(source: str, patterns: Iterable[str], integer_types: Iterable[str]) -> List[str]:
    """The atomic calls in a CUDA source whose operands are not evidently integers."""
    return [name for _, name in float_atomic_sites(source, patterns, integer_types)]


class CustomKernels(Check):
    """ND207 (see the module docstring)."""

    codes = ("ND207",)
    decides = ()  # reported on the spot; ND207's deferred candidates are cudafiles.ExtensionSources'

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data = self.data("ND207")
        self.atomic_calls = {name: spec for spec in data["atomic_calls"] for name in spec["names"]}
        self.library_calls = set(data["library_calls"])
        self.compile_calls = {name: spec for spec in data["compile_calls"] for name in spec["names"]}
        self.patterns = tuple(data["source_patterns"])
        self.integer_types = tuple(data["integer_types"])
        self.strings: Dict[str, cst.BaseExpression] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.strings[target.target.value] = node.value

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        if name is None:
            return
        if name in self.atomic_calls:
            spec = self.atomic_calls[name]
            value = literal_value(find_arg(node, spec.get("value_name"), spec.get("value_pos")), self.ctx.qualname)
            if isinstance(value, int):  # exact: integer atomics do not depend on order
                return
            self.ctx.report(node, "ND207", what=f"`{name}`", advice=spec["advice"])
        elif name in self.library_calls:
            self.ctx.report(node, "ND207", what=f"`{name}`", advice=self.data("ND207")["library_advice"])
        elif name in self.compile_calls:
            spec = self.compile_calls[name]
            atomics = []
            for arg in spec["sources"]:
                for source in self._sources(find_arg(node, arg.get("name"), arg.get("pos"))):
                    atomics.extend(float_atomics(source, self.patterns, self.integer_types))
            if atomics:
                what = f"the kernel source given to `{name}` (it calls `{atomics[0]}`)"
                self.ctx.report(node, "ND207", what=what, advice=self.data("ND207")["source_advice"])

    def _sources(self, node: Optional[cst.BaseExpression], depth: int = 0) -> List[str]:
        """The literal CUDA source text an argument holds (strings, lists of strings, a
        name assigned a string in this file)."""
        if node is None or depth > 4:
            return []
        if isinstance(node, cst.Name) and node.value in self.strings:
            return self._sources(self.strings[node.value], depth + 1)
        if isinstance(node, (cst.List, cst.Tuple)):
            return [text for element in node.elements for text in self._sources(element.value, depth + 1)]
        text, _ = string_parts(node)
        return [text] if text else []

