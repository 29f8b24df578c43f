"""Run nondet-lint on every repository of the evaluation set, from its root, as a user would.

    .venv/bin/python benchmarks/eval/fetch.py      # once
    .venv/bin/python benchmarks/eval/run.py            # all repositories but the held-out ones
    .venv/bin/python benchmarks/eval/run.py flax       # some
    .venv/bin/python benchmarks/eval/run.py --heldout  # the held-out repositories

For each repository it runs ``python -m nondet_lint --format json --no-cache .`` with the
Python running this script (the installed nondet-lint) in the unpacked root, stores the JSON
in ``benchmarks/.eval/results/<name>.json`` and prints: Python files and lines, notebooks,
findings per code, findings per 1,000 lines of Python and the wall time of the run.
``results/summary.json`` holds the same figures for score.py.

Each run is capped (``--max-memory-gb``, ``--timeout``) so that a run that blows up is
recorded as failed instead of taking the machine down; repositories with a ``skip`` reason in
repos.toml are left out unless ``--include-skipped``. The held-out repositories (``heldout``
in repos.toml) run only with ``--heldout`` or when named.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from fetch import REPOS, STORE, load_repos, selected

RESULTS = STORE / "results"


def source_size(root: Path) -> Dict[str, int]:
    """Python files, their lines, and notebooks under ``root`` that the linter checks."""
    from nondet_lint.config import DEFAULT_EXCLUDE
    from nondet_lint.discovery import discover

    files, _ = discover([str(root)], DEFAULT_EXCLUDE)
    python = [path for path in files if path.endswith(".py")]
    lines = 0
    for path in python:
        with open(path, "rb") as handle:
            lines += handle.read().count(b"\n")
    return {"files": len(python), "lines": lines, "notebooks": sum(path.endswith(".ipynb") for path in files)}


def linter_meta() -> Dict[str, str]:
    """Which nondet-lint produced the results: its version, the last commit of its source, the date."""
    import datetime

    import nondet_lint

    root = Path(nondet_lint.__file__).resolve().parents[2]  # src/nondet_lint -> the checkout
    try:
        # the last commit that changed the linter (its code, rule data, packaging), not HEAD
        done = subprocess.run(["git", "log", "-1", "--format=%h", "--", "src", "rules", "pyproject.toml"],
                              cwd=root, capture_output=True, text=True, check=True)
        commit = done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    version = getattr(nondet_lint, "__version__", "unknown")
    return {"commit": commit, "version": str(version), "date": datetime.date.today().isoformat()}


class LintFailed(Exception):
    """The linter crashed, ran out of memory or time."""


def lint(root: Path, out: Path, max_memory: int, timeout: float) -> float:
    """Run the linter in ``root``, JSON to ``out``; the wall time in seconds."""

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))

    started = time.perf_counter()
    with open(out, "wb") as handle:
        try:
            done = subprocess.run(
                [sys.executable, "-m", "nondet_lint", "--format", "json", "--no-cache", "."],
                cwd=root, stdout=handle, stderr=subprocess.PIPE, preexec_fn=cap_memory, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise LintFailed(f"ran past {timeout:.0f} s") from None
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise LintFailed(f"exited {done.returncode} after {wall:.0f} s: {tail[0][:200]}")
    try:  # exit 1 is also how Python reports an import error: check the output is the report
        json.loads(out.read_text())["findings"]
    except (ValueError, KeyError, TypeError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise LintFailed(f"exited {done.returncode} without a JSON report: {tail[0][:200]}") from None
    return wall


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="repositories to run (default: all of repos.toml but the held-out ones)")
    parser.add_argument("--heldout", action="store_true", help="run the held-out repositories")
    parser.add_argument("--include-skipped", action="store_true", help="also run repositories repos.toml marks skip")
    parser.add_argument("--max-memory-gb", type=float, default=6.0, help="address-space cap of one run (default 6)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take (default 900)")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"folder for the results (default {RESULTS})")
    args = parser.parse_args(argv)
    results: Path = args.results
    results.mkdir(parents=True, exist_ok=True)
    summary_path = results / "summary.json"
    summary: Dict[str, Dict[str, object]] = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    print(f"{'repo':<20} {'files':>6} {'lines':>8} {'nb':>4} {'findings':>8} {'/kloc':>6} {'time s':>7}  per code")
    totals = collections.Counter()
    for repo in selected(load_repos(), args.names, args.heldout):
        name = str(repo["name"])
        if repo.get("skip") and not args.include_skipped and name not in args.names:
            print(f"{name:<20} skipped: {repo['skip']}")
            continue
        root = REPOS / name
        if not root.is_dir():
            raise SystemExit(f"{root} is missing: run benchmarks/eval/fetch.py first")
        out = results / f"{name}.json"
        try:
            wall = lint(root, out, int(args.max_memory_gb * 2**30), args.timeout)
        except LintFailed as failure:
            summary[name] = {"failed": str(failure)}
            print(f"{name:<20} FAILED: {failure}", flush=True)
            continue
        findings = json.loads(out.read_text())["findings"]
        per_code = collections.Counter(finding["code"] for finding in findings)
        size = source_size(root)
        per_kloc = 1000 * len(findings) / max(size["lines"], 1)
        summary[name] = {**size, "findings": len(findings), "per_code": dict(sorted(per_code.items())), "seconds": round(wall, 2)}
        totals.update({"files": size["files"], "lines": size["lines"], "notebooks": size["notebooks"], "findings": len(findings)})
        totals["seconds"] += wall
        codes = " ".join(f"{code}:{count}" for code, count in sorted(per_code.items()))
        print(f"{name:<20} {size['files']:>6} {size['lines']:>8} {size['notebooks']:>4} {len(findings):>8} "
              f"{per_kloc:>6.2f} {wall:>7.1f}  {codes}", flush=True)
    per_kloc = 1000 * totals["findings"] / max(totals["lines"], 1)
    print(f"{'total':<20} {totals['files']:>6} {totals['lines']:>8} {totals['notebooks']:>4} {totals['findings']:>8} "
          f"{per_kloc:>6.2f} {totals['seconds']:>7.1f}")
    summary["_meta"] = linter_meta()
    summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
