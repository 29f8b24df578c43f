"""Every fixable rule, driven by the rule data (``fix = "safe"`` or ``"unsafe"``).

For each *Example* and ``fires`` entry of such a rule: the fix removes the finding, the
result parses, a second ``--fix`` changes nothing, and the ``--diff`` output applied to
the original gives exactly what ``--fix`` writes.  Variants of the same source check that
comments around the edits survive and that CRLF newlines, a latin-1 coding cookie and a
UTF-8 BOM come out as they went in.  A rule added later is covered by adding its data.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import libcst as cst
import pytest

from fixtools import apply_unified_diff, config_for, fix_project, source_bytes, write_bytes
from nondet_lint.engine import run
from nondet_lint.fixes.diff import as_text, unified_diff
from nondet_lint.fixes.loop import FixOutcome
from nondet_lint.ruledata import Example, load_rules
from nondet_lint.types import SAFE, UNSAFE, Finding

RULES = load_rules()
FIXABLE = [rule for rule in RULES if rule.fix in (SAFE, UNSAFE)]

# the examples that get a fix (the others pin why not: tests/test_rule_examples.py)
CASES = [
    pytest.param(rule.code, example, id=f"{rule.code}-fires-{index}")
    for rule in FIXABLE
    for index, example in enumerate(rule.fires)
    if example.unfixed is None
]
# the examples whose fix edits the example's own file, which the variants rewrite
OWN_FILE_CASES = [case for case in CASES if case.values[1].fixed is not None]


def _files(example: Example, main: bytes) -> Dict[str, bytes]:
    files = {name: source_bytes(text) for name, text in example.files.items()}
    files[example.path] = main
    return files


def _findings(root: Path, example: Example, code: str) -> List[Finding]:
    return [f for f in run([str(root)], config_for(root, example.config)).findings if f.code == code]


def _offered(findings: List[Finding], unsafe: bool) -> List[Finding]:
    allowed = (SAFE, UNSAFE) if unsafe else (SAFE,)
    return [f for f in findings if f.fix is not None and f.fix.edits and f.fix.applicability in allowed]


def _fixed(root: Path, example: Example, code: str, main: bytes) -> Tuple[FixOutcome, List[Finding]]:
    write_bytes(root, _files(example, main))
    before = _findings(root, example, code)
    outcome, _ = fix_project(root, example.config, unsafe=RULES[code].fix == UNSAFE)
    return outcome, before


def _main(root: Path, example: Example) -> str:
    return str(root / example.path)


@pytest.mark.parametrize("code,example", CASES)
def test_fix_removes_the_finding_parses_and_settles(tmp_path, code, example):
    unsafe = RULES[code].fix == UNSAFE
    outcome, before = _fixed(tmp_path, example, code, source_bytes(example.source))
    assert _offered(before, unsafe), f"{code}: no fix offered for this example"
    assert outcome.converged and not outcome.dropped, [d.reason for d in outcome.dropped]
    assert any(f.code == code for f in outcome.applied)
    after = [f for f in outcome.findings if f.code == code]
    assert len(after) < len(before), f"{code} still reported: {[(f.line, f.message) for f in after]}"
    assert not _offered(after, unsafe), "a fix is still offered after the loop"
    assert outcome.changed
    for path in outcome.changed:
        text = as_text(path, outcome.contents[path])
        cst.parse_module(text)
        ast.parse(text)
    # --diff shows exactly what --fix writes
    for path in outcome.changed:
        before_text = as_text(path, outcome.originals[path])
        after_text = as_text(path, outcome.contents[path])
        patched = apply_unified_diff(before_text, unified_diff(path, before_text, after_text))
        assert patched == {path: after_text}
    # a second --fix changes nothing
    write_bytes(tmp_path, {Path(p).relative_to(tmp_path).as_posix(): outcome.contents[p] for p in outcome.changed})
    again, _ = fix_project(tmp_path, example.config, unsafe=unsafe)
    assert again.changed == [], f"second fix changed {again.changed}"


def test_every_fixable_rule_offers_a_fix(tmp_path):
    """A rule that says it can be fixed offers a fix on at least one of its examples."""
    for rule in FIXABLE:
        offered = False
        for index, example in enumerate(rule.fires):
            root = tmp_path / f"{rule.code}-{index}"
            write_bytes(root, _files(example, source_bytes(example.source)))
            if _offered(_findings(root, example, rule.code), unsafe=True):
                offered = True
                break
        assert offered, f"{rule.code} is marked fix = {rule.fix!r} but no example gets a fix"


# ---- variants: the same fix on the same code, written differently --------------------


def with_comments(source: str) -> str:
    """Each line that ends a statement or sits in brackets gets a trailing comment."""
    lines = source.splitlines(keepends=True)
    ends: Dict[int, int] = {}
    commented = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            commented.add(token.start[0])
        elif token.type in (tokenize.NEWLINE, tokenize.NL) and lines[token.start[0] - 1].strip():
            ends[token.start[0]] = token.start[1]
    for row, col in sorted(ends.items(), reverse=True):
        if row in commented:
            continue
        line = lines[row - 1]
        lines[row - 1] = line[:col] + f"  # keep-{row}" + line[col:]
    return "".join(lines)


_PLAIN: Dict[Tuple[str, int], Tuple[bytes, bool]] = {}


def _plain_fix(tmp_path: Path, code: str, example: Example) -> Tuple[bytes, bool]:
    """The fixed example as written, and whether the fix edits its own file (once per example)."""
    key = (code, id(example))
    if key not in _PLAIN:
        outcome, _ = _fixed(tmp_path / "plain", example, code, source_bytes(example.source))
        main = _main(tmp_path / "plain", example)
        _PLAIN[key] = (outcome.contents.get(main, source_bytes(example.source)), main in outcome.changed)
    return _PLAIN[key]


def _variant_case(tmp_path: Path, code: str, example: Example, variant: bytes) -> Tuple[bytes, bytes, bool]:
    """(fixed plain source, fixed variant, whether the fix applies to the example's file)."""
    plain, edits_main = _plain_fix(tmp_path, code, example)
    changed, before = _fixed(tmp_path / "variant", example, code, variant)
    main_variant = _main(tmp_path / "variant", example)
    offered = bool(_offered(before, RULES[code].fix == UNSAFE))
    return plain, changed.contents.get(main_variant, variant), offered and edits_main


@pytest.mark.parametrize("code,example", OWN_FILE_CASES)
def test_comments_around_the_edits_are_kept(tmp_path, code, example):
    source = textwrap_source(example)
    commented = with_comments(source)
    outcome, before = _fixed(tmp_path, example, code, commented.encode("utf-8"))
    main = _main(tmp_path, example)
    assert _offered(before, RULES[code].fix == UNSAFE) and main in outcome.changed
    fixed = as_text(main, outcome.contents[main])
    for number in range(1, commented.count("\n") + 2):
        marker = f"# keep-{number}"
        assert fixed.count(marker) == commented.count(marker), f"{marker} lost:\n{fixed}"
    assert [f for f in outcome.findings if f.code == code] != before


def textwrap_source(example: Example) -> str:
    return source_bytes(example.source).decode("utf-8")


# the cookie line must itself be ASCII (Python reads it before it knows the codec)
LATIN1_HEADER = "# -*- coding: latin-1 -*-\n# café, naïve\n".encode("latin-1")

VARIANTS: Dict[str, Tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    # name: (make the variant from the UTF-8 source, expected fix from the plain fix)
    "crlf": (lambda b: b.replace(b"\n", b"\r\n"), lambda b: b.replace(b"\n", b"\r\n")),
    "latin-1": (lambda b: LATIN1_HEADER + b, lambda b: LATIN1_HEADER + b),
    "bom": (lambda b: b"\xef\xbb\xbf" + b, lambda b: b"\xef\xbb\xbf" + b),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("code,example", OWN_FILE_CASES)
def test_encoding_bom_and_newlines_survive(tmp_path, code, example, variant):
    make, expect = VARIANTS[variant]
    source = source_bytes(example.source)
    # the variants put the same bytes behind another header: for latin-1 they must be ASCII
    assert source.isascii(), f"{code}: a non-ASCII example needs its own latin-1 variant"
    plain, fixed, fires = _variant_case(tmp_path, code, example, make(source))
    assert fires, f"{code}: no fix to the example's file"
    assert fixed == expect(plain)
