"""Reporters turn sorted findings into output. ``get_reporter`` maps ``--output-format`` names.

The formats people read (``HUMAN_FORMATS``) mark findings whose fix ``--fix`` would
apply with ``[*]`` (``FixMarks``) and end with a summary (``summary``); the formats
tools read print the findings alone.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Dict, List, Optional, TextIO

from nondet_lint.reporters.marks import FixMarks
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding

Reporter = Callable[[List[Finding], RuleSet, TextIO], None]

FORMATS = ("text", "concise", "full", "rich", "json", "github", "gitlab", "junit", "pylint", "azure", "sarif")
HUMAN_FORMATS = frozenset({"text", "concise", "full", "rich"})


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
