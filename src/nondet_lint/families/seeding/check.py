"""ND101-ND110: random number generators and seeds.

The analysis lives beside it in this package: ``collect`` indexes each module in pass 1
(reporting on the spot what needs no project facts: ND103, seed calls with no value),
``program`` runs the project's entry points in pass 2, ``report`` turns the result into
findings.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Sequence

from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.families.seeding.collect import Collector
from nondet_lint.families.seeding.report import seeding_findings
from nondet_lint.types import Deferred, Finding
from nondet_lint.ruledata import RuleSet


class Seeding(Check):
    """The seeding family's check: its ``Collector`` walks the module (pass 1), pass 2 runs
    the project's programs (``report``)."""

    codes = ("ND101", "ND102", "ND103", "ND104", "ND105", "ND106", "ND107", "ND108", "ND109", "ND110")

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.collector = Collector(ctx, self.codes)

    def visitors(self) -> Sequence[object]:
        return (self.collector,)

    def finish(self) -> None:
        self.collector.finish()

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        return seeding_findings(project, deferred, rules)

