"""The libcst shim: its fast path (libcst internals) and its public fallback agree.

Positions on both paths are compared node for node with ``PositionProvider`` in
test_positions.py; here: parsing, code in place, and whole findings with their fixes.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from conftest import lint_files
from nondet_lint import libcst_shim
from nondet_lint.ruledata import load_rules
from nondet_lint.walk import nodes_in

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(ROOT.glob("src/nondet_lint/**/*.py")) + sorted(ROOT.glob("examples/**/*.py"))
HOOK = cst.CSTNode.__dict__["__post_init__"]


@pytest.fixture(params=[True, False], ids=["fast", "public"])
def path_taken(request, monkeypatch):
    if request.param and not libcst_shim.FAST:
        pytest.fail(f"libcst {libcst_shim.LIBCST_VERSION} is outside the verified range {libcst_shim.VERIFIED}")
    monkeypatch.setattr(libcst_shim, "FAST", request.param)
    return request.param


def test_the_installed_libcst_takes_the_fast_path():
    # CI installs libcst at both ends of the supported range, both verified
    assert libcst_shim.FAST, libcst_shim.LIBCST_VERSION


@pytest.mark.parametrize("version,usable", [
    ("1.0.1", False), ("1.1.0", True), ("1.9.0", True), ("1.9.3", True), ("1.10.0", False), ("2.0.0", False),
    ("1.5.0rc1", True), ("", False),
])
def test_version_check(version, usable):
    assert libcst_shim.usable(libcst_shim._version(version)) is usable


@pytest.mark.parametrize("path", SOURCES[::7], ids=lambda p: p.name)
def test_same_tree_as_libcst(path, path_taken):
    text = path.read_text(encoding="utf-8")
    ours, theirs = libcst_shim.parse_module(text), cst.parse_module(text)
    assert ours.deep_equals(theirs)
    assert ours.code == text


def test_validation_is_back_after_a_parse_and_after_a_syntax_error(path_taken):
    libcst_shim.parse_module("x = 1\n")
    assert cst.CSTNode.__dict__["__post_init__"] is HOOK
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        libcst_shim.parse_module("def (:\n")
    assert cst.CSTNode.__dict__["__post_init__"] is HOOK
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


BLOCK = '''\
def f():
    if x:
        y = call(
            a,
            [b,
             c],  # comment
        )
        z = (1 +
             2)
'''


@pytest.mark.parametrize("indent", ["", "    ", "        ", "\t"])
def test_code_in_block_is_the_same_on_both_paths(monkeypatch, indent):
    module = cst.parse_module(BLOCK.replace("    ", indent or "  "))
    nodes = [module.body[0].body.body[0].body.body[0].body[0].value, module.body[0].body.body[0].body.body[1]]
    got = {}
    for fast in (True, False):
        monkeypatch.setattr(libcst_shim, "FAST", fast)
        got[fast] = [libcst_shim.code_in_block(module, node, indent) for node in nodes]
    assert got[True] == got[False]
    assert got[True][0].count("\n") == 4 and got[True][0].endswith(")")


def test_code_in_block_reads_as_in_the_source(path_taken):
    module = cst.parse_module(BLOCK)
    call = module.body[0].body.body[0].body.body[0].body[0].value
    start = BLOCK.index("call(")
    assert libcst_shim.code_in_block(module, call, "        ") == BLOCK[start: BLOCK.index(")\n", start) + 1]


@pytest.mark.parametrize("path", SOURCES[::29], ids=lambda p: p.name)
def test_code_for_is_libcsts_code_for_node(path, path_taken):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    nodes = nodes_in(module, cst.CSTNode)
    assert nodes
    for node in nodes:
        assert printed(lambda: libcst_shim.code_for(module, node)) == printed(lambda: module.code_for_node(node))


def printed(generate):
    """The code generated, or the error of a node libcst cannot print alone."""
    try:
        return generate()
    except Exception as error:  # noqa: BLE001 - libcst raises its own error, not exported
        return str(error)


FIXABLE = [rule for rule in load_rules() if rule.fix in ("safe", "unsafe")]


def relative(finding: dict, root: Path) -> dict:
    """A finding's paths (its own, its related places', its edits' in other files)
    relative to ``root``."""
    out = {**finding, "path": Path(finding["path"]).relative_to(root).as_posix()}
    out["related"] = [{**r, "path": Path(r["path"]).relative_to(root).as_posix()} for r in finding.get("related", [])]
    if finding["fix"]:
        edits = [{**e, "path": Path(e["path"]).relative_to(root).as_posix()} if "path" in e else e for e in finding["fix"]["edits"]]
        out["fix"] = {**finding["fix"], "edits": edits}
    return out


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_findings_and_fixes_are_the_same_on_both_paths(tmp_path, monkeypatch, rule):
    results = {}
    for fast in (True, False):
        monkeypatch.setattr(libcst_shim, "FAST", fast)
        results[fast] = []
        for index, example in enumerate(rule.fires):
            root = tmp_path / f"{fast}-{index}"
            findings = lint_files(root, {example.path: example.source, **example.files}, example.config)
            results[fast].append([relative(f.to_dict(), root) for f in findings])
    assert results[True] == results[False]
    assert any(f["fix"] for found in results[True] for f in found)
