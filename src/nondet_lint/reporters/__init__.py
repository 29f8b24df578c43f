"""Reporters turn sorted findings into output. ``REPORTERS`` maps ``--format`` names."""

from __future__ import annotations

from typing import Callable, Dict, List, TextIO

from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Finding

Reporter = Callable[[List[Finding], RuleSet, TextIO], None]


def get_reporter(name: str) -> Reporter:
    from nondet_lint.reporters import github, json_format, rich_format, sarif, text

    reporters: Dict[str, Reporter] = {
        "text": text.report,
        "json": json_format.report,
        "rich": rich_format.report,
        "github": github.report,
        "sarif": sarif.report,
    }
    return reporters[name]


FORMATS = ("text", "json", "rich", "github", "sarif")
