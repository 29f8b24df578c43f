"""Run ``nondet-lint --fix --unsafe-fixes`` on a copy of real repositories and check that the
fixes never break a program (spec "Fixes never break a program").

Usage::

    .venv/bin/python benchmarks/fix_real.py                  # every repository of the evaluation set
    .venv/bin/python benchmarks/fix_real.py DIR [DIR ...]    # these folders
    .venv/bin/python benchmarks/fix_real.py --json out.json  # also write the figures

The evaluation set is ``benchmarks/eval/repos.toml`` (unpacked under ``benchmarks/.eval/repos``
by ``benchmarks/eval/fetch.py``; repositories marked ``skip`` are left out unless named).
Each repository is copied to a temporary folder, linted (JSON, to see every fix), fixed, and
compared with its copy from before.  Per repository it reports:

- files changed and fixes applied (the command's own summary);
- files that compiled before and no longer do (must be 0);
- new flake8 E402 / E999 reports, counted per file (must be 0); ruff I001 too, when ruff is
  installed (a file whose imports were sorted and no longer are);
- ND205 switches inserted without ``warn_only=True`` into a program that runs an op the
  linter itself reports (ND203) as raising under the switch (must be 0).  The program is
  worked out here independently of the linter: the entry file and the repository modules
  it imports, transitively (``ast``);
- fixes whose edits land in a file that is neither the finding's nor an entry point whose
  imports reach the finding's module (must be 0): a fix in a program the finding does not
  concern.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "benchmarks" / "eval" / "repos.toml"
REPOS = ROOT / "benchmarks" / ".eval" / "repos"
SKIP_DIRS = {".git", ".hg", "__pycache__", ".nondet_lint_cache", ".mypy_cache", ".ruff_cache", ".tox", ".venv"}
SUMMARY = re.compile(r"fixed (\d+) of (\d+) findings? \((\d+) fix(?:es)? applied\)")


@dataclass
class RepoFigures:
    name: str
    findings: int = 0
    fixable: int = 0
    fixes_applied: int = 0
    files_changed: int = 0
    no_longer_compile: int = 0
    new_e402: int = 0
    new_e999: int = 0
    new_i001: Optional[int] = None
    strict_switch_with_raising_ops: int = 0
    warn_only_switches: int = 0
    cross_file_fixes: int = 0
    unconcerned_fixes: int = 0
    seconds: float = 0.0
    error: str = ""
    details: List[str] = field(default_factory=list)


# ---------------------------------------------------------------- the repositories ----
def evaluation_set() -> List[Path]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        from nondet_lint import _toml as tomllib  # type: ignore[no-redef]
    if not EVAL.is_file():
        sys.exit(f"fix_real: no {EVAL.relative_to(ROOT)}: name the folders to fix")
    data = tomllib.loads(EVAL.read_text(encoding="utf-8"))
    repos = data.get("repos", data.get("repo", []))
    if isinstance(repos, dict):
        repos = [{"name": k, **v} for k, v in repos.items()]
    chosen = [REPOS / entry["name"] for entry in repos if not entry.get("skip")]
    missing = [p for p in chosen if not p.is_dir()]
    if missing:
        sys.exit(f"fix_real: not unpacked: {', '.join(p.name for p in missing)} (run benchmarks/eval/fetch.py)")
    return chosen


def python_files(root: Path) -> List[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found.extend(Path(folder) / f for f in sorted(files) if f.endswith(".py"))
    return found


def snapshot(root: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in python_files(root)} | {
        str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.ipynb") if not SKIP_DIRS & set(p.parts)
    }


def compiles(source: bytes) -> bool:
    try:
        compile(source, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


# ---------------------------------------------------------------- linters -------------
def linter_counts(root: Path, files: Sequence[str], argv: Sequence[str], codes: Sequence[str]) -> Dict[str, Dict[str, int]]:
    """``{file: {code: count}}`` of a linter's reports on ``files``."""
    counts: Dict[str, Dict[str, int]] = {}
    for start in range(0, len(files), 200):
        done = subprocess.run([*argv, *files[start:start + 200]], cwd=root, capture_output=True, text=True)
        for line in done.stdout.splitlines():
            match = re.match(r"^(?:\./)?(.+?):\d+:\d+: (\w+)", line)
            if match and match.group(2) in codes:
                per = counts.setdefault(match.group(1), {})
                per[match.group(2)] = per.get(match.group(2), 0) + 1
    return counts


def has_ruff() -> bool:
    return subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode == 0


# ---------------------------------------------------------------- programs ------------
def module_index(root: Path) -> Dict[str, List[str]]:
    """Dotted module name -> the files (relative) it may be, for every package root
    candidate: the repository root and each folder above the file."""
    index: Dict[str, List[str]] = {}
    for path in python_files(root):
        rel = path.relative_to(root)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        for start in range(len(parts)):
            index.setdefault(".".join(parts[start:]), []).append(str(rel))
    return index


def _resolve(name: str, folder: str, index: Dict[str, List[str]]) -> List[str]:
    """The files an import of ``name`` from a file in ``folder`` may load: the script's own
    folder first (it is on ``sys.path`` when the script runs), else every file the name
    may be in the repository."""
    local = ".".join([*Path(folder).parts, name]) if folder not in ("", ".") else name
    found = [f for f in index.get(local, []) if f.replace(os.sep, "/").startswith(folder.replace(os.sep, "/"))]
    return found or index.get(name, [])


def sources_of(path: Path) -> List[bytes]:
    """A file's Python source; for a notebook, each code cell, its IPython magics and shell
    lines (``%pip``, ``    !git clone``) made ``pass`` at their indentation, as they are
    not Python (a cell that still does not parse is skipped, not the whole notebook)."""
    data = path.read_bytes()
    if path.suffix != ".ipynb":
        return [data]
    try:
        cells = json.loads(data).get("cells", [])
    except (ValueError, AttributeError):
        return []
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            text = cell.get("source", "")
            text = "".join(text) if isinstance(text, list) else str(text)
            lines = [
                line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
                for line in text.splitlines()
            ]
            out.append("\n".join(lines).encode("utf-8"))
    return out


def _trees(path: Path) -> List[ast.Module]:
    trees = []
    for source in sources_of(path):
        try:
            trees.append(ast.parse(source))
        except (SyntaxError, ValueError):
            continue
    return trees


def imports_of(root: Path, rel: str, index: Dict[str, List[str]]) -> Set[str]:
    trees = _trees(root / rel)
    package = ".".join(Path(rel).with_suffix("").parts[:-1])
    found = set()
    for node in (node for tree in trees for node in ast.walk(tree)):
        names: List[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, base] if base else parts)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        folder = str(Path(rel).parent)
        for name in names:
            while name:
                found.update(_resolve(name, folder, index))
                name = name.rpartition(".")[0]
    found.discard(rel)
    return found


def closure(root: Path, entry: str, index: Dict[str, List[str]], cache: Dict[str, Set[str]]) -> Set[str]:
    seen, stack = {entry}, [entry]
    while stack:
        current = stack.pop()
        if current not in cache:
            cache[current] = imports_of(root, current, index)
        for nxt in cache[current]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


# ---------------------------------------------------------------- one repository ------
def nondet_lint(root: Path, *args: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", *args, "--no-cache", "."],
        cwd=root, capture_output=True, text=True, timeout=timeout,
    )


def fix_repo(source: Path, timeout: int, ruff: bool) -> RepoFigures:
    import time

    figures = RepoFigures(source.name)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fix_real-") as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(*SKIP_DIRS), symlinks=True)
        before = snapshot(root)
        flake8 = [sys.executable, "-m", "flake8", "--select", "E402,E999"]
        ruff_argv = [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select", "I001", "--output-format", "concise"]
        try:
            listing = nondet_lint(root, "--unsafe-fixes", "--output-format", "json", timeout=timeout)
            findings = json.loads(listing.stdout)["findings"]
        except (subprocess.TimeoutExpired, ValueError, KeyError) as error:
            figures.error = f"lint failed: {type(error).__name__}"
            return figures
        figures.findings = len(findings)
        figures.fixable = sum(1 for f in findings if f.get("fix"))
        try:
            fixed = nondet_lint(root, "--fix", "--unsafe-fixes", "--quiet", timeout=timeout)
        except subprocess.TimeoutExpired:
            figures.error = "fix timed out"
            return figures
        match = SUMMARY.search(fixed.stderr)
        figures.fixes_applied = int(match.group(3)) if match else 0
        after = snapshot(root)
        changed = sorted(name for name in after if after[name] != before.get(name))
        figures.files_changed = len(changed)
        for name in changed:
            if name.endswith(".py") and compiles(before.get(name, b"")) and not compiles(after[name]):
                figures.no_longer_compile += 1
                figures.details.append(f"does not compile: {name}")
        changed_py = [name for name in changed if name.endswith(".py")]
        # the linters' reports before the fix: the same files in the untouched repository
        # (the copy was identical to it), so only the changed files are linted twice
        existing = [name for name in changed_py if name in before]
        e402_before = linter_counts(source, existing, flake8, ("E402", "E999"))
        i001_before = linter_counts(source, existing, ruff_argv, ("I001",)) if ruff else {}
        e402_after = linter_counts(root, changed_py, flake8, ("E402", "E999"))
        for name in changed_py:
            for code, attr in (("E402", "new_e402"), ("E999", "new_e999")):
                new = e402_after.get(name, {}).get(code, 0) - e402_before.get(name, {}).get(code, 0)
                if new > 0:
                    setattr(figures, attr, getattr(figures, attr) + new)
                    figures.details.append(f"{code} +{new}: {name}")
        if ruff:
            i001_after = linter_counts(root, changed_py, ruff_argv, ("I001",))
            figures.new_i001 = 0
            for name in changed_py:
                if i001_after.get(name) and not i001_before.get(name):
                    figures.new_i001 += 1
                    figures.details.append(f"I001: {name}")
        judge_fixes(Path(source), findings, figures)
    figures.seconds = round(time.perf_counter() - started, 1)
    return figures


def judge_fixes(root: Path, findings: List[dict], figures: RepoFigures) -> None:
    """The program checks, on the original tree (the fixes were planned on it)."""
    index = module_index(root)
    cache: Dict[str, Set[str]] = {}
    raising: Dict[str, List[str]] = {}  # file -> ND203 ops that raise under the switch
    for finding in findings:
        if finding["code"] == "ND203" and "it raises" in finding["message"]:
            raising.setdefault(finding["path"], []).append(finding["message"].split("`")[1])
    for finding in findings:
        fix = finding.get("fix")
        if not fix:
            continue
        path = finding["path"]
        edits = fix["edits"]
        targets = {edit.get("path") or path for edit in edits}
        if finding["code"] == "ND205":
            text = "".join(edit["content"] for edit in edits)
            if "use_deterministic_algorithms(" in text:
                if "warn_only=True" in text:
                    figures.warn_only_switches += 1
                else:
                    program = closure(root, path, index, cache)
                    ops = sorted({op for file in program for op in raising.get(file, [])})
                    if ops:
                        figures.strict_switch_with_raising_ops += 1
                        figures.details.append(f"strict switch in {path}, whose program runs {', '.join(ops)}")
        for target in targets - {path}:
            figures.cross_file_fixes += 1
            if path not in closure(root, target, index, cache):
                figures.unconcerned_fixes += 1
                figures.details.append(f"{finding['code']} in {path} fixed in {target}, which does not import it")


# ---------------------------------------------------------------- report --------------
COLUMNS = (
    ("repository", "name"), ("findings", "findings"), ("fixable", "fixable"), ("applied", "fixes_applied"),
    ("files changed", "files_changed"), ("no longer compile", "no_longer_compile"), ("new E402", "new_e402"),
    ("new E999", "new_e999"), ("new I001", "new_i001"), ("strict switch + raising op", "strict_switch_with_raising_ops"),
    ("warn_only switches", "warn_only_switches"), ("cross-file fixes", "cross_file_fixes"),
    ("fixes in unconcerned programs", "unconcerned_fixes"), ("seconds", "seconds"),
)


def table(rows: Iterable[RepoFigures]) -> str:
    rows = list(rows)
    lines = ["| " + " | ".join(title for title, _ in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = [str(getattr(row, attr)) if getattr(row, attr) is not None else "n/a" for _, attr in COLUMNS]
        if row.error:
            cells[-1] += f" ({row.error})"
        lines.append("| " + " | ".join(cells) + " |")
    totals = ["total"] + [
        str(sum(getattr(r, attr) or 0 for r in rows)) for _, attr in COLUMNS[1:-1]
    ] + [str(round(sum(r.seconds for r in rows), 1))]
    lines.append("| " + " | ".join(totals) + " |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, help="repositories to fix (default: the evaluation set)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per nondet-lint run")
    args = parser.parse_args(argv)
    folders = args.folders or evaluation_set()
    ruff = has_ruff()
    rows = []
    for folder in folders:
        row = fix_repo(folder.resolve(), args.timeout, ruff)
        rows.append(row)
        print(f"{row.name}: {row.fixes_applied} fixes, {row.files_changed} files changed, "
              f"{row.no_longer_compile} broken, +{row.new_e402} E402, +{row.new_e999} E999, "
              f"{row.strict_switch_with_raising_ops} strict switches with raising ops, "
              f"{row.unconcerned_fixes} unconcerned fixes {row.error}", file=sys.stderr, flush=True)
        for detail in row.details:
            print(f"  {detail}", file=sys.stderr)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n", encoding="utf-8")
    bad = sum(r.no_longer_compile + r.new_e402 + r.new_e999 + r.strict_switch_with_raising_ops + r.unconcerned_fixes for r in rows)
    return 1 if bad or any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
