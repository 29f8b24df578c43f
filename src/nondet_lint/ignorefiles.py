"""gitignore rules for the folder walk (``respect-gitignore``, on by default).

The files read, from weakest to strongest, as git and ripgrep (which ruff follows) rank
them: git's global excludes file (``core.excludesFile`` in ``~/.gitconfig``, else
``$XDG_CONFIG_HOME/git/ignore``), the repository's ``.git/info/exclude``, then in every
folder from the repository root down to the file its ``.gitignore`` and its ``.ignore``.
Patterns of a folder's file are relative to that folder; a deeper file overrides a
shallower one (``!pattern`` re-includes), and nothing inside an ignored folder is
looked at, as in git.  Outside a git repository the ``.gitignore`` and ``.ignore`` files
of the walked folders still apply.  A folder named on the command line is walked even when
git ignores it.  Matching is ``pathspec``'s gitignore dialect.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import List, Optional, Sequence, Tuple

import pathspec

IGNORE_FILES = (".gitignore", ".ignore")  # per folder, the later wins

# (folder the patterns are relative to, the patterns)
Layer = Tuple[str, pathspec.GitIgnoreSpec]
Rules = Tuple[Layer, ...]

_EXCLUDES_FILE = re.compile(r"^\s*excludesfile\s*=\s*(.+?)\s*$", re.IGNORECASE)


def _read_spec(path: str) -> Optional[pathspec.GitIgnoreSpec]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:  # unreadable or gone: as if absent, like git
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def folder_layers(folder: str, names: Sequence[str]) -> List[Layer]:
    """The layers of one folder, given the names it holds (no extra system calls when
    it holds no ignore file)."""
    layers = []
    for name in IGNORE_FILES:
        if name in names:
            spec = _read_spec(os.path.join(folder, name))
            if spec is not None:
                layers.append((os.path.abspath(folder), spec))
    return layers


def git_root(folder: str) -> Optional[str]:
    """The work tree holding ``folder`` (the nearest folder with a ``.git``), or None."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def global_excludes_file() -> Optional[str]:
    """git's ``core.excludesFile`` from ``~/.gitconfig`` (a plain reading: no includes),
    else its default place."""
    home = os.path.expanduser("~")
    try:
        with open(os.path.join(home, ".gitconfig"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                match = _EXCLUDES_FILE.match(line)
                if match:
                    return os.path.expanduser(match.group(1).strip('"'))
    except OSError:
        pass
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(config_home, "git", "ignore")


def rules_above(top: str) -> Rules:
    """The layers that apply to the walked folder ``top`` from outside it: the global and
    repository excludes and the ignore files of its parents up to the work tree root.

    None of them when they ignore ``top`` itself: a folder named on the command line is
    checked (as ripgrep searches it), with only the ignore files inside it applying.
    """
    top = os.path.abspath(top)
    root = git_root(top)
    if root is None:
        return ()
    layers: List[Layer] = []
    for path in (global_excludes_file(), os.path.join(root, ".git", "info", "exclude")):
        spec = _read_spec(path) if path and os.path.isfile(path) else None
        if spec is not None:
            layers.append((root, spec))
    parents = []
    current = os.path.dirname(top) if top != root else None
    while current and _inside(current, root):
        parents.append(current)
        if current == root:
            break
        current = os.path.dirname(current)
    for folder in reversed(parents):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        layers.extend(folder_layers(folder, names))
    return () if is_ignored(tuple(layers), top, True) else tuple(layers)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def is_ignored(rules: Rules, path: str, is_dir: bool) -> bool:
    """Whether the strongest layer with a pattern matching ``path`` ignores it."""
    if not rules:
        return False
    absolute = os.path.abspath(path)
    for base, spec in reversed(rules):
        if not _inside(absolute, base) or absolute == base:
            continue
        relative = PurePath(os.path.relpath(absolute, base)).as_posix() + ("/" if is_dir else "")
        decision = spec.check_file(relative).include
        if decision is not None:
            return decision
    return False
