"""What a program runs, for the seeding rules: objects whose constructor decides whether
they seed (``DQN(env)`` leaves ``seed=None``), methods called on an object the caller made,
and factories handed on as values (``Runner(create_agent)``).  Each case is a fixture
project under ``tests/fixtures/seeding``; these tests pin the messages and the fixes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List

import pytest

from conftest import write_project
from fixture_projects import FIXTURES, lint_case
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run
from nondet_lint.types import Finding

SELECT = ["ND1"]


def findings(name: str, root: Path) -> List[Finding]:
    lint_case(FIXTURES / "seeding" / name, root, SELECT)
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(root))
    return sorted(run([str(root)], config).findings, key=lambda f: (f.path, f.line, f.col))


def where(finding: Finding, root: Path) -> tuple:
    return (Path(finding.path).relative_to(root).as_posix(), finding.line, finding.col + 1, finding.code)


def edits(finding: Finding, root: Path) -> List[tuple]:
    """The fix's insertions: (file, line, text); a library module's finding carries its
    entry point's seed block."""
    assert finding.fix is not None
    return [(Path(e.path).relative_to(root).as_posix(), e.line, e.content) for e in finding.fix.edits]


def test_a_constructor_left_without_its_seed_seeds_nothing(tmp_path):
    # DQN(env) keeps seed=None in self.seed; setup_model's self.set_random_seed(self.seed)
    # returns early, so the buffer's draw runs unseeded
    [found] = findings("object_attributes", tmp_path)
    assert where(found, tmp_path) == ("rl/buffers.py", 12, 17, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )
    assert found.fix.title == "Insert a seed block after the imports of train.py"
    assert edits(found, tmp_path) == [("train.py", 2, "import random\n"), ("train.py", 4, "\nrandom.seed(0)\n")]


def test_a_constructor_given_a_seed_seeds_through_its_methods(tmp_path):
    # the same program with DQN(env, seed=0): set_random_seed(self.seed) seeds
    assert findings("object_attributes_seeded", tmp_path) == []


def test_a_branch_on_an_attribute_is_decided_by_the_constructor_arguments(tmp_path):
    # model.learn() runs on the object main made: prioritized_replay is False, so the
    # prioritized buffer (a NumPy draw) is never built and nothing is reported for it
    codes = {f.code for f in findings("object_attributes", tmp_path)}
    assert "ND102" not in codes


def test_a_factory_handed_to_a_runner_makes_the_program_a_training_one(tmp_path):
    [found] = findings("factory_trains", tmp_path)
    assert where(found, tmp_path) == ("agents/dqn.py", 16, 12, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it "
        "(entry point train.py never seeds it); 1 more unseeded use in this module"
    )
    assert edits(found, tmp_path) == [("train.py", 1, "import random\n\n"), ("train.py", 4, "\nrandom.seed(0)\n")]



def test_a_dataset_parameter_shuffled_with_a_seed_left_none_draws_from_the_global_seed(tmp_path):
    # preprocess(dataset, ..., seed=None): `dataset.shuffle(n, seed=seed)` on a parameter of a
    # TensorFlow module is a tf.data shuffle; every caller leaves seed at None and the program
    # seeds only JAX; `rng.shuffle(examples)` on a parameter named otherwise is not reported
    [found] = findings("dataset_parameter", tmp_path)
    assert where(found, tmp_path) == ("input_pipeline.py", 6, 19, "ND105")
    assert found.message == (
        "TensorFlow global seed used here with no `tf.random.set_seed` before it (entry point train.py never seeds it)"
    )


def test_a_dataset_parameter_shuffled_with_a_seed_its_caller_gives_is_seeded(tmp_path):
    assert findings("dataset_parameter_seeded", tmp_path) == []


def test_a_class_handed_on_as_a_value_is_made_by_whoever_holds_it(tmp_path):
    # DQN(policy=MlpPolicy) keeps the class; learn() calls self.policy_class(self.env), so
    # MlpPolicy.__init__ draws its weights in this program
    [found] = findings("class_as_value", tmp_path)
    assert where(found, tmp_path) == ("rl/policies.py", 7, 25, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_class_only_checked_with_issubclass_is_not_made(tmp_path):
    assert findings("class_as_value_inspected", tmp_path) == []


def test_a_config_parameter_seed_field_left_at_its_none_default_leaves_the_shuffle_unseeded(tmp_path):
    # InputReader(params: DataConfig) stores params.seed; whatever the caller passes is
    # unknown, so the field holds its declared default, None: shuffle(seed=None)
    [found] = findings("config_field_seed", tmp_path)
    assert where(found, tmp_path) == ("input_reader.py", 13, 16, "ND105")
    assert found.message == (
        "TensorFlow global seed used here with no `tf.random.set_seed` before it (entry point train.py never seeds it)"
    )


def test_a_config_parameter_seed_field_with_a_default_seeds_the_shuffle(tmp_path):
    assert findings("config_field_seed_set", tmp_path) == []


def test_a_definition_a_decorator_files_in_a_registry_runs_when_the_program_looks_it_up(tmp_path):
    # @task_factory.register_task_cls(Config) stores the class (registry.register's inner
    # decorator: collection[key] = fn_or_cls); get_task, in the same module, finds it
    [found] = findings("decorator_registry", tmp_path)
    assert where(found, tmp_path) == ("tasks/classification.py", 17, 9, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_registry_holds_only_what_the_program_imported(tmp_path):
    assert findings("decorator_registry_not_imported", tmp_path) == []


def test_a_closure_of_a_method_reads_the_object_of_the_method_that_hands_it_on(tmp_path):
    [found] = findings("config_field_seed_closure", tmp_path)
    assert where(found, tmp_path) == ("input_reader.py", 15, 20, "ND105")


def test_a_seed_drawn_through_a_helper_of_the_module_is_reported_where_the_helper_is_called(tmp_path):
    _, found = findings("seed_from_helper_draw", tmp_path)
    assert where(found, tmp_path) == ("pipeline.py", 14, 20, "ND107")
    assert found.message == (
        "this draw from the Python `random` module RNG runs before anything seeds that RNG, and its result is used "
        "as a seed; use a fixed value (log it if it varies on purpose)"
    )


def test_a_seed_drawn_through_a_helper_after_random_is_seeded_is_repeatable(tmp_path):
    assert findings("seed_from_helper_draw_seeded", tmp_path) == []


def test_a_config_the_object_holds_decides_its_methods_branches_by_its_defaults(tmp_path):
    # Reader(params: DataConfig) keeps params in self._params; read() tests
    # self._params.shuffle, augment() self.params.augment through a property: both True
    [found] = findings("config_on_object", tmp_path)
    assert where(found, tmp_path) == ("reader.py", 16, 13, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
        "; 1 more unseeded use in this module"
    )


def test_a_config_the_object_holds_leaves_off_the_branches_its_defaults_turn_off(tmp_path):
    assert findings("config_on_object_off", tmp_path) == []


def test_a_private_method_runs_where_its_class_calls_it(tmp_path):
    # Reader(synthetic=True): read(), which the Trainer holding it calls later, calls _fake
    [found] = findings("private_method", tmp_path)
    assert where(found, tmp_path) == ("reader.py", 14, 21, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_private_method_its_class_calls_only_under_an_option_left_off_is_not_run(tmp_path):
    assert findings("private_method_off", tmp_path) == []


def test_a_config_annotated_parameter_is_not_an_option_of_another_program(tmp_path):
    # params.task in train.py is not preprocess.py's --task (default 0): Task's params is
    # a TaskConfig, whose synthetic field is False by default
    assert findings("config_misread_option", tmp_path) == []


def test_a_static_method_called_on_each_registered_class_makes_none_of_them(tmp_path):
    # add_model_args calls MODEL_REGISTRY[name].add_args(parser) before the seed; Mlp is
    # made by build_model after torch.manual_seed, so its weights are seeded
    assert findings("registry_class_method", tmp_path) == []


def test_a_registered_class_called_before_the_seed_draws_unseeded(tmp_path):
    # add_model_args calls MODEL_REGISTRY[name](16): an Mlp is made before the seed
    [found] = findings("registry_class_made_early", tmp_path)
    assert where(found, tmp_path) == ("models/mlp.py", 10, 42, "ND104")
    assert found.message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it "
        "(entry point train.py seeds it only later, at train.py:13)"
    )


def test_a_parameter_rebound_in_a_branch_the_default_run_skips_keeps_its_argument(tmp_path):
    # benchmark(data) rebinds shuffle/seed only under `if one_per_dataset:` (False by
    # default, inside an `if isinstance(...)` the analysis cannot read): after the branch the
    # scenario gets the caller's seed (None here), so the seed under `if seed is not None`
    # does not run; the branch's `seed = None` is not the value everywhere.  The seed is a
    # parameter of the library's API that the caller leaves at None: no ND106 there, the
    # caller's unseeded draws are reported
    found = findings("branch_rebinds_parameter", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("bench/scenario.py", 11, 26, "ND104"), ("train.py", 8, 13, "ND104")]
    assert found[1].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it only when an "
        "option is set: `seed` is None by default (bench/scenario.py:9))"
    )


def test_a_parameter_rebound_in_a_branch_the_default_run_skips_passes_the_seed_on(tmp_path):
    # the same program with benchmark(data, seed=1234): the scenario seeds torch before the
    # model is built (before the fix, `shuffle = False` in the branch was read as the value
    # passed on, and the seed was taken as off)
    assert findings("branch_rebinds_parameter_seeded", tmp_path) == []


def test_a_random_transform_in_a_program_that_never_seeds_is_reported(tmp_path):
    # RandomCrop is the module's first unseeded use when the default run never seeds torch
    # (benchmark's seed is left None); the layer is the second
    found = findings("transform_never_seeded", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("bench/generators.py", 9, 13, "ND104"), ("train.py", 8, 26, "ND104")]
    assert found[1].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it only when an "
        "option is set: `seed` is None by default (bench/generators.py:7)); 1 more unseeded use in this module"
    )


def test_a_random_transform_made_before_a_later_seed_draws_nothing_then(tmp_path):
    # benchmark(..., seed=1234) seeds torch after RandomCrop(...) is made and before the data
    # is iterated: making the transform draws nothing, so only the layer made before the seed
    # is reported (and no "more" use); the library's import-time default transform is not
    found = findings("transform_seeded_later", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("train.py", 9, 15, "ND104")]
    assert found[0].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it only later, "
        "at bench/generators.py:8)"
    )


def test_a_seed_under_an_environment_variable_is_off_by_default_and_the_smoke_branch_does_not_run(tmp_path):
    # the default run sets no environment variable: `smoke_test = ("CI" in os.environ)` is
    # False, so the draw of the CI branch is not the module's first use; the seed under
    # `os.getenv("SEED") is not None` does not run, and the message says why
    found = findings("ci_smoke_branch", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("train.py", 13, 8, "ND106"), ("train.py", 15, 13, "ND104")]
    assert found[1].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it only when an "
        "option is set: `SEED` is not set in the environment by default (train.py:13))"
    )


def test_draws_only_in_a_ci_smoke_test_branch_are_not_reported(tmp_path):
    # the only draws sit under `if smoke_test:` and `if "CI" in os.environ:`: the default
    # run takes neither
    assert findings("ci_smoke_branch_only", tmp_path) == []


def test_a_class_that_rebinds_an_imported_name_is_the_one_made(tmp_path):
    # `class DeepGP(DeepGP):` subclasses the imported DeepGP under its own name: the main
    # block's `DeepGP(...)` makes the module's class, whose hidden layer draws its inducing
    # points (in the branch its `out=2` argument takes)
    found = findings("class_rebinds_import", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("train.py", 10, 22, "ND104")]
    assert found[0].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (this program never seeds it)"
    )


def test_a_draw_that_stands_in_for_a_missing_seed_runs_when_the_caller_gives_none(tmp_path):
    # `seed = seed or random.randint(...)` draws only when the argument is falsy: the
    # caller passes seed=None, so it draws, and nothing seeds Python's RNG
    [found] = findings("seed_or_draw", tmp_path)
    assert where(found, tmp_path) == ("lib/streams.py", 5, 20, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_draw_that_stands_in_for_a_missing_seed_does_not_run_when_the_caller_gives_one(tmp_path):
    # the same call given seed=10: the right side of `or` never runs (the parameter read on
    # the right of its own rebinding is still the argument)
    assert findings("seed_or_draw_given", tmp_path) == []


def test_a_seed_parameter_an_option_left_at_none_reaches_is_off_by_default(tmp_path):
    # shuffled(10, args.seed) with `--seed` defaulting to None: the run's option, not a
    # caller of an API, leaves the function's own seed off
    found = findings("api_seed_option_unset", tmp_path)
    assert [where(f, tmp_path) for f in found] == [
        ("lib/seeding.py", 5, 8, "ND106"), ("lib/seeding.py", 7, 12, "ND104"), ("train.py", 13, 13, "ND104"),
    ]
    assert found[0].message == (
        "the seeding under this condition does not run by default (`seed` is None by default), so the run people "
        "launch is unseeded; give the option a constant default"
    )


def test_a_seed_parameter_of_the_entry_points_own_function_is_off_by_default(tmp_path):
    # main(seed=None) in the entry module itself: its default is the run's
    found = findings("api_seed_entry_function", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("train.py", 5, 8, "ND106"), ("train.py", 7, 13, "ND104")]


def test_a_method_only_the_tests_call_does_not_run_in_the_training_program(tmp_path):
    # generate_samples (and generate_z, which only it calls) is a method of the project's
    # API: the tests call it by name, train.py never names it.  jitter, which no code names,
    # may be a framework's hook: it runs once the object is made
    found = findings("api_method_named_near", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("lib/model.py", 19, 16, "ND101")]
    assert found[0].message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_method_the_program_calls_by_name_runs_with_what_it_calls(tmp_path):
    found = findings("api_method_named_positive", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("lib/model.py", 13, 16, "ND102"), ("lib/model.py", 19, 16, "ND101")]
    assert found[0].message == (
        "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_seeding_helper_called_with_no_seed_is_off_by_default(tmp_path):
    # set_seed() seeds for the program, not for draws of its own: leaving its seed at None
    # leaves the run unseeded
    found = findings("api_seed_helper_no_seed", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("lib/seeding.py", 5, 8, "ND106"), ("train.py", 8, 13, "ND104")]


def test_a_method_a_dispatcher_looks_up_by_a_string_runs(tmp_path):
    # before_epoch is named by the project (super().before_epoch()), so it is a method of its
    # API; the program names it in a string that getattr looks up
    found = findings("api_method_named_by_string", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("lib/plugins.py", 12, 16, "ND102")]
    assert found[0].message == (
        "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_key_fallback_of_a_module_run_through_apply_is_the_callers(tmp_path):
    # QNetwork.__call__ makes a key from the clock only when called without one; the
    # project never calls it itself (flax runs it through init / apply, given key=)
    assert findings("key_fallback_apply", tmp_path) == []


def test_a_seed_fallback_a_call_leaves_at_its_default_is_reported(tmp_path):
    # create_agent(4) keeps seed=None and passes it on: Agent seeds its key from the clock
    [found] = findings("key_fallback_omitted", tmp_path)
    assert where(found, tmp_path) == ("agent.py", 9, 20, "ND107")
    assert found.message == (
        "`time.time()` changes from run to run and is used as a seed, so the seed itself differs every run; "
        "use a fixed value (log it if it varies on purpose)"
    )


def test_a_seed_fallback_every_call_turns_off_is_not_reported(tmp_path):
    # the same Agent, made by create_agent with seed=0: the fallback never runs
    assert findings("key_fallback_given", tmp_path) == []


def test_a_local_bound_to_a_test_is_decided_by_the_config_defaults(tmp_path):
    # is_repeated = params.is_training and params.repeated_augment is not None: False with
    # DataConfig's defaults, so the draw it guards never runs
    assert findings("local_test_off", tmp_path) == []


def test_a_local_bound_to_a_test_that_holds_by_default_keeps_the_use(tmp_path):
    # the same code with repeated_augment = 2 by default: the draw runs unseeded
    [found] = findings("local_test_on", tmp_path)
    assert where(found, tmp_path) == ("inputs.py", 9, 17, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_method_of_a_plain_class_that_nothing_names_does_not_run(tmp_path):
    # DataLoader derives from object: no framework calls random_sample, and no code names
    # it; random_batch, which train.py calls, runs unseeded
    [found] = findings("plain_class_unnamed_method", tmp_path)
    assert where(found, tmp_path) == ("loader.py", 12, 16, "ND101")
    assert found.message == (
        "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"
    )


def test_a_class_method_makes_the_class_it_is_called_on(tmp_path):
    # Net.from_config runs Base.from_config, whose super().build(...) runs Root.build:
    # its cls(size) makes a Net, whose layer draws unseeded
    [found] = findings("classmethod_factory", tmp_path)
    assert where(found, tmp_path) == ("models.py", 23, 19, "ND104")
    assert found.message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (entry point train.py never seeds it)"
    )


def factory_program(root: Path, train: str) -> List[Finding]:
    """The classmethod_factory project with another entry point."""
    shutil.copytree(FIXTURES / "seeding" / "classmethod_factory", root)
    (root / "train.py").write_text(train, encoding="utf-8")
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(root))
    return run([str(root)], config).findings


TRAIN_TAIL = "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel(torch.ones(2, 4)).sum().backward()\nopt.step()\n"


def test_near_miss_a_class_method_called_on_a_class_that_draws_nothing(tmp_path):
    # Plain.from_dataset (through cls.build) makes a Plain, not a Net
    train = "import torch\nfrom models import Plain\n\nmodel = Plain.from_dataset(4)\n" + TRAIN_TAIL
    assert factory_program(tmp_path / "plain", train) == []


def test_near_miss_a_class_method_factory_after_the_seed(tmp_path):
    train = "import torch\nfrom models import Net\n\ntorch.manual_seed(0)\nmodel = Net.from_dataset(4)\n" + TRAIN_TAIL
    assert factory_program(tmp_path / "seeded", train) == []


def test_objects_made_before_the_seed_draw_where_their_locals_are_first_read(tmp_path):
    # Memory(...) and NormalNoise(...) are made before the seed; their methods draw only in
    # training.train, which gets them after it: only the layer, which draws its weights when
    # it is made, is reported
    found = findings("objects_used_after_seed", tmp_path)
    assert [where(f, tmp_path) for f in found] == [("main.py", 14, 13, "ND104")]


_OBJECT_FILES = {
    "agent/__init__.py": "",
    "agent/memory.py": (
        "import numpy as np\n\n\nclass Memory(object):\n    def __init__(self, limit):\n        self.limit = limit\n\n"
        "    def sample(self, batch_size):\n        return np.random.randint(0, self.limit, size=batch_size)\n"
    ),
    "agent/training.py": "def train(memory):\n    for _ in range(3):\n        memory.sample(4)\n",
}
_RUN = (
    "import numpy as np\n\nfrom agent import training\nfrom agent.memory import Memory\n\n\n"
    "def warm_up(memory):\n    memory.sample(8)\n\n\n"
    "def run(seed):\n{body}\n    training.train(memory=memory)\n\n\nif __name__ == \"__main__\":\n    run(0)\n"
)


@pytest.mark.parametrize("body, seed_line", [
    # the object's method is called before the seed
    ("    memory = Memory(100)\n    memory.sample(8)\n    np.random.seed(seed)", 14),
    # the object is handed to a function that calls it, before the seed
    ("    memory = Memory(100)\n    warm_up(memory)\n    np.random.seed(seed)", 14),
    # a function defined inside, before the seed, hands it on (and runs before the seed)
    ("    memory = Memory(100)\n\n    def hook():\n        warm_up(memory)\n\n    hook()\n    np.random.seed(seed)", 18),
    # in a loop, the round before made the object that this round reads above its making
    ("    memory = None\n    for _ in range(2):\n        if memory is not None:\n            memory.sample(8)\n"
     "        memory = Memory(100)\n    np.random.seed(seed)", 17),
])
def test_an_object_read_before_the_seed_still_draws_unseeded(tmp_path, body, seed_line):
    files = {**_OBJECT_FILES, "main.py": _RUN.format(body=body)}
    root = tmp_path / "project"
    write_project(root, files)
    config = Config(**parse_table({"select": ["ND102"]}, "fixture"), root=str(root))
    [found] = run([str(root)], config).findings
    assert where(found, root) == ("agent/memory.py", 9, 16, "ND102")
    assert found.message == (
        "NumPy global RNG used here with no `np.random.seed` before it "
        f"(entry point main.py seeds it only later, at main.py:{seed_line})"
    )
