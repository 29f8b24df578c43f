"""ND207 in the project's CUDA source files (``.cu``, ``.cuh``) and in the C++ files a CUDA
extension compiles (``ExtensionSources``).

A file checker (like the requirement files' of ND401): the engine hands it every
discovered CUDA file, and each float atomic add is reported in that file at its line and
column, through the same suppression (``// noqa: ND207``), baseline and reporters as any
finding.  The atomics are found as in kernel source strings (``atomics.float_atomic_sites``):
an atomic whose operands are evidently integers is exact and not reported.  Comments are
blanked first (keeping offsets), so an atomic that is only mentioned is not counted.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Dict, Iterable, List, Optional

import libcst as cst

from nondet_lint.callargs import find_arg
from nondet_lint.check import Check
from nondet_lint.families.kernels.atomics import CODE, analyze_cuda
from nondet_lint.suppression import parse_suppressions
from nondet_lint.types import Deferred, Finding
from nondet_lint.walk import children


# ---- the C++ sources a CUDA extension compiles ---------------------------------------------
class ExtensionSources(Check):
    """ND207 in the C++ files (``.cpp``, ``.cc``, ...) listed as sources of a CUDA extension
    (``CUDAExtension(sources=[...])``, ``torch.utils.cpp_extension.load(sources=[...])``):
    they are compiled into the CUDA extension and may hold its kernels.  Pass 1 records the
    paths the call names (string literals, ``os.path.join`` / ``/`` parts, ``glob``
    patterns, a name bound to a list in the same file); pass 2 reads those files from disk,
    next to the module or above it up to the project root, and reports each float atomic
    as the ``.cu`` files are (``.cu`` / ``.cuh`` sources are checked on their own)."""

    codes = (CODE,)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data = self.data(CODE)
        self.calls = {name: spec for spec in data.get("extension_calls", ()) for name in spec["names"]}
        self.suffixes = tuple(data.get("extension_source_suffixes", ()))
        self.bound: Dict[str, List[cst.BaseExpression]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.bound.setdefault(target.target.value, []).append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.bound.setdefault(node.target.value, []).append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        spec = self.calls.get(self.ctx.qualname(node.func) or "")
        if spec is None:
            return
        given = find_arg(node, spec["sources"].get("name"), spec["sources"].get("pos"))
        paths = sorted({p for p in self._paths(given) if p.lower().endswith(self.suffixes)})
        if paths:
            self.ctx.defer(node, CODE, sources=paths)

    def _paths(self, node: Optional[cst.BaseExpression], depth: int = 0) -> List[str]:
        """Relative paths (or glob patterns) an expression names: its string parts joined."""
        if node is None or depth > 4:
            return []
        if isinstance(node, cst.Name):
            return [p for value in self.bound.get(node.value, ()) for p in self._paths(value, depth + 1)]
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return [p for element in node.elements for p in self._paths(element.value, depth + 1)]
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self._paths(node.left, depth + 1) + self._paths(node.right, depth + 1)
        parts = [text for text in _strings_in(node) if text.strip("/")]
        if not parts:
            return []
        return [os.path.normpath("/".join(part.strip("/") for part in parts))]

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: Any) -> Iterable[Finding]:
        root = os.path.abspath(project.root or ".")
        seen = set()
        for item in deferred:
            for path in _existing(item.path, item.payload.get("sources", ()), root):
                if path in seen:
                    continue
                seen.add(path)
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                except OSError:
                    continue
                noqa = parse_suppressions(text, "//")
                for finding in analyze_cuda(path, text, project.config, rules, frozenset((CODE,)))[0]:
                    if not noqa.suppresses(finding.line, CODE):
                        yield finding


def _strings_in(node: cst.CSTNode) -> List[str]:
    """The string literals inside an expression, in source order (f-string text included)."""
    found: List[str] = []
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleString):
            value = current.evaluated_value
            if isinstance(value, str):
                found.append(value)
            continue
        if isinstance(current, cst.FormattedStringText):
            found.append(current.value)
            continue
        stack.extend(reversed(list(children(current))))
    return found


def _existing(module_path: str, patterns: Iterable[str], root: str) -> List[str]:
    """The files ``patterns`` name, looked for next to the module, then in each folder above
    it up to the project root (the first folder where a pattern matches wins)."""
    out: List[str] = []
    folder = os.path.dirname(os.path.abspath(module_path))
    folders = []
    while True:
        folders.append(folder)
        parent = os.path.dirname(folder)
        if folder == root or parent == folder or not folder.startswith(root):
            break
        folder = parent
    for pattern in patterns:
        for base in folders:
            matches = sorted(glob.glob(os.path.join(glob.escape(base), pattern)))
            if matches:
                out.extend(m for m in matches if os.path.isfile(m))
                break
    # shown as the module's own path is: relative to the working folder when it is
    return out if os.path.isabs(module_path) else [os.path.relpath(m) for m in out]

