"""TensorFlow Datasets: a dataset named without a version (ND303) and file shuffling with
no seed (ND307).

``tfds.load("mnist")`` / ``tfds.builder("mnist")`` build whatever version of the dataset
the installed TFDS defines; ``"mnist:3.*.*"`` names one.  ``tfds.load(...,
shuffle_files=True)`` and ``builder.as_dataset(shuffle_files=True)`` shuffle the files
with a random seed and read them with ``deterministic=False`` unless
``read_config=tfds.ReadConfig(shuffle_seed=...)`` is given.  The ND307 candidates are
deferred as the other ``tf.data`` order candidates are (``split.TfDataOrderCandidate``),
so op determinism anywhere in the project silences them in the same way.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Dict, List, Mapping, Optional, Set

import libcst as cst

from nondet_lint.analysis.moduleview import call_arg, has_double_star, method_of
from nondet_lint.analysis.values import CONFIG, IMPORTED, LITERAL, UNKNOWN, Text, Values
from nondet_lint.check import Check
from nondet_lint.context import PendingFix
from nondet_lint.families.data.context import DataContext
from nondet_lint.families.data.pinning import HubCandidate, tfds_verdict
from nondet_lint.families.data.split import TfDataOrderCandidate
from nondet_lint.fixes.builders import insert_after_imports, name_for, set_keyword_argument, top_level


class TfdsReads(Check):
    """ND303 (no version) and ND307 (unseeded file shuffle) for TFDS."""

    codes = ("ND303", "ND307")
    decides = ()  # ND303 reported on the spot or decided by pinning.HubRevision; ND307 by split.TfDataOrder

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data: Mapping[str, Any] = self.data("ND307").get("tfds", {})
        self.loads = frozenset(data.get("load_calls", ()))
        self.builders = frozenset(data.get("builder_calls", ()))
        self.read_config = data.get("read_config", "tensorflow_datasets.ReadConfig")
        self.methods = frozenset(data.get("shuffle_methods", ()))
        self.shuffles: List[cst.Call] = []
        self.configs: Dict[str, cst.Call] = {}  # name -> the ReadConfig(...) call assigned to it
        self.seeded_configs: Set[str] = set()  # ``name.shuffle_seed = ...``
        self.seen_tfds = False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:  # (``type() is``: an ABC's isinstance() costs much when it fails)
            if type(target.target) is cst.Name and type(node.value) is cst.Call:
                if self.ctx.qualname(node.value.func) == self.read_config:
                    self.configs[target.target.value] = node.value
            if type(target.target) is cst.Attribute and target.target.attr.value == "shuffle_seed":
                if isinstance(target.target.value, cst.Name):
                    self.seeded_configs.add(target.target.value.value)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        if name is not None and (name in self.loads or name in self.builders):
            if has_double_star(node):
                return
            self.seen_tfds = True
            self._version(node, name)
            if name in self.loads:
                self.shuffles.append(node)
        elif name is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in self.methods:
            if not has_double_star(node):
                self.shuffles.append(node)

    def _version(self, node: cst.Call, name: str) -> None:
        """The dataset name, followed through constants, class attributes and option and
        absl flag defaults of the module; a constant of another module, or a
        configuration's attribute, is looked up in pass 2."""
        given = call_arg(node, 0, "name")
        if given is None:
            return
        text = Values(DataContext.of(self.ctx), ()).text(given.value)
        short = name.replace("tensorflow_datasets.", "tfds.")
        if text.kind in (IMPORTED, CONFIG):
            candidate = HubCandidate(short, "tfds", asdict(text), asdict(Text(UNKNOWN)))
            self.ctx.defer(node, "ND303", **candidate.to_json())
            return
        verdict = tfds_verdict(text.value) if text.kind == LITERAL and text.value else None
        if verdict is not None:
            self.ctx.report(node, "ND303", None, api=short, **verdict)

    def finish(self) -> None:
        for call in self.shuffles:
            if self._unseeded(call):
                fix = self._fix(call)
                api = self.ctx.qualname(call.func) or method_of(call).attr.value
                api = api.replace("tensorflow_datasets.", "tfds.")
                candidate = TfDataOrderCandidate(
                    what=f"`{api}(shuffle_files=True)` with no `read_config=tfds.ReadConfig(shuffle_seed=...)` shuffles the files with a new seed and reads them out of order every run",
                    advice="pass `read_config=tfds.ReadConfig(shuffle_seed=<seed>)`",
                    global_seed_helps=False,  # TFDS reads with ``deterministic=False`` when unseeded
                )
                self.ctx.defer(call, "ND307", fix=fix, **candidate.to_json())

    def _unseeded(self, call: cst.Call) -> bool:
        shuffle = call_arg(call, None, "shuffle_files")
        if shuffle is None or not (isinstance(shuffle.value, cst.Name) and shuffle.value.value == "True"):
            return False
        if isinstance(call.func, cst.Attribute) and self.ctx.qualname(call.func) is None and not self.seen_tfds:
            return False  # an ``as_dataset`` method in a module that uses no TFDS builder
        config = call_arg(call, None, "read_config")
        if config is None:
            return True
        value = config.value
        if isinstance(value, cst.Name):
            if value.value in self.seeded_configs:
                return False
            built = self.configs.get(value.value)
            if built is None:
                return False  # built elsewhere: not guessed at
            value = built
        if isinstance(value, cst.Call) and self.ctx.qualname(value.func) == self.read_config:
            seed = call_arg(value, None, "shuffle_seed")
            return seed is None or (isinstance(seed.value, cst.Name) and seed.value.value == "None")
        return False

    def _fix(self, call: cst.Call) -> Optional[PendingFix]:
        seed = str(self.ctx.config.seed)
        config = call_arg(call, None, "read_config")
        if config is not None:
            built = self.configs.get(config.value.value) if isinstance(config.value, cst.Name) else config.value
            if isinstance(built, cst.Call):  # ``ReadConfig(...)`` here, or assigned to the name passed
                edits = set_keyword_argument(self.ctx, built, "shuffle_seed", seed)
                return self.ctx.fix("ND307", edits, seed=seed) if edits else None
            return None
        spelled = name_for(self.ctx.module, self.read_config, top=top_level(self.ctx))
        if spelled is None:
            return None
        name, import_code = spelled
        changes: List[Any] = set_keyword_argument(self.ctx, call, "read_config", f"{name}(shuffle_seed={seed})")
        if import_code:
            changes = [*insert_after_imports(self.ctx.module, "", [import_code], top_level(self.ctx)), *changes]
        return self.ctx.fix("ND307", changes, seed=seed) if changes else None
