"""Reporters turn sorted findings into output. ``get_reporter`` maps ``--output-format`` names.

The formats people read (``HUMAN_FORMATS``) mark findings whose fix ``--fix`` would
apply with ``[*]`` (``FixMarks``) and end with a summary (``summary``); the formats
tools read print the findings alone.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Dict, List, Optional, TextIO, Tuple

from nondet_lint.reporters.marks import FixMarks
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding

Reporter = Callable[[List[Finding], RuleSet, TextIO], None]

FORMATS = ("text", "concise", "full", "rich", "json", "github", "gitlab", "junit", "pylint", "azure", "sarif")
HUMAN_FORMATS = frozenset({"text", "concise", "full", "rich"})


def get_reporter(name: str, marks: FixMarks = FixMarks()) -> Reporter:
    """The reporter of one format; only its module is imported (``rich`` alone costs a
    tenth of a warm run)."""
    import importlib

    module, marked = _REPORTERS[name]
    report = importlib.import_module(f"nondet_lint.reporters.{module}").report
    return partial(report, marks=marks) if marked else report


# format -> (its module, whether it marks fixable findings)
_REPORTERS: Dict[str, Tuple[str, bool]] = {
    "text": ("text", True), "concise": ("text", True), "full": ("full", True), "rich": ("rich_format", True),
    "json": ("json_format", False), "github": ("github", False), "gitlab": ("gitlab", False),
    "junit": ("junit", False), "pylint": ("pylint", False), "azure": ("azure", False), "sarif": ("sarif", False),
}


def get_summary(name: str, marks: FixMarks = FixMarks()) -> Optional[Reporter]:
    """The closing summary of a format people read (None for the others)."""
    if name not in HUMAN_FORMATS:
        return None
    if name == "rich":
        from nondet_lint.reporters import rich_format

        return partial(rich_format.write_summary, marks=marks)
    from nondet_lint.reporters import summary

    return partial(summary.write_summary, marks=marks)
