"""docs/rules.md is generated from the rule data and must not go stale."""

from __future__ import annotations

from pathlib import Path

from nondet_lint.docs import reference
from nondet_lint.ruledata import load_rules

ROOT = Path(__file__).resolve().parent.parent


def test_rules_reference_is_current():
    expected = reference(load_rules())
    actual = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/rules.md is stale: run `python -m nondet_lint.docs > docs/rules.md`"
