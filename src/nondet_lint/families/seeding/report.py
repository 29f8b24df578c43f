"""Findings of the seeding rules, from the program runs (``program``) and the positions of
the candidates pass 1 deferred.

* ND101 / ND102 / ND104 / ND105: once per module and RNG, at the first use that ran
  unseeded in some entry point; the message counts the others and says why (the entry
  point never seeds, seeds later, or seeds only when an option is set).  The seed block
  fix goes on the first such finding of an entry-point module, and seeds every RNG that
  program leaves unseeded.
* ND108 / ND109 / ND110: each call that ran unseeded, or that no entry point reaches.
* ND106: each guard that switches off seeding by default, when nothing else seeds.
* ND107: each value that varies per run and reaches a seed, where it is made.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from nondet_lint.analysis.project import Project
from nondet_lint.analysis.seedoption import ConfigNeed
from nondet_lint.versions import allowed_versions, canonical_package, compare, in_range, parse_version, target_version
from nondet_lint.context import Deferred
from nondet_lint.families.seeding.events import EventKind, Trained
from nondet_lint.families.seeding.facts import NO_SEEDING, Origin, OriginKind
from nondet_lint.families.seeding.program import ClassTarget, EntryRun, Program, Uncovered
from nondet_lint.families.seeding.payloads import (
    Draw, GeneratorCall, LoaderCall, LoaderFactoryCall, RandomBefore, RandomStateCall, SamplerCall, SeedingPayload,
)
from nondet_lint.families.seeding.state import MAIN
from nondet_lint.families.seeding.tables import Tables, rng_root, short_name, tables_for
from nondet_lint.types import Fix, Finding

RNG_CODES = ("ND101", "ND102", "ND104", "ND105")
_PROGRAM_KEY = "_nondet_lint_seeding_program"
CALL_SITE_CODES = ("ND108", "ND109", "ND110")
Key = Tuple[str, int]


def seeding_findings(project: Project, deferred: Sequence[Deferred], rules: Any) -> List[Finding]:
    return Report(project, deferred, rules).findings()


def module_names(project: Project) -> Dict[str, List[str]]:
    """Every dotted name a module may be imported as (each suffix of its name, and of its
    path from the project root: ``examples/rnn/dataset.py`` is ``examples.rnn.dataset`` when
    the repository root is on ``sys.path``, even with no ``__init__.py`` in ``examples``)
    -> paths."""
    names: Dict[str, List[str]] = {}
    root = os.path.abspath(project.root or ".")
    for record in project:
        spellings = [record.module_name.split(".")]
        full = os.path.abspath(record.path)
        if full.startswith(root + os.sep):
            parts = os.path.splitext(os.path.relpath(full, root))[0].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            if parts and all(part.isidentifier() for part in parts):
                spellings.append(parts)
        for parts in spellings:
            for start in range(len(parts)):
                paths = names.setdefault(".".join(parts[start:]), [])
                if record.path not in paths:
                    paths.append(record.path)
    return names


def _pins(root: str) -> Dict[str, str]:
    """The project's declared versions (``declared_versions``: pass 2 only)."""
    from nondet_lint.families.environment.requirements import declared_versions

    return declared_versions(root)


@dataclass(frozen=True)
class ProgramRuns:
    """The project's programs, run (never asked directly: each report asks a fork), and
    the RNG and function of each use."""

    rules: Any  # the rule set they were run with
    root: str  # the project's
    program: Program
    use_rng: Dict[Key, str]
    use_fn: Dict[Key, str]
    pins: Optional[Dict[str, str]]  # the project's declared versions, if read


class Report:
    def __init__(self, project: Project, deferred: Sequence[Deferred], rules: Any) -> None:
        self.project = project
        self.rules = rules
        self.t: Tables = tables_for(rules)
        self.items: Dict[Key, Deferred] = {}
        self.payloads: Dict[Key, SeedingPayload] = {}
        self.codes: Set[str] = set()
        self.charged: Dict[Key, Uncovered] = {}  # a transform charged to another program than ``Program``'s (``applied_later``)
        for item in deferred:
            payload = SeedingPayload.from_json(item.code, item.payload)
            self.items[(item.path, payload.cid)] = item
            self.payloads[(item.path, payload.cid)] = payload
            if not payload.anchor:
                self.codes.add(item.code)
        self._pin_cache: Optional[Dict[str, str]] = None
        self.program, self.use_rng, self.use_fn = self._runs()
        self.seed_value_draws: Set[Key] = set()

    def _runs(self) -> Tuple[Program, Dict[Key, str], Dict[Key, str]]:
        """The project's programs, run once per project (they depend on its facts alone),
        and the RNG and function of each use.  A language server keeps the project while
        an edit leaves every file's facts as they were, and decides the candidates the
        edit moved again without running the programs; after an edit that changed facts
        the new project knows the last one's analyses (``Project.earlier``): its programs
        are kept when no seeding fact changed (an edit of a determinism switch), else the
        runs of the programs that reach no changed module (``Program.run_all``).  Each
        report asks its questions of a fork, so what one report asked leaves no trace in
        what the next is told."""
        runs = self.project.analysis(_PROGRAM_KEY, self._run_programs)
        if runs.rules is not self.rules:  # another rule set asks about the same project
            runs = self.project.analyses[_PROGRAM_KEY] = self._run_programs(None)
        if self._pin_cache is None:
            self._pin_cache = runs.pins
        return runs.program.fork(), runs.use_rng, runs.use_fn

    def _run_programs(self, earlier: Optional["ProgramRuns"]) -> "ProgramRuns":
        module_of = {record.path: record.module_name for record in self.project}
        if earlier is not None and (earlier.rules is not self.rules or earlier.program.module_of != module_of
                                    or earlier.root != self.project.root):
            earlier = None  # other modules answer to an import
        elif earlier is not None:
            # the pins were read from files that did not change: a file changed on disk
            # drops the earlier analyses (``engine.Decisions.forget``)
            self._pin_cache = earlier.pins
        program = Program(
            {record.path: record.facts for record in self.project},
            module_of,
            earlier.program.names if earlier is not None else module_names(self.project),
            self.t.external_roots(),
            self._tf_keras_rng(),
            self.project.test_modules(),
            previous=earlier.program if earlier is not None else None,
            framework_methods=self.t.framework_methods,
            framework_constructors=self.t.framework_constructors,
        )
        if earlier is not None and program.same_inputs(earlier.program):
            return earlier
        program.run_all()
        program.seed_params()
        use_rng: Dict[Key, str] = {}
        use_fn: Dict[Key, str] = {}
        for path, facts in program.facts.items():
            for name, fn in facts.fns.items():
                for event in fn.events:
                    if event.kind is EventKind.USE:
                        use_rng[(path, event.cid)] = program.rng_map.get(event.rng, event.rng)
                        use_fn[(path, event.cid)] = name
        return ProgramRuns(self.rules, self.project.root, program, use_rng, use_fn, self._pin_cache)

    # ---- versions -------------------------------------------------------------------
    def _pins(self) -> Dict[str, str]:
        if self._pin_cache is None:
            self._pin_cache = _pins(self.project.root)
        return self._pin_cache

    def _before(self, package: str, known: Sequence[str], bound: str) -> bool:
        """Whether the target version of ``package`` is before ``bound``."""
        configured = self.project.config.target_versions
        pins = self._pins() if not any(k.lower() == package for k in configured) else {}
        version = target_version(package, configured, pins, list(known))
        limit = parse_version(bound)
        return version is not None and limit is not None and compare(version, limit) < 0

    def _quiet_in_every_version(self, quiet: Sequence[Sequence[str]]) -> bool:
        """Whether every fit draws nothing in every scikit-learn version the project may run
        on: a pin or a configured target, else every version the rule data knows (an
        unknown version is judged by each policy; the conservative choice)."""
        configured = self.project.config.target_versions
        pins = self._pins() if not any(canonical_package(k) == "scikit-learn" for k in configured) else {}
        versions = allowed_versions("scikit-learn", configured, pins, list(self.t.sklearn_versions), {"sklearn": "scikit-learn"})
        return bool(versions) and all(any(in_range(v, spec) for spec in fit) for fit in quiet for v in versions)

    def _tf_keras_rng(self) -> str:
        switch = self.t.keras_version_switch
        if not switch:
            return "keras"
        package = next((k for k in switch if k != "rng"), "tensorflow")
        if self._before(package, self.t.tensorflow_versions, str(switch[package])):
            return str(switch.get("rng", "tf"))
        return "keras"

    # ---- text -----------------------------------------------------------------------
    def show(self, path: str) -> str:
        return self.project.show(path)

    def line(self, path: str, anchor: Optional[int]) -> Optional[int]:
        item = self.items.get((path, anchor)) if anchor is not None else None
        return item.line if item is not None else None

    def at(self, path: str, anchor: Optional[int]) -> str:
        line = self.line(path, anchor)
        return self.project.place(path, line) if line else self.show(path)

    def evidence(self, use_path: str, rng: str, where: Optional[Uncovered]) -> str:
        """Why no seed covers a use: which program runs it, and what that program seeds."""
        if where is None:
            return "no entry point of this project reaches it, so nothing seeds it first"
        run = self.program.runs[where.entry]
        own = use_path == where.entry
        program = "this program" if own else f"entry point {self.show(where.entry)}"
        late = ""
        if where.via_import and where.via_import != where.entry and not own:
            late = f"; it runs when {self.show(where.entry)} imports {self.show(where.via_import)}"
        if where.new_graph:
            return (f"{program} builds it in a new graph (`with tf.Graph().as_default():`, `tf.reset_default_graph()`), "
                    f"which no graph-level seed set before reaches; set the seed once that graph is the default{late}")
        first = run.first_seed.get(rng)
        if first is not None:
            return f"{program} seeds it only later, at {self.at(*first)}{late}"
        off = [o for o in run.off if rng in o.rngs]
        if off:
            return f"{program} seeds it only when an option is set: {off[0].why} ({self.at(off[0].path, off[0].anchor)}){late}"
        if run.none_seeds:
            return f"{program} seeds it with None: {run.none_seeds[0].why}{late}"
        return f"{program} never seeds it{late}"

    # ---- findings -----------------------------------------------------------------------
    def findings(self) -> List[Finding]:
        out: List[Finding] = []
        out.extend(self.seed_values())
        out.extend(self.rng_findings())
        out.extend(self.call_site_findings())
        out.extend(self.off_by_default())
        return out

    def rng_findings(self) -> List[Finding]:
        groups: Dict[Tuple[str, str], List[Tuple[Key, Deferred]]] = {}
        for key, item in self.items.items():
            if item.code not in RNG_CODES or self.payloads[key].anchor or key in self.seed_value_draws:
                continue
            where = self.program.uncovered.get(key)
            if where is None:
                continue
            if self.applied_later(key, where):
                where = self.never_seeding(key)  # charged to a program that never seeds its RNG
                if where is None:
                    continue
                self.charged[key] = where
            if not self.judged(item.path, where) or self.built_later(key, where) or self.overwritten(key, where):
                continue
            groups.setdefault((item.path, self.use_rng.get(key, "")), []).append((key, item))
        out: List[Finding] = []
        entries: Dict[int, Uncovered] = {}  # finding index -> the program run that left it unseeded
        fixed_entries: Set[str] = set()
        for (path, rng), items in sorted(groups.items()):
            items.sort(key=lambda pair: (pair[1].line, pair[1].col))
            first_key, first = items[0]
            where = self.charged.get(first_key) or self.program.uncovered[first_key]
            info = self.t.rngs.get(rng, {})
            more = len(items) - 1
            message = self.rules[first.code].format_message(
                rng=info.get("label", rng),
                seed_api=self.seed_api(rng, where),
                evidence=self.evidence(path, rng, where),
                more=f"; {more} more unseeded use{'s' if more > 1 else ''} in this module" if more else "",
            )
            if path not in self.program.runs and where.via_import is not None:
                message += (
                    f"; no fix: it draws when `{self.show(where.via_import)}` is imported, before any code of "
                    f"`{self.show(where.entry)}` can seed it (seed in that module, or draw later)"
                )
            out.append(Finding(path, first.line, first.col, first.code, message, first.end_line, first.end_col))
            entries[len(out) - 1] = where
        # the seed block: on the first finding of each entry-point module
        by_path: Dict[str, List[int]] = {}
        for index, finding in enumerate(out):
            by_path.setdefault(finding.path, []).append(index)
        for path, indexes in by_path.items():
            if path not in self.program.runs or path in fixed_entries:
                continue
            for earliest in sorted(indexes, key=lambda i: (out[i].line, out[i].col)):  # the first one a block fixes
                fix = self.seed_block(path, out[earliest].code)
                if fix is not None:
                    old = out[earliest]
                    out[earliest] = Finding(old.path, old.line, old.col, old.code, old.message, old.end_line, old.end_col, fix)
                    fixed_entries.add(path)
                    break
        # a library module's finding carries its entry point's block (an edit of that file),
        # so that ``--fix`` clears it; not for a draw at import time, which no block precedes
        for index, finding in enumerate(out):
            where = entries[index]
            if finding.path in self.program.runs or where.via_import is not None or where.entry not in self.program.runs:
                continue
            fix = self.seed_block(where.entry, finding.code)
            if fix is not None:
                edits = tuple(replace(edit, path=where.entry) for edit in fix.edits)
                out[index] = replace(finding, fix=Fix(fix.title, fix.applicability, edits))
        return out

    def seed_api(self, rng: str, where: Uncovered) -> str:
        """The seed call a message names: the one the block of the program's entry point
        inserts (``tf.set_random_seed`` in a TensorFlow 1 program), else the rule data's;
        where the project's TensorFlow lacks that call, one it has."""
        entry = where.entry if where.entry in self.program.runs else None
        call, api = self.block_call(entry, rng)
        if self.call_runs(rng, call):
            return api
        info = self.t.rngs.get(rng, {})
        for spec in (info.get("legacy_seed_call"), info.get("graph_seed_call")):
            if spec and self.call_runs(rng, spec["call"]):
                return str(spec["seed_api"])
        return api

    def block_call(self, entry: Optional[str], rng: str) -> Tuple[str, str]:
        """(qualified name, as messages spell it) of the seed call the blocks of ``entry``
        insert for ``rng`` (``seedblock.seed_apis``)."""
        info = self.t.rngs.get(rng, {})
        api = self.program.facts.get(entry, NO_SEEDING).seed_apis.get(rng) if entry is not None else None
        for spec in (info.get("legacy_seed_call"), info.get("graph_seed_call")):
            if spec and api is not None and spec["seed_api"] == api:
                return str(spec["call"]), api
        return str(info.get("seed_call", "")), str(info.get("seed_api", "a seed"))

    def call_runs(self, rng: str, call: str) -> bool:
        """Whether every release of the RNG's framework the project may run on has
        ``call`` (its ``call_versions``): judged only where the project configures or pins
        that framework (docs/contract.md "Target versions")."""
        info = self.t.rngs.get(rng, {})
        spec = info.get("call_versions", {}).get(call)
        package = rng_root(self.t, rng)
        if spec is None or not package:
            return True
        aliases = self.rules["ND205"].data.get("package_aliases", {}) if "ND205" in self.rules else {}
        configured = self.project.config.target_versions
        declared = {**self._pins(), **configured}
        if not any(canonical_package(name, aliases) == package for name in declared):
            return True
        pins = self._pins() if not any(canonical_package(k, aliases) == package for k in configured) else {}
        known = list(info.get("known_versions", ()))
        versions = allowed_versions(package, configured, pins, known, aliases)
        target = target_version(package, configured, pins, known, aliases)
        if target is not None and target not in versions:
            versions = [target]  # a range no known release is in (``~=2.15.0``): its lower bound
        return all(in_range(version, str(spec)) for version in versions)

    def built_later(self, key: Key, where: Uncovered) -> bool:
        """A TF-Keras 2 layer or initializer a library module makes at import time: it
        draws nothing then, only when the program builds it (its own use, after the
        program's seeds)."""
        values = self.payloads[key].values
        return isinstance(values, Draw) and values.built and self.use_rng.get(key) == "tf" and key[0] != where.entry

    def applied_later(self, key: Key, where: Uncovered) -> bool:
        """A random transform that ``where`` makes unseeded draws nothing then: it draws when
        applied to the data, as the program iterates it.  That is after the seeds its default
        run sets (``nc_benchmark(..., seed=1234)`` after ``RandomCrop(28)``), and a library
        module that makes one at import time (a default transform) draws only if the program
        applies it, in its own data pipeline.  A program that does not train applies one
        only to show or export examples: not results."""
        values = self.payloads[key].values
        if not (isinstance(values, Draw) and values.applied):
            return False
        run = self.program.runs[where.entry]
        made_at_import = where.via_import is not None and key[0] != where.entry
        return made_at_import or not run.trains or self.use_rng.get(key, "") in run.first_seed

    def never_seeding(self, key: Key) -> Optional[Uncovered]:
        """Where a random transform ran unseeded in a program whose default run never seeds
        its RNG, charged as ``Program`` charges uses (None: no program leaves it so)."""
        found = [(Program.charge_rank(run, run.unseeded[key]), run.unseeded[key]) for run in self.program.runs.values()
                 if key in run.unseeded and not self.applied_later(key, run.unseeded[key])]
        return min(found, key=lambda pair: pair[0])[1] if found else None

    def overwritten(self, key: Key, where: Uncovered) -> bool:
        """A draw of initial weights in a program that trains no framework model (at most a
        library's: a k-means, a scikit-learn estimator) and restores its model's weights
        from a checkpoint: the restore overwrites what it drew."""
        values = self.payloads[key].values
        run = self.program.runs[where.entry]
        return isinstance(values, Draw) and values.weights and run.restores_weights and run.training < Trained.MODEL

    def judged(self, path: str, where: Uncovered) -> bool:
        """Whether the program that ran a use unseeded is one whose randomness matters.

        A program that trains: every use it runs, except that one whose only training
        fits a library model that runs no code of the project (a faiss k-means on the
        arrays it is given) answers only for the uses it runs directly, not through a
        callback. A program that does not train (a
        converter, a viewer, an export or sampling script) is judged only on the uses in
        its own file, and only when it seeds something, which says it wants repeatable
        runs; the library code it reaches is not blamed on it."""
        run = self.program.runs[where.entry]
        if run.test or path in self.program.test_code:
            return False  # test code is not a training program, nor judged as part of one (spec "Terms")
        if self.project.is_speed_benchmark(where.entry):
            return False  # it measures speed: a program that does not matter (spec "Terms")
        if run.training >= Trained.LIBRARY or (run.trains and not where.deferred):
            return True
        return path == where.entry and bool(run.final or run.off)

    def seed_block(self, path: str, code: str) -> Optional[Fix]:
        run = self.program.runs[path]
        enabled = {rng for rng in run.uncovered_rngs if self.t.rngs.get(rng, {}).get("code") in self.codes}
        if not enabled or enabled & run.reseeded:
            return None  # a seed at the top would be undone by the reseed from entropy (ND107)
        # drawn in a graph the program makes later: a seed at the top does not reach it (the
        # block seeds the others, on a finding of theirs)
        if any(self.t.rngs.get(rng, {}).get("code") == code for rng in enabled & run.new_graphs):
            return None
        enabled -= run.new_graphs
        if not enabled:
            return None
        facts = self.program.facts.get(path, NO_SEEDING)
        by_option = facts.option_blocks
        if by_option is not None and self.offered(by_option.needs) and self.after_option(path, by_option.function or MAIN, enabled):
            blocks = by_option.blocks  # the program's own seed option (docs/contract.md: fixes never break a program)
            title = f"Insert a seed block in {self.show(path)} where its seed option `{by_option.value}` is known"
        else:
            blocks = facts.blocks
            title = self.rules[code].format_fix_title(entry=self.show(path))
        options = [(len(key.split("+")), key) for key in blocks if enabled <= set(key.split("+"))]
        if not options:
            return None
        chosen = min(options)[1]
        if not all(self.call_runs(rng, self.block_call(path, rng)[0]) for rng in chosen.split("+")):
            return None  # the project's TensorFlow lacks the call the module's spelling chose
        edits = blocks[chosen]
        return Fix(title, "safe", tuple(sorted(edits, key=lambda e: (e.line, e.col))))

    def offered(self, need: Optional[ConfigNeed]) -> bool:
        """Whether the module a seed option relies on has its seed field (``ConfigNeed``):
        the config class of a project module, or the config file at a path."""
        if need is None:
            return True
        if need.module:
            record = self.project.module(need.module)
            path = record.path if record is not None else None
        else:
            path = next((p for p in self.program.facts if os.path.normpath(p) == need.path), None)
        return path is not None and self.program.facts[path].config_seeds.get(need.name) == need.field

    def after_option(self, entry: str, function: str, rngs: Set[str]) -> bool:
        """Whether every use of ``rngs`` the program of ``entry`` runs unseeded runs inside
        ``function`` of the entry module (where the seed option's value is known), not at
        import time."""
        for key, where in self.program.uncovered.items():
            if where.entry != entry or self.use_rng.get(key, "") not in rngs:
                continue
            if where.via_import is not None or (entry, function) not in where.chain:
                return False
        return True

    def call_site_findings(self) -> List[Finding]:
        out: List[Finding] = []
        for key, item in sorted(self.items.items(), key=lambda kv: (kv[1].path, kv[1].line, kv[1].col)):
            values = self.payloads[key].values
            if item.code not in CALL_SITE_CODES + ("ND103",) or values is None:
                continue
            if isinstance(values, LoaderCall) and values.workers:
                worker = self.workers_finding(item, values.workers)
                if worker is not None:
                    out.append(worker)
                    continue
            if isinstance(values, LoaderCall) and values.only_workers:
                continue
            if isinstance(values, GeneratorCall):
                generator = self.generator_finding(key, item, values)
                if generator is not None:
                    out.append(generator)
                continue
            reached = key in self.program.reached
            where = self.program.uncovered.get(key)
            rng = self.use_rng.get(key, "torch")
            if reached and where is None:
                continue
            if not reached and (item.code != "ND108" or self.seeded_by_constructor(key, rng)):
                continue  # library code: its callers seed (see the rule docs)
            if isinstance(values, RandomStateCall) and values.quiet and self._quiet_in_every_version(values.quiet):
                continue
            evidence = self.evidence(item.path, rng, where)
            if isinstance(values, RandomStateCall):
                seeded = f", which nothing seeds before it ({evidence})"
                message = self.rules["ND108"].format_message(seeded=seeded, name=values.name, why=values.why, state=values.state)
            elif isinstance(values, LoaderFactoryCall):
                message = self.rules["ND109"].format_message(
                    problem=(
                        f"that `{values.factory}` builds with `{values.when}=True` shuffles with the "
                        f"{self.t.rngs['torch']['label']}, takes no `generator=`, and no `torch.manual_seed` runs before it ({evidence})"
                    ),
                    advice="call `torch.manual_seed(<seed>)` before it",
                )
            elif isinstance(values, LoaderCall):
                message = self.rules["ND109"].format_message(
                    problem=f"shuffles with the {self.t.rngs['torch']['label']}: no `generator=` is passed and no `torch.manual_seed` runs before it ({evidence})",
                    advice="pass a seeded generator",
                )
            elif isinstance(values, SamplerCall):
                message = self.rules["ND110"].format_message(rng=self.t.rngs["torch"]["label"], evidence=evidence, name=values.name)
            else:
                continue
            out.append(Finding(item.path, item.line, item.col, item.code, message, item.end_line, item.end_col, item.fix))
        return out

    def generator_finding(self, key: Key, item: Deferred, values: GeneratorCall) -> Optional[Finding]:
        """ND103 for a generator whose seed a program passes as None (its code calls the
        function with no seed), judged as the uses of a global RNG are (a program that
        matters); not reported where no program runs it so (its callers choose the seed)."""
        where = self.program.uncovered.get(key)
        if where is None or not self.judged(item.path, where):
            return None
        program = "this program" if item.path == where.entry else f"entry point {self.show(where.entry)}"
        held = f" (`{values.seed}` is None when {program} runs it)"
        message = self.rules["ND103"].format_message(name=values.name, held=held)
        return Finding(item.path, item.line, item.col, "ND103", message, item.end_line, item.end_col, item.fix)

    def seeded_by_constructor(self, key: Key, rng: str) -> bool:
        """A method runs after its object's ``__init__``: does that seed ``rng``?"""
        fn = self.program.fn((key[0], self.use_fn.get(key, "")))
        cls = fn.cls if fn is not None else None
        if not cls:
            return False
        init = self.program.method(key[0], cls, "__init__")
        return init is not None and rng in self.program.seeds_of(init, self.program.unknown(init))

    def workers_finding(self, item: Deferred, dataset: str) -> Optional[Finding]:
        if not self._before("torch", self.t.torch_versions, self.t.workers_before):
            return None
        found = self.program.lookup(dataset, item.path)
        if not isinstance(found, ClassTarget):
            return None
        drawn = self.draws_in_class(found.path, found.name)
        if not drawn:
            return None
        label = self.t.rngs.get(drawn, {}).get("label", drawn)
        message = self.rules["ND109"].format_message(
            problem=f"starts worker processes with no `worker_init_fn`, and before torch {self.t.workers_before} every worker starts from the same {label} state, which `{dataset.rsplit('.', 1)[-1]}` draws from",
            advice="seed NumPy and `random` per worker in a worker_init_fn (torch.initial_seed() % 2**32)",
        )
        return Finding(item.path, item.line, item.col, "ND109", message, item.end_line, item.end_col)

    def draws_in_class(self, path: str, cls: str) -> Optional[str]:
        """Python's or NumPy's global RNG drawn by a class's methods (or what they call)."""
        stack = list(self.program.methods(path, cls))
        seen: Set[Tuple[str, str]] = set()
        while stack and len(seen) < 500:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            for event in self.program.events(key):
                if event.kind is EventKind.USE and event.rng in ("numpy", "python"):
                    return event.rng
                if event.kind is EventKind.CALL:
                    stack.extend(callee for callee, _, _ in self.program.callees(event.target, key[0]))
        return None

    def off_by_default(self) -> List[Finding]:
        out: Dict[Key, Finding] = {}
        drawn: Dict[str, Set[str]] = {}  # entry -> RNGs its program draws from unseeded
        for key, where in self.program.uncovered.items():
            drawn.setdefault(where.entry, set()).add(self.use_rng.get(key, ""))
        unset_option = self._seed_option_unset()
        for path in sorted(self.program.runs):
            run = self.program.runs[path]
            if run.test:
                continue
            for off in run.off:
                # seeding that is off matters only where something draws unseeded by default
                # (not when the only draw sits under the same condition as the seed)
                if not (off.rngs - run.final) & drawn.get(path, set()):
                    continue
                # an API of another module whose optional seed for its own draws its caller
                # leaves at None: the caller chose the RNG state (the draws are reported
                # unseeded), unless a command-line option with no seed by default reaches it
                if off.own_draws and off.path != path and not unset_option:
                    continue
                key = (off.path, off.anchor)
                item = self.items.get(key)
                if item is None or key in out:
                    continue
                message = self.rules["ND106"].format_message(why=off.why)
                out[key] = Finding(off.path, item.line, item.col, "ND106", message, item.end_line, item.end_col)
        return list(out.values())

    def _seed_option_unset(self) -> bool:
        """Whether a command-line option passed on to a seed parameter defaults to None."""
        passed = self.program.seed_params()[1]
        return any(value is None for dest in passed for _, value in self.program.options.get(dest, ()))

    # ---- ND107 -------------------------------------------------------------------------
    def seed_values(self) -> List[Finding]:
        out: List[Finding] = []
        seed_params, passed_options = self.program.seed_params()
        sunk_options = {dest for facts in self.program.facts.values() for dest in facts.sunk_options}
        sunk_options |= passed_options
        option_origins = {
            (path, option.origin)
            for path, facts in self.program.facts.items()
            for dest, option in facts.opts.items()
            if option.origin is not None and dest in sunk_options
        }
        rule = self.rules["ND107"]
        for path in sorted(self.program.facts):
            for origin in self.program.facts[path].origins:
                if not (origin.sunk or (path, origin.id) in option_origins or self._flows_to_seed(path, origin, seed_params)):
                    continue
                if origin.kind is OriginKind.SOURCE:
                    item = self.items.get((path, origin.anchor)) if origin.anchor is not None else None
                    if item is None or self.program.guards_off(origin.guards, (path, ""), {}):
                        continue
                    if self.program.fallback_taken(path, origin) is False:
                        continue  # a fallback for an argument every call the program makes gives
                    if origin.function and self._played([run for run in self.program.runs.values()
                                                         if any(memo[0] == (path, origin.function) for memo in run.visited)]):
                        continue
                    what = origin.what
                    shown = what if " " in what else f"`{short_name(what)}()`"
                    problem = f"{shown} changes from run to run and is used as a seed, so the seed itself differs every run"
                    out.append(Finding(path, item.line, item.col, "ND107", rule.format_message(problem=problem), item.end_line, item.end_col))
                else:
                    key = (path, origin.cid)
                    self.seed_value_draws.add(key)
                    item = self.items.get(key)
                    where = self.program.uncovered.get(key)
                    if item is None or where is None:
                        continue
                    if self._played([run for run in self.program.runs.values() if key in run.unseeded]):
                        continue
                    rng = self.use_rng.get(key, origin.rng)
                    label = self.t.rngs.get(rng, {}).get("label", rng)
                    problem = f"this draw from the {label} runs before anything seeds that RNG, and its result is used as a seed"
                    out.append(Finding(path, item.line, item.col, "ND107", rule.format_message(problem=problem), item.end_line, item.end_col))
        for key, item in sorted(self.items.items(), key=lambda kv: (kv[1].path, kv[1].line, kv[1].col)):
            values = self.payloads[key].values
            if isinstance(values, RandomBefore):
                if self._before(values.package, values.known, values.bound):
                    problem = (
                        f"`{values.name}` is given {values.given}: before {values.package} {values.bound} it then picks a "
                        "random seed (unless PL_GLOBAL_SEED is set), so it covers nothing"
                    )
                    out.append(Finding(item.path, item.line, item.col, "ND107", rule.format_message(problem=problem), item.end_line, item.end_col))
        for path in sorted(self.program.runs):
            for seed in self.program.runs[path].none_seeds:
                item = self.items.get((seed.path, seed.anchor))
                if item is None:
                    continue
                problem = f"this seed call is given None by default ({seed.why}): it seeds from OS entropy, so it covers nothing"
                out.append(Finding(seed.path, item.line, item.col, "ND107", rule.format_message(problem=problem), item.end_line, item.end_col))
        return out

    @staticmethod
    def _played(runs: Sequence[EntryRun]) -> bool:
        """Every program that makes a varying seed value reads a person's input as it runs
        and trains nothing (a game played by hand): no two of its runs repeat whatever the
        seed, so a fresh one each run takes no reproducibility away."""
        return bool(runs) and all(run.live_input and not run.trains for run in runs)

    def _flows_to_seed(self, path: str, origin: Origin, seed_params: Mapping[Tuple[str, str], Set[str]]) -> bool:
        for flow in origin.flows:
            for callee, bound, _ in self.program.callees(flow.callee, path):
                name = self.program.param_at(callee, flow.bound or bound, flow.argument)
                if name is not None and name in seed_params.get(callee, ()):
                    return True
        return False


