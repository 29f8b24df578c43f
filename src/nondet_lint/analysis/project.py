"""The project index: what every module of the project told us about itself.

Built from the plain-data facts each file's analyses recorded (so it can come from the
cache without parsing again), then read by the checks that deferred candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Dict, Iterator, List, Mapping, Optional

from nondet_lint.analysis.entrypoints import mark_imported_scripts
from nondet_lint.config import Config


@dataclass(frozen=True)
class ModuleRecord:
    path: str
    module_name: str
    is_package: bool
    facts: Mapping[str, Any]


@dataclass
class Project:
    root: str
    config: Config
    modules: Dict[str, ModuleRecord] = field(default_factory=dict)  # by path

    def __post_init__(self) -> None:
        facts = {path: record.facts for path, record in self.modules.items()}
        mark_imported_scripts(facts, {path: r.module_name for path, r in self.modules.items()})
        for path, record in self.modules.items():
            if facts[path] is not record.facts:
                self.modules[path] = replace(record, facts=facts[path])

    def __iter__(self) -> Iterator[ModuleRecord]:
        return iter(self.modules[path] for path in sorted(self.modules))

    @cached_property
    def by_name(self) -> Dict[str, ModuleRecord]:
        """Modules by every dotted name they may be imported as.

        ML repositories often run scripts from a subfolder or use folders without
        ``__init__.py``; so ``src/utils/seed.py`` answers to ``src.utils.seed``,
        ``utils.seed`` and ``seed`` (longest, least ambiguous names win on a clash).
        """
        names: Dict[str, ModuleRecord] = {}
        for record in self:
            parts = record.module_name.split(".")
            for start in range(len(parts)):
                name = ".".join(parts[start:])
                if name not in names:
                    names[name] = record
        return names

    def module(self, dotted: str) -> Optional[ModuleRecord]:
        return self.by_name.get(dotted)

    def facts(self, key: str) -> List[Any]:
        return [record.facts[key] for record in self if key in record.facts]
