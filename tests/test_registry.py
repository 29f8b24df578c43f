"""The rule registry: every bundled code has exactly one home, in its family's package."""

from __future__ import annotations

from collections import Counter

from nondet_lint.check import Check
from nondet_lint.families.registry import CHECKS, DECIDERS, ENGINE_CODES, deciders
from nondet_lint.ruledata import load_rules

FAMILY_OF_SERIES = {"1": "seeding", "2": "kernels", "3": "data", "4": "environment"}


def test_every_rule_code_has_exactly_one_decider():
    codes = set(load_rules().codes)
    counts = Counter(code for check in CHECKS for code in check.decided_codes())
    assert {code for code, count in counts.items() if count > 1} == set()
    assert set(DECIDERS) | set(ENGINE_CODES) == codes
    assert set(DECIDERS) & set(ENGINE_CODES) == set()


def test_a_decider_reports_the_code_and_lives_in_its_family():
    for code, check in DECIDERS.items():
        assert code in check.codes, (code, check.__name__)
        family = check.__module__.split(".")[2]
        assert family == FAMILY_OF_SERIES[code[2]], (code, check.__module__)


def test_every_code_a_check_reports_is_decided_somewhere():
    reported = {code for check in CHECKS for code in check.codes}
    assert reported == set(DECIDERS)


def test_the_registry_names_the_home_of_a_shared_code():
    # three checks report ND305; the shuffle-then-slice check decides its deferred candidates
    assert DECIDERS["ND305"].__name__ == "ShuffleThenSlice"
    assert DECIDERS["ND305"].__module__ == "nondet_lint.families.data.split"
    assert DECIDERS["ND108"].__module__ == "nondet_lint.families.seeding.check"


def test_a_later_check_takes_a_code_over():
    class Probe(Check):
        codes = ("ND201",)

    assert deciders([*CHECKS, Probe])["ND201"] is Probe
    assert deciders(CHECKS)["ND201"] is not Probe
