"""Reporters turn sorted findings into output. ``get_reporter`` maps ``--output-format`` names.

The formats people read (``HUMAN_FORMATS``) mark findings whose fix ``--fix`` would
apply with ``[*]`` (``FixMarks``) and end with a summary (``summary``); the formats
tools read print the findings alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, Dict, FrozenSet, List, Optional, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import SAFE, UNSAFE, Finding

Reporter = Callable[[List[Finding], RuleSet, TextIO], None]

FORMATS = ("text", "concise", "full", "rich", "json", "github", "gitlab", "junit", "pylint", "azure", "sarif")
HUMAN_FORMATS = frozenset({"text", "concise", "full", "rich"})


@dataclass(frozen=True)
class FixMarks:
    """Which findings ``--fix`` would fix now (``[*]``) and which only with ``--unsafe-fixes``."""

    fixable: FrozenSet[str] = frozenset()  # codes whose fixes may be applied (fixable/unfixable)
    unsafe: bool = False  # --unsafe-fixes given

    def _applies(self, finding: Finding, applicabilities) -> bool:
        fix = finding.fix
        return fix is not None and bool(fix.edits) and fix.applicability in applicabilities and finding.code in self.fixable

    def marked(self, finding: Finding) -> bool:
        """``[*]``: the fix is applied by ``--fix`` with the flags given."""
        return self._applies(finding, (SAFE, UNSAFE) if self.unsafe else (SAFE,))

    def hidden(self, finding: Finding) -> bool:
        """An unsafe fix that ``--unsafe-fixes`` would add."""
        return not self.unsafe and self._applies(finding, (UNSAFE,))


def get_reporter(name: str, marks: FixMarks = FixMarks()) -> Reporter:
    from nondet_lint.reporters import (
        azure, full, github, gitlab, json_format, junit, pylint, rich_format, sarif, text,
    )

    reporters: Dict[str, Reporter] = {
        "text": partial(text.report, marks=marks),
        "concise": partial(text.report, marks=marks),
        "full": partial(full.report, marks=marks),
        "rich": partial(rich_format.report, marks=marks),
        "json": json_format.report,
        "github": github.report,
        "gitlab": gitlab.report,
        "junit": junit.report,
        "pylint": pylint.report,
        "azure": azure.report,
        "sarif": sarif.report,
    }
    return reporters[name]


def get_summary(name: str, marks: FixMarks = FixMarks()) -> Optional[Reporter]:
    """The closing summary of a format people read (None for the others)."""
    from nondet_lint.reporters import rich_format, summary

    if name not in HUMAN_FORMATS:
        return None
    return partial(rich_format.write_summary if name == "rich" else summary.write_summary, marks=marks)
