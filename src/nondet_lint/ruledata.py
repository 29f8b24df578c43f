"""Load the declarative rule data (``rules/*.toml``) shipped inside the package.

Each top-level table keyed by a rule code (``[ND201]``) describes one rule: its name,
message and fix-title templates, fix availability, documentation sections, examples
that must fire and must not, and ``data``: the API tables its check reads.  Extra rule
files named in the config extend the ``data`` tables of existing rules (lists are
appended, tables merged), so in-house libraries need no code.

Optional ``requires`` (in the ``[family]`` table, or per rule to override it): the
top-level modules (``["torch"]``, ``["tensorflow", "keras"]``) a rule's check can act
on. The engine skips a check for a file that imports none of them, so set it only when
the check reports nothing, defers nothing and records no facts for such a file (a check
that follows calls into project modules, which need not import the library, must leave
it unset). No ``requires`` means the check runs on every file. An extra rule file that
extends a rule's ``data`` clears its ``requires`` (the new names may come from any
module) unless the extension gives a ``requires`` of its own, which is then added.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from nondet_lint import _toml, rulecache, ruleschema
from nondet_lint.types import UsageError

CODE_RE = re.compile(r"^ND\d{3}$")
FIX_KINDS = ("safe", "unsafe", "suggest", "none")
DOC_SECTIONS = ("what", "why", "example", "use_instead", "fix_safety")
_REQUIRED = ("name", "summary", "message", "fix", "docs")


class RuleFileError(ValueError):
    """A rule file that does not follow the schema; the message names the file."""


@dataclass(frozen=True)
class Example:
    """A source snippet that must (``fires``) or must not produce the rule's code."""

    source: str
    config: Mapping[str, Any] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)  # extra project files
    path: str = "example.py"
    # what a ``fires`` example produces, pinned (tests/test_rule_examples.py compares it):
    # the rule's findings as ``path:line:col: message``, and for a fixable rule the text
    # ``--fix`` writes to the example's file and to other files, or why it offers no fix
    findings: Optional[Tuple[str, ...]] = None
    fixed: Optional[str] = None
    fixed_files: Mapping[str, str] = field(default_factory=dict)
    unfixed: Optional[str] = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    summary: str
    message: str
    fix: str
    fix_title: str
    docs: Mapping[str, Any]
    fires: Tuple[Example, ...]
    passes: Tuple[Example, ...]
    data: Mapping[str, Any]
    requires: Tuple[str, ...] = ()  # top-level modules the check needs; () = every file
    # "skip": not reported in test code unless ``test-code = "check"`` (a call-site rule
    # whose findings only matter to a training run); "report": reported wherever it occurs
    test_code: str = "report"

    def format_message(self, **values: Any) -> str:
        try:
            return self.message.format(**values)
        except (KeyError, IndexError) as exc:  # a bug in a check or in rule data
            raise RuntimeError(f"{self.code}: message template needs {exc}") from exc

    def format_fix_title(self, **values: Any) -> str:
        return self.fix_title.format(**values) if self.fix_title else ""


class RuleSet:
    """All known rules by code, in code order."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self._rules = {rule.code: rule for rule in sorted(rules, key=lambda r: r.code)}

    def __getitem__(self, code: str) -> Rule:
        return self._rules[code]

    def __contains__(self, code: object) -> bool:
        return code in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules.values())

    def __len__(self) -> int:
        return len(self._rules)

    @property
    def codes(self) -> Tuple[str, ...]:
        return tuple(self._rules)

    def by_name(self, name: str) -> Optional[Rule]:
        for rule in self._rules.values():
            if rule.name == name:
                return rule
        return None


def _examples(raw: Any, where: str) -> Tuple[Example, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ValueError(f"{where}: expected an array of tables")
    out = []
    for item in raw:
        if isinstance(item, str):
            out.append(Example(item))
        else:
            out.append(_example(item))
    return tuple(out)


def _example(table: Mapping[str, Any], prefix: str = "", source: str = "source", path: str = "path") -> Example:
    """An example from its table; ``prefix`` names the pins of the documented example
    (``example_findings`` in ``[NDxxx.docs]``)."""
    findings = table.get(f"{prefix}findings")
    return Example(
        table[source],
        table.get(f"{prefix}config", {}),
        table.get("files", {}) if not prefix else {},
        table.get(path, "example.py"),
        findings=None if findings is None else tuple(findings),
        fixed=table.get(f"{prefix}fixed"),
        fixed_files=table.get(f"{prefix}fixed_files", {}),
        unfixed=table.get(f"{prefix}unfixed"),
    )


def _requires(value: Any, where: str) -> Tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v and "." not in v for v in value):
        raise ValueError(f"{where}: requires must be a list of top-level module names")
    return tuple(sorted(set(value)))


def _parse_rule(code: str, table: Mapping[str, Any], family: str, origin: str, requires: Tuple[str, ...] = ()) -> Rule:
    where = f"{origin}: [{code}]"
    missing = [key for key in _REQUIRED if key not in table]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}")
    if table["fix"] not in FIX_KINDS:
        raise ValueError(f"{where}: fix must be one of {', '.join(FIX_KINDS)}")
    docs = table["docs"]
    absent = [key for key in DOC_SECTIONS if key not in docs]
    if absent or "references" not in docs:
        raise ValueError(f"{where}.docs lacks {', '.join(absent + (['references'] if 'references' not in docs else []))}")
    fires = _examples(table.get("fires"), where)
    passes = _examples(table.get("passes"), where)
    # the documented example must fire and the suggested code must not
    # ``example_path`` names the file the two documented snippets are (default a .py file)
    fires = (_example(docs, "example_", source="example", path="example_path"),) + fires
    passes = (Example(docs["use_instead"], docs.get("example_config", {}), {}, docs.get("example_path", "example.py")),) + passes
    return Rule(
        code=code,
        name=table["name"],
        family=family,
        summary=table["summary"],
        message=table["message"],
        fix=table["fix"],
        fix_title=table.get("fix_title", ""),
        docs=docs,
        fires=fires,
        passes=passes,
        data=table.get("data", {}),
        requires=_requires(table["requires"], where) if "requires" in table else requires,
        test_code=_test_code(table.get("test_code", "report"), where),
    )


def _test_code(value: str, where: str) -> str:
    if value not in ("report", "skip"):
        raise ValueError(f"{where}.test_code must be \"report\" or \"skip\", not {value!r}")
    return value


def parse_rule_file(text: str, origin: str) -> Tuple[List[Rule], Dict[str, Dict[str, Any]]]:
    """Return the rules a file defines and the ``data`` extensions it adds to others."""
    document = _toml.loads(text)
    try:
        _check_schema(document)
    except ValueError as exc:
        raise RuleFileError(f"{origin}: {exc}") from None
    family_table = document.get("family", {})
    family = family_table.get("name", Path(origin).stem)
    requires = _requires(family_table.get("requires"), f"{origin}: [family]")
    rules, extensions = [], {}
    for key, value in document.items():
        if not CODE_RE.match(key):
            continue
        if "name" in value:
            rules.append(_parse_rule(key, value, family, origin, requires))
        else:
            extensions[key] = {"data": value.get("data", {})}
            if "requires" in value:
                extensions[key]["requires"] = _requires(value["requires"], f"{origin}: [{key}]")
    return rules, extensions


def _check_schema(document: Mapping[str, Any]) -> None:
    for key, value in document.items():
        if key == "family":
            ruleschema.check(value, ruleschema.FAMILY, key)
        elif CODE_RE.match(key):
            defines = isinstance(value, dict) and "name" in value
            ruleschema.check(value, ruleschema.rule_table(key) if defines else ruleschema.extension_table(key), key)
        else:
            raise ValueError(f"unknown table [{key}] (a rule file holds [family] and tables named by rule codes)")


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> Dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = list(merged[key]) + value
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _bundled_texts() -> List[Tuple[str, str]]:
    root = resources.files("nondet_lint.rules")
    return sorted(
        (entry.name, entry.read_text(encoding="utf-8"))
        for entry in root.iterdir()
        if entry.name.endswith(".toml")
    )


def load_rules(extra_files: Sequence[str] = ()) -> RuleSet:
    """The bundled rules, with the ``data`` of ``extra_files`` merged in (parsed once per
    process: ``load_rules()`` and ``load_rules(())`` share the result)."""
    return _load_rules(tuple(extra_files))


def _parse_bundled(texts: Sequence[Tuple[str, str]]) -> Dict[str, Rule]:
    rules: Dict[str, Rule] = {}
    for name, text in texts:
        defined, _ = parse_rule_file(text, f"rules/{name}")
        for rule in defined:
            if rule.code in rules:
                raise ValueError(f"rules/{name}: {rule.code} is defined twice")
            rules[rule.code] = rule
    return rules


def _example_to_data(example: Example) -> Dict[str, Any]:
    findings = example.findings
    return {**example.__dict__, "findings": None if findings is None else list(findings)}


def _rule_to_data(rule: Rule) -> Dict[str, Any]:
    return {
        **rule.__dict__, "fires": [_example_to_data(e) for e in rule.fires],
        "passes": [_example_to_data(e) for e in rule.passes], "requires": list(rule.requires),
    }


def _example_from_data(data: Dict[str, Any]) -> Example:
    findings = data["findings"]
    return Example(**{**data, "findings": None if findings is None else tuple(findings)})


def _rule_from_data(data: Dict[str, Any]) -> Rule:
    return Rule(**{
        **data, "fires": tuple(_example_from_data(e) for e in data["fires"]),
        "passes": tuple(_example_from_data(e) for e in data["passes"]), "requires": tuple(data["requires"]),
    })


def _bundled_rules() -> Dict[str, Rule]:
    """The bundled rules, from the JSON snapshot of these exact texts when there is one."""
    texts = _bundled_texts()
    snapshot = rulecache.load(texts)
    if snapshot is not None:
        try:
            return {data["code"]: _rule_from_data(data) for data in snapshot}
        except (KeyError, TypeError):
            pass
    rules = _parse_bundled(texts)
    rulecache.save(texts, [_rule_to_data(rule) for rule in rules.values()])
    return rules


@lru_cache(maxsize=8)
def _load_rules(extra_files: Tuple[str, ...]) -> RuleSet:
    rules = _bundled_rules()
    for path in extra_files:
        try:
            text = Path(path).read_text(encoding="utf-8")
            defined, extensions = parse_rule_file(text, path)
        except RuleFileError as exc:
            raise UsageError(str(exc)) from None
        except (OSError, UnicodeDecodeError, _toml.TOMLDecodeError, ValueError, KeyError) as exc:
            raise UsageError(f"cannot load rule file {path}: {exc}") from exc
        for rule in defined:
            rules[rule.code] = rule
        for code, extension in extensions.items():
            if code not in rules:
                raise UsageError(f"rule file {path} extends unknown rule {code}")
            old = rules[code]
            extra_requires = extension.get("requires")
            # new API names may live in any module: without a stated requirement the
            # check must run on every file
            requires = tuple(sorted({*old.requires, *extra_requires})) if extra_requires and old.requires else ()
            rules[code] = Rule(**{**old.__dict__, "data": _merge(old.data, extension["data"]), "requires": requires})
    return RuleSet(rules.values())


load_rules.cache_clear = _load_rules.cache_clear  # type: ignore[attr-defined]
