"""ND101-ND110: random number generators and seeds.

The analysis lives beside it in this package: ``collect`` indexes each module in pass 1
(reporting on the spot what needs no project facts: ND103, seed calls with no value),
``program`` runs the project's entry points in pass 2, ``report`` turns the result into
findings.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping

from nondet_lint.context import Deferred
from nondet_lint.families.seeding.collect import Collector
from nondet_lint.families.seeding.report import seeding_findings
from nondet_lint.types import Finding


class Seeding(Collector):
    codes = ("ND101", "ND102", "ND103", "ND104", "ND105", "ND106", "ND107", "ND108", "ND109", "ND110")

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: Mapping[str, Any]) -> Iterable[Finding]:
        return seeding_findings(project, deferred, rules)

