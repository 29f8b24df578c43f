"""Pass 1 in worker processes: the same results as in process, whatever the worker
count, and a worker that dies (a native parser crash) costs one ND000, not the run."""

from __future__ import annotations

import faulthandler
import gc
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_project
from nondet_lint import engine, fileanalysis, parallel
from nondet_lint.cli import main
from nondet_lint.config import Config

BENCH = "import torch\ntorch.backends.cudnn.benchmark = True\n"
needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="crash isolation needs fork")


def project(root: Path, count: int = 12) -> Path:
    files = {f"pkg/m{i:02d}.py": (BENCH if i % 3 == 0 else f"import os\nX{i} = os.listdir('.')\n") for i in range(count)}
    files["pkg/__init__.py"] = ""
    files["train.py"] = "import torch\nfrom pkg import m00\nif __name__ == '__main__':\n    torch.rand(3)\n"
    return write_project(root, files)


def outcome(root: Path, workers):
    result = engine.run([str(root)], Config(root=str(root)), workers=workers)
    return [f.to_dict() for f in result.findings], [r.to_dict() for r in result.results]


def test_worker_count_grows_with_the_files_to_parse(monkeypatch):
    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    assert parallel.worker_count(None, 100) == 0  # library default: in this process
    assert parallel.worker_count(4, 0) == 0  # everything came from the cache
    assert parallel.worker_count(4, 1) == 1  # one changed file: one worker
    assert parallel.worker_count(4, parallel.FILES_PER_WORKER * 2 + 1) == 3
    assert parallel.worker_count(2, 1000) == 2
    monkeypatch.setattr(parallel, "can_fork", lambda: False)
    assert parallel.worker_count(4, parallel.SPAWN_MINIMUM - 1) == 0  # no fork: not worth a fresh interpreter


def test_default_workers_is_the_usable_cpus(monkeypatch):
    monkeypatch.setenv("PRE_COMMIT", "1")  # our hook is require_serial: no nesting with pre-commit's processes
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert parallel.default_workers() == expected


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_workers_give_the_same_results_as_in_process(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(parallel, "FILES_PER_WORKER", 1)  # really use every worker
    project(tmp_path)
    expected = outcome(tmp_path, None)
    assert [f["code"] for f in expected[0]].count("ND201") == 4
    assert outcome(tmp_path, workers) == expected


def crash_on(name: str, how: str, log: Path):
    """``analyze_job`` that kills its worker on ``name``. The worker's fatal-error report
    (pytest turns on ``faulthandler``, and a forked worker inherits it) goes to ``log``
    instead of the test run's stderr."""
    real = parallel.analyze_job

    def analyze(job, *args):
        if Path(job.path).name == name:
            with open(log, "w", encoding="utf-8") as report:
                faulthandler.enable(file=report)
                if how == "segfault":
                    os.kill(os.getpid(), signal.SIGSEGV)
                os._exit(3)
        return real(job, *args)

    return analyze


@needs_fork
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("how", ["segfault", "exit"])
def test_a_crashing_file_is_reported_and_the_rest_is_checked(tmp_path, monkeypatch, workers, how):
    monkeypatch.setattr(parallel, "FILES_PER_WORKER", 1)
    project(tmp_path)
    expected, _ = outcome(tmp_path, None)
    # workers are forked from this process, so they inherit the booby trap
    log = tmp_path / "worker-crash.log"
    monkeypatch.setattr(parallel, "analyze_job", crash_on("m04.py", how, log))
    findings, _ = outcome(tmp_path, workers)
    assert ("Fatal Python error: Segmentation fault" in log.read_text(encoding="utf-8")) == (how == "segfault")
    crashed = [f for f in findings if f["code"] == "ND000"]
    assert [(Path(f["path"]).name, f["line"]) for f in crashed] == [("m04.py", 1)]
    assert "crashed" in crashed[0]["message"] and ("SIGSEGV" in crashed[0]["message"]) == (how == "segfault")
    others = [f for f in findings if f["code"] != "ND000" and Path(f["path"]).name != "m04.py"]
    assert others == [f for f in expected if Path(f["path"]).name != "m04.py"]


def test_recursion_error_in_an_analysis_is_nd000_that_does_not_blame_the_code(tmp_path, monkeypatch):
    write_project(tmp_path, {"deep.py": "x = 1\n", "ok.py": BENCH})
    real = fileanalysis.analyze_file

    def deep(path, *args, **kwargs):
        if path.endswith("deep.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fileanalysis, "analyze_file", deep)
    findings = engine.run([str(tmp_path)], Config(root=str(tmp_path))).findings
    assert [(Path(f.path).name, f.code, f.line) for f in findings] == [("deep.py", "ND000", 1), ("ok.py", "ND201", 2)]
    assert findings[0].message == (
        "not checked: nondet-lint reached Python's recursion limit while analysing this file "
        "(the file parses; the rest of the project was checked)"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_named_py_does_not_hang_the_run(tmp_path):
    write_project(tmp_path, {"ok.py": BENCH})
    os.mkfifo(tmp_path / "pipe.py")
    done = subprocess.run(
        [sys.executable, "-m", "nondet_lint", str(tmp_path), "--no-cache"], capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert "ok.py:2:1: ND201" in lines[0]
    assert lines[1].endswith("pipe.py:1:1: ND000 cannot read file: not a regular file")


def test_no_syntax_tree_outlives_its_file(tmp_path):
    # a worker analyzes hundreds of files: anything a check keeps in a module-level cache
    # (or a cycle nothing frees) grows its memory with every file
    import gc

    import libcst as cst

    from nondet_lint.context import FileContext
    from nondet_lint.ruledata import load_rules

    project(tmp_path)
    from fuzzprops import rule_examples

    for number, source in enumerate(rule_examples()):
        (tmp_path / f"example{number}.py").write_text(source)
    config = Config(root=str(tmp_path))
    rules = load_rules()
    enabled = engine.selected_codes(config, rules)
    paths = sorted(str(path) for path in tmp_path.rglob("*.py"))

    def trees():
        gc.collect()
        return {id(obj) for obj in gc.get_objects() if isinstance(obj, (FileContext, cst.Module))}

    before = trees()  # other tests may keep trees of their own
    parallel.analyze_files(paths, config, rules, enabled)
    assert trees() - before == set()
    # nor waits for the garbage collector: a tree in a cycle is scanned by it once more
    # (paused while a file is analyzed, it would find every tree of the run in one go)
    gc.disable()
    try:
        parallel.analyze_files(paths, config, rules, enabled)
        left = {id(obj) for obj in gc.get_objects() if isinstance(obj, cst.Module)}
    finally:
        gc.enable()
    assert left - before == set()



def test_the_collector_is_tuned_only_in_our_own_process(tmp_path):
    (tmp_path / "a.py").write_text("import random\nrandom.random()\n")
    before = gc.get_threshold()
    main([str(tmp_path / "a.py"), "--no-cache"], out=io.StringIO(), err=io.StringIO())
    assert gc.get_threshold() == before  # a host calling main() keeps its settings
    script = (
        "import gc, sys; from nondet_lint.cli import console\n"
        f"sys.argv = ['nondet-lint', {str(tmp_path / 'a.py')!r}, '--no-cache']\n"
        "console(); print(gc.get_threshold(), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stderr.strip().splitlines()[-1] == str(parallel.GC_THRESHOLD)


def test_files_are_analyzed_with_the_collector_paused_only_in_a_tuned_process(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("import random\nrandom.random()\n")
    job = parallel.Job(0, str(tmp_path / "a.py"), "a", False, b"import random\n", "")
    seen = []
    analyze = fileanalysis.analyze_file
    monkeypatch.setattr(fileanalysis, "analyze_file", lambda *args, **kwargs: seen.append(gc.isenabled()) or analyze(*args, **kwargs))
    config = Config(root=str(tmp_path))
    rules = engine.load_rules()
    enabled = engine.selected_codes(config, rules)
    parallel.analyze_job(job, config, rules, enabled)  # a host's process: its collector runs
    monkeypatch.setattr(parallel, "_pausing", True)  # as settle_heap leaves it
    parallel.analyze_job(job, config, rules, enabled)
    assert seen == [True, False]
    assert gc.isenabled()


def test_a_worker_gives_memory_back_when_its_files_get_much_smaller(monkeypatch):
    trims = []
    monkeypatch.setattr(parallel, "_WORKER", {})
    monkeypatch.setattr(parallel, "_malloc_trim", lambda: trims.append(True))
    sizes = [300_000, 280_000, 160_000, 140_000, 90_000, 60_000, 60_000, 20_000, 9_000, 9_000, 200, 50]
    trimmed_before = []
    for size in sizes:
        count = len(trims)
        parallel._shrink_heap_before(size)
        if len(trims) > count:
            trimmed_before.append(size)
    # each time the next file is under half the largest since the last trim, if that
    # one was big: small files leave little behind, and a trim costs a few ms
    assert trimmed_before == [140_000, 60_000]


def test_trimming_the_heap_is_harmless_where_the_c_library_cannot(monkeypatch):
    monkeypatch.setattr(parallel, "_WORKER", {})
    parallel._malloc_trim()  # glibc here: really trims
    assert parallel._WORKER["malloc_trim"] is None or callable(parallel._WORKER["malloc_trim"])
    monkeypatch.setattr(parallel, "_WORKER", {"malloc_trim": None})
    parallel._malloc_trim()  # another C library: nothing to call, no error
