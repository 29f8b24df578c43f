"""Pin what each rule example produces, in the rule data itself (maintainer tool).

    .venv/bin/python tests/pin_examples.py          # add the pins that are missing
    .venv/bin/python tests/pin_examples.py --check  # list them, change nothing
    .venv/bin/python tests/pin_examples.py --repin ND205-fires-1  # pin one example again

Every ``fires`` example (the documented *Example* first) records the findings of its
rule as ``findings = ["path:line:col: message"]``; an example of a fixable rule also
records what ``--fix`` (with ``fixable`` limited to the rule) writes: ``fixed`` for the
example's own file, ``fixed_files`` for other files it changes, or ``unfixed = "why"``
when no fix is offered (the tool writes ``"TODO"``: say why by hand). For the documented
example the keys live in ``[NDxxx.docs]`` with an ``example_`` prefix. Existing pins
are never rewritten unless named with ``--repin`` (the test ids of
tests/test_rule_examples.py): the test compares them exactly, and a change of output is a
change to review, by hand, in the diff of the TOML.

Read every generated text before committing it: the tool pins what the code does
today, right or wrong.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from fixtools import config_for, fix_project, source_bytes, write_bytes
from nondet_lint.engine import run
from nondet_lint.fixes.diff import as_text
from nondet_lint.ruledata import Example, Rule, load_rules
from nondet_lint.types import SAFE, UNSAFE

ROOT = Path(__file__).resolve().parents[1]
FIXABLE = (SAFE, UNSAFE)


def pinned_outcome(rule: Rule, example: Example, root: Path) -> Tuple[List[str], Optional[Dict[str, str]]]:
    """The rule's findings on ``example`` (``path:line:col: message``, 1-based column) and,
    for a fixable rule, the files its fix changes ({} when none is offered)."""
    files = {name: source_bytes(text) for name, text in example.files.items()}
    files[example.path] = source_bytes(example.source)
    write_bytes(root, files)
    config = {**example.config, "fixable": [rule.code]}
    findings = [
        f"{Path(f.path).relative_to(root).as_posix()}:{f.line}:{f.col + 1}: {f.message}"
        for f in run([str(root)], config_for(root, example.config)).findings if f.code == rule.code
    ]
    if rule.fix not in FIXABLE:
        return findings, None
    outcome, _ = fix_project(root, config, unsafe=rule.fix == UNSAFE)
    changed = {
        Path(path).relative_to(root).as_posix(): as_text(path, outcome.contents[path]) for path in outcome.changed
    }
    return findings, changed


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"""', '""\\"')
    if "\n" not in text:
        return '"' + escaped.replace('"', '\\"') + '"'
    return '"""\n' + escaped + '"""'


def pins(rule: Rule, example: Example, root: Path, prefix: str) -> List[str]:
    """The TOML lines that pin ``example``'s outcome."""
    findings, changed = pinned_outcome(rule, example, root)
    lines = [f"{prefix}findings = [" + ", ".join(_toml_string(f) for f in findings) + "]"]
    if changed is not None:
        own = changed.pop(example.path, None)
        if own is not None:
            lines.append(f"{prefix}fixed = {_toml_string(own)}")
        if changed:
            items = ", ".join(f"{_toml_string(name)} = {_toml_string(text)}" for name, text in sorted(changed.items()))
            lines.append(f"{prefix}fixed_files = {{ {items} }}")
        if own is None and not changed:
            lines.append(f'{prefix}unfixed = "TODO"')
    return lines


_HEADER = re.compile(r"^\[\[?([A-Za-z0-9_.-]+)\]\]?\s*(#.*)?$")


def _tables(lines: List[str]) -> List[Tuple[str, int, int]]:
    """(header name with array index, first line, end line) of each table, skipping
    header-like lines inside multi-line strings."""
    tables: List[Tuple[str, int, int]] = []
    counts: Dict[str, int] = {}
    inside: Optional[str] = None
    current: Optional[Tuple[str, int]] = None
    for number, line in enumerate(lines):
        if inside is None:
            match = _HEADER.match(line)
            if match:
                if current is not None:
                    tables.append((current[0], current[1], number))
                name = match.group(1)
                if line.startswith("[["):
                    counts[name] = counts.get(name, -1) + 1
                    name = f"{name}[{counts[name]}]"
                current = (name, number)
        for quote in re.findall(r'"""|\'\'\'', line):
            if inside is None:
                inside = quote
            elif inside == quote:
                inside = None
    if current is not None:
        tables.append((current[0], current[1], len(lines)))
    return tables


_PIN_KEYS = ("findings", "fixed", "fixed_files", "unfixed")


def _drop_pins(lines: List[str], start: int, end: int, prefix: str) -> List[str]:
    """``lines[start:end]`` (one table) without its pin keys and their values, which the
    tool wrote: a value ends where its triple-quoted strings are closed."""
    kept: List[str] = []
    number = start
    while number < end:
        line = lines[number]
        if any(line.startswith(f"{prefix}{key} = ") for key in _PIN_KEYS):
            quotes = line.count('"""')
            while quotes % 2 and number + 1 < end:
                number += 1
                quotes += lines[number].count('"""')
        else:
            kept.append(line)
        number += 1
    return kept


def repin(path: Path, names: List[str]) -> List[str]:
    """Remove the pins of the examples named by test id (``ND205-fires-1``) from one rule
    file, so that ``fill`` pins them again; the names found there."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    for name, start, end in reversed(_tables(lines)):
        code, _, rest = name.partition(".")
        index = 0 if rest == "docs" else 1 + int(rest[len("fires["):-1]) if rest.startswith("fires[") else None
        if index is None or f"{code}-fires-{index}" not in names:
            continue
        found.append(f"{code}-fires-{index}")
        lines[start:end] = _drop_pins(lines, start, end, "example_" if rest == "docs" else "")
    path.write_text("\n".join(lines), encoding="utf-8")
    return found


def fill(path: Path, write: bool) -> List[str]:
    """Add the missing pins to one rule file; the tables that lacked them."""
    rules = {rule.code: rule for rule in load_rules()}
    lines = path.read_text(encoding="utf-8").split("\n")
    inserts: List[Tuple[int, List[str]]] = []
    missing = []
    with tempfile.TemporaryDirectory() as folder:
        for name, _, end in _tables(lines):
            code, _, rest = name.partition(".")
            rule = rules.get(code)
            if rule is None or rest not in ("docs",) and not rest.startswith("fires["):
                continue
            if rest == "docs":
                example, prefix = rule.fires[0], "example_"
            else:
                example, prefix = rule.fires[1 + int(rest[len("fires["):-1])], ""
            if example.findings is not None:
                continue
            missing.append(name)
            while end > 0 and not lines[end - 1].strip():
                end -= 1
            inserts.append((end, pins(rule, example, Path(folder) / name, prefix)))
    if write and inserts:
        for end, added in sorted(inserts, reverse=True):
            lines[end:end] = added
        path.write_text("\n".join(lines), encoding="utf-8")
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list the examples that lack pins")
    parser.add_argument("--repin", nargs="+", default=[], metavar="ID", help="pin these examples again (test ids)")
    args = parser.parse_args()
    if args.repin:
        found = [name for path in sorted((ROOT / "rules").glob("*.toml")) for name in repin(path, args.repin)]
        unknown = sorted(set(args.repin) - set(found))
        if unknown:
            print(f"no such example: {', '.join(unknown)}", file=sys.stderr)
            return 2
    missing = []
    for path in sorted((ROOT / "rules").glob("*.toml")):
        missing += [f"{path.name}: [{name}]" for name in fill(path, write=not args.check)]
    print("\n".join(missing) or "every example is pinned")
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
