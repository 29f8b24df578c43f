"""Time and peak memory of nondet-lint on whole repositories of the evaluation set (default: fairseq).

    .venv/bin/python benchmarks/bench_repo.py                     # fairseq, 2 workers
    .venv/bin/python benchmarks/bench_repo.py fairseq flax --workers 1 --runs 3
    .venv/bin/python benchmarks/bench_repo.py benchmarks/.corpus/transformers-4.46.3-1000-files

fairseq (786 Python files, many console scripts and ``examples/`` entry points over one
package of re-exports) is the repository on which the seeding pass once grew past 21 GB.
Each repository (unpacked by ``benchmarks/eval/fetch.py`` under ``benchmarks/.eval/repos/``;
a folder given by its path is a project too, such as the 1,000-file transformers project
``bench_speed.py`` makes) is linted from its root with the cache off, as ``eval/run.py``
does, under an address-space cap (``--max-memory-gb``), so a run that blows up fails
instead of taking the machine down.
Prints per run: wall and CPU time (user + system of the linter and its workers), the largest
resident set of one process, and the memory of all its processes together, sampled from
/proc every 50 ms (see ``bench_speed.py``), and the number of findings.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_speed import measure  # noqa: E402

REPOS = HERE / ".eval" / "repos"


def command(workers: int, max_memory_gb: float) -> List[str]:
    lint = [sys.executable, "-m", "nondet_lint", "--format", "json", "--no-cache", "--workers", str(workers), "."]
    cap = int(max_memory_gb * 1024 * 1024)  # ``ulimit -v`` counts KiB
    return ["/bin/sh", "-c", f"ulimit -v {cap} && exec {shlex.join(lint)}"]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["fairseq"],
                        help="repositories under benchmarks/.eval/repos, or project folders")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for pass 1 (default 2)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--max-memory-gb", type=float, default=6.0, help="address-space cap of the run (default 6)")
    args = parser.parse_args(argv)
    print("| repo | run | wall s | CPU s | peak RSS, one process | peak memory, all processes | findings |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for name in args.names:
        root = Path(name) if Path(name).is_dir() else REPOS / name
        if not root.is_dir():
            print(f"| {name} | - | missing: run benchmarks/eval/fetch.py {name} | | | | |")
            failed += 1
            continue
        for number in range(1, args.runs + 1):
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                result = measure(command(args.workers, args.max_memory_gb), cwd=root, stdout=Path(out.name), sample=True)
                if result["code"] not in (0, 1):
                    print(f"| {name} | {number} | failed ({result['code']}): {result['stderr'].strip().splitlines()[-1:]} | | | | |")
                    failed += 1
                    continue
                findings = len(json.loads(Path(out.name).read_text())["findings"])
            print(f"| {name} | {number} | {result['wall']:.1f} | {result['cpu']:.1f} | {result['rss'] / 2**20:,.0f} MB "
                  f"| {result['tree_rss'] / 2**20:,.0f} MB | {findings} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
