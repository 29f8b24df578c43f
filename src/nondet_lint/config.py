"""Configuration: ``[tool.nondet-lint]`` of the nearest ``pyproject.toml``, then flags.

Every key is declared once in ``OPTIONS`` with its type; an unknown key, a wrong type, an
unknown rule code, framework or device, or a version that does not parse is a
``UsageError`` that names the key and the value (exit code 2); a file that is not TOML
is reported with its line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from nondet_lint import _toml
from nondet_lint.versions import Specifier, canonical_package
from nondet_lint.types import UsageError

# ruff's default excludes (``_build``: Sphinx output, which holds copies of the examples),
# plus virtualenvs, caches and build output
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", ".tox", ".nox",
    "build", "dist", "__pycache__", "node_modules", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".nondet_lint_cache", ".eggs", "*.egg-info", "site-packages",
    ".ipynb_checkpoints", "_build", "__pypackages__", ".direnv", ".git-rewrite", ".pants.d",
    ".pytype", ".pyenv", ".vscode", "buck-out",
)


def _str_list(key: str, value: Any) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"config key '{key}' must be a list of strings")
    return list(value)


def _str_map_of_lists(key: str, value: Any) -> Dict[str, List[str]]:
    if not isinstance(value, dict):
        raise UsageError(f"config key '{key}' must be a table of pattern = [codes]")
    return {str(k): _str_list(f"{key}.{k}", v) for k, v in value.items()}


def _str_map(key: str, value: Any) -> Dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) for v in value.values()):
        raise UsageError(f"config key '{key}' must be a table of name = \"version\"")
    return {str(k).lower(): str(v) for k, v in value.items()}


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"config key '{key}' must be an integer")
    return value


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"config key '{key}' must be true or false")
    return value


TEST_CODE_CHOICES = ("skip", "check")


def _test_code(key: str, value: Any) -> str:
    if value not in TEST_CODE_CHOICES:
        raise UsageError(f"config key '{key}' must be \"skip\" or \"check\" (got {value!r})")
    return str(value)


def _str(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise UsageError(f"config key '{key}' must be a string")
    return value


# what ``devices`` may name: the rules tell a CPU-only project from one that uses a GPU
DEVICES = ("cpu", "gpu")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


# key in pyproject -> (attribute, parser)
OPTIONS: Dict[str, Tuple[str, Callable[[str, Any], Any]]] = {
    "select": ("select", _str_list),
    "ignore": ("ignore", _str_list),
    "extend-select": ("extend_select", _str_list),
    "extend-ignore": ("extend_ignore", _str_list),
    "per-file-ignores": ("per_file_ignores", _str_map_of_lists),
    "exclude": ("exclude", _str_list),
    "extend-exclude": ("extend_exclude", _str_list),
    "target-versions": ("target_versions", _str_map),
    "seed": ("seed", _int),
    "fixable": ("fixable", _str_list),
    "unfixable": ("unfixable", _str_list),
    "rule-files": ("rule_files", _str_list),
    "devices": ("devices", _str_list),
    "extend-packages": ("extend_packages", _str_list),
    "cache-dir": ("cache_dir", _str),
    "respect-gitignore": ("respect_gitignore", _bool),
    "test-code": ("test_code", _test_code),
    "documentation-code": ("documentation_code", _test_code),
}
CODE_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "fixable", "unfixable")


@dataclass(frozen=True)
class Config:
    select: Sequence[str] = ("ND",)
    ignore: Sequence[str] = ()
    extend_select: Sequence[str] = ()
    extend_ignore: Sequence[str] = ()
    per_file_ignores: Mapping[str, Sequence[str]] = field(default_factory=dict)
    exclude: Sequence[str] = DEFAULT_EXCLUDE
    extend_exclude: Sequence[str] = ()
    target_versions: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0
    fixable: Sequence[str] = ("ND",)
    unfixable: Sequence[str] = ()
    rule_files: Sequence[str] = ()
    devices: Sequence[str] = ()
    extend_packages: Sequence[str] = ()
    cache_dir: str = ".nondet_lint_cache"
    respect_gitignore: bool = True
    # "skip": test code is not a training program (ND101-ND106, ND205, ND209 do not judge it)
    test_code: str = "skip"
    # "skip": a documentation guide that reads no dataset illustrates an API (ND205, ND209
    # do not judge it); "check": judge it as any program
    documentation_code: str = "skip"
    # where the config came from; relative paths in it are relative to this folder
    root: str = "."
    source: Optional[str] = None
    # False when no config file and no project marker (``MARKERS``) lies above the given
    # paths: then ``root`` is only their folder, not a project whose other files count
    # (a file in /tmp is its own project)
    project_found: bool = True

    def fingerprint(self) -> str:
        """A stable text of everything that can change results (for the cache key)."""
        items = sorted((k, repr(v)) for k, v in self.__dict__.items() if k not in ("source",))
        return repr(items)


def parse_table(table: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """Validate a ``[tool.nondet-lint]`` table; returns attribute -> value."""
    values: Dict[str, Any] = {}
    for key, raw in table.items():
        if key not in OPTIONS:
            known = ", ".join(sorted(OPTIONS))
            raise UsageError(f"{where}: unknown key '{key}' in [tool.nondet-lint] (known keys: {known})")
        attr, parse = OPTIONS[key]
        values[attr] = parse(key, raw)
    return values


def validate_values(values: Mapping[str, Any], frameworks: Mapping[str, str], where: str) -> None:
    """Values that must come from a known set or parse: ``target-versions`` names a
    framework the rules know (``frameworks``: accepted spelling -> canonical name, empty
    to skip the check) and a version or range; ``devices`` names known devices."""
    for name, version in values.get("target_versions", {}).items():
        if frameworks and canonical_package(name) not in frameworks:
            known = ", ".join(sorted(set(frameworks.values())))
            raise UsageError(f"{where}: 'target-versions' names unknown framework '{name}' (known: {known})")
        if not version.strip() or not Specifier(version).valid:
            raise UsageError(
                f"{where}: 'target-versions.{name}' = {version!r} is not a version or range "
                "(expected e.g. \"2.5.1\" or \">=2.1,<2.6\")"
            )
    for device in values.get("devices", ()):
        if device.lower() not in DEVICES:
            raise UsageError(f"{where}: 'devices' names unknown device {device!r} (known: {', '.join(DEVICES)})")


def toml_error(path: Path, exc: Exception) -> UsageError:
    """``path:line:column: invalid TOML: reason`` from tomllib's or tomli's error."""
    message = str(exc)
    line, col = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    match = _TOML_POSITION.search(message)
    if match:
        line, col = line or int(match.group(1)), col or int(match.group(2))
        message = message[: match.start()].rstrip()
    where = f"{path}:{line}:{col}" if line and col else str(path)
    return UsageError(f"{where}: invalid TOML: {getattr(exc, 'msg', None) or message}")


def validate_codes(values: Mapping[str, Any], known_codes: Sequence[str], where: str) -> None:
    """Every code or prefix named in selection keys must match some rule."""
    def check(key: str, code: str) -> None:
        code = code.strip().upper()
        if code in ("ALL",):
            return
        if not any(known.startswith(code) for known in known_codes):
            raise UsageError(f"{where}: '{key}' names unknown rule code '{code}'")

    for key in CODE_KEYS:
        attr = OPTIONS[key][0]
        for code in values.get(attr, ()):
            check(key, code)
    for pattern, codes in values.get("per_file_ignores", {}).items():
        for code in codes:
            check(f"per-file-ignores.{pattern}", code)


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest ``pyproject.toml`` with a ``[tool.nondet-lint]`` table, walking up."""
    start = start.resolve()
    if start.is_file() or not start.exists():
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                document = _toml.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, _toml.TOMLDecodeError):
                # a broken pyproject without our table is not our business, but one we
                # would have read is: report it when it mentions us
                text = _safe_read(candidate)
                if "tool.nondet-lint" in text:
                    try:
                        _toml.loads(text)
                    except _toml.TOMLDecodeError as exc:
                        raise toml_error(candidate, exc) from None
                    raise UsageError(f"{candidate}: cannot read as UTF-8 TOML") from None
                continue
            if "nondet-lint" in document.get("tool", {}):
                return candidate
    return None


def _safe_read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def load_config_file(
    path: Path, known_codes: Sequence[str], explicit: bool = False, frameworks: Mapping[str, str] = {},
) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read config {path}: {exc}") from None
    try:
        document = _toml.loads(text)
    except _toml.TOMLDecodeError as exc:
        raise toml_error(path, exc) from None
    if path.name == "pyproject.toml" or "tool" in document:
        table = document.get("tool", {}).get("nondet-lint")
        if table is None:
            if explicit:
                raise UsageError(f"{path}: no [tool.nondet-lint] table")
            table = {}
    else:  # a dedicated file (``nondet-lint.toml``) holds the keys at top level
        table = document
    values = parse_table(table, str(path))
    validate_codes(values, known_codes, str(path))
    validate_values(values, frameworks, str(path))
    return Config(**values, root=str(path.parent.resolve()), source=str(path))


def discover_config(
    paths: Sequence[str], config_file: Optional[str], known_codes: Sequence[str], frameworks: Mapping[str, str] = {},
) -> Config:
    if config_file:
        path = Path(config_file)
        if not path.is_file():
            raise UsageError(f"config file not found: {config_file}")
        return load_config_file(path, known_codes, explicit=True, frameworks=frameworks)
    start = Path(paths[0]) if paths else Path(".")
    found = find_pyproject(start)
    if found is None:
        marked = marked_root(start)
        if marked is None:
            return Config(root=str(_folder(start)), project_found=False)
        return Config(root=str(marked))
    return load_config_file(found, known_codes, frameworks=frameworks)


MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")  # what a project's root folder holds


def has_marker(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in MARKERS)


def _folder(start: Path) -> Path:
    start = start.resolve()
    return start.parent if start.is_file() or not start.exists() else start


def marked_root(start: Path) -> Optional[Path]:
    """The nearest folder at or above ``start`` holding a project marker, or None."""
    folder = _folder(start)
    return next((candidate for candidate in (folder, *folder.parents) if has_marker(candidate)), None)


def project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a project marker, else the folder
    of ``start`` itself."""
    return marked_root(start) or _folder(start)


def with_overrides(config: Config, **overrides: Any) -> Config:
    present = {k: v for k, v in overrides.items() if v is not None}
    return replace(config, **present)
