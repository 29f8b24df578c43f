"""What pass 1 hands to pass 2 is typed; the stored facts are exactly its JSON form."""

from __future__ import annotations

import json
import textwrap

import pytest

from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.analysis.entrypoints import EntryFacts
from nondet_lint.facts import FileFacts
from nondet_lint.families.data.split import DataSeedingFacts
from nondet_lint.families.kernels.gpu import GpuModuleFacts
from nondet_lint.families.kernels.reach import Implicit
from nondet_lint.families.kernels.ops import KernelOps
from nondet_lint.families.seeding.conditions import BoolOp, Compare, Not, Truthy, ValueDesc, ValueSource
from nondet_lint.families.seeding.events import NO_ARGS, CallArgs, EventKind, Guard, SeedingEvent, Trained
from nondet_lint.analysis.seedoption import ConfigNeed
from nondet_lint.families.seeding.facts import ClassFacts, FunctionFacts, ModuleSeeding, OptionFacts, OptionSeedBlocks, Origin, OriginKind
from nondet_lint.families.seeding.payloads import (
    Draw, LoaderCall, LoaderFactoryCall, RandomBefore, RandomStateCall, SamplerCall, SeedingPayload,
)
from nondet_lint.families.seeding.program import ClassTarget, FunctionTarget, ModuleTarget, Program
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.results import FileResult
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source
from nondet_lint.types import Edit

SOURCE = """\
import argparse
import os
import numpy as np
import tensorflow as tf
import torch

os.environ.update({"TF_DETERMINISTIC_OPS": "1"})

def train(seed):
    np.random.seed(seed)
    torch.rand(3).cuda()
    loss = model(x)
    loss.backward()

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train(args.seed)
"""


def stored() -> FileResult:
    """The file's result as pass 2 gets it: through its JSON form, as from a worker or the cache."""
    config = Config()
    rules = load_rules()
    result = analyze_source("train.py", decode_source(SOURCE.encode()), config, rules, selected_codes(config, rules), "train")
    return FileResult.from_dict(json.loads(json.dumps(result.to_dict())))


def test_the_facts_of_each_family_are_typed_and_read_back_from_their_json_form():
    facts = stored().facts
    stored_json = facts.to_json()
    assert FileFacts.from_json(json.loads(json.dumps(stored_json))).to_json() == stored_json
    gpu = facts.get(GpuModuleFacts)
    assert isinstance(gpu, GpuModuleFacts) and stored_json["gpu"] == gpu.to_json()
    assert gpu.frameworks == ("tensorflow", "torch")
    assert gpu.switches == {"tensorflow": "on"}
    assert (gpu.selects_gpu, gpu.differentiates, gpu.seeds) == ("`.cuda()`", True, True)
    assert facts.get(DataSeedingFacts) == DataSeedingFacts(seeded=("numpy",), tf_determinism=True)
    seeding = facts.get(ModuleSeeding)
    assert isinstance(seeding, ModuleSeeding)
    assert list(seeding.opts) == ["seed"] and seeding.opts["seed"] == OptionFacts(True, 0, seeding.opts["seed"].anchor)
    entry = facts.get(EntryFacts)
    assert entry is not None and entry.main_guard and not entry.script and "torch" in entry.imports
    assert KernelOps not in facts  # no op of the tables is called
    assert facts.to_json() == stored_json  # the values read back print their JSON form again


def test_stored_facts_are_compared_by_value_and_an_unknown_kind_is_refused_when_read():
    stored_json = stored().facts.to_json()
    once, twice = FileFacts.from_json(stored_json), FileFacts.from_json(json.loads(json.dumps(stored_json)))
    assert once == twice and GpuModuleFacts in once and KernelOps not in once
    changed = json.loads(json.dumps(stored_json))
    changed["gpu"]["frameworks"] = ["torch"]
    assert FileFacts.from_json(changed) != once
    with pytest.raises(KeyError, match="no-such-kind"):  # a cache entry of another shape is analyzed again
        FileFacts.from_json({**stored_json, "no-such-kind": {}})


def test_seeding_events_read_back_as_their_kinds():
    fns = stored().facts.get(ModuleSeeding).fns
    train = fns["train"]
    assert isinstance(train, FunctionFacts) and train.params == ("seed",)
    assert [event.kind for event in train.events] == [EventKind.SEED, EventKind.USE, EventKind.TRAINS]
    seed, use, _ = train.events
    assert (seed.rngs, seed.value, seed.without, seed.guards) == (("numpy",), ValueDesc(ValueSource.PARAMETER, "seed"), "entropy", ())
    assert (use.rng, use.guards) == ("torch", ())
    # a call into the module itself is written from the module; its argument is an option
    assert fns["<main>"].events == (SeedingEvent(EventKind.CALL, ".train", args=CallArgs((ValueDesc(ValueSource.OPTION, "seed"),), {})),)
    assert [event.kind for event in fns["<module>"].events] == [EventKind.MAIN_BLOCK]


PARAM, OPTION = ValueDesc(ValueSource.PARAMETER, "seed"), ValueDesc(ValueSource.OPTION, "seed")


def test_events_are_stored_in_their_short_form():
    """Each kind's JSON form is a list: its one-letter value, then its fields, with trailing
    empty ones left out; it reads back as the same event."""
    events = [
        (SeedingEvent(EventKind.CALL, ".f"), ["c", ".f"]),
        (SeedingEvent(EventKind.CALL, "pkg.g", bound=True), ["c", "pkg.g", 0, 0, 1]),
        (SeedingEvent(EventKind.CALL, "pkg.g", args=CallArgs((None, PARAM), {"k": OPTION}), guards=(Guard(Truthy(OPTION), 3),)),
         ["c", "pkg.g", [[None, ["p", "seed"]], {"k": ["o", "seed"]}], [[["truthy", ["o", "seed"]], 3]]]),
        (SeedingEvent(EventKind.USE, rng="numpy", cid=2), ["u", "numpy", 2]),
        (SeedingEvent(EventKind.USE, rng="numpy", cid=2, guards=(Guard(Not(Truthy(PARAM)), 1),)),
         ["u", "numpy", 2, [[["not", ["truthy", ["p", "seed"]]], 1]]]),
        (SeedingEvent(EventKind.USE, rng="torch", cid=0, guards=(Guard(BoolOp("or", None, Compare("is not", OPTION, None)), 5),)),
         ["u", "torch", 0, [[["or", None, ["cmp", "is not", ["o", "seed"], None]], 5]]]),
        (SeedingEvent(EventKind.WORKERS, cid=4), ["w", 4]),
        (SeedingEvent(EventKind.SEED, rngs=("python", "numpy"), cid=0, without="fixed"), ["s", ["python", "numpy"], 0, [], None, "fixed"]),
        (SeedingEvent(EventKind.SEED, rngs=("torch",), cid=1, value=ValueDesc(ValueSource.GLOBAL, "SEED"), without="entropy"),
         ["s", ["torch"], 1, [], ["g", "SEED"], "entropy"]),
        (SeedingEvent(EventKind.REFERENCE, ".cb"), ["r", ".cb"]),
        (SeedingEvent(EventKind.IMPORT, "pkg.data"), ["i", "pkg.data"]),
        (SeedingEvent(EventKind.RESEED, rngs=("torch",)), ["n", ["torch"]]),
        (SeedingEvent(EventKind.RESTORE, rngs=("numpy",)), ["x", ["numpy"]]),
        (SeedingEvent(EventKind.MAIN_BLOCK), ["m"]),
        (SeedingEvent(EventKind.TRAINS), ["t"]),
        (SeedingEvent(EventKind.TRAINS, trained=Trained.ARRAYS), ["t", 1]),
    ]
    for event, stored_form in events:
        assert event.to_json() == stored_form
        assert SeedingEvent.from_json(json.loads(json.dumps(stored_form))) == event
    assert SeedingEvent(EventKind.CALL, ".f", args=NO_ARGS).to_json() == ["c", ".f"]


def test_options_and_origins_are_stored_without_empty_parts():
    assert OptionFacts(True, None, 5).to_json() == {"d": ["k", None], "aid": 5}
    assert OptionFacts(False, None, 5, origin=0).to_json() == {"d": None, "aid": 5, "oid": 0}
    for option in (OptionFacts(True, None, 5), OptionFacts(False, None, 5, 0), OptionFacts(True, 3, 1)):
        assert OptionFacts.from_json(json.loads(json.dumps(option.to_json()))) == option
    literal = ValueDesc(ValueSource.LITERAL, literal=0)
    assert literal.to_json() == ["k", 0] and ValueDesc.from_json(["k", 0]) == literal
    source = Origin(0, OriginKind.SOURCE, what="time.time", anchor=7, guards=(Guard(Truthy(ValueDesc(ValueSource.OPTION, "a")), 2),), sunk=True)
    draw = Origin(1, OriginKind.DRAW, rng="numpy", cid=3)
    assert source.to_json() == {"id": 0, "kind": "src", "flows": [], "sunk": True, "what": "time.time", "aid": 7,
                                "guards": [[["truthy", ["o", "a"]], 2]]}
    assert draw.to_json() == {"id": 1, "kind": "draw", "flows": [], "sunk": False, "rng": "numpy", "cid": 3}
    fallback = Origin(2, OriginKind.SOURCE, what="time.time", anchor=9, function="Agent.__init__")
    assert fallback.to_json()["fn"] == "Agent.__init__"
    for origin in (source, draw, fallback):
        assert Origin.from_json(json.loads(json.dumps(origin.to_json()))) == origin
    assert FunctionFacts().to_json() == {"ev": []}


def test_method_units_keep_what_they_read_typed_through_json():
    source = (
        "import threading\nimport torch\n\n\nclass Worker(threading.Thread):\n    def run(self):\n"
        "        for batch in self.queue:\n            self.model(batch.cuda())\n\n\nWorker().start()\n"
    )
    config, rules = Config(), load_rules()
    result = analyze_source("work.py", decode_source(source.encode()), config, rules, selected_codes(config, rules), "work")
    gpu = FileResult.from_dict(json.loads(json.dumps(result.to_dict()))).facts.get(GpuModuleFacts)
    assert isinstance(gpu, GpuModuleFacts) and gpu == result.facts.get(GpuModuleFacts)
    assert list(gpu.units) == ["", "Worker", "Worker.run"]
    run = gpu.units["Worker.run"]
    assert (run.selects_gpu, run.reads, run.self_reads) == ("`.cuda()`", ("cuda",), ("model", "queue"))
    assert run.implicit == (Implicit.CALL, Implicit.ITERATE)
    assert gpu.units["Worker"].bases == ("threading.Thread",)
    assert gpu.units[""].reads == ("start",) and gpu.units[""].refs == (".Worker",)


def test_seed_blocks_are_edits_and_the_option_blocks_say_where_the_option_is_known():
    seeding = stored().facts.get(ModuleSeeding)
    assert seeding.blocks["numpy"] == (Edit(6, 0, 6, 0, "\nnp.random.seed(0)\n"),)
    assert len(seeding.blocks) == 15  # every set of python, numpy, torch, tf
    option = seeding.option_blocks
    assert isinstance(option, OptionSeedBlocks) and (option.function, option.value, option.needs) == ("", "args.seed", None)
    assert option.blocks["numpy"] == (Edit(19, 0, 19, 0, "    np.random.seed(args.seed)\n"),)
    stored_form = seeding.to_json()["option_blocks"]
    assert list(stored_form) == ["fn", "value", "blocks"]
    assert stored_form["blocks"]["numpy"] == [{"line": 19, "column": 1, "end_line": 19, "end_column": 1, "content": "    np.random.seed(args.seed)\n"}]
    needs = ConfigNeed("pkg.config", "", "Config", "seed")
    with_needs = OptionSeedBlocks("main", "cfg.seed", {"torch": (Edit(3, 4, 3, 4, "torch.manual_seed(cfg.seed)\n"),)}, needs)
    assert with_needs.to_json()["needs"] == {"module": "pkg.config", "path": "", "name": "Config", "field": "seed"}
    assert OptionSeedBlocks.from_json(json.loads(json.dumps(with_needs.to_json()))) == with_needs


def test_classes_are_stored_with_their_bases_and_methods():
    source = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    config, rules = Config(), load_rules()
    result = analyze_source("net.py", decode_source(source.encode()), config, rules, selected_codes(config, rules), "net")
    seeding = result.facts.get(ModuleSeeding)
    assert seeding.classes == {"Net": ClassFacts(["torch.nn.Module"], ["forward"])}
    assert seeding.to_json()["classes"] == {"Net": {"bases": ["torch.nn.Module"], "methods": ["forward"]}}
    assert FileResult.from_dict(json.loads(json.dumps(result.to_dict()))).facts.get(ModuleSeeding) == seeding


def test_candidate_payloads_keep_their_short_form_and_read_back_by_code():
    """A payload is its index, then its values' own keys; the code says which kind it is."""
    payloads = [
        ("ND101", SeedingPayload(3, Draw()), {"cid": 3}),
        ("ND105", SeedingPayload(3, Draw(built=True)), {"cid": 3, "built": 1}),
        ("ND102", SeedingPayload(4, Draw(seed_value=True, origin=0)), {"cid": 4, "seed_value": True, "oid": 0}),
        ("ND107", SeedingPayload(4, Draw(seed_value=True, origin=1)), {"cid": 4, "seed_value": True, "oid": 1}),
        ("ND101", SeedingPayload(5), {"cid": 5, "anchor": True}),
        ("ND108", SeedingPayload(0, RandomStateCall("KMeans", "with these arguments", "omitted")),
         {"cid": 0, "name": "KMeans", "why": "with these arguments", "state": "omitted"}),
        ("ND109", SeedingPayload(1, LoaderCall(None)), {"cid": 1, "workers": None}),
        ("ND109", SeedingPayload(1, LoaderCall("data.Set", only_workers=True)), {"cid": 1, "workers": "data.Set", "only_workers": True}),
        ("ND109", SeedingPayload(2, LoaderFactoryCall("create_loader", "is_training")),
         {"cid": 2, "factory": "create_loader", "when": "is_training"}),
        ("ND110", SeedingPayload(6, SamplerCall("RandomSampler")), {"cid": 6, "name": "RandomSampler"}),
        ("ND107", SeedingPayload(7, RandomBefore("lightning", "2.0", ("1.9.5",), "seed_everything", "no value")),
         {"cid": 7, "random_before": ["lightning", "2.0", ["1.9.5"]], "name": "seed_everything", "given": "no value"}),
    ]
    for code, payload, stored_form in payloads:
        assert payload.to_json() == stored_form and list(payload.to_json()) == list(stored_form)
        assert SeedingPayload.from_json(code, json.loads(json.dumps(stored_form))) == payload


def test_pass_two_names_what_a_call_target_is():
    modules = {
        "pkg/__init__.py": "",
        "pkg/model.py": "class Net:\n    def __init__(self):\n        pass\n\n    def fit(self):\n        pass\n\n\ndef build():\n    return Net()\n",
    }
    config, rules = Config(), load_rules()
    facts = {}
    for path, text in modules.items():
        name = path[:-3].replace("/", ".").replace(".__init__", "")
        facts[path] = analyze_source(path, decode_source(text.encode()), config, rules, selected_codes(config, rules), name).facts
    names = {"pkg": ["pkg/__init__.py"], "pkg.model": ["pkg/model.py"], "model": ["pkg/model.py"]}
    program = Program(facts, {"pkg/__init__.py": "pkg", "pkg/model.py": "pkg.model"}, names, (), "keras")
    assert program.lookup("pkg.model.build", "") == FunctionTarget(("pkg/model.py", "build"), False)
    assert program.lookup("pkg.model.Net", "") == ClassTarget("pkg/model.py", "Net")
    assert program.lookup("pkg.model.Net.fit", "") == FunctionTarget(("pkg/model.py", "Net.fit"), False)
    assert program.lookup("pkg.model", "") == ModuleTarget("pkg/model.py")
    assert program.lookup("pkg.model.missing", "") is None
    [callee] = program.callees("pkg.model.Net", "")
    assert (callee.key, callee.bound, callee.instantiated) == (("pkg/model.py", "Net.__init__"), True, ClassTarget("pkg/model.py", "Net"))
