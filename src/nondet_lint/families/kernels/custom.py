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

from typing import Any, Dict, List, Optional

import libcst as cst

from nondet_lint.callargs import find_arg, literal_value, string_parts
from nondet_lint.check import Check
from nondet_lint.families.kernels.atomics import float_atomics


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

