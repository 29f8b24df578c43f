"""Target versions: which release of each framework the project runs on (docs/contract.md).

A fact such as "`CUBLAS_WORKSPACE_CONFIG` is needed before torch 2.10" only holds for some
versions, so rules ask for the *target* version of a package:

1. ``[tool.nondet-lint] target-versions`` in the config;
2. else the project's own pins (requirements files, ``pyproject.toml``, ``setup.cfg``,
   ``environment.yml``), parsed by ``families.environment.requirements``;
3. else the newest version the rule data knows.

A pin that is a range (``torch>=2.1,<2.6``) targets the newest known version inside it; an
exact pin targets itself even when the data does not list it.  Version strings are parsed
by a small parser of our own (release numbers only; local labels such as ``+cu118`` and
pre-release tags are ignored), so the linter needs no runtime dependency for this.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

Version = Tuple[int, ...]

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")
_CLAUSE = re.compile(r"^\s*(===|==|~=|!=|<=|>=|<|>|=)?\s*([^\s,;]*)\s*$")


def parse_version(text: str) -> Optional[Version]:
    """``"2.1.0+cu118"`` → ``(2, 1, 0)``; None when the text holds no release number."""
    match = _RELEASE.match(str(text))
    if not match:
        return None
    return tuple(int(part) for part in match.group(1).split("."))


def format_version(version: Version) -> str:
    return ".".join(str(part) for part in version)


def _padded(a: Version, b: Version) -> Tuple[Version, Version]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def compare(a: Version, b: Version) -> int:
    """-1, 0 or 1; trailing zeros do not matter (``2.1 == 2.1.0``)."""
    left, right = _padded(a, b)
    return (left > right) - (left < right)


class Specifier:
    """A version range: comma-separated clauses (PEP 440 operators, conda ``=2.1``,
    wildcards ``2.1.*``, a bare version meaning ``==``, ``*`` or empty meaning any)."""

    def __init__(self, text: str) -> None:
        self.text = str(text).strip()
        self.clauses: List[Tuple[str, Version, bool]] = []  # (operator, version, wildcard)
        self.valid = True
        for raw in self.text.split(","):
            raw = raw.strip()
            if not raw or raw == "*":
                continue
            match = _CLAUSE.match(raw)
            if not match:
                self.valid = False
                continue
            operator, value = match.group(1) or "==", match.group(2)
            wildcard = value.endswith(".*") or value.endswith("*")
            version = parse_version(value.rstrip("*").rstrip("."))
            if version is None:
                self.valid = False
                continue
            if operator == "=":  # conda: ``=2.1`` means 2.1.*
                operator, wildcard = "==", True
            self.clauses.append((operator, version, wildcard))

    @property
    def floor(self) -> Optional[Version]:
        """The lowest version the range names (``>=2.1``, ``~=2.14.0``, ``==2.14.*``), if
        it allows it: the best guess when no known version falls inside the range."""
        bounds = [v for op, v, wild in self.clauses if op in (">=", "~=") or (op in ("==", "===") and wild)]
        if not bounds:
            return None
        best = max(bounds, key=lambda v: _padded(v, (0,) * 8)[0])
        return best if self.contains(best) else None

    @property
    def exact(self) -> Optional[Version]:
        """The one version an ``==X`` (not wildcard) specifier allows, else None."""
        if len(self.clauses) == 1:
            operator, version, wildcard = self.clauses[0]
            if operator in ("==", "===") and not wildcard:
                return version
        return None

    def contains(self, version: Version) -> bool:
        return self.valid and all(_holds(op, version, bound, wild) for op, bound, wild in self.clauses)

    def __repr__(self) -> str:
        return f"Specifier({self.text!r})"


def _holds(operator: str, version: Version, bound: Version, wildcard: bool) -> bool:
    if wildcard or operator == "~=":
        # ``==2.1.*`` keeps the prefix; ``~=2.1.3`` is ``>=2.1.3, ==2.1.*``
        prefix = bound if wildcard else bound[:-1] if len(bound) > 1 else bound
        same = _padded(version[: len(prefix)], prefix)[0] == prefix
        if operator == "~=":
            return same and compare(version, bound) >= 0
        return same if operator in ("==", "===") else not same
    order = compare(version, bound)
    return {
        "==": order == 0, "===": order == 0, "!=": order != 0,
        "<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0,
    }[operator]


def in_range(version: Version, spec: str) -> bool:
    """Whether ``version`` satisfies the rule-data range ``spec`` (``"<2.10"``, ``"*"``)."""
    return Specifier(spec).contains(version)


def newest(known: Iterable[str]) -> Optional[Version]:
    versions = [v for v in (parse_version(k) for k in known) if v is not None]
    return max(versions, key=lambda v: _padded(v, (0,) * 8)[0]) if versions else None


def newest_matching(spec: Specifier, known: Iterable[str]) -> Optional[Version]:
    matching = [v for v in (parse_version(k) for k in known) if v is not None and spec.contains(v)]
    return max(matching, key=lambda v: _padded(v, (0,) * 8)[0]) if matching else None


def version_from_spec(text: str, known: Sequence[str]) -> Optional[Version]:
    """The version a pin or a configured target means: an exact pin is itself, a range the
    newest known version inside it, else its lower bound (``~=2.14.0`` when only 2.10 and
    2.15 are known); None when it names no version at all."""
    spec = Specifier(text)
    if not spec.valid:
        return None
    return spec.exact or newest_matching(spec, known) or spec.floor


def canonical_package(name: str, aliases: Mapping[str, str] = {}) -> str:
    """PEP 503-style normalised name, mapped through the rule data's package aliases
    (``tensorflow-gpu`` → ``tensorflow``, conda's ``pytorch`` → ``torch``)."""
    normal = re.sub(r"[-_.]+", "-", name.strip().lower())
    return aliases.get(normal, normal)


def target_version(
    package: str,
    configured: Mapping[str, str],
    pins: Mapping[str, str],
    known: Sequence[str],
    aliases: Mapping[str, str] = {},
) -> Optional[Version]:
    """The target version of ``package`` (already canonical) from the configured targets,
    else the project's pins (name → specifier text), else the newest ``known`` version."""
    for source in (configured, pins):
        for name, spec in sorted(source.items()):
            if canonical_package(name, aliases) == package:
                found = version_from_spec(spec, known)
                if found is not None:
                    return found
    return newest(known)


def allowed_versions(
    package: str,
    configured: Mapping[str, str],
    pins: Mapping[str, str],
    known: Sequence[str],
    aliases: Mapping[str, str] = {},
) -> List[Version]:
    """Every version of ``package`` the project may run on, for fixes that must hold on all
    of them (spec "Target version from a range"): an exact pin or target is itself, a
    range the known versions inside it, no pin every known version."""
    for source in (configured, pins):
        for name, text in sorted(source.items()):
            if canonical_package(name, aliases) != package:
                continue
            spec = Specifier(text)
            if not spec.valid:
                continue
            if spec.exact is not None:
                return [spec.exact]
            inside = [v for v in (parse_version(k) for k in known) if v is not None and spec.contains(v)]
            if inside:
                return inside
    return [v for v in (parse_version(k) for k in known) if v is not None]
