"""The project index: what every module of the project told us about itself.

Built from the plain-data facts each file's analyses recorded (so it can come from the
cache without parsing again), then read by the checks that deferred candidates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Type, TypeVar

from nondet_lint.analysis.entrypoints import EntryFacts, is_speed_benchmark, is_test_code, mark_imported_scripts
from nondet_lint.analysis.packaging import console_scripts
from nondet_lint.config import Config
from nondet_lint.facts import FactT, FileFacts
from nondet_lint.notebooks import line_words, place_text

AnalysisT = TypeVar("AnalysisT")


@dataclass(frozen=True)
class ModuleRecord:
    path: str
    module_name: str
    is_package: bool
    facts: FileFacts


@dataclass(frozen=True)
class TestModules:
    """``Project.test_modules``, with what it was worked out from."""

    root: str
    test_code: str  # the setting
    entries: Dict[str, Optional[EntryFacts]]  # each module's, by path
    paths: FrozenSet[str]


_TEST_MODULES_KEY = "test modules"


@dataclass
class Project:
    root: str
    config: Config
    modules: Dict[str, ModuleRecord] = field(default_factory=dict)  # by path
    # what pass 2 worked out from these facts, by analysis (a check's program view, the
    # seeding programs): made once, shared by the checks that ask
    analyses: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # the analyses of the last project over the same files (a language server's), while
    # this one's are made: an analysis may take over what it worked out there for the
    # modules whose facts did not change
    earlier: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        facts = {path: record.facts for path, record in self.modules.items()}
        mark_imported_scripts(facts, {path: r.module_name for path, r in self.modules.items()})
        self._mark_console_scripts(facts)
        for path, record in self.modules.items():
            if facts[path] is not record.facts:
                self.modules[path] = replace(record, facts=facts[path])

    def _mark_console_scripts(self, facts: Dict[str, FileFacts]) -> None:
        """The modules whose functions the packaging names as console scripts become
        entry points: ``EntryFacts.console`` lists those functions."""
        if not self.modules:
            return
        wanted: Dict[str, List[str]] = {}
        for module, function in console_scripts(self.root):
            wanted.setdefault(module, []).append(function)
        for path, record in self.modules.items():
            functions = wanted.get(record.module_name)
            if functions is None:
                # a ``src`` layout: ``src/pkg/cli.py`` is ``pkg.cli`` once installed
                functions = next((f for m, f in wanted.items() if record.module_name.endswith("." + m)), None)
            entry = facts[path].get(EntryFacts)
            if functions and entry is not None:
                facts[path] = facts[path].with_fact(replace(entry, console=tuple(sorted(functions))))

    def analysis(self, key: str, make: Callable[[Optional[AnalysisT]], AnalysisT]) -> AnalysisT:
        """The analysis stored under ``key``, made on first use by ``make`` from the last
        project's (None if there is none); the caller's key names one type of analysis."""
        found: Optional[AnalysisT] = self.analyses.get(key)
        if found is None:
            found = self.analyses[key] = make(self.earlier.get(key))
        return found

    def is_test_code(self, path: str) -> bool:
        """Whether a module is test code that the program rules leave alone (spec "Terms":
        configurable with ``test-code``)."""
        if self.config.test_code == "check":
            return False
        record = self.modules.get(path)
        if record is None:
            return False
        root = os.path.abspath(self.root or ".")
        full = os.path.abspath(path)
        inside = root + os.sep
        relative = full[len(inside):] if full.startswith(inside) else path  # the relpath, at a tenth of its cost
        return is_test_code(relative, record.facts)

    def test_modules(self) -> FrozenSet[str]:
        """The modules that are test code (``is_test_code``), worked out once per project;
        a module with the entry facts it had in the last project (``earlier``) keeps its
        answer (the same modules, so the same paths relative to the root)."""
        return self.analysis(_TEST_MODULES_KEY, self._find_test_modules).paths

    def _find_test_modules(self, earlier: Optional["TestModules"]) -> "TestModules":
        entries = {path: record.facts.get(EntryFacts) for path, record in self.modules.items()}
        made_from = (self.root, self.config.test_code, list(entries))
        if earlier is not None and (earlier.root, earlier.test_code, list(earlier.entries)) != made_from:
            earlier = None
        paths = frozenset(
            path for path, entry in entries.items()
            if (path in earlier.paths if earlier is not None and earlier.entries[path] is entry else self.is_test_code(path))
        )
        return TestModules(self.root, self.config.test_code, entries, paths)

    def same_program_as(self, path: str) -> Optional[str]:
        """The other entry point whose program the entry point at ``path`` runs, or None: a
        module whose main code only calls the functions another module runs as its program
        (a console script of it, or what its own main code only calls) is that program
        started another way (``python -m pkg`` for the ``pkg`` console script; spec "Terms":
        one program, reported once, at the other)."""
        record = self.modules.get(path)
        entry = record.facts.get(EntryFacts) if record is not None else None
        if entry is None or not entry.runs_only:
            return None
        targets = set()
        for name in entry.runs_only:
            module, _, function = name.rpartition(".")
            target = self.module_near(module, path) if module else None
            facts = target.facts.get(EntryFacts) if target is not None and target.path != path else None
            if target is None or facts is None or not (
                function in facts.console or f"{target.module_name}.{function}" in facts.runs_only
            ):
                return None
            targets.add(target.path)
        return targets.pop() if len(targets) == 1 else None

    def is_speed_benchmark(self, path: str) -> bool:
        """Whether an entry point measures speed (spec "Programs that matter": it does not)."""
        record = self.modules.get(path)
        return record is not None and is_speed_benchmark(record.facts)

    def show(self, path: str) -> str:
        """A module's path relative to the project root, with forward slashes."""
        root = os.path.abspath(self.root or ".")
        full = os.path.abspath(path)
        shown = os.path.relpath(full, root) if full == root or full.startswith(root + os.sep) else path
        return shown.replace(os.sep, "/")

    def place(self, path: str, line: int) -> str:
        """``train.py:12``, or ``demo.ipynb:cell 3:2`` for a notebook: a place in a message."""
        record = self.modules.get(path)
        return place_text(self.show(path), line, record.facts) if record is not None else f"{self.show(path)}:{line}"

    def line_words(self, path: str, line: int) -> str:
        """``line 12``, or ``cell 3, line 2`` for a notebook: a line of a module in a sentence."""
        record = self.modules.get(path)
        return line_words(line, record.facts) if record is not None else f"line {line}"

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

    @cached_property
    def by_file(self) -> Dict[str, ModuleRecord]:
        """Modules by the absolute path an import finds them at, less ``.py`` (a package
        by its folder)."""
        found: Dict[str, ModuleRecord] = {}
        for record in self:
            stem = os.path.splitext(os.path.abspath(record.path))[0]
            if os.path.basename(stem) == "__init__":
                stem = os.path.dirname(stem)
            found.setdefault(stem, record)
        return found

    def import_closure(self, record: ModuleRecord) -> List[ModuleRecord]:
        """``record`` and the project modules it imports, transitively, in the order an
        import walk meets them (a program's modules, spec "Program")."""
        todo, done, out = [record], {record.path}, [record]
        while todo:
            current = todo.pop()
            imports = current.facts.get(EntryFacts)
            for dotted in imports.imports if imports is not None else ():
                found = self.module_near(dotted, current.path)
                if found is not None and found.path not in done:
                    done.add(found.path)
                    todo.append(found)
                    out.append(found)
        return out

    def module_near(self, dotted: str, near: str) -> Optional[ModuleRecord]:
        """The module an import of ``dotted`` in the module at ``near`` finds.  A script's
        folder comes first on ``sys.path``, so a neighbour (``import train`` beside
        ``main.py``) wins over a module of the same name elsewhere in the project (each
        example folder of a repository has its ``train.py``); then the folders the module
        itself puts on ``sys.path``; else ``module``."""
        return self.module_on_path(dotted, self.search_path(near))

    def module_on_path(self, dotted: str, folders: Sequence[str]) -> Optional[ModuleRecord]:
        """``module_near`` with the importer's ``search_path`` worked out (an importer
        with many imports asks it once)."""
        parts = dotted.split(".")
        for folder in folders:
            found = self.by_file.get(os.path.join(folder, *parts))
            if found is not None:
                return found
        found = self.module(dotted)
        if found is None and self.root:
            # a folder without ``__init__.py`` at the root (``examples/``) is a namespace
            # package to a program run from the root (``python -m examples.impala.run``)
            found = self.by_file.get(os.path.join(os.path.abspath(self.root), *parts))
        return found

    def search_path(self, near: str) -> List[str]:
        """The folders an import in the module at ``near`` looks in first: its own, and
        those its top-level code adds to ``sys.path`` (``EntryFacts.path_entries``)."""
        folder = os.path.dirname(os.path.abspath(near))
        record = self.modules.get(near)
        entry = record.facts.get(EntryFacts) if record is not None else None
        folders = [folder]
        for added in entry.path_entries if entry is not None else ():
            base, relative = (os.path.abspath(self.root or "."), added[len("root:"):]) if added.startswith("root:") else (folder, added)
            folders.append(os.path.normpath(os.path.join(base, relative)))
        return folders

    def facts(self, kind: Type[FactT]) -> List[FactT]:
        """Every module's fact of one kind, in path order (modules without one left out)."""
        found = (record.facts.get(kind) for record in self)
        return [fact for fact in found if fact is not None]
