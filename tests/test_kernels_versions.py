"""Target versions: the small version parser, ranges, and where a target comes from."""

from __future__ import annotations

import pytest

from nondet_lint.versions import (
    Specifier, canonical_package, compare, in_range, newest, parse_version, target_version, version_from_spec,
)

KNOWN = ["1.13.1", "2.0.1", "2.1.2", "2.5.1", "2.9.0", "2.10.0", "2.15.0"]


@pytest.mark.parametrize("text,version", [
    ("2.1.0", (2, 1, 0)), ("2.1.0+cu118", (2, 1, 0)), ("v1.4", (1, 4)), ("2.2.0rc1", (2, 2, 0)),
    ("10", (10,)), ("", None), ("main", None),
])
def test_parse_version(text, version):
    assert parse_version(text) == version


def test_compare_ignores_trailing_zeros_and_orders_numerically():
    assert compare((2, 1), (2, 1, 0)) == 0
    assert compare((2, 10), (2, 9)) == 1
    assert compare((1, 13, 1), (2,)) == -1


@pytest.mark.parametrize("spec,inside,outside", [
    ("<2.10", ["2.9.0", "1.13"], ["2.10", "2.10.1", "2.15"]),
    (">=2.5,<2.7", ["2.5", "2.6.5"], ["2.4.4", "2.7"]),
    ("==2.1.*", ["2.1.0", "2.1.2"], ["2.10.0", "2.2"]),
    ("~=2.1.3", ["2.1.3", "2.1.9"], ["2.1.2", "2.2.0"]),
    ("=2.1", ["2.1.0", "2.1.2"], ["2.10.0"]),  # conda: 2.1.*
    ("!=2.3", ["2.3.1", "2.2"], ["2.3", "2.3.0"]),
    ("*", ["0.1", "9.9"], []),
    ("2.1.2", ["2.1.2"], ["2.1.3"]),
])
def test_specifier_contains(spec, inside, outside):
    specifier = Specifier(spec)
    for text in inside:
        assert specifier.contains(parse_version(text)), (spec, text)
    for text in outside:
        assert not specifier.contains(parse_version(text)), (spec, text)


def test_an_invalid_specifier_matches_nothing():
    assert not Specifier(">=banana").contains((2, 1))
    assert version_from_spec(">=banana", KNOWN) is None


def test_a_range_targets_the_newest_known_version_inside_it():
    assert version_from_spec(">=2.1,<2.10", KNOWN) == (2, 9, 0)
    assert version_from_spec(">=1.0", KNOWN) == (2, 15, 0)
    assert version_from_spec("", KNOWN) == (2, 15, 0)  # unpinned
    assert version_from_spec("==2.3.1", KNOWN) == (2, 3, 1)  # exact: itself, known or not
    assert version_from_spec("<1.0", KNOWN) is None


def test_target_version_prefers_config_then_pins_then_newest():
    assert target_version("torch", {"torch": "2.0.1"}, {"torch": "==2.5.1"}, KNOWN) == (2, 0, 1)
    assert target_version("torch", {}, {"torch": "==2.5.1"}, KNOWN) == (2, 5, 1)
    assert target_version("torch", {}, {}, KNOWN) == newest(KNOWN) == (2, 15, 0)
    # a pin nothing known satisfies falls through to the newest
    assert target_version("torch", {}, {"torch": "<1.0"}, KNOWN) == (2, 15, 0)


def test_pins_are_matched_through_package_aliases():
    aliases = {"tensorflow-gpu": "tensorflow", "pytorch": "torch"}
    assert canonical_package("TensorFlow_GPU", aliases) == "tensorflow"
    assert target_version("tensorflow", {}, {"tensorflow-gpu": "==2.4.4"}, ["2.4.4", "2.15.1"], aliases) == (2, 4, 4)
    assert target_version("torch", {}, {"pytorch": "=1.13"}, KNOWN, aliases) == (1, 13, 1)


def test_in_range_for_rule_data():
    assert in_range((2, 9), "<2.10") and not in_range((2, 10), "<2.10")
    assert in_range((1, 3), "<1.4") and not in_range((2, 15), "<1.4")


def test_allowed_versions_are_every_known_version_a_pin_or_range_admits():
    from nondet_lint.versions import allowed_versions

    known = ["2.3.1", "2.4.1", "2.9.0", "2.10.0", "2.11.0"]
    assert allowed_versions("torch", {}, {}, known) == [(2, 3, 1), (2, 4, 1), (2, 9, 0), (2, 10, 0), (2, 11, 0)]
    assert allowed_versions("torch", {}, {"torch": ">=2.4,<2.11"}, known) == [(2, 4, 1), (2, 9, 0), (2, 10, 0)]
    assert allowed_versions("torch", {}, {"torch": "==2.2.0"}, known) == [(2, 2, 0)]  # an exact pin is itself
    assert allowed_versions("torch", {"torch": "2.10"}, {"torch": ">=2.4"}, known) == [(2, 10)]  # config first
