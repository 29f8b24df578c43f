"""Record or compare nondet-lint's JSON output on examples/ and the benchmark corpora.

A refactoring that must not change what the linter reports runs this before (``record``)
and after (``compare``); the outputs must be byte-identical::

    python benchmarks/golden_outputs.py record /tmp/golden
    ... change the code ...
    python benchmarks/golden_outputs.py compare /tmp/golden

The corpora are the pinned wheels of ``bench_speed.py`` (fetched with ``pip download`` into
``benchmarks/.corpus`` on first use). ``--no-corpora`` checks examples/ alone. Each target is
checked from its own root with the cache off, as a user would run it.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_speed import CORPORA, fetch  # noqa: E402


def targets(store: Path, corpora: bool) -> Dict[str, Tuple[Path, List[str]]]:
    """Name -> (working folder, paths to check)."""
    found: Dict[str, Tuple[Path, List[str]]] = {"examples": (REPO, ["examples"])}
    if corpora:
        for name, (package, version) in sorted(CORPORA.items()):
            root = fetch(package, version, store)
            found[name] = (root, [package])
    return found


def run(cwd: Path, paths: List[str]) -> bytes:
    command = [sys.executable, "-m", "nondet_lint", "--format", "json", "--no-cache", *paths]
    done = subprocess.run(command, cwd=cwd, capture_output=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} in {cwd} exited {done.returncode}:\n{done.stderr.decode()[-3000:]}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("folder", type=Path, help="where the recorded outputs are kept")
    parser.add_argument("--store", type=Path, default=HERE / ".corpus", help="where corpora are unpacked")
    parser.add_argument("--no-corpora", action="store_true", help="check examples/ only")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    differing = []
    for name, (cwd, paths) in targets(args.store, not args.no_corpora).items():
        output = run(cwd, paths)
        recorded = args.folder / f"{name}.json"
        if args.mode == "record":
            recorded.write_bytes(output)
            print(f"{name}: recorded {len(output):,} bytes")
        elif recorded.read_bytes() == output:
            print(f"{name}: identical ({len(output):,} bytes)")
        else:
            (args.folder / f"{name}.new.json").write_bytes(output)
            print(f"{name}: DIFFERS (new output in {name}.new.json)")
            differing.append(name)
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
