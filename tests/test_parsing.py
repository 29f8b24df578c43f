"""Parsing without node validation builds the same tree as libcst's own parse."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from nondet_lint import parsing

SOURCES = sorted(Path(__file__).resolve().parents[1].glob("src/nondet_lint/**/*.py")) + sorted(
    Path(__file__).resolve().parents[1].glob("examples/**/*.py")
)


@pytest.mark.parametrize("path", SOURCES[::7], ids=lambda p: p.name)
def test_same_tree_as_libcst(path):
    text = path.read_text(encoding="utf-8")
    ours, theirs = parsing.parse_module(text), cst.parse_module(text)
    assert ours.deep_equals(theirs)
    assert ours.code == text


def test_validation_is_back_after_a_parse_and_after_a_syntax_error():
    parsing.parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parsing.parse_module("def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
