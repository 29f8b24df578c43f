"""What the project's packaging declares: console scripts and built metadata.

Each console script names a function that is an entry point (spec "Terms"), so its module
is a program even with no main block.  Read from ``[project.scripts]`` /
``[tool.poetry.scripts]`` in ``pyproject.toml``, the ``console_scripts`` of ``setup.cfg``
and of ``setup.py`` (literal strings only: the file is read, never run).

A project unpacked from a source or wheel distribution carries its requirements in its
built metadata (``PKG-INFO``, ``*.dist-info/METADATA``: ``Requires-Dist`` lines; a setuptools
source distribution's ``*.egg-info/requires.txt``), which
say its target versions where no requirement file does (``metadata_requirements``); the
metadata's own ``Name`` and ``Version`` say which version of that package the project is
(``own_distribution``: scikit-learn's examples run on that scikit-learn).
"""

from __future__ import annotations

import configparser
import os
import re
from typing import Any, Dict, List, Mapping, Tuple

from nondet_lint import _toml

# ``name = package.module:function`` (the function may be ``Class.method``)
_SCRIPT = re.compile(r"""["']\s*[\w.\-]+\s*=\s*([A-Za-z_][\w.]*)\s*:\s*([A-Za-z_][\w.]*)\s*(?:\[[^\]]*\])?\s*["']""")


def console_scripts(root: str) -> List[Tuple[str, str]]:
    """``(module, function)`` for each console script of the project at ``root``, sorted."""
    found = set()
    found.update(_from_pyproject(os.path.join(root, "pyproject.toml")))
    found.update(_from_setup_cfg(os.path.join(root, "setup.cfg")))
    found.update(_from_setup_py(os.path.join(root, "setup.py")))
    return sorted(found)


# ``Requires-Dist: tensorflow ~=2.15.0`` / ``Requires-Dist: numpy (>=1.20)``; no environment marker
_REQUIRES = re.compile(r"^Requires-Dist:\s*([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;()]*)\)?\s*$")


def metadata_requirements(root: str) -> Dict[str, str]:
    """``{name: specifier}`` of the unconditional ``Requires-Dist`` lines of the built
    metadata at ``root`` (``PKG-INFO``, else a ``*.dist-info/METADATA``); requirements
    behind an extra or a marker are left out."""
    candidates = [os.path.join(root, "PKG-INFO")]
    try:
        candidates.extend(
            os.path.join(root, name, "METADATA") for name in sorted(os.listdir(root)) if name.endswith(".dist-info")
        )
    except OSError:
        return {}
    for path in candidates:
        text = _read(path)
        if not text:
            continue
        found: Dict[str, str] = {}
        for line in text.splitlines():
            if not line.strip():
                break  # the headers end at the first empty line
            match = _REQUIRES.match(line.strip())
            if match:
                found[match.group(1).lower().replace("_", "-")] = match.group(2).replace(" ", "")
        if found:
            return found
    return _egg_info_requirements(root)


# ``tensorflow~=2.4`` / ``numpy (>=1.20)`` in an ``*.egg-info/requires.txt``
_REQUIRES_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;()]*)\)?\s*$")


def _egg_info_requirements(root: str) -> Dict[str, str]:
    """The unconditional requirements of a setuptools source distribution, whose
    ``PKG-INFO`` (metadata 2.1 and older) often lists none: its ``*.egg-info/requires.txt``
    holds them, before the first ``[extra]`` or ``[:marker]`` section."""
    try:
        folders = sorted(name for name in os.listdir(root) if name.endswith(".egg-info"))
    except OSError:
        return {}
    for folder in folders:
        text = _read(os.path.join(root, folder, "requires.txt"))
        found: Dict[str, str] = {}
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("["):
                break
            match = _REQUIRES_LINE.match(line)
            if match:
                found[match.group(1).lower().replace("_", "-")] = match.group(2).replace(" ", "")
        if found:
            return found
    return {}


def own_distribution(root: str) -> Dict[str, str]:
    """``{name: "==version"}`` of the distribution the built metadata at ``root`` describes
    (``PKG-INFO``'s ``Name`` and ``Version``): a project that is a package runs its own
    code, examples included, on that version of it (scikit-learn's examples on itself)."""
    text = _read(os.path.join(root, "PKG-INFO"))
    headers: Dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version") and key not in headers:
            headers[key] = value.strip()
    if not headers.get("Name") or not headers.get("Version"):
        return {}
    return {re.sub(r"[-_.]+", "-", headers["Name"].lower()): "==" + headers["Version"]}


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _split(target: str) -> List[Tuple[str, str]]:
    module, _, function = target.partition(":")
    function = function.split("[", 1)[0].strip()
    return [(module.strip(), function)] if module.strip() and function else []


def _from_pyproject(path: str) -> List[Tuple[str, str]]:
    text = _read(path)
    if not text:
        return []
    try:
        data: Mapping[str, Any] = _toml.loads(text)
    except ValueError:
        return []
    tables = [data.get("project", {}).get("scripts", {}), data.get("tool", {}).get("poetry", {}).get("scripts", {})]
    out: List[Tuple[str, str]] = []
    for table in tables:
        if isinstance(table, dict):
            for target in table.values():
                if isinstance(target, str):
                    out.extend(_split(target))
    return out


def _from_setup_cfg(path: str) -> List[Tuple[str, str]]:
    text = _read(path)
    if not text:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    value = parser.get("options.entry_points", "console_scripts", fallback="")
    out: List[Tuple[str, str]] = []
    for line in value.splitlines():
        if "=" in line:
            out.extend(_split(line.split("=", 1)[1]))
    return out


def _from_setup_py(path: str) -> List[Tuple[str, str]]:
    text = _read(path)
    if "console_scripts" not in text:
        return []
    return [(m.group(1), m.group(2)) for m in _SCRIPT.finditer(text)]
