"""Finding the files to check.

Directories are walked for ``*.py`` and ``*.ipynb`` (and the requirement files that
ND401 reads, and the CUDA sources, ``*.cu`` / ``*.cuh``, that ND207 reads), skipping virtual
environments, build output, what ``exclude`` / ``extend-exclude`` name and, with
``respect-gitignore``, what git ignores (``ignorefiles``).  A file named on the command line is always checked.  Walk
problems (a symlink loop, an unreadable folder, a path that does not exist) are returned
as ``WalkError`` values for the engine to report, never raised.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Callable, List, Optional, Sequence, Set, Tuple

from nondet_lint.ignorefiles import IGNORE_FILES, Rules, folder_layers, is_ignored, rules_above

PYTHON_SUFFIXES = (".py", ".ipynb")
CUDA_SUFFIXES = (".cu", ".cuh")


def is_requirements_file(name: str) -> bool:
    """Non-Python files that go through the engine (ND401)."""
    lower = name.lower()
    return (
        (lower.startswith("requirements") and lower.endswith((".txt", ".in")))
        or lower in ("pyproject.toml", "setup.cfg", "environment.yml", "environment.yaml")
    )


def is_cuda_source(name: str) -> bool:
    """CUDA sources of the project (ND207 reads their atomics)."""
    return name.lower().endswith(CUDA_SUFFIXES)


def is_checkable(name: str) -> bool:
    return name.endswith(PYTHON_SUFFIXES) or is_requirements_file(name) or is_cuda_source(name)


def module_name_for(path: str) -> Tuple[str, bool]:
    """Dotted module name from the package folders (those with ``__init__.py``) around it."""
    absolute = os.path.abspath(path)
    folder, filename = os.path.split(absolute)
    stem = os.path.splitext(filename)[0]
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, name = os.path.split(folder)
        parts.insert(0, name)
        if not name:
            break
    return ".".join(p for p in parts if p), is_package


@dataclass(frozen=True)
class WalkError:
    path: str
    reason: str


@lru_cache(maxsize=16)
def _exclusion(patterns: Tuple[str, ...]) -> Tuple[Optional["re.Pattern[str]"], Tuple[str, ...]]:
    """The patterns that match a file or folder name, as one regular expression (one
    match per entry instead of one ``fnmatch`` per pattern: the walk's main cost on a
    warm run), and those that match a path relative to the walk's top."""
    stripped = [pattern.rstrip("/") for pattern in patterns]
    names = [pattern for pattern in stripped if "/" not in pattern]
    regex = re.compile("|".join(f"(?:{fnmatch.translate(pattern)})" for pattern in names)) if names else None
    return regex, tuple(pattern for pattern in stripped if "/" in pattern)


def _path_excluded(rel: str, paths: Sequence[str]) -> bool:
    return any(
        fnmatch.fnmatchcase(rel, pattern) or rel.startswith(pattern + "/") or fnmatch.fnmatchcase(rel, pattern + "/*")
        for pattern in paths
    )


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _display(path: str) -> str:
    return PurePath(path).as_posix()


def discover(
    paths: Sequence[str], exclude: Sequence[str], respect_gitignore: bool = False,
) -> Tuple[List[str], List[WalkError]]:
    """Files to check (sorted, de-duplicated) and the problems met while walking."""
    files: List[str] = []
    errors: List[WalkError] = []
    seen_files: Set[str] = set()

    def add(path: str) -> None:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen_files:
            seen_files.add(key)
            files.append(_display(os.path.normpath(path)))

    for given in paths:
        if os.path.isfile(given) or (os.path.lexists(given) and not os.path.isdir(given) and not os.path.exists(given)):
            # explicit files are always checked (a dangling link is reported by the reader)
            add(given)
            continue
        if not os.path.exists(given):
            if os.path.islink(given):
                errors.append(WalkError(_display(given), "symbolic link loop or dangling link"))
            else:
                errors.append(WalkError(_display(given), "no such file or directory"))
            continue
        _walk(given, exclude, add, errors, rules_above(given) if respect_gitignore else None)
    return sorted(files), sorted(errors, key=lambda e: e.path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def project_files(
    root: str, given: Sequence[str], reported: Sequence[str], exclude: Sequence[str], respect_gitignore: bool = False,
) -> List[str]:
    """The project's other checkable files: indexed for their facts, never reported.

    Empty when nothing was given, when a given path lies outside ``root`` (then ``root``
    is not their project: a config file elsewhere, a library call with a default root),
    or when a given folder holds the root (the walk already found every file).
    """
    if not given or not root or not os.path.isdir(root):
        return []
    top = os.path.normcase(os.path.realpath(root))
    targets = [os.path.normcase(os.path.realpath(path)) for path in given]
    if not all(_inside(target, top) for target in targets):
        return []
    if any(_inside(top, target) for target in targets):
        return []
    shown = os.path.abspath(root)
    if not any(os.path.isabs(path) for path in given):
        try:
            shown = os.path.relpath(root)  # shown like the given paths
        except ValueError:  # another drive
            pass
    found, _ = discover([shown], exclude, respect_gitignore)
    skip = {os.path.normcase(os.path.realpath(path)) for path in reported}
    return [path for path in found if os.path.normcase(os.path.realpath(path)) not in skip]


def _walk(
    top: str, exclude: Sequence[str], add: Callable[[str], None], errors: List[WalkError], ignore: Optional[Rules],
) -> None:
    """Walk ``top``; ``ignore`` holds the gitignore layers from above it (None: ignore
    files are not read)."""
    visited: Set[Tuple[int, int]] = set()
    names, paths = _exclusion(tuple(exclude))
    stack = [(top, ignore)]
    while stack:
        folder, rules = stack.pop()
        try:
            stat = os.stat(folder)
        except OSError as exc:
            errors.append(WalkError(_display(folder), _reason(exc)))
            continue
        key = (stat.st_dev, stat.st_ino)
        if key in visited:
            errors.append(WalkError(_display(folder), "symbolic link loop: folder already visited"))
            continue
        visited.add(key)
        try:
            with os.scandir(folder) as entries:
                listing = sorted(entries, key=lambda e: e.name)
        except OSError as exc:
            errors.append(WalkError(_display(folder), _reason(exc)))
            continue
        if rules is not None and any(entry.name in IGNORE_FILES for entry in listing):
            rules = (*rules, *folder_layers(folder, [entry.name for entry in listing]))
        subfolders = []
        for entry in listing:
            path = os.path.join(folder, entry.name)
            if names is not None and names.match(entry.name):
                continue
            if paths and _path_excluded(_display(os.path.relpath(path, top)), paths):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError as exc:
                errors.append(WalkError(_display(path), _reason(exc)))
                continue
            if rules and is_ignored(rules, path, is_dir):
                continue
            if is_dir:
                if _is_virtualenv(path):
                    continue
                subfolders.append((path, rules))
            elif is_checkable(entry.name):
                if entry.is_symlink() and not os.path.exists(path):
                    errors.append(WalkError(_display(path), "symbolic link loop or dangling link"))
                    continue
                add(path)
        stack.extend(reversed(subfolders))


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
