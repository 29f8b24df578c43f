"""What a requirement is for: the environment a program runs in, or something else.

ND401 asks for the environment that trains to be pinned.  Two kinds of declaration are
not that environment, and pinning them exactly would be wrong:

- a **distributed library's own metadata**: the ``[project]`` table of a
  ``pyproject.toml`` that has a ``[build-system]``, a ``setup.py`` / ``setup.cfg`` that
  ships packages (``packages=``, ``py_modules=``), and the requirement files that such
  packaging reads (``install_requires=_parse("requirements.txt")``; a helper given only
  the packaging's own folder, ``install_requires=load_requirements(HERE)``, reads that
  folder's ``requirements.txt``, the one name such helpers default to).  They state the
  range of versions the package accepts when others install it next to their own
  dependencies;
- **tooling requirements**: files and dependency groups for development, tests, CI,
  documentation or linting (``requirements-dev.txt``, ``docs/requirements.txt``, an
  extra named ``test``), whose words are rule data (``[ND401.data] tooling_words``);
- **speed benchmarks' requirements**: a requirement file of a folder whose entry points
  are all speed benchmarks (``BenchmarkFolders``): a timing run, not training.

Everything else (an application's ``requirements.txt``, an example's, a pyproject with
no ``[build-system]``, ``environment.yml``) is an environment.  Files are read in pass
2, from the folder of the declaration and those above it up to the project root.
"""

from __future__ import annotations

import ast
import configparser
import os
import re
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Set

from nondet_lint import _toml
from nondet_lint.analysis.entrypoints import is_entry_point, is_speed_benchmark
from nondet_lint.families.environment.requirements import read_text

PACKAGING_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
DEFAULT_REQUIREMENTS = "requirements.txt"  # what a helper given only a folder reads there
_SHIPS = re.compile(r"\b(packages|py_modules|package_dir)\s*=")
_QUOTED = re.compile(r"""["']([^"'\n]{1,200})["']""")
_WORD = re.compile(r"[^a-z0-9]+")


class Purposes:
    """Answers, for one project, whether a declaration describes its training environment."""

    def __init__(self, root: str, tooling_words: Iterable[str]) -> None:
        self.root = os.path.abspath(root or ".")
        self.tooling_words: FrozenSet[str] = frozenset(w.lower() for w in tooling_words)
        self._libraries: Dict[str, bool] = {}
        self._read_by: Dict[str, Set[str]] = {}

    # ---- distributed libraries ---------------------------------------------------------
    def is_library_root(self, folder: str) -> bool:
        """Whether the packaging in ``folder`` builds a package others install."""
        folder = os.path.abspath(folder)
        if folder not in self._libraries:
            self._libraries[folder] = _builds_package(folder)
        return self._libraries[folder]

    def is_library_metadata(self, path: str) -> bool:
        """A packaging file of a distributed library (its own folder decides)."""
        return self.is_library_root(os.path.dirname(os.path.abspath(path)))

    def read_by_library(self, path: str) -> bool:
        """A requirement file that a distributed library's packaging reads as its dependencies."""
        full = os.path.abspath(path)
        for folder in folders_up_to(full, self.root):
            if self.is_library_root(folder) and full in self._named_files(folder):
                return True
        return False

    def _named_files(self, folder: str) -> Set[str]:
        """Requirement files that the packaging of ``folder`` names: a quoted relative path,
        or a quoted file name whose folder (below ``folder``) is named too; and the
        folder's ``requirements.txt`` when ``setup.py`` builds ``install_requires`` with a
        helper given only its own folder."""
        if folder not in self._read_by:
            quoted: Set[str] = set()
            named: Set[str] = set()
            for name in PACKAGING_FILES:
                text = read_text(os.path.join(folder, name)) or ""
                quoted.update(q.strip() for q in _QUOTED.findall(text))
                quoted.update(_file_references(text))
                if name == "setup.py" and _requires_from_own_folder(text):
                    named.add(os.path.join(folder, DEFAULT_REQUIREMENTS))
            for value in quoted:
                if "/" in value or value.endswith((".txt", ".in")):
                    named.add(os.path.normpath(os.path.join(folder, value)))
                    for sub in quoted:
                        if sub != value and "." not in os.path.basename(sub):
                            named.add(os.path.normpath(os.path.join(folder, sub, value)))
            self._read_by[folder] = named
        return self._read_by[folder]

    # ---- tooling -------------------------------------------------------------------------
    def is_tooling(self, path: str, group: str = "") -> bool:
        """Development, test, CI, docs or lint requirements: by a word of the dependency
        group or of the file's name (``requirements-dev.txt``), or by the name of a folder
        it sits in below the project root (``docs/``, ``.github/``)."""
        if group and self._words(group) & self.tooling_words:
            return True
        full = os.path.abspath(path)
        relative = os.path.relpath(full, self.root) if full.startswith(self.root + os.sep) else os.path.basename(full)
        parts = relative.replace("\\", "/").split("/")
        folders = {folder.lstrip(".").lower() for folder in parts[:-1]}
        return bool((self._words(os.path.splitext(parts[-1])[0]) | folders) & self.tooling_words)

    @staticmethod
    def _words(text: str) -> Set[str]:
        return {w for w in _WORD.split(text.lower()) if w}


class BenchmarkFolders:
    """The folders whose entry points, in them and below, are all speed benchmarks (contract
    "Speed benchmarks"): a requirement file there sets up a timing run, not training."""

    def __init__(self, project: Any) -> None:
        self.root = os.path.abspath(project.root or ".")
        self.entries: Dict[str, bool] = {}  # entry point path -> whether it measures speed
        for path, record in project.modules.items():
            if is_entry_point(record.facts):
                self.entries[os.path.abspath(path)] = is_speed_benchmark(record.facts)
        self._answers: Dict[str, bool] = {}

    def only_benchmarks(self, path: str) -> bool:
        """Whether the folder of ``path`` holds entry points (there or below) and all of
        them are speed benchmarks."""
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._answers:
            inside = [speed for entry, speed in self.entries.items() if entry.startswith(folder + os.sep)]
            self._answers[folder] = bool(inside) and all(inside)
        return self._answers[folder]


def _builds_package(folder: str) -> bool:
    """``pyproject.toml`` with ``[build-system]`` and ``[project]`` (or Poetry in package
    mode), or setuptools packaging that ships packages or modules."""
    text = read_text(os.path.join(folder, "pyproject.toml"))
    if text:
        try:
            document = _toml.loads(text)
        except (_toml.TOMLDecodeError, ValueError):
            document = {}
        poetry = document.get("tool", {}).get("poetry", {}) if isinstance(document.get("tool"), dict) else {}
        if isinstance(poetry, dict) and poetry.get("package-mode") is False:
            return False
        if "build-system" in document and ("project" in document or poetry):
            return True
    setup_py = read_text(os.path.join(folder, "setup.py")) or ""
    if _SHIPS.search(setup_py):
        return True
    return _setup_cfg_ships(read_text(os.path.join(folder, "setup.cfg")) or "")


def _setup_cfg_ships(text: str) -> bool:
    if not text:
        return False
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return False
    return parser.has_option("options", "packages") or parser.has_option("options", "py_modules")


def _file_references(text: str) -> List[str]:
    """``file: requirements.txt`` (setup.cfg) and ``{file = ["requirements.txt"]}``
    (pyproject ``[tool.setuptools.dynamic]``)."""
    found: List[str] = []
    for match in re.finditer(r"file\s*:\s*([^\n]+)", text):
        found.extend(part.strip() for part in match.group(1).split(",") if part.strip())
    return found


def _requires_from_own_folder(text: str) -> bool:
    """``install_requires=helper(HERE)`` in a ``setup.py``: a call whose one argument is the
    setup script's own folder (``os.path.dirname(__file__)``, ``Path(__file__).parent``, or
    a top-level name bound to one), no file name given.  Such helpers
    (``_load_requirements(path_dir, file_name="requirements.txt")``) read the folder's
    ``requirements.txt``; a helper given a file name is read from the quoted name."""
    if "install_requires" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    folders: Set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and _own_folder(statement.value, folders):
            folders.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "install_requires" and isinstance(node.value, ast.Call):
            given = [*node.value.args, *(k.value for k in node.value.keywords)]
            if len(given) == 1 and _own_folder(given[0], folders):
                return True
    return False


def _own_folder(node: ast.expr, folders: Set[str]) -> bool:
    """The folder of ``__file__``: ``os.path.dirname(__file__)`` (of its ``abspath`` or
    ``realpath``, or made absolute), ``Path(__file__).parent`` (``.resolve()`` or
    ``.absolute()`` on either side), or a name bound to one."""
    if isinstance(node, ast.Name):
        return node.id in folders
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        return _the_file(node.value)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        name = _called_name(node)
        if name == "dirname":
            return _the_file(node.args[0])
        if name in ("abspath", "realpath"):
            return _own_folder(node.args[0], folders)
    if isinstance(node, ast.Call) and not node.args and _called_name(node) in ("resolve", "absolute"):
        return isinstance(node.func, ast.Attribute) and _own_folder(node.func.value, folders)
    return False


def _the_file(node: ast.expr) -> bool:
    """``__file__``, made absolute or wrapped in a ``Path``."""
    if isinstance(node, ast.Name):
        return node.id == "__file__"
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _called_name(node) in ("abspath", "realpath", "Path"):
        return _the_file(node.args[0])
    if isinstance(node, ast.Call) and not node.args and _called_name(node) in ("resolve", "absolute"):
        return isinstance(node.func, ast.Attribute) and _the_file(node.func.value)
    return False


def _called_name(call: ast.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def folders_up_to(path: str, root: str) -> List[str]:
    """The folder of ``path`` and its parents, stopping at ``root`` (inclusive)."""
    folder = os.path.dirname(os.path.abspath(path))
    root = os.path.abspath(root)
    out: List[str] = []
    while True:
        out.append(folder)
        parent = os.path.dirname(folder)
        if folder == root or parent == folder or not folder.startswith(root):
            return out
        folder = parent
