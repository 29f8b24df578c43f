"""Speed benchmark: nondet-lint against the libcst parse-only floor on pinned real code.

    .venv/bin/python benchmarks/bench_speed.py                      # timm and transformers, 3 runs each
    .venv/bin/python benchmarks/bench_speed.py --corpus timm --runs 5
    .venv/bin/python benchmarks/bench_speed.py --torchfix /tmp/venv-torchfix/bin --dslinter /tmp/venv-dslinter/bin

The pinned wheels are fetched with ``pip download --no-deps`` into ``benchmarks/.corpus``
(git-ignored) and unpacked there. For each corpus it measures, in fresh processes, side by
side in the same run:

- the floor: libcst ``parse_module`` alone over the same files nondet-lint checks;
- nondet-lint cold (no cache) with one worker and with the default workers;
- nondet-lint warm (cache filled, nothing changed);
- the pre-commit case: a 1,000-file project (the first 1,000 files of the corpus, whole
  packages), cache warm, one file changed, ``nondet-lint <that file>`` with PRE_COMMIT set;
- TorchFix (standalone and under flake8) and dslinter (pylint plugin), when their
  command folders are given (they need their own virtual environments; see the README).

Each figure is the median of ``--runs`` runs: wall time, and CPU time (user + system of
the process and its workers, from ``getrusage``), which moves much less than wall time
when other work shares the machine. The floor and the cold runs are interleaved, and a
ratio is the median of each run over the floor run next to it. Peak memory is the
largest resident set of any one process (``ru_maxrss``) and, sampled from /proc every
50 ms, the memory of all processes together (their proportional set sizes: a page a
forked worker shares with its parent counts once), in a run of its own whose time is
not counted (the sampling takes CPU from the run it watches).
Outputs of the cold, default and warm runs are compared byte for byte. nondet-lint's own
bytecode is written first, as installing the wheel does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
CORPORA = {"timm": ("timm", "1.0.31"), "transformers": ("transformers", "4.46.3")}
PROJECT_FILES = 1000  # the pre-commit case: one file changed in a project this big
DSLINTER_CHECKS = (
    "import,unnecessary-iteration-pandas,unnecessary-iteration-tensorflow,nan-numpy,chain-indexing-pandas,"
    "datatype-pandas,column-selection-pandas,merge-parameter-pandas,inplace-pandas,dataframe-conversion-pandas,"
    "scaler-missing-scikitlearn,hyperparameters-scikitlearn,hyperparameters-tensorflow,hyperparameters-pytorch,"
    "memory-release-tensorflow,deterministic-pytorch,randomness-control-numpy,randomness-control-scikitlearn,"
    "randomness-control-tensorflow,randomness-control-pytorch,randomness-control-dataloader-pytorch,"
    "missing-mask-tensorflow,missing-mask-pytorch,tensor-array-tensorflow,forward-pytorch,gradient-clear-pytorch,"
    "pipeline-not-used-scikitlearn,dependent-threshold-scikitlearn,dependent-threshold-tensorflow,"
    "dependent-threshold-pytorch"
)
PARSE_ONLY = """
import sys, libcst
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        libcst.parse_module(raw)
    except Exception:
        pass
"""


# ---- measuring one command --------------------------------------------------------------

def _tree_rss(root: int) -> int:
    """Memory of ``root`` and every process below it (from /proc): the sum of their
    proportional set sizes, so that pages a forked worker still shares with its parent
    count once, not once per process (their RSS where PSS cannot be read)."""
    parents: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _process_memory(pid)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total


def _process_memory(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def measure_here(command: List[str], cwd: Optional[str], env: Dict[str, str], stdout: Optional[str], sample: bool) -> Dict[str, float]:
    """Run ``command`` as the only child of this process and report its cost."""
    import resource

    out = open(stdout, "wb") if stdout else subprocess.DEVNULL
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.PIPE)
    peak_tree = 0
    if sample and os.path.isdir("/proc"):
        while process.poll() is None:
            peak_tree = max(peak_tree, _tree_rss(process.pid))
            time.sleep(0.05)
    _, err = process.communicate()
    wall = time.perf_counter() - started
    if stdout:
        out.close()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024,
        "tree_rss": peak_tree, "code": process.returncode, "stderr": err.decode("utf-8", "replace")[-2000:],
    }


def measure(command: List[str], cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
            stdout: Optional[Path] = None, sample: bool = False) -> Dict[str, float]:
    """``measure_here`` in a fresh process, so that ``getrusage`` sees this command alone."""
    job = {"command": command, "cwd": str(cwd) if cwd else None, "env": env or dict(os.environ),
           "stdout": str(stdout) if stdout else None, "sample": sample}
    done = subprocess.run([sys.executable, __file__, "--measure-json", json.dumps(job)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {command[:3]} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


# ---- corpora --------------------------------------------------------------------------

def fetch(name: str, version: str, store: Path) -> Path:
    """The unpacked wheel of ``name==version`` (a folder with a pyproject.toml marking it
    as the project root, so the linter's root and cache stay inside it)."""
    root = store / f"{name}-{version}"
    if (root / name).is_dir():
        return root
    store.mkdir(parents=True, exist_ok=True)
    wheels = list(store.glob(f"{name}-{version}-*.whl"))
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", f"{name}=={version}", "-d", str(store)],
            check=True,
        )
        wheels = list(store.glob(f"{name}-{version}-*.whl"))
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(root)
    (root / "pyproject.toml").write_text(f"[project]\nname = '{name}-corpus'\n")
    return root


def python_files(target: Path) -> List[str]:
    from nondet_lint.config import DEFAULT_EXCLUDE
    from nondet_lint.discovery import discover

    files, _ = discover([str(target)], DEFAULT_EXCLUDE)
    return [path for path in files if path.endswith(".py")]


def small_project(corpus_root: Path, package: str, store: Path) -> Path:
    """The first ``PROJECT_FILES`` Python files of a corpus as a project of their own."""
    root = store / f"{corpus_root.name}-{PROJECT_FILES}-files"
    if root.is_dir():
        return root
    files = python_files(corpus_root / package)[:PROJECT_FILES]
    for path in files:
        relative = Path(path).relative_to(corpus_root)
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, root / relative)
    (root / "pyproject.toml").write_text("[project]\nname = 'pre-commit-case'\n")
    return root


# ---- the benchmark ----------------------------------------------------------------------

def lint_command(*args: str) -> List[str]:
    return [sys.executable, "-m", "nondet_lint", *args, "--format", "json", "--exit-zero"]


def runs_of(count: int, command, **kwargs) -> List[Dict[str, float]]:
    results = []
    for _ in range(count):
        result = measure(command, **kwargs)
        if result["code"] not in (0, 1):
            raise RuntimeError(f"{' '.join(command[:6])} exited {result['code']}: {result['stderr']}")
        results.append(result)
    return results


def median(results: Sequence[Dict[str, float]], key: str) -> float:
    return statistics.median(result[key] for result in results)


def bench_corpus(name: str, runs: int, store: Path, tools: Dict[str, Optional[Path]]) -> List[Dict[str, object]]:
    package, version = CORPORA[name]
    root = fetch(package, version, store)
    target = root / package
    files = python_files(target)
    listing = store / f"{name}-files.txt"
    listing.write_text("\n".join(files))
    lines = sum(Path(path).read_bytes().count(b"\n") for path in files)
    print(f"\n## {package} {version}: {len(files)} Python files, {lines:,} lines", flush=True)
    rows: List[Dict[str, object]] = []
    outputs = store / "outputs"
    outputs.mkdir(exist_ok=True)
    cache = store / f"cache-{name}"

    def row(label: str, results, target_text: str = "", floor=None, memory=None):
        sampled = memory or results
        entry = {"corpus": name, "what": label, "wall": median(results, "wall"), "cpu": median(results, "cpu"),
                 "rss": max(r["rss"] for r in sampled), "tree_rss": max(r["tree_rss"] for r in sampled), "target": target_text}
        if floor is not None:
            # runs were interleaved with the floor's: compare each with the floor run next
            # to it, so that load from other work falls on both sides of a ratio
            pairs = list(zip(results, floor)) if len(floor) == len(results) else [(r, None) for r in results]
            entry["wall_ratio"] = statistics.median(r["wall"] / (f or {"wall": median(floor, "wall")})["wall"] for r, f in pairs)
            entry["cpu_ratio"] = statistics.median(r["cpu"] / (f or {"cpu": median(floor, "cpu")})["cpu"] for r, f in pairs)
        rows.append(entry)
        print(format_row(entry), flush=True)
        return entry

    floor, one, default = [], [], []
    for _ in range(runs):
        floor.extend(runs_of(1, [sys.executable, "-c", PARSE_ONLY, str(listing)]))
        one.extend(runs_of(1, lint_command(str(target), "--no-cache", "--workers", "1"), stdout=outputs / f"{name}-cold1.json"))
        default.extend(runs_of(1, lint_command(str(target), "--no-cache"), stdout=outputs / f"{name}-cold.json"))
    # memory of all processes in a run of its own: sampling /proc every 50 ms takes CPU
    # from the run it watches (on 2 CPUs, a few per cent of its wall time)
    memory = runs_of(1, lint_command(str(target), "--no-cache"), sample=True)
    row("libcst parse_module only (1 process)", floor)
    row("nondet-lint cold, 1 worker", one, "<= 1.5x floor", floor)
    row(f"nondet-lint cold, default workers ({os.cpu_count()} CPUs)", default, "<= 0.8x floor; memory <= 400 MB", floor, memory)
    shutil.rmtree(cache, ignore_errors=True)
    measure(lint_command(str(target), "--cache-dir", str(cache)))  # fill the cache
    warm = runs_of(runs, lint_command(str(target), "--cache-dir", str(cache)), stdout=outputs / f"{name}-warm.json")
    row("nondet-lint warm (nothing changed)", warm, "<= 1 s (timm)")
    same = len({(outputs / f"{name}-{kind}.json").read_bytes() for kind in ("cold1", "cold", "warm")}) == 1
    print(f"outputs of cold 1 worker, cold default and warm runs identical: {same}", flush=True)

    if len(files) < PROJECT_FILES:
        print(f"(pre-commit case: {package} has fewer than {PROJECT_FILES} files; measured on transformers)")
    else:
        bench_pre_commit(name, root, package, store, max(runs, 5), row)  # cheap: at least 5 runs
    bench_competitors(target, tools, floor, row)
    return rows


def bench_pre_commit(name: str, root: Path, package: str, store: Path, runs: int, row) -> None:
    project = small_project(root, package, store)
    changed = sorted(project.rglob("*.py"), key=lambda path: path.stat().st_size)[len(list(project.rglob("*.py"))) // 2]
    project_cache = store / f"cache-{name}-project"
    shutil.rmtree(project_cache, ignore_errors=True)
    measure(lint_command(".", "--cache-dir", str(project_cache)), cwd=project)
    original = changed.read_bytes()
    results = []
    try:
        for number in range(runs):
            changed.write_bytes(original + f"\n# edit {number} {time.time()}\n".encode())
            results.extend(runs_of(1, lint_command(str(changed.relative_to(project)), "--cache-dir", str(project_cache)),
                                   cwd=project, env={**os.environ, "PRE_COMMIT": "1"}))
    finally:
        changed.write_bytes(original)
    row(f"pre-commit: 1 of {PROJECT_FILES} files changed", results, "<= 2 s")


def bench_competitors(target: Path, tools: Dict[str, Optional[Path]], floor, row) -> None:
    if tools.get("torchfix"):
        bin_ = tools["torchfix"]
        row("TorchFix standalone", runs_of(1, [str(bin_ / "torchfix"), str(target)]), "nondet-lint >= 5x faster", floor[-1:])
        row("TorchFix under flake8 (--select TOR)", runs_of(1, [str(bin_ / "flake8"), "--select", "TOR", str(target)]), "", floor[-1:])
    if tools.get("dslinter"):
        bin_ = tools["dslinter"]
        command = [str(bin_ / "pylint"), "--load-plugins=dslinter", "--disable=all", f"--enable={DSLINTER_CHECKS}",
                   "--exit-zero", "--jobs=1", str(target)]
        row("dslinter (pylint plugin, 1 job)", runs_of(1, command), "nondet-lint faster", floor[-1:])


def format_row(entry: Dict[str, object]) -> str:
    ratio = ""
    if "wall_ratio" in entry:
        ratio = f"{entry['wall_ratio']:.2f}x wall, {entry['cpu_ratio']:.2f}x CPU"
    memory = f"{entry['rss'] / 2**20:.0f} MB"
    if entry.get("tree_rss"):
        memory += f" (all processes {entry['tree_rss'] / 2**20:.0f} MB)"
    return f"| {entry['what']} | {entry['wall']:.2f} s | {entry['cpu']:.2f} s | {ratio} | {memory} | {entry['target']} |"


def compile_package() -> None:
    """Write the bytecode of nondet-lint's modules, as pip does when it installs the wheel:
    an editable install in an environment that sets ``PYTHONDONTWRITEBYTECODE`` would
    otherwise compile every module again in each measured run (a third of a warm run)."""
    import compileall

    import nondet_lint

    compileall.compile_dir(os.path.dirname(nondet_lint.__file__), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), action="append", help="default: all")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--store", type=Path, default=HERE / ".corpus", help="where corpora, caches and outputs go")
    parser.add_argument("--torchfix", type=Path, help="bin folder of a virtual environment with torchfix installed")
    parser.add_argument("--dslinter", type=Path, help="bin folder of a virtual environment with dslinter installed")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--measure-json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_json:
        job = json.loads(args.measure_json)
        print(json.dumps(measure_here(job["command"], job["cwd"], job["env"], job["stdout"], job["sample"])))
        return 0
    compile_package()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.runs} runs")
    print("| run | wall | CPU | vs parse-only | peak memory | target |\n|---|---|---|---|---|---|")
    rows = []
    for name in args.corpus or sorted(CORPORA):
        tools = {"torchfix": args.torchfix, "dslinter": args.dslinter}
        rows.extend(bench_corpus(name, args.runs, args.store, tools))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
