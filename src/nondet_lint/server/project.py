"""One project's facts, held in memory between edits.

The engine splits the work in two: pass 1 reads one file and returns plain data
(``FileResult``: its findings, deferred candidates and facts), pass 2 decides the
deferred candidates with every module's facts.  A project indexes every checkable file
under its root once, as the CLI does (the on-disk cache, worker processes); after that
an edit replaces the pass-1 result of the one file edited (analyzed from the unsaved
buffer, in this process) and pass 2 runs again for the open files, with the rest of
the project as facts only.  Pass 2 is incremental (``engine.Decisions``): while the
edit leaves the file's facts as they were, the project-wide decisions of the checks
whose candidates it did not change are kept, so such a keystroke costs one parse; one
that changes them takes over what the project-wide analyses worked out for the modules
it left alone (``Project.earlier``).

Nothing here knows about the protocol: paths in, findings out.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from nondet_lint.cache import open_cache, resolve_dir
from nondet_lint.config import Config, has_marker
from nondet_lint.discovery import discover, is_requirements_file
from nondet_lint.engine import Decisions, selected_codes
from nondet_lint.fileanalysis import analyze_file
from nondet_lint.parallel import analyze_files, default_workers
from nondet_lint.results import FileResult
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.types import Finding



def shown_path(path: str) -> str:
    """A path as ``nondet-lint`` run from the current folder names it: relative inside
    that folder, absolute elsewhere; so the server and the CLI share cache entries."""
    absolute = os.path.abspath(path)
    here = os.getcwd()
    if absolute == here or absolute.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, here).replace(os.sep, "/")
    return absolute.replace(os.sep, "/")


def path_key(path: str) -> str:
    """The same file, however it was named (for lookups only)."""
    return os.path.normcase(os.path.realpath(path))


class ProjectFacts:
    """Pass-1 results of every file of one project, and pass 2 on demand."""

    def __init__(self, config: Config, index_root: bool = True, workers: Optional[int] = None) -> None:
        self.config = config
        self.rules: RuleSet = load_rules(tuple(config.rule_files))
        self.enabled = selected_codes(config, self.rules)
        self.index_root = index_root
        self.workers = default_workers() if workers is None else workers
        self.results: Dict[str, FileResult] = {}  # by shown path: pass 1 of disk or buffer
        self.facts: Dict[str, FileResult] = {}  # the same, facts only (the context of pass 2)
        self._paths: Dict[str, str] = {}  # path_key -> shown path
        self.indexed = False
        self.helper_status: Optional[int] = 0  # exit status of the process that filled the cache
        self.decisions = Decisions(config, self.rules, self.enabled)

    # ---- pass 1 -------------------------------------------------------------------------
    def index(self) -> int:
        """Analyze every checkable file under the root (cached files are only read);
        returns the number of files.  A project whose root is not a project folder (a
        loose file in the home folder) holds just the files it is given."""
        self.indexed = True
        if not self.index_root:
            return 0
        root = shown_path(self.config.root)
        files, _ = discover([root], (*self.config.exclude, *self.config.extend_exclude))
        directory = resolve_dir(self.config)
        if self.workers:
            self.helper_status = fill_cache(files, self.config, directory, self.workers)
        cache = open_cache(self.config, self.rules, self.enabled, directory)
        results = analyze_files(files, self.config, self.rules, self.enabled, None, cache)  # from the cache
        for result in results:
            self._store(result.path, result)
        return len(files)

    def name(self, path: str) -> str:
        """The name the project knows ``path`` by (its key in ``results``)."""
        return self._paths.get(path_key(path)) or shown_path(path)

    def update(self, path: str, raw: Optional[bytes]) -> FileResult:
        """Pass 1 for one file: ``raw`` is its unsaved text, None means read it from disk.
        A requirement file is always read from disk (its checker reads the file)."""
        name = self.name(path)
        if is_requirements_file(os.path.basename(name)):
            raw = None
        result = analyze_file(name, self.config, self.rules, self.enabled, stdin=raw)
        self._store(name, result)
        return result

    def forget(self, path: str) -> None:
        """A file deleted from disk."""
        name = self._paths.pop(path_key(path), None) or shown_path(path)
        self.results.pop(name, None)
        self.facts.pop(name, None)

    def _store(self, name: str, result: FileResult) -> None:
        self._paths[path_key(name)] = name
        self.results[name] = result
        self.facts[name] = result.facts_only()

    # ---- pass 2 -------------------------------------------------------------------------
    def findings(self, paths: Iterable[str]) -> Dict[str, List[Finding]]:
        """Findings of the given files (each must have been analyzed), decided with the
        facts of the whole project; every given file has an entry, empty when clean."""
        names = sorted({self.name(path) for path in paths})
        reported = [self.results[name] for name in names]
        context = self.contexts(names)
        by_path: Dict[str, List[Finding]] = {name: [] for name in names}
        for finding in self.decisions.decide(reported, context):
            by_path.setdefault(finding.path, []).append(finding)
        return by_path

    def files_changed_on_disk(self) -> None:
        """Pass 2 reads a few files besides the facts (requirement pins, packaging):
        after a change outside the editor, no earlier decision is kept."""
        self.decisions.forget()

    def contexts(self, paths: Sequence[str]) -> List[FileResult]:
        """The facts of every file but ``paths`` (for a fix session)."""
        names = {self.name(path) for path in paths}
        return [result for name, result in self.facts.items() if name not in names]


def fill_cache(files: Sequence[str], config: Config, directory: str, workers: int) -> Optional[int]:
    """Pass 1 of ``files`` into the on-disk cache, in worker processes started from a
    fresh single-threaded process: the server has threads (the protocol's reader, the
    analysis), and a process forked from a threaded one can hang on a lock another
    thread held.  The server then reads every result from the cache; one the helper could
    not store (a read-only folder) is analyzed in the server itself.  Returns the
    helper's exit status."""
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=_fill_cache, args=(list(files), config, directory, workers))
    process.start()
    process.join()
    return process.exitcode


def _fill_cache(files: List[str], config: Config, directory: str, workers: int) -> None:
    from nondet_lint.parallel import settle_heap

    settle_heap()
    rules = load_rules(tuple(config.rule_files))
    enabled = selected_codes(config, rules)
    analyze_files(files, config, rules, enabled, workers, open_cache(config, rules, enabled, directory))


def is_project_folder(folder: str, workspace_folders: Sequence[str]) -> bool:
    """Whether to index ``folder``: it holds a project marker or is a workspace folder
    (not the folder of a loose file somewhere)."""
    if has_marker(Path(folder)):
        return True
    key = path_key(folder)
    return any(path_key(workspace) == key for workspace in workspace_folders)
