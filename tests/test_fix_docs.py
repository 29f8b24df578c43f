"""The README's fix-safety table is generated from the rule data and kept current."""

from __future__ import annotations

from pathlib import Path

from nondet_lint.docs import FIX_KINDS, fix_safety_table, with_fix_table
from nondet_lint.ruledata import load_rules

ROOT = Path(__file__).resolve().parent.parent


def test_readme_fix_safety_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_fix_table(readme, load_rules()) == readme, (
        "the README's fix-safety table is stale: run `python -m nondet_lint.docs --readme README.md`"
    )


def test_fix_safety_table_has_one_row_per_rule_with_its_fix_kind():
    rules = load_rules()
    rows = fix_safety_table(rules).splitlines()[2:]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == list(rules.codes)
    for row, rule in zip(rows, rules):
        assert f"| {FIX_KINDS[rule.fix]} |" in row
        assert (rule.fix in ("safe", "unsafe")) == bool(row.split(" | ")[3].strip())
