"""Applying edits to text and choosing the fixes of a round."""

from __future__ import annotations

import pytest

from fixtools import apply_unified_diff
from nondet_lint.fixes.apply import apply_text_edits, line_starts, plan_round
from nondet_lint.fixes.diff import unified_diff
from nondet_lint.types import Edit, Finding, Fix


def finding(code: str, line: int, *edits: Edit, path: str = "t.py") -> Finding:
    return Finding(path, line, 0, code, "m", fix=Fix("t", "safe", tuple(edits)))


def test_lines_end_where_the_engine_ends_them():
    # \r\n and a lone \r end a line, a form feed does not
    assert line_starts("a\r\nb\rc\x0cd\ne") == [0, 3, 5, 9]


def test_edits_keep_crlf_and_take_the_file_newlines():
    text = "a = 1\r\nb = 2\r\n"
    edits = [Edit(2, 4, 2, 5, "3"), Edit(3, 0, 3, 0, "c = 4\nd = 5\n")]
    assert apply_text_edits(text, edits, "\r\n") == "a = 1\r\nb = 3\r\nc = 4\r\nd = 5\r\n"


@pytest.mark.parametrize("edit", [Edit(5, 0, 5, 0, "x"), Edit(1, 9, 1, 9, "x"), Edit(1, 3, 1, 1, "x")])
def test_edits_outside_the_text_are_errors(edit):
    with pytest.raises(ValueError):
        apply_text_edits("a = 1\n", [edit])


def test_overlapping_fixes_wait_for_the_next_round():
    first = finding("ND201", 1, Edit(1, 0, 1, 5, "x"))
    overlapping = finding("ND202", 1, Edit(1, 3, 1, 8, "y"))
    touching = finding("ND203", 1, Edit(1, 5, 1, 5, "z"))
    apart = finding("ND204", 2, Edit(2, 0, 2, 1, "w"))
    plan = plan_round([apart, touching, overlapping, first])
    assert [f.code for f in plan.accepted] == ["ND201", "ND204"]


def test_identical_edits_are_shared_not_applied_twice():
    block = Edit(2, 0, 2, 0, "random.seed(0)\n")
    a = finding("ND101", 5, block)
    b = finding("ND102", 7, block, Edit(7, 0, 7, 1, "y"))
    plan = plan_round([a, b])
    assert [f.code for f in plan.accepted] == ["ND101", "ND102"]
    assert plan.edits["t.py"] == [block, Edit(7, 0, 7, 1, "y")]


def test_edits_in_another_file_are_planned_for_that_file():
    remote = Edit(1, 0, 1, 0, "import x\n", path="train.py")
    plan = plan_round([finding("ND101", 3, remote, path="lib.py")])
    assert plan.edits == {"train.py": [remote]}


def test_a_fix_whose_own_edits_overlap_is_invalid():
    plan = plan_round([finding("ND201", 1, Edit(1, 0, 1, 4, "a"), Edit(1, 2, 1, 6, "b"))])
    assert not plan.accepted and [f.code for f in plan.invalid] == ["ND201"]


@pytest.mark.parametrize(
    "before,after",
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\r\nb\r\n", "a\r\nb\r\nc\r\n"),
        ("a\nb", "a\nb\nc"),  # no line break at the end
        ("a\nb", "a\nc\n"),
        ("", "x = 1\n"),
    ],
)
def test_unified_diff_reproduces_the_new_text(before, after):
    assert apply_unified_diff(before, unified_diff("t.py", before, after)) == {"t.py": after}
