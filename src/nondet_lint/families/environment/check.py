"""ND401: frameworks not pinned to one version in the project's requirement files.

Pass 1 reads one requirement file (and what it includes with ``-r`` / ``-c``) and turns
each entry for a tracked package into a deferred candidate carrying whether it is pinned.
Pass 2 sees every candidate of the project at once and reports the unpinned ones unless
the project pins the package another way: a lock file or a hashed requirements file in
the candidate's folder or above it (up to the project root), a compiled ``.txt`` next to
a ``.in`` file, or, for package metadata (``pyproject.toml`` ``[project]``, ``setup.cfg``,
``setup.py``: its candidates come from ``setuppy``),
an exact pin in an environment file of the project (libraries declare ranges; the
environment that trains pins them).  Declarations that are not a training environment
(a distributed library's own metadata and the files its packaging reads; development,
test, CI and docs requirements) are not reported: ``purpose`` tells them apart.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Set, Tuple

from nondet_lint.check import Check
from nondet_lint.families.environment.candidates import CODE, METADATA_KINDS, RequirementCandidate
from nondet_lint.families.environment.purpose import BenchmarkFolders, Purposes, folders_up_to
from nondet_lint.families.environment.requirements import LOCK_FILE_NAMES
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Deferred, Finding



# ---------------------------------------------------------------- pass 2 --------------
def _locked_folders(deferred: Iterable[Deferred]) -> Set[str]:
    """Folders holding a hashed requirements file (a pip lock)."""
    return {os.path.dirname(os.path.abspath(d.path)) for d in deferred if RequirementCandidate.from_json(d.payload).hashed}


def _has_lock(folder: str, hashed_folders: Set[str], cache: Dict[str, bool]) -> bool:
    if folder not in cache:
        cache[folder] = folder in hashed_folders or any(
            os.path.isfile(os.path.join(folder, name)) for name in LOCK_FILE_NAMES
        )
    return cache[folder]


def _compiled_sibling(path: str) -> str:
    """``requirements.in`` → ``requirements.txt`` (pip-compile's output next to it)."""
    stem, ext = os.path.splitext(os.path.abspath(path))
    return stem + ".txt" if ext == ".in" else ""


class UnpinnedFramework(Check):
    """ND401 (decided in pass 2; candidates come from ``candidates.analyze_requirements``)."""

    codes = (CODE,)

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        hashed = _locked_folders(deferred)
        candidates = [(d, RequirementCandidate.from_json(d.payload)) for d in deferred]
        environment_pins = {c.package for _, c in candidates if c.pinned and c.kind not in METADATA_KINDS}
        pinned_in = {(os.path.abspath(d.path), c.package) for d, c in candidates if c.pinned}
        lock_cache: Dict[str, bool] = {}
        purposes = Purposes(project.root, rules[CODE].data.get("tooling_words", ()))
        timing = BenchmarkFolders(project)
        on_line: Dict[Tuple[str, int], List[Tuple[Deferred, RequirementCandidate]]] = {}
        for item, candidate in candidates:
            if candidate.pinned:
                continue
            if any(_has_lock(folder, hashed, lock_cache) for folder in folders_up_to(item.path, project.root)):
                continue
            if purposes.is_tooling(item.path, candidate.group):
                continue  # development, tests, CI, docs: not the environment that trains
            if candidate.kind not in METADATA_KINDS and timing.only_benchmarks(item.path):
                continue  # the environment of speed benchmarks: it times, it does not train
            if purposes.is_library_metadata(item.path) if candidate.kind in METADATA_KINDS else purposes.read_by_library(item.path):
                continue  # a distributed library's install ranges: it must not pin
            if (_compiled_sibling(item.path), candidate.package) in pinned_in:
                continue
            if candidate.kind in METADATA_KINDS and candidate.package in environment_pins:
                continue
            on_line.setdefault((item.path, item.line), []).append((item, candidate))
        for unpinned in on_line.values():
            yield _finding(unpinned, rules)


def _finding(unpinned: List[Tuple[Deferred, RequirementCandidate]], rules: RuleSet) -> Finding:
    """One finding per line: an inline list (``dependencies = ["torch>=2", "numpy"]``) names
    every unpinned package of the line in one message, at the first one."""
    first, _ = unpinned[0]
    packages = [candidate.package for _, candidate in unpinned]
    package = packages[0] if len(packages) == 1 else ", ".join(packages[:-1]) + " and " + packages[-1]
    message = rules[CODE].format_message(
        package=package,
        verb="is" if len(packages) == 1 else "are",
        requirement=", ".join(f"`{candidate.requirement}`" for _, candidate in unpinned),
    )
    last, _ = unpinned[-1]
    return Finding(first.path, first.line, first.col, CODE, message, last.end_line, last.end_col)

