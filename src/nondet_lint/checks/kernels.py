"""ND2xx: non-deterministic GPU kernels and the determinism switches."""

from __future__ import annotations

import libcst as cst

from nondet_lint.checks.base import Check
from nondet_lint.context import NodeEdit


def is_true_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


class CudnnBenchmark(Check):
    """ND201: ``torch.backends.cudnn.benchmark = True`` (also through aliases)."""

    codes = ("ND201",)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not is_true_literal(node.value):
            return
        attributes = self.data("ND201")["attributes"]
        for target in node.targets:
            name = self.ctx.qualname(target.target)
            if name in attributes:
                fix = self.ctx.fix("ND201", [NodeEdit(node.value, "False")])
                self.ctx.report(target.target, "ND201", fix=fix, name=name)


CHECKS = [CudnnBenchmark]
