"""Any valid Python: generated programs (hypothesmith) never make the linter raise, and
with fixes on the result still parses and a second fix pass changes nothing. Example
counts are bounded so the suite stays fast; ``benchmarks/fuzz.py`` runs the same
properties for longer. (Every rule's own examples are fixed twice in test_fix_rules.py.)"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzzprops import (  # noqa: E402
    check_analysis_never_raises, check_fix_is_safe_and_idempotent, mixed, rule_examples,
)

BOUNDED = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
EXAMPLES = rule_examples()


@BOUNDED
@given(hypothesmith.from_grammar())
def test_generated_programs_never_make_the_analysis_raise(text):
    check_analysis_never_raises(text)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(hypothesmith.from_node())
def test_generated_syntax_trees_never_make_the_analysis_raise(text):
    check_analysis_never_raises(text)


@BOUNDED
@given(st.sampled_from(EXAMPLES), hypothesmith.from_grammar())
def test_rule_examples_mixed_with_generated_code_never_raise(example, text):
    check_analysis_never_raises(mixed(example, text))


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.sampled_from(EXAMPLES), hypothesmith.from_grammar(), st.booleans())
def test_fixes_keep_the_file_parsing_and_settle_in_one_pass(example, text, unsafe):
    with tempfile.TemporaryDirectory() as folder:
        check_fix_is_safe_and_idempotent(Path(folder), mixed(example, text), unsafe)
