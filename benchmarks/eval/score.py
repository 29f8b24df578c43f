"""Score the linter on the evaluation set: join the results of run.py with the labels and the misses.

    .venv/bin/python benchmarks/eval/score.py                      # tables, and SCORES.md
    .venv/bin/python benchmarks/eval/score.py --list-unlabelled    # findings nobody judged yet
    .venv/bin/python benchmarks/eval/score.py --no-write           # print only

Labels (labels.jsonl) are matched to findings by repo, path, line, code (and notebook cell);
a label whose finding is gone is dropped (counted as stale), a finding with no label is
"unlabelled" for a later session to judge. Large groups were labelled on a random sample, so
precision is given two ways: over the labelled findings, and estimated: each (repo, code)
stratum's precision weighted by its number of findings (the same when everything is labelled).

A miss (misses.jsonl) counts as still missed unless the linter now reports its code there:
at the same line for call-site rules, anywhere in the same file for the rules reported once
per module (ND101, ND102, ND104, ND105) and for the program-level rules, reported once in
their entry point's file (ND205, ND209: a miss names the entry point's GPU line, which may
not be the line the finding is anchored at). Recall = estimated true findings / (estimated true
findings + misses still missed); misses come only from reading the main entry points, so it
is an upper bound on the real recall.

The held-out repositories (``heldout`` in repos.toml) are scored in tables of their own, never in
the main totals; ``--heldout`` scores (and writes) only them. SCORES.md has a part for each set; a
part is rewritten only when the results hold a run of its repositories, so scoring one set keeps
the other's figures, unless those figures name a repository that is no longer in that set (the
held-out set was replaced and its old repositories promoted): then the old part is dropped.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from fetch import HERE, load_repos
from run import RESULTS

MODULE_LEVEL = {"ND101", "ND102", "ND104", "ND105", "ND205", "ND209"}  # matched by file
LABELS = ("tp", "fp", "noise")
HELDOUT_HEADING = "## Held-out repositories (not used to tune rules)"
HELDOUT_SAMPLE = 10  # findings labelled per (repo, code) stratum of the held-out set (samples.json)
Key = Tuple[str, str, int, Optional[int], str]


def read_jsonl(path: Path) -> List[Dict[str, object]]:
    if not path.is_file():
        return []
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path.name}:{number}: not JSON ({error})") from None
    return rows


def key_of(repo: str, row: Dict[str, object]) -> Key:
    cell = row.get("cell")
    return (repo, str(row["path"]), int(row["line"]), int(cell) if cell is not None else None, str(row["code"]))


@dataclass
class Group:
    """Figures of one row of a table (a repository, a code, a family or the total)."""

    findings: int = 0
    lines: int = 0
    counts: collections.Counter = field(default_factory=collections.Counter)
    estimated_tp: float = 0.0
    estimated_judged: int = 0  # findings in strata that have at least one label
    misses: int = 0

    @property
    def labelled(self) -> int:
        return sum(self.counts[label] for label in LABELS)

    def precision(self) -> Optional[float]:
        return self.counts["tp"] / self.labelled if self.labelled else None

    def estimated_precision(self) -> Optional[float]:
        return self.estimated_tp / self.estimated_judged if self.estimated_judged else None

    def recall(self) -> Optional[float]:
        found = self.estimated_tp
        return found / (found + self.misses) if found + self.misses else None


def family(code: str) -> str:
    return code[:3] + "xx"


def fmt(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def git_commit() -> str:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True)
        return done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def score(list_unlabelled: bool, results: Path = RESULTS, heldout: bool = False) -> Tuple[List[str], Dict[str, object]]:
    """The report lines and the raw figures of the run.py results in ``results``, for the
    held-out repositories (``heldout``) or the others."""
    summary_path = results / "summary.json"
    if not summary_path.is_file():
        raise SystemExit(f"{summary_path} is missing: run benchmarks/eval/run.py first")
    summary = json.loads(summary_path.read_text())
    labels = {key_of(str(row["repo"]), row): row for row in read_jsonl(HERE / "labels.jsonl")}
    misses = read_jsonl(HERE / "misses.jsonl")

    findings: Dict[Key, Dict[str, object]] = {}
    lines_of: Dict[str, int] = {}
    skipped: List[str] = []
    for repo in load_repos():
        name = str(repo["name"])
        if bool(repo.get("heldout")) != heldout:
            continue
        figures = summary.get(name)
        out = results / f"{name}.json"
        if not figures or "failed" in figures or not out.is_file():
            reason = figures.get("failed") if figures else repo.get("skip", "not run")
            skipped.append(f"{name}: {reason}")
            continue
        lines_of[name] = int(figures["lines"])
        for finding in json.loads(out.read_text())["findings"]:
            findings[key_of(name, finding)] = finding

    reported_lines = {(k[0], k[1], k[2], k[4]) for k in findings}
    reported_files = {(k[0], k[1], k[4]) for k in findings}
    still_missed: List[Dict[str, object]] = []
    for miss in misses:
        repo, path, code = str(miss["repo"]), str(miss["path"]), str(miss["code"])
        if repo not in lines_of:
            continue
        if code in MODULE_LEVEL:
            found = (repo, path, code) in reported_files
        else:
            found = (repo, path, int(miss["line"]), code) in reported_lines
        if not found:
            still_missed.append(miss)

    strata: Dict[Tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    for key in findings:
        label = labels.get(key)
        strata[(key[0], key[4])]["findings"] += 1
        if label:
            strata[(key[0], key[4])][str(label["label"])] += 1
    stale = [key for key in labels if key not in findings and key[0] in lines_of]
    unlabelled = [key for key in findings if key not in labels]

    by_repo: Dict[str, Group] = collections.defaultdict(Group)
    by_code: Dict[str, Group] = collections.defaultdict(Group)
    by_family: Dict[str, Group] = collections.defaultdict(Group)
    total = Group()
    for (repo, code), counter in strata.items():
        judged = sum(counter[label] for label in LABELS)
        estimated = counter["findings"] * counter["tp"] / judged if judged else 0.0
        for group in (by_repo[repo], by_code[code], by_family[family(code)], total):
            group.findings += counter["findings"]
            group.counts.update({label: counter[label] for label in LABELS})
            group.estimated_tp += estimated
            group.estimated_judged += counter["findings"] if judged else 0
    for miss in still_missed:
        repo, code = str(miss["repo"]), str(miss["code"])
        for group in (by_repo[repo], by_code[code], by_family[family(code)], total):
            group.misses += 1
    for repo, lines in lines_of.items():
        by_repo[repo].lines = lines
    total.lines = sum(lines_of.values())

    header = "| {:<22} | {:>8} | {:>8} | {:>4} | {:>4} | {:>5} | {:>9} | {:>9} | {:>6} | {:>6} | {:>6} |".format(
        "", "findings", "labelled", "tp", "fp", "noise", "precision", "est.prec.", "misses", "recall", "/kloc")
    rule = "|" + "|".join("-" * (len(part) + 0) for part in header.split("|")[1:-1]) + "|"

    def row(name: str, group: Group, lines: Optional[int]) -> str:
        per_kloc = f"{1000 * group.findings / lines:.2f}" if lines else "-"
        return "| {:<22} | {:>8} | {:>8} | {:>4} | {:>4} | {:>5} | {:>9} | {:>9} | {:>6} | {:>6} | {:>6} |".format(
            name, group.findings, group.labelled, group.counts["tp"], group.counts["fp"], group.counts["noise"],
            fmt(group.precision()), fmt(group.estimated_precision()), group.misses, fmt(group.recall()), per_kloc)

    report: List[str] = []
    report += ["### Per repository", "", header.replace("|                        |", "| repository             |", 1), rule]
    report += [row(name, by_repo[name], lines_of.get(name)) for name in lines_of]
    report += [row("total", total, total.lines), ""]
    report += ["| repository             | files | lines of Python | notebooks | seconds |", "|---|---|---|---|---|"]
    for name in lines_of:
        figures = summary[name]
        report.append(f"| {name:<22} | {figures['files']} | {figures['lines']} | {figures['notebooks']} | {figures['seconds']} |")
    report += [f"| total                  | {sum(summary[n]['files'] for n in lines_of)} | {total.lines} | "
               f"{sum(summary[n]['notebooks'] for n in lines_of)} | {sum(summary[n]['seconds'] for n in lines_of):.1f} |", ""]
    report += ["### Per code", "", header.replace("|                        |", "| code                   |", 1), rule]
    report += [row(code, by_code[code], None) for code in sorted(by_code)]
    report += ["", "### Per family", "", header.replace("|                        |", "| family                 |", 1), rule]
    report += [row(name, by_family[name], None) for name in sorted(by_family)]
    report += [row("total", total, total.lines), ""]
    scored_labels = sum(key[0] in lines_of for key in labels)
    scored_misses = sum(str(miss["repo"]) in lines_of for miss in misses)
    report.append(f"Labels: {scored_labels} ({len(stale)} stale: their finding is gone); unlabelled findings: {len(unlabelled)}; "
                  f"misses: {scored_misses} recorded, {len(still_missed)} still missed.")
    if skipped:
        report.append("Not scored: " + "; ".join(skipped) + ".")
    if list_unlabelled:
        report += ["", "Unlabelled findings:"]
        for repo, path, line, cell, code in sorted(unlabelled, key=str):
            report.append(f"  {repo} {path}:{line}{'' if cell is None else f' (cell {cell})'} {code}")
        report += ["", "Still missed:"]
        report += [f"  {miss['repo']} {miss['path']}:{miss['line']} {miss['code']}: {miss['what']}" for miss in still_missed]
    raw = {"total": total, "unlabelled": len(unlabelled), "stale": len(stale), "scored": len(lines_of)}
    return report, raw


def table_repos(part: str) -> List[str]:
    """The repositories of the first per-repository table of a part of SCORES.md."""
    names: List[str] = []
    in_table = False
    for line in part.splitlines():
        if line.startswith("| repository "):
            in_table = True
        elif in_table and line.startswith("|") and not line.startswith("|-"):
            name = line.strip("|").split("|")[0].strip()
            if name != "total":
                names.append(name)
        elif in_table and not line.startswith("|"):
            break
    return names


def scores_text(previous: str, report: List[str], heldout: List[str], meta: Dict[str, str],
                sets: Optional[Dict[bool, List[str]]] = None) -> str:
    """SCORES.md with the part of each set that has a report; the other part kept from ``previous``
    unless it names a repository that is no longer in its set (``sets``: the repositories of each
    set, keyed by ``heldout``; read from repos.toml when not given)."""
    if sets is None:
        sets = {flag: [str(repo["name"]) for repo in load_repos() if bool(repo.get("heldout")) == flag] for flag in (False, True)}
    old_main, found, old_heldout = previous.partition(HELDOUT_HEADING)
    if found and not set(table_repos(old_heldout)) <= set(sets[True]):
        found, old_heldout = "", ""  # figures of an earlier held-out set: its repositories were promoted
    if not set(table_repos(old_main)) <= set(sets[False]):
        old_main = ""
    commit = meta.get("commit") or git_commit()
    date = meta.get("date") or datetime.date.today().isoformat()
    main_part = old_main.rstrip("\n") + "\n" if old_main.strip() else ""
    if report:
        main_part = "\n".join([
            "# nondet-lint on the evaluation set",
            "",
            f"Results of `benchmarks/eval/run.py` on {date}, nondet-lint at commit `{commit}`; scored by",
            "`benchmarks/eval/score.py` against `labels.jsonl` and `misses.jsonl` (see README.md for how",
            "the labels were made). precision = tp / (tp + fp + noise) over labelled findings; est.prec. weights",
            "each (repo, code) stratum by its findings (large strata were labelled on a random sample);",
            "recall = estimated true findings / (those + misses still missed), misses found by reading the",
            "main entry points only. Seconds: wall time of one cold run (`--no-cache`, default workers) on",
            "the machine that ran it (here a 2-CPU machine shared with other work).",
            "",
            *report,
            "",
        ])
    heldout_part = (HELDOUT_HEADING + old_heldout).rstrip("\n") + "\n" if found else ""
    if heldout:
        heldout_part = "\n".join([
            HELDOUT_HEADING,
            "",
            f"Results of `benchmarks/eval/run.py --heldout` on {date}, nondet-lint at commit `{commit}`.",
            f"Repositories kept aside while the rules are tuned (`heldout` in repos.toml: {', '.join(sets[True])}),",
            "labelled once: their figures say how the rules generalise. Columns as above; strata of more",
            f"than {HELDOUT_SAMPLE} findings are labelled on a random sample of {HELDOUT_SAMPLE} (samples.json), so est.prec. is the",
            "figure to read there; misses come from reading the entry points listed in repos.toml.",
            "",
            *(line.replace("### ", "#### ", 1) for line in heldout),
            "",
        ])
    return "\n".join(part for part in (main_part, heldout_part) if part)


def main(argv: Optional[Iterable[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list-unlabelled", action="store_true", help="list unlabelled findings and the misses still missed")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite SCORES.md")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"folder of run.py's results (default {RESULTS})")
    parser.add_argument("--heldout", action="store_true", help="score (and write) only the held-out repositories")
    args = parser.parse_args(list(argv) if argv is not None else None)
    report, raw = score(args.list_unlabelled, args.results)
    if args.heldout:
        report, raw = [], {"scored": 0}
    heldout, heldout_raw = score(args.list_unlabelled, args.results, heldout=True)
    report = report if raw["scored"] else []
    heldout = heldout if heldout_raw["scored"] else []
    if report:
        print("\n".join(report))
    if heldout:
        print("\n".join(["", HELDOUT_HEADING, "", *heldout] if report else [HELDOUT_HEADING, "", *heldout]))
    if not args.no_write and (report or heldout):
        summary = json.loads((args.results / "summary.json").read_text())
        path = HERE / "SCORES.md"
        previous = path.read_text() if path.is_file() else ""
        table = [line for line in report if not line.startswith("  ")]
        heldout_table = [line for line in heldout if not line.startswith("  ")]
        path.write_text(scores_text(previous, table, heldout_table, summary.get("_meta", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
