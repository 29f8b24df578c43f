"""The generic test: every rule's documented and extra examples, from rules/*.toml.

An *Example* (and every ``fires`` entry) must produce the rule's code; *Use instead*
(and every ``passes`` entry) must not.  Adding a case is a data change.
"""

from __future__ import annotations

import pytest

from conftest import lint_files
from nondet_lint.ruledata import load_rules

RULES = load_rules()

CASES = [
    pytest.param(rule.code, kind, example, id=f"{rule.code}-{kind}-{index}")
    for rule in RULES
    for kind, examples in (("fires", rule.fires), ("passes", rule.passes))
    for index, example in enumerate(examples)
]


@pytest.mark.parametrize("code,kind,example", CASES)
def test_rule_example(tmp_path, code, kind, example):
    files = {example.path: example.source, **example.files}
    findings = lint_files(tmp_path, files, example.config)
    found = [f for f in findings if f.code == code]
    if kind == "fires":
        assert found, f"{code} should fire on:\n{example.source}\ngot {[(f.code, f.line) for f in findings]}"
    else:
        assert not found, f"{code} should not fire on:\n{example.source}\ngot {[(f.path, f.line, f.message) for f in found]}"


def test_every_rule_has_examples_both_ways():
    for rule in RULES:
        assert rule.fires and rule.passes, rule.code


def test_rules_are_the_spec_codes():
    # the contract: codes from ../shared/spec/rules.md only, and names are unique
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    for rule in RULES:
        assert rule.code.startswith("ND") and len(rule.code) == 5
