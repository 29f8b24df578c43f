"""What pass 1 hands to pass 2 is typed; the stored facts are exactly its JSON form."""

from __future__ import annotations

import json
import textwrap

from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.analysis.entrypoints import EntryFacts
from nondet_lint.facts import FileFacts
from nondet_lint.families.data.split import DataSeedingFacts
from nondet_lint.families.kernels.gpu import GpuModuleFacts
from nondet_lint.families.kernels.reach import Implicit
from nondet_lint.families.kernels.ops import KernelOps
from nondet_lint.families.seeding.events import Event
from nondet_lint.families.seeding.state import ModuleSeeding
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.results import FileResult
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source

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
    assert list(seeding.opts) == ["seed"] and seeding.opts["seed"]["d"] == ["k", 0]
    entry = facts.get(EntryFacts)
    assert entry is not None and entry.main_guard and not entry.script and "torch" in entry.imports
    assert KernelOps not in facts  # no op of the tables is called


def test_seeding_events_read_back_as_their_kinds():
    fns = stored().facts.get(ModuleSeeding).fns
    kinds = [Event(event[0]) for event in fns["train"]["ev"]]
    assert kinds == [Event.SEED, Event.USE, Event.TRAINS]
    assert [Event(event[0]) for event in fns["<main>"]["ev"]] == [Event.CALL]
    assert [Event(event[0]) for event in fns["<module>"]["ev"]] == [Event.MAIN_BLOCK]
    assert Event.SEED == "s" and json.dumps([Event.USE]) == '["u"]'  # the stored form is the value


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
