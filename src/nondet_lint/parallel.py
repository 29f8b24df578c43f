"""Pass 1 over many files: results from the cache first, the rest in worker processes.

- The parent reads each file once, looks its bytes up in the cache (``cache.py``) and
  hands only the misses, bytes included, to the workers: a file edited while the run goes
  on is analyzed and cached as one consistent version.
- Where processes fork cheaply (Linux), misses are analyzed in forked workers even when
  there is one (``--workers 1``, pre-commit): a crash of libcst's native parser (a
  segmentation fault) then kills a worker, not the run. The files a dead worker held are
  retried one per process; one that kills its process again is reported as ND000.
- The number of workers grows with the files to parse (``FILES_PER_WORKER`` each), so a
  pre-commit run with one changed file forks one worker, not one per core.
- Results travel as text (``FileResult.to_text``) and are read back with
  ``FileResult.from_text`` in every mode (in process, in workers, from the cache), so
  pass 2 sees the same data whatever the worker count or cache state, and the output is
  byte-identical.
- libcst and the checks are imported only where a file is analyzed: a warm run, every
  file a cache hit, never pays for importing them.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import stat
import sys
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, cast

from nondet_lint.cache import Cache, content_digest
from nondet_lint.discovery import module_name_for
from nondet_lint.nonpython import analyze_other_path
from nondet_lint.results import FileResult
from nondet_lint.source import SourceError
from nondet_lint.types import Finding

CONTENT_SUFFIXES = (".py", ".ipynb")  # analyzed from their bytes, so cacheable
FILES_PER_WORKER = 8  # below this many files to parse, one more worker costs more than it saves
SPAWN_MINIMUM = 64  # where workers start a fresh interpreter (no fork), fewer files stay in process
BATCH_BYTES, BATCH_FILES = 32 * 1024, 64  # small files travel to the workers together
TRIM_AFTER_BYTES = 64 * 1024  # a source this big leaves tens of MB of free heap behind


def default_workers() -> int:
    """One per CPU this process may use.

    Also under pre-commit: it runs hooks one after another and splits a hook's files
    across processes only for hooks that are not ``require_serial``; ours is (it needs
    the whole project), so its workers never multiply with pre-commit's. A commit that
    changes a few files starts one worker anyway (``worker_count``)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def worker_count(requested: Optional[int], jobs: int) -> int:
    """Processes to start for ``jobs`` files to parse; 0 means analyze them in this process."""
    if not requested or jobs == 0:
        return 0
    if not can_fork() and jobs < SPAWN_MINIMUM:
        return 0
    return max(1, min(requested, -(-jobs // FILES_PER_WORKER)))


@dataclass
class Job:
    index: int
    path: str
    module_name: str
    is_package: bool
    raw: bytes
    digest: str


def analyze_files(
    paths: Sequence[str], config: Any, rules: Any, enabled: FrozenSet[str],
    workers: Optional[int] = None, cache: Optional[Cache] = None,
    on_done: Optional[Callable[[int], None]] = None,
) -> List[FileResult]:
    """Pass 1 (``fileanalysis.analyze_file``) for every path, in order.

    ``workers``: None analyzes in this process (the library default); a number allows
    up to that many worker processes. ``cache``: where results are looked up and stored.
    ``on_done(n)`` is told when n more files are finished (a progress display).
    """
    done = on_done or (lambda n: None)
    results: List[Optional[FileResult]] = [None] * len(paths)
    jobs: List[Job] = []
    for index, path in enumerate(paths):
        if not path.endswith(CONTENT_SUFFIXES):  # requirement files: small, read by their checker
            results[index] = _normalized(analyze_other_path(path, config, rules, enabled))
            if cache:
                cache.record(path, "", False, _digest_of(path))
            continue
        module_name, is_package = module_name_for(path)
        try:
            raw = read_regular(path)
        except SourceError as exc:
            results[index] = _unreadable(path, module_name, is_package, exc, enabled)
            if cache:
                cache.record(path, module_name, is_package, None)
            continue
        except OSError:
            results[index] = _normalized(_analyze_file(path, config, rules, enabled))  # reports why
            if cache:
                cache.record(path, module_name, is_package, None)
            continue
        digest = content_digest(raw)
        if cache:
            cache.record(path, module_name, is_package, digest)
        cached = cache.get(path, module_name, is_package, digest) if cache else None
        if cached is not None:
            try:
                results[index] = FileResult.from_text(cached)
                continue
            except (KeyError, TypeError, ValueError, AttributeError):
                pass  # an entry of another shape: analyze again
        jobs.append(Job(index, path, module_name, is_package, raw, digest))
    done(len(paths) - len(jobs))
    if jobs:
        _load_analysis()
    count = worker_count(workers, len(jobs))
    outcomes = _in_workers(jobs, count, config, rules, enabled, cache) if count else _in_process(jobs, config, rules, enabled, cache)
    for job, text in outcomes:
        with collector_paused():
            results[job.index] = FileResult.from_text(text)
        job.raw = b""  # analyzed: its bytes are not needed again (a retry is for files not done)
        done(1)
    if cache:
        cache.batches += 1
    return cast(List[FileResult], results)  # every index was filled above


def _digest_of(path: str) -> Optional[str]:
    try:
        return content_digest(read_regular(path))
    except (OSError, SourceError):
        return None


def read_regular(path: str) -> bytes:
    """The bytes of a regular file (a FIFO or device named ``.py`` would block or never end)."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise SourceError("is a directory")
        raise SourceError("not a regular file")
    with open(path, "rb") as handle:
        return handle.read()


def _unreadable(path: str, module_name: str, is_package: bool, exc: SourceError, enabled: FrozenSet[str]) -> FileResult:
    result = FileResult(path, module_name, is_package)
    if "ND000" in enabled:
        result.findings.append(Finding(path, exc.line, exc.col, "ND000", f"cannot read file: {exc.reason}"))
    return _normalized(result)


def _normalized(result: FileResult) -> FileResult:
    return FileResult.from_text(result.to_text())


def _load_analysis() -> None:
    """Import libcst and the checks before workers fork: each inherits them, and the import
    is paid once, in this process (and frozen with the rest where ``settle_heap`` ran)."""
    import nondet_lint.fileanalysis  # noqa: F401

    if _pausing:
        gc.freeze()


def _analyze_file(path: str, config: Any, rules: Any, enabled: FrozenSet[str], stdin: Optional[bytes] = None) -> FileResult:
    from nondet_lint.fileanalysis import analyze_file  # libcst and every check: only where a file is analyzed

    return analyze_file(path, config, rules, enabled, stdin)


def analyze_job(job: Job, config: Any, rules: Any, enabled: FrozenSet[str]) -> Tuple[str, bool]:
    """(text of the file's ``FileResult``, whether it may be cached)."""
    try:
        with collector_paused():
            return _analyze_file(job.path, config, rules, enabled, stdin=job.raw).to_text(), True
    except RecursionError:
        # the file parsed (``analyze_source`` reports a parse that recurses too deeply):
        # libcst's code generation or one of our analyses recursed past Python's limit
        from nondet_lint.fileanalysis import ANALYSIS_TOO_DEEP

        reason, cacheable = ANALYSIS_TOO_DEEP, True
    except MemoryError:
        reason, cacheable = "cannot parse: not enough memory", False
    result = FileResult(job.path, job.module_name, job.is_package)
    if "ND000" in enabled:
        result.findings.append(Finding(job.path, 1, 0, "ND000", reason))
    return result.to_text(), cacheable


def _in_process(jobs: Sequence[Job], config: Any, rules: Any, enabled: FrozenSet[str], cache: Optional[Cache]) -> Iterator[Tuple[Job, str]]:
    for job in jobs:
        text, cacheable = analyze_job(job, config, rules, enabled)
        if cache and cacheable:
            cache.put(job.path, job.module_name, job.is_package, job.digest, text)
        yield job, text


# ---- worker processes ----------------------------------------------------------------

_WORKER: Dict[str, Any] = {}
_STARTED, _FINISHED = 1, 2


GC_THRESHOLD = (10_000, 20, 10)
_pausing = False  # whether files are analyzed with the collector paused (settle_heap)


def settle_heap() -> None:
    """Tune the garbage collector for a process that analyzes files (ours: the CLI and its
    workers, never a host such as flake8).  What is alive now (modules, rule data) lives
    for the whole run: frozen, the collector stops rescanning it.  A parsed module is a
    million objects freed by reference counting, so collecting every 700 allocations
    (the default) mostly scans live trees: every 10,000 cost a fifth as much on timm.
    Each file is then analyzed with the collector paused (``collector_paused``)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    global _pausing
    _pausing = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection while one file is analyzed (in processes ``settle_heap``
    tuned).  Its tree and facts are alive until the file is done and then freed by
    reference counting, so the collections its allocations would trigger only scan live
    objects: 8% of a run's CPU time on timm.  What it leaves in cycles is collected
    after, as usual.  The same holds for reading a file's result and for pass 2, whose
    facts live until the findings are out (a third of pass 2's time on timm)."""
    if not _pausing or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _init_worker(config: Any, rules: Any, enabled: FrozenSet[str], cache: Optional[Cache], progress: Any) -> None:
    settle_heap()
    # Ctrl-C is the parent's to handle: it stops the workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER.update(config=config, rules=rules, enabled=enabled, cache=cache, progress=progress)


def _work(batch: List[Tuple[int, Job]]) -> List[str]:
    progress = _WORKER["progress"]
    cache = _WORKER["cache"]
    texts = []
    for slot, job in batch:
        _shrink_heap_before(len(job.raw))
        progress[slot] = _STARTED
        text, cacheable = analyze_job(job, _WORKER["config"], _WORKER["rules"], _WORKER["enabled"])
        if cache and cacheable:
            cache.put(job.path, job.module_name, job.is_package, job.digest, text)
        progress[slot] = _FINISHED
        texts.append(text)
    return texts


def _shrink_heap_before(size: int) -> None:
    """Give the memory of big files back before going on with much smaller ones.

    A worker takes files largest first.  The C allocator keeps the memory a big file's
    tree and results used (on transformers a worker stayed at 170 MB after its first few
    files; 55 MB once trimmed): trimmed whenever the next file is less than half the
    largest since the last trim (a big one: ``TRIM_AFTER_BYTES`` of source or more), a
    handful of times per run, 5 ms each."""
    largest = _WORKER.get("largest", 0)
    if size * 2 < largest and largest >= TRIM_AFTER_BYTES:
        _malloc_trim()
        largest = 0
    _WORKER["largest"] = max(largest, size)


def _malloc_trim() -> None:
    trim = _WORKER.get("malloc_trim", False)
    if trim is False:  # looked up once: glibc has it; other C libraries do not
        import ctypes

        try:
            trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        except (OSError, TypeError):  # Windows cannot open the running program this way
            trim = None
        _WORKER["malloc_trim"] = trim
    if trim is not None:
        trim(0)


def batches(jobs: Sequence[Job]) -> List[List[Tuple[int, Job]]]:
    """Jobs (largest first) grouped so that each task is worth sending to a worker: a big
    file alone, small ones together."""
    out: List[List[Tuple[int, Job]]] = []
    size = 0
    for slot, job in enumerate(jobs):
        if not out or size >= BATCH_BYTES or len(out[-1]) >= BATCH_FILES:
            out.append([])
            size = 0
        out[-1].append((slot, job))
        size += len(job.raw)
    return out


def _context() -> Any:
    return multiprocessing.get_context("fork") if can_fork() else multiprocessing.get_context("spawn")


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C back while workers are forked: a SIGINT that lands inside the fork's
    at-fork handlers is printed as an ignored exception and lost; held back, it arrives
    right after, where the run stops cleanly."""
    can_block = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    if not can_block:
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _in_workers(
    jobs: Sequence[Job], count: int, config: Any, rules: Any, enabled: FrozenSet[str], cache: Optional[Cache],
) -> Iterator[Tuple[Job, str]]:
    context = _context()
    # largest first, so no worker is left with a big file at the end
    remaining = sorted(jobs, key=lambda job: (-len(job.raw), job.index))
    while remaining:
        progress = context.RawArray("b", len(remaining))
        done: Set[int] = set()
        pool = ProcessPoolExecutor(count, mp_context=context, initializer=_init_worker, initargs=(config, rules, enabled, cache, progress))
        try:
            with _interrupts_deferred():  # the pool forks its workers while jobs are submitted
                futures = {pool.submit(_work, batch): batch for batch in batches(remaining)}
            for future in as_completed(futures):
                batch = futures.pop(future)  # its texts are decoded once: let them go
                try:
                    texts = future.result()
                except BrokenProcessPool:
                    continue
                for (slot, job), text in zip(batch, texts):
                    done.add(slot)
                    yield job, text
        except BrokenProcessPool:
            pass
        except BaseException:
            _stop(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if len(done) == len(remaining):
            return
        # a worker died: the files that were being analyzed are suspects, retried alone
        suspects = [job for slot, job in enumerate(remaining) if slot not in done and progress[slot] == _STARTED]
        untouched = [job for slot, job in enumerate(remaining) if slot not in done and progress[slot] != _STARTED]
        for job in suspects:
            yield job, _alone(job, context, config, rules, enabled, cache)
        if untouched and not suspects:
            # the pool broke before any file started (cannot fork): go on in this process
            yield from _in_process(untouched, config, rules, enabled, cache)
            return
        remaining = untouched


def _stop(pool: ProcessPoolExecutor) -> None:
    """Interrupted: end the workers now rather than after their current file."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass


def _solo(job: Job, config: Any, rules: Any, enabled: FrozenSet[str], cache: Optional[Cache], sender: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    settle_heap()
    text, cacheable = analyze_job(job, config, rules, enabled)
    if cache and cacheable:
        cache.put(job.path, job.module_name, job.is_package, job.digest, text)
    sender.send(text)
    sender.close()


def _alone(job: Job, context: Any, config: Any, rules: Any, enabled: FrozenSet[str], cache: Optional[Cache]) -> str:
    """Analyze one file in a process of its own; a process that dies is reported as ND000."""
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_solo, args=(job, config, rules, enabled, cache, sender))
    process.start()
    sender.close()
    text: Optional[str]
    try:
        text = receiver.recv()
    except EOFError:
        text = None
    finally:
        process.join()
        receiver.close()
    if text is not None:
        return text
    result = FileResult(job.path, job.module_name, job.is_package)
    if "ND000" in enabled:
        result.findings.append(Finding(job.path, 1, 0, "ND000", f"cannot parse: the parser crashed on this file ({_signal_name(process.exitcode)})"))
    return result.to_text()


def _signal_name(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"
