"""What pass 1 hands to pass 2 is typed; the stored facts are exactly its JSON form."""

from __future__ import annotations

import json
import textwrap

from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.families.data.split import SEEDING_FACT, DataSeedingFacts
from nondet_lint.families.kernels.gpu import FACT as GPU_FACT, GpuModuleFacts
from nondet_lint.families.seeding.events import Event
from nondet_lint.families.seeding.state import FACT as SEEDING, ModuleSeeding
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


def test_the_facts_of_each_family_are_the_json_form_of_their_type():
    facts = stored().facts
    gpu = GpuModuleFacts.from_json(facts[GPU_FACT])
    assert gpu.to_json() == facts[GPU_FACT]
    assert gpu.frameworks == ("tensorflow", "torch")
    assert gpu.switches == {"tensorflow": "on"}
    assert (gpu.selects_gpu, gpu.differentiates, gpu.seeds) == ("`.cuda()`", True, True)
    data = DataSeedingFacts.from_json(facts[SEEDING_FACT])
    assert data == DataSeedingFacts(seeded=("numpy",), tf_determinism=True)
    assert data.to_json() == facts[SEEDING_FACT]
    seeding = ModuleSeeding.from_json(facts[SEEDING])
    assert seeding.to_json() == facts[SEEDING]
    assert list(seeding.opts) == ["seed"] and seeding.opts["seed"]["d"] == ["k", 0]


def test_seeding_events_read_back_as_their_kinds():
    fns = ModuleSeeding.from_json(stored().facts[SEEDING]).fns
    kinds = [Event(event[0]) for event in fns["train"]["ev"]]
    assert kinds == [Event.SEED, Event.USE, Event.TRAINS]
    assert [Event(event[0]) for event in fns["<main>"]["ev"]] == [Event.CALL]
    assert [Event(event[0]) for event in fns["<module>"]["ev"]] == [Event.MAIN_BLOCK]
    assert Event.SEED == "s" and json.dumps([Event.USE]) == '["u"]'  # the stored form is the value
