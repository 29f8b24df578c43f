"""The command-line fix modes, as ruff users know them.

- ``--fix``: apply safe fixes, write the files, then report what remains (the exit code
  reflects what remains).
- ``--unsafe-fixes``: with the modes here, apply unsafe fixes too.
- ``--fix-only``: apply fixes and report nothing that remains; exit 0 unless a file
  could not be written.
- ``--diff``: print what ``--fix`` (or ``--fix-only``) would write as a unified diff and
  write nothing; exit 1 when there would be changes.
- ``--show-fixes``: list the fixes applied, per file and code.

Notes for people go to standard error (fix counts, fixes not applied and why, files not
written and why), so standard output stays what its format promises.  Source read from
standard input is written back to standard output, fixed, as ruff does.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, TextIO

from nondet_lint.results import RunResult
from nondet_lint.config import Config
from nondet_lint.fixes.apply import distinct_fixes
from nondet_lint.fixes.diff import as_text, unified_diff
from nondet_lint.fixes.loop import FixOutcome, FixSession, restore
from nondet_lint.fixes.writer import WriteError, write_atomically
from nondet_lint.ruledata import RuleSet
from nondet_lint.reporters import HUMAN_FORMATS
from nondet_lint.reporters.summary import plural
from nondet_lint.reporters.text import location
from nondet_lint.types import Finding

EXIT_CLEAN, EXIT_FINDINGS = 0, 1


@dataclass
class FixReport:
    """What the caller still needs: the findings to report, or an exit code to stop with."""

    findings: List[Finding]
    exit_code: Optional[int] = None


def show_fixes(applied: Sequence[Finding], rules: RuleSet, out: TextIO, dry: bool = False) -> None:
    """Fixed findings per file and code (``--show-fixes``), like ruff's list."""
    if not applied:
        out.write("No fixes would be applied.\n" if dry else "No fixes applied.\n")
        return
    out.write(f"{'Would fix' if dry else 'Fixed'} {plural(len(applied), 'finding')}:\n")
    by_path: Dict[str, "Counter[str]"] = {}
    for finding in applied:
        by_path.setdefault(finding.path, Counter())[finding.code] += 1
    for path in sorted(by_path):
        out.write(f"- {path}:\n")
        for code, count in sorted(by_path[path].items()):
            name = rules[code].name if code in rules else ""
            out.write(f"    {count} × {code} ({name})\n")


def _report_problems(outcome: FixOutcome, unwritten: Dict[str, str], err: TextIO) -> None:
    for item in sorted(outcome.dropped, key=lambda d: d.finding.sort_key):
        err.write(f"nondet-lint: {location(item.finding)}: {item.finding.code} fix not applied: {item.reason}\n")
    for path, reason in sorted(unwritten.items()):
        err.write(f"nondet-lint: {path}: not fixed: {reason}\n")
    if not outcome.converged:
        err.write("nondet-lint: fixes did not settle (they keep changing the code); stopped after the last round\n")


def apply_fixes(
    args: argparse.Namespace,
    config: Config,
    result: RunResult,
    rules: RuleSet,
    out: TextIO,
    err: TextIO,
    stdin: Optional[bytes] = None,
) -> FixReport:
    """Run the fix mode the flags ask for; see the module docs for each mode."""
    stdin_path = result.files[0] if stdin is not None and result.files else None
    read = (lambda path: stdin if path == stdin_path else _read(path)) if stdin is not None else None
    session = FixSession(result, config, unsafe=args.unsafe_fixes, **({"read": read} if read else {}))
    outcome = session.fix()
    changed = outcome.changed
    human = args.format is None or args.format in HUMAN_FORMATS
    listing = err if (not human or stdin is not None or args.diff or args.output_file) else out
    if args.diff:
        for path in changed:
            out.write(unified_diff(path, as_text(path, outcome.originals[path]), as_text(path, outcome.contents[path])))
        _report_problems(outcome, {}, err)
        if args.show_fixes:
            show_fixes(outcome.applied, rules, listing, dry=True)
        err.write(f"nondet-lint: would fix {plural(len(outcome.applied), 'finding')}\n" if outcome.applied else "")
        return FixReport(outcome.findings, EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN)
    unwritten: Dict[str, str] = {}
    for path in changed:
        if path == stdin_path:
            continue
        try:
            write_atomically(path, outcome.originals[path], outcome.contents[path])
        except WriteError as exc:
            unwritten[path] = str(exc)
    if stdin_path is not None:
        out.write(as_text(stdin_path, outcome.contents.get(stdin_path, stdin or b"")))
    applied = [f for f in outcome.applied if f.path not in unwritten and not (session.targets(f) & set(unwritten))]
    findings = restore(outcome, session, sorted(unwritten))
    _report_problems(outcome, unwritten, err)
    if args.show_fixes:
        show_fixes(applied, rules, listing)
    if applied:
        err.write(f"nondet-lint: {_counts(len(result.findings), distinct_fixes(applied), len(findings))}\n")
    if args.fix_only:
        return FixReport(findings, EXIT_FINDINGS if unwritten else EXIT_CLEAN)
    return FixReport(findings)


def _counts(before: int, applied: int, remaining: int) -> str:
    """Counts that add up: a fix can settle several findings (one seed block settles every
    unseeded use of a program), so findings fixed are those gone, not fixes applied."""
    fixed = max(before - remaining, 0)
    fixes = "1 fix" if applied == 1 else f"{applied} fixes"
    return f"fixed {fixed} of {plural(before, 'finding')} ({fixes} applied), {remaining} remaining"


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
