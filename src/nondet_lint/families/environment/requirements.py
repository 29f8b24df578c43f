"""The project's declared dependencies: requirement files parsed into plain entries.

Reads the formats people pin frameworks in: pip requirement files (``-r`` / ``-c``
includes, ``--hash``, line continuations, direct URLs), ``pyproject.toml`` (PEP 621
``dependencies`` / ``optional-dependencies``, PEP 735 ``dependency-groups``, Poetry
tables, uv ``dev-dependencies``), ``setup.cfg`` (``install_requires``,
``extras_require``), conda ``environment.yml`` (with its ``pip:`` section), and the lock
files poetry / uv / pdm write.  Every entry knows its file and line, so ND401 can report
at the requirement, and ``project_pins`` tells the version-dependent rules (ND2xx) which
framework versions the project runs on.

Public API:

- ``Requirement``: one declared dependency (normalized name, specifier, exact pin).
- ``parse_text(path, text)``: the entries and includes of one file's text (pure).
- ``read_requirements(path)``: one file from disk, following ``-r`` / ``-c`` includes
  (``read_parsed`` / ``with_includes``: the same, file by file).
- ``project_pins(root)``: ``{name: specifier}`` for the whole project.
- ``normalize_name``, ``pinned_version``, ``LOCK_FILE_NAMES``.

Nothing here raises on bad input: a file that cannot be read or parsed yields no
entries (the caller reports ND000 where it matters).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from nondet_lint import _toml
from nondet_lint.analysis.packaging import metadata_requirements, own_distribution
from nondet_lint.discovery import is_requirements_file

# Lock files: a project that commits one installs exactly what it records.
LOCK_FILE_NAMES: Tuple[str, ...] = (
    "poetry.lock", "uv.lock", "pdm.lock", "conda-lock.yml", "conda-lock.yaml", "pylock.toml",
)
_TOML_LOCKS = ("poetry.lock", "uv.lock", "pdm.lock", "pylock.toml")

# conda package names that are another name for a PyPI project
CONDA_ALIASES: Dict[str, str] = {
    "pytorch": "torch",
    "pytorch-cpu": "torch",
    "pytorch-gpu": "torch",
    "py-xgboost": "xgboost",
    "py-xgboost-cpu": "xgboost",
    "py-xgboost-gpu": "xgboost",
}

_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_OPERATORS = ("===", "==", "~=", "!=", "<=", ">=", "<", ">")
_COMMIT = re.compile(r"^[0-9a-fA-F]{40}$")
_TAG = re.compile(r"^v?\d+(\.\d+)+([.+-]?[A-Za-z0-9]+)*$")
_WHEEL = re.compile(r"/?([A-Za-z0-9_.]+)-(\d[^-/]*?)(?:-[^/]*)?\.(?:whl|tar\.gz|zip|tar\.bz2|conda)$")


def normalize_name(name: str) -> str:
    """PEP 503 normal form (``Scikit_Learn`` → ``scikit-learn``), conda aliases mapped."""
    normal = re.sub(r"[-_.]+", "-", name.strip()).lower()
    return CONDA_ALIASES.get(normal, normal)


def pinned_version(specifier: str) -> Optional[str]:
    """The one version a PEP 440 specifier allows (``==2.1.0``, ``===2.1``), else None."""
    for clause in specifier.split(","):
        clause = clause.strip()
        for operator in ("===", "=="):
            if clause.startswith(operator):
                version = clause[len(operator):].strip()
                if version and "*" not in version:
                    return version
                break
    return None


@dataclass(frozen=True)
class Requirement:
    """One declared dependency.

    ``name`` is normalized (``normalize_name``); ``raw`` is the requirement as written
    (for messages); ``specifier`` is PEP 440 text (``==2.1.0``, ``>=2,<3``; Poetry's
    ``^`` / ``~`` and conda's ``=`` are translated), empty when none; ``pinned`` is
    the single version it allows (or the commit a VCS reference names), or None.  ``line`` is 1-based, ``col`` 0-based, both
    where the requirement starts.  ``hashed``: the line carries ``--hash`` (or the file
    says ``--require-hashes``).  ``constraint``: it came from a ``-c`` file, so it
    limits versions without asking for the package.  ``group``: the optional extra or
    dependency group that declares it (``test``, ``docs``), empty for the main list.
    """

    name: str
    raw: str
    specifier: str
    pinned: Optional[str]
    file: str
    line: int
    col: int = 0
    kind: str = "pip"  # pip | pep621 | poetry | setup.cfg | conda | lock
    hashed: bool = False
    constraint: bool = False
    url: str = ""
    group: str = ""  # the extra or dependency group it belongs to ("" for the main dependencies)


@dataclass
class ParsedFile:
    """What one file declares: entries, plus the files it includes (``-r`` / ``-c``)."""

    path: str
    requirements: List[Requirement] = field(default_factory=list)
    includes: List[Tuple[str, bool, int]] = field(default_factory=list)  # (path, is_constraint, line)
    error: Optional[Tuple[int, str]] = None  # (line, reason) when the file could not be parsed


# ---------------------------------------------------------------- PEP 508 -------------
def parse_requirement(text: str, path: str = "", line: int = 1, col: int = 0, kind: str = "pip") -> Optional[Requirement]:
    """One PEP 508 requirement (``torch[cuda]>=2.1; python_version>'3.8'``, ``name @ url``),
    or a bare direct reference (a wheel URL or path, ``git+https://...@ref``)."""
    text = text.strip()
    if not text:
        return None
    named = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*@\s*(\S+)", text)
    if named and "://" not in named.group(1):
        found = _url_requirement(named.group(3), text, path, line, col, kind)
        name = normalize_name(named.group(1))
        if found is None:
            return Requirement(name, text, "", None, path, line, col, kind, url=named.group(3))
        return replace(found, name=name)
    if "://" in text or text.startswith((".", "/", "~")) or re.search(r"\.(whl|tar\.gz|zip)$", text):
        return _url_requirement(text, text, path, line, col, kind)
    match = _NAME.match(text)
    if match is None:
        return None
    rest = re.sub(r"^\s*\[[^\]]*\]", "", text[match.end():])  # extras
    rest = rest.split(";", 1)[0].strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    if rest and not rest.startswith(_OPERATORS):
        return None  # not a requirement
    specifier = re.sub(r"\s+", "", rest)
    return Requirement(normalize_name(match.group(1)), text, specifier, pinned_version(specifier), path, line, col, kind)


def _ref_pin(ref: str) -> Optional[str]:
    """A VCS ref that pins: a full commit hash or a version tag."""
    ref = ref.strip()
    return ref if (_COMMIT.match(ref) or _TAG.match(ref)) else None


def _ref_specifier(pin: Optional[str]) -> str:
    """A version tag as a specifier (``v4.30.0`` → ``==4.30.0``); a commit names no version."""
    if pin is None or _COMMIT.match(pin):
        return ""
    return "==" + pin.lstrip("vV")


def _url_requirement(url: str, raw: str, path: str, line: int, col: int, kind: str) -> Optional[Requirement]:
    """A direct reference: a wheel / sdist file (pinned by its file name) or a VCS URL."""
    clean = url.split("#", 1)[0].split("?", 1)[0].strip()
    wheel = _WHEEL.search(clean)
    if wheel:
        version = wheel.group(2).replace("%2B", "+").replace("%2b", "+")
        return Requirement(normalize_name(wheel.group(1)), raw, f"=={version}", version, path, line, col, kind, url=url)
    egg = re.search(r"[#&]egg=([A-Za-z0-9_.-]+)", url)
    if clean.startswith(("git+", "hg+", "svn+", "bzr+")) or egg:
        repo = clean.split("+", 1)[-1]
        ref = ""
        tail = repo.rsplit("/", 1)[-1]
        if "@" in tail:
            tail, ref = tail.split("@", 1)
        name = egg.group(1) if egg else re.sub(r"\.git$", "", tail)
        if not name:
            return None
        pin = _ref_pin(ref) if ref else None
        return Requirement(normalize_name(name), raw, _ref_specifier(pin), pin, path, line, col, kind, url=url)
    return None


# ---------------------------------------------------------------- pip files -----------
def _logical_lines(text: str) -> Iterable[Tuple[int, int, str]]:
    """(line, col, text) of each logical line: comments stripped, ``\\`` continuations joined."""
    buffer: List[str] = []
    start = 0
    start_col = 0
    for number, physical in enumerate(text.splitlines(), start=1):
        content = re.sub(r"(^|\s)#.*$", "", physical)
        if not buffer:
            start = number
            start_col = len(content) - len(content.lstrip())
        if content.rstrip().endswith("\\"):
            buffer.append(content.rstrip()[:-1])
            continue
        buffer.append(content)
        joined = " ".join(part.strip() for part in buffer).strip()
        buffer = []
        if joined:
            yield start, start_col, joined
    if buffer:
        joined = " ".join(part.strip() for part in buffer).strip()
        if joined:
            yield start, start_col, joined


def parse_pip_text(path: str, text: str, constraint: bool = False) -> ParsedFile:
    """A pip requirements file (``requirements.txt``, ``requirements.in``, a ``-c`` file)."""
    parsed = ParsedFile(path)
    require_hashes = False
    folder = os.path.dirname(path)
    for line, col, logical in _logical_lines(text):
        option = re.match(r"^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+)(\S+)", logical)
        if option:
            is_constraint = option.group(1) in ("-c", "--constraint")
            target = option.group(2)
            if "://" not in target:
                parsed.includes.append((os.path.normpath(os.path.join(folder, target)), is_constraint, line))
            continue
        if logical.startswith("--require-hashes"):
            require_hashes = True
            continue
        editable = re.match(r"^(-e|--editable)(?:\s*=\s*|\s+)(.+)$", logical)
        if editable:
            logical = editable.group(2).strip()
            if "://" not in logical and "egg=" not in logical:
                continue  # a local source tree: not a version of anything
        elif logical.startswith("-"):
            continue  # index, find-links and other global options
        hashed = "--hash" in logical
        requirement_text = re.split(r"\s--?[A-Za-z]", logical, maxsplit=1)[0].strip()
        found = parse_requirement(requirement_text, path, line, col, "pip")
        if found is not None:
            parsed.requirements.append(replace(found, hashed=hashed, constraint=constraint))
    if require_hashes:
        parsed.requirements = [replace(r, hashed=True) for r in parsed.requirements]
    return parsed


# ---------------------------------------------------------------- pyproject -----------
def _poetry_specifier(value: str) -> str:
    """Poetry's constraint syntax as PEP 440 (``^2.1`` → ``>=2.1,<3.0``; ``2.1.0`` → ``==2.1.0``)."""
    clauses = []
    for part in re.split(r"\s*,\s*", value.strip()):
        part = part.strip()
        if not part or part == "*":
            continue
        if part.startswith(("^", "~")) and not part.startswith("~="):
            clauses.append(_caret_tilde(part))
        elif part.startswith(_OPERATORS):
            clauses.append(part.replace(" ", ""))
        elif re.match(r"^\d", part):
            clauses.append(f"=={part}")
        else:
            clauses.append(part)
    return ",".join(c for c in clauses if c)


def _caret_tilde(part: str) -> str:
    operator, version = part[0], part[1:].strip()
    numbers = [int(n) for n in re.findall(r"\d+", version.split("+")[0])[:3]] or [0]
    if operator == "^":
        index = next((i for i, n in enumerate(numbers) if n != 0), len(numbers) - 1)
    else:
        index = 0 if len(numbers) == 1 else 1
    upper = numbers[: index + 1]
    upper[-1] += 1
    upper += [0] * (len(numbers) - len(upper))
    return f">={version},<{'.'.join(str(n) for n in upper)}"


class _Locator:
    """Finds the line of a value in TOML text (tomllib keeps no positions)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines()
        self.used: Set[int] = set()
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def _position(self, offset: int) -> Tuple[int, int]:
        low, high = 0, len(self.starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1, offset - self.starts[low]

    def string(self, value: str) -> Tuple[int, int]:
        """The first unused quoted occurrence of ``value``."""
        for quote in ('"', "'"):
            needle = f"{quote}{value}{quote}"
            start = 0
            while True:
                offset = self.text.find(needle, start)
                if offset < 0:
                    break
                if offset not in self.used:
                    self.used.add(offset)
                    return self._position(offset + 1)
                start = offset + 1
        return 1, 0

    def key(self, table: str, key: str) -> Tuple[int, int]:
        """The line of ``key = ...`` inside ``[table]``."""
        header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(re.escape(p) for p in table.split(".")) + r"\s*\]\s*(#.*)?$")
        key_re = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
        inside = False
        for number, line in enumerate(self.lines, start=1):
            if line.lstrip().startswith("["):
                inside = bool(header.match(line))
                continue
            if inside and key_re.match(line):
                return number, len(line) - len(line.lstrip())
        return 1, 0


def parse_pyproject_text(path: str, text: str) -> ParsedFile:
    parsed = ParsedFile(path)
    try:
        document = _toml.loads(text)
    except (_toml.TOMLDecodeError, ValueError) as exc:
        parsed.error = (getattr(exc, "lineno", 1) or 1, f"invalid TOML: {exc}")
        return parsed
    locate = _Locator(text)
    strings: List[Tuple[str, str]] = []  # (requirement, group)
    project = document.get("project", {})
    if isinstance(project, dict):
        strings += [(s, "") for s in _string_list(project.get("dependencies"))]
        optional = project.get("optional-dependencies", {})
        if isinstance(optional, dict):
            for name, group in optional.items():
                strings += [(s, str(name)) for s in _string_list(group)]
    groups = document.get("dependency-groups", {})
    if isinstance(groups, dict):
        for name, group in groups.items():
            strings += [(s, str(name)) for s in _string_list(group)]
    tool = document.get("tool", {}) if isinstance(document.get("tool"), dict) else {}
    uv = tool.get("uv", {})
    if isinstance(uv, dict):
        strings += [(s, "dev") for s in _string_list(uv.get("dev-dependencies"))]
    for value, group_name in strings:
        line, col = locate.string(value)
        found = parse_requirement(value, path, line, col, "pep621")
        if found is not None:
            parsed.requirements.append(replace(found, group=group_name))
    poetry = tool.get("poetry", {})
    if isinstance(poetry, dict):
        tables = [("tool.poetry.dependencies", "", poetry.get("dependencies")),
                  ("tool.poetry.dev-dependencies", "dev", poetry.get("dev-dependencies"))]
        for name, group in (poetry.get("group") or {}).items() if isinstance(poetry.get("group"), dict) else ():
            if isinstance(group, dict):
                tables.append((f"tool.poetry.group.{name}.dependencies", str(name), group.get("dependencies")))
        for table, group_name, deps in tables:
            if isinstance(deps, dict):
                for raw_name, value in deps.items():
                    if raw_name.lower() == "python":
                        continue
                    line, col = locate.key(table, raw_name)
                    parsed.requirements.append(replace(_poetry_requirement(raw_name, value, path, line, col), group=group_name))
    return parsed


def _string_list(value: object) -> List[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _poetry_requirement(raw_name: str, value: object, path: str, line: int, col: int) -> Requirement:
    name = normalize_name(raw_name)
    if isinstance(value, list):  # several constraints by marker: pinned only if all pin
        parts = [_poetry_requirement(raw_name, v, path, line, col) for v in value]
        pins = {p.pinned for p in parts}
        pin = pins.pop() if len(pins) == 1 else None
        spec = parts[0].specifier if parts else ""
        return Requirement(name, f"{raw_name} = {value}", spec, pin, path, line, col, "poetry")
    if isinstance(value, dict):
        if "version" in value and isinstance(value["version"], str):
            spec = _poetry_specifier(value["version"])
            return Requirement(name, f"{raw_name} = {value['version']!r}", spec, pinned_version(spec), path, line, col, "poetry")
        for key in ("rev", "tag"):
            ref = value.get(key)
            if isinstance(ref, str) and _ref_pin(ref):
                return Requirement(name, f"{raw_name} = {{{key} = {ref!r}}}", _ref_specifier(ref), ref, path, line, col, "poetry", url=str(value.get("git", "")))
        if "path" in value:
            return Requirement(name, f"{raw_name} = {{path = ...}}", "", None, path, line, col, "poetry", url=str(value["path"]))
        return Requirement(name, f"{raw_name} = {value}", "", None, path, line, col, "poetry")
    text = value if isinstance(value, str) else ""
    spec = _poetry_specifier(text)
    return Requirement(name, f"{raw_name} = {text!r}", spec, pinned_version(spec), path, line, col, "poetry")


# ---------------------------------------------------------------- setup.cfg -----------
_SETUP_KEYS = ("install_requires",)


def parse_setup_cfg_text(path: str, text: str) -> ParsedFile:
    """``[options] install_requires`` and every key of ``[options.extras_require]``."""
    parsed = ParsedFile(path)
    section = ""
    group = ""
    collecting = False
    for number, physical in enumerate(text.splitlines(), start=1):
        stripped = physical.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip().lower()
            collecting = False
            continue
        indented = physical[:1] in (" ", "\t")
        value_text, value_col = None, 0
        if not indented:
            key, sep, value = physical.partition("=")
            if not sep:
                key, sep, value = physical.partition(":")
            key = key.strip().lower()
            collecting = bool(sep) and (
                (section == "options" and key in _SETUP_KEYS) or section == "options.extras_require"
            )
            group = key if section == "options.extras_require" else ""
            if collecting and value.strip():
                value_text = value
                value_col = len(physical) - len(value.lstrip())
        elif collecting:
            value_text = physical
            value_col = len(physical) - len(physical.lstrip())
        if value_text is None:
            continue
        content = re.sub(r"(^|\s)#.*$", "", value_text).strip()
        if content.startswith("file:"):
            continue
        found = parse_requirement(content, path, number, value_col, "setup.cfg")
        if found is not None:
            parsed.requirements.append(replace(found, group=group))
    return parsed


# ---------------------------------------------------------------- conda ---------------
def parse_conda_spec(spec: str, path: str = "", line: int = 1, col: int = 0) -> Optional[Requirement]:
    """A conda match spec: ``[channel::]name[=ver[=build]]``, ``name==ver``, ``name>=ver``,
    ``name ver build``.  ``=1.2.3`` counts as a pin, ``=1.2`` (any 1.2.x) does not."""
    text = spec.strip().strip("\"'")
    if "::" in text:
        text = text.split("::", 1)[1]
    match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$", text)
    if match is None:
        return None
    raw_name, rest = match.group(1), match.group(2).strip()
    bracket = re.match(r"^\[.*version\s*=\s*['\"]?([^'\",\]]+)", rest)
    if bracket:
        rest = bracket.group(1).strip()
    elif rest.startswith("["):
        rest = ""
    if not rest:
        return Requirement(normalize_name(raw_name), spec.strip(), "", None, path, line, col, "conda")
    if rest.startswith(_OPERATORS) and not rest.startswith("=="):
        specifier = re.sub(r"\s+", "", rest)
        return Requirement(normalize_name(raw_name), spec.strip(), specifier, pinned_version(specifier), path, line, col, "conda")
    version = re.split(r"[=\s]+", rest.lstrip("="), maxsplit=1)[0]
    exact = rest.startswith("==") or len(version.split(".")) >= 3
    if "*" in version or not version:
        exact = False
    specifier = f"=={version}" if exact else f"=={version.rstrip('.*')}.*"
    return Requirement(normalize_name(raw_name), spec.strip(), specifier, version if exact else None, path, line, col, "conda")


def parse_environment_text(path: str, text: str) -> ParsedFile:
    """``dependencies:`` of a conda environment file, and its ``- pip:`` list."""
    parsed = ParsedFile(path)
    in_deps = False
    deps_indent = -1
    pip_indent = -1
    for number, physical in enumerate(text.splitlines(), start=1):
        content = re.sub(r"(^|\s)#.*$", "", physical).rstrip()
        if not content.strip():
            continue
        indent = len(content) - len(content.lstrip())
        stripped = content.strip()
        if indent == 0 and not stripped.startswith("-"):
            in_deps = stripped.split(":", 1)[0].strip() == "dependencies"
            pip_indent = -1
            continue
        if not in_deps or not stripped.startswith("-"):
            continue
        item = stripped[1:].strip()
        col = indent + (len(stripped) - len(item))
        if pip_indent >= 0 and indent <= pip_indent:
            pip_indent = -1
        if deps_indent < 0:
            deps_indent = indent
        if re.match(r"^pip\s*:", item):
            pip_indent = indent
            continue
        if pip_indent >= 0:
            sub = parse_pip_text(path, item)
            for requirement in sub.requirements:
                parsed.requirements.append(replace(requirement, line=number, col=col))
            for include, is_constraint, _ in sub.includes:
                parsed.includes.append((include, is_constraint, number))
            continue
        found = parse_conda_spec(item, path, number, col)
        if found is not None:
            parsed.requirements.append(found)
    return parsed


# ---------------------------------------------------------------- locks ---------------
def parse_lock_text(path: str, text: str) -> ParsedFile:
    """``[[package]] name / version`` tables of poetry.lock, uv.lock, pdm.lock, pylock.toml."""
    parsed = ParsedFile(path)
    try:
        document = _toml.loads(text)
    except (_toml.TOMLDecodeError, ValueError):
        return parsed
    packages = document.get("package", document.get("packages", []))
    for package in packages if isinstance(packages, list) else ():
        if isinstance(package, dict) and isinstance(package.get("name"), str) and isinstance(package.get("version"), str):
            version = package["version"]
            parsed.requirements.append(
                Requirement(normalize_name(package["name"]), f"{package['name']}=={version}", f"=={version}", version, path, 1, 0, "lock")
            )
    return parsed


# ---------------------------------------------------------------- dispatch ------------
def parse_text(path: str, text: str) -> ParsedFile:
    """Parse one file's text by its name (pure; includes are listed, not read)."""
    name = os.path.basename(path).lower()
    if name in _TOML_LOCKS:
        return parse_lock_text(path, text)
    if name == "pyproject.toml":
        return parse_pyproject_text(path, text)
    if name == "setup.cfg":
        return parse_setup_cfg_text(path, text)
    if name.endswith((".yml", ".yaml")):
        return parse_environment_text(path, text)
    return parse_pip_text(path, text)


def read_text(path: str) -> Optional[str]:
    """A text file's content (UTF-8, BOM dropped), or None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def read_parsed(path: str, _seen: Optional[Set[str]] = None) -> List[ParsedFile]:
    """``path`` parsed, then every file it includes with ``-r`` / ``-c``, recursively."""
    seen = _seen if _seen is not None else set()
    key = os.path.normcase(os.path.abspath(path))
    if key in seen:
        return []
    seen.add(key)
    text = read_text(path)
    if text is None:
        return []
    return with_includes(parse_text(path, text), seen)


def with_includes(parsed: ParsedFile, seen: Optional[Set[str]] = None) -> List[ParsedFile]:
    """``parsed`` followed by the files it includes, read from disk (``-c`` entries marked)."""
    seen = seen if seen is not None else {os.path.normcase(os.path.abspath(parsed.path))}
    out = [parsed]
    for include, is_constraint, _ in parsed.includes:
        for child in read_parsed(include, seen):
            if is_constraint:
                child.requirements = [replace(r, constraint=True) for r in child.requirements]
            out.append(child)
    return out


def read_requirements(path: str) -> List[Requirement]:
    """Every requirement declared in ``path`` and the files it includes (``-r``, ``-c``)."""
    return [r for parsed in read_parsed(path) for r in parsed.requirements]


_SKIP_DIRS = frozenset((
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", ".tox", ".nox", "node_modules",
    "build", "dist", "__pycache__", "site-packages", ".eggs", ".mypy_cache", ".pytest_cache",
))


def project_files(root: str, max_depth: int = 3) -> List[str]:
    """Requirement and lock files under ``root`` (sorted; virtualenvs and build output skipped)."""
    found: List[str] = []
    base_depth = os.path.abspath(root).rstrip(os.sep).count(os.sep)
    for folder, dirs, files in os.walk(root):
        depth = os.path.abspath(folder).rstrip(os.sep).count(os.sep) - base_depth
        dirs[:] = sorted(
            d for d in dirs
            if d not in _SKIP_DIRS and not d.endswith(".egg-info")
            and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
        ) if depth < max_depth else []
        for name in sorted(files):
            if is_requirements_file(name) or name.lower() in _TOML_LOCKS:
                found.append(os.path.join(folder, name))
    return sorted(found)


def project_pins(root: str, files: Optional[Sequence[str]] = None) -> Dict[str, str]:
    """``{normalized name: PEP 440 specifier}`` for what the project declares.

    Exact pins win over ranges; a lock file's versions win over everything; among
    several ranges the one nearest the root (then first by path) is kept.  ``files``
    defaults to ``project_files(root)``.  Used to learn the project's target versions.
    """
    paths = list(files) if files is not None else project_files(root)

    def rank(requirement: Requirement) -> Tuple[int, int, str]:
        strength = 0 if requirement.kind == "lock" else 1 if requirement.pinned else 2
        depth = os.path.relpath(requirement.file, root).count(os.sep) if requirement.file else 0
        return strength, depth, requirement.file

    best: Dict[str, Requirement] = {}
    seen: Set[str] = set()
    for path in sorted(paths):
        for parsed in read_parsed(path, seen):
            for requirement in parsed.requirements:
                if not requirement.specifier and requirement.name in best:
                    continue
                current = best.get(requirement.name)
                if current is None or (not current.specifier and requirement.specifier) or (
                    requirement.specifier and rank(requirement) < rank(current)
                ):
                    best[requirement.name] = requirement
    return {name: best[name].specifier for name in sorted(best)}


def declared_pins(root: str) -> Dict[str, str]:
    """``{normalized name: specifier}`` of every version the project at ``root`` declares
    (spec "Target versions"): the version its built metadata gives the project itself
    (a project that is a package runs its own code, examples included, on that version of
    it: pytorch-lightning 1.2.10's examples on Lightning 1.2.10), then the metadata's
    ``Requires-Dist``, then its requirement files, each overriding the one before."""
    declared = {**own_distribution(root), **metadata_requirements(root)}
    return {**declared, **project_pins(root)}
