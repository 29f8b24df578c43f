"""The generic test: every rule's documented and extra examples, from rules/*.toml.

An *Example* (and every ``fires`` entry) must produce exactly the findings it pins
(``findings``: message and position) and, for a fixable rule, exactly the fixed text it
pins (``fixed``, ``fixed_files``) or no fix at all where it says why (``unfixed``);
*Use instead* (and every ``passes`` entry) must not produce the rule's code.  Adding a
case is a data change; tests/pin_examples.py writes the pins of a new one.
"""

from __future__ import annotations

import pytest

from conftest import lint_files
from nondet_lint.ruledata import load_rules
from nondet_lint.types import SAFE, UNSAFE
from pin_examples import pinned_outcome

RULES = load_rules()

CASES = [
    pytest.param(rule.code, kind, example, id=f"{rule.code}-{kind}-{index}")
    for rule in RULES
    for kind, examples in (("fires", rule.fires), ("passes", rule.passes))
    for index, example in enumerate(examples)
]


@pytest.mark.parametrize("code,kind,example", CASES)
def test_rule_example(tmp_path, code, kind, example):
    if kind == "fires":
        assert example.findings is not None, f"{code}: pin this example (tests/pin_examples.py):\n{example.source}"
        findings, changed = pinned_outcome(RULES[code], example, tmp_path)
        assert findings, f"{code} should fire on:\n{example.source}"
        assert findings == list(example.findings)
        if RULES[code].fix in (SAFE, UNSAFE):
            expected = dict(example.fixed_files)
            if example.fixed is not None:
                expected[example.path] = example.fixed
            assert expected or example.unfixed, f"{code}: pin the fixed text or say why there is none (unfixed)"
            assert not (expected and example.unfixed), f"{code}: an example is either fixed or unfixed"
            assert changed == expected
        else:
            assert example.fixed is None and not example.fixed_files and example.unfixed is None, (
                f"{code} offers no fix: its examples pin none"
            )
    else:
        files = {example.path: example.source, **example.files}
        found = [f for f in lint_files(tmp_path, files, example.config) if f.code == code]
        assert not found, f"{code} should not fire on:\n{example.source}\ngot {[(f.path, f.line, f.message) for f in found]}"


def test_every_rule_has_examples_both_ways():
    for rule in RULES:
        assert rule.fires and rule.passes, rule.code


def test_rules_are_the_spec_codes():
    # codes are ND and three digits, and names are unique
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    for rule in RULES:
        assert rule.code.startswith("ND") and len(rule.code) == 5
