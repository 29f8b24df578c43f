"""Programs run what their default configuration selects: a builder chosen by a config
object's field (``if config.type == "large":``) runs only where the value the default run
gives that field (the option passed to the config class, else the field's declared
default) chooses it; options read with ``getattr``; early returns; speed benchmarks timed
with ``torch.utils.benchmark``; a training program keeps the uses it runs through a callback."""

from __future__ import annotations

from fixture_projects import FIXTURES

CASE = FIXTURES / "seeding" / "config_selects_builder"
PROJECT = {path.name: path.read_text(encoding="utf-8") for path in CASE.glob("*.py")}
MESSAGE = (
    "Keras 3 default seed generator used here with no `keras.utils.set_random_seed` before it "
    "(entry point train.py never seeds it)"
)


def nd1(lint, files, select=("ND1",)):
    return [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1, f.code, f.message)
            for f in lint(files, {"select": list(select)}) if f.code.startswith("ND1")]


def test_the_builder_the_option_default_selects_is_judged_alone(lint):
    assert nd1(lint, PROJECT) == [("large.py", 7, 22, "ND105", MESSAGE + "; 1 more unseeded use in this module")]


def test_another_option_default_selects_the_other_builder(lint):
    files = {**PROJECT, "train.py": PROJECT["train.py"].replace('default="large"', 'default="small"')}
    assert nd1(lint, files) == [("small.py", 7, 22, "ND105", MESSAGE)]


def test_a_field_the_call_leaves_out_holds_the_declared_default(lint):
    files = {**PROJECT, "train.py": PROJECT["train.py"].replace("configs.EncoderConfig(type=encoder)", "configs.EncoderConfig()")}
    assert nd1(lint, files) == [("small.py", 7, 22, "ND105", MESSAGE)]


def test_a_config_changed_after_it_was_made_runs_every_builder(lint):
    changed = PROJECT["train.py"].replace("    return config\n", "    config.type = encoder.lower()\n    return config\n")
    found = nd1(lint, {**PROJECT, "train.py": changed})
    assert [(path, line, code) for path, line, _, code, _ in found] == [("large.py", 7, "ND105"), ("small.py", 7, "ND105")]


def test_a_config_read_from_a_file_runs_every_builder(lint):
    unknown = PROJECT["train.py"].replace("configs.EncoderConfig(type=encoder)", "configs.EncoderConfig(type=open(encoder).read())")
    found = nd1(lint, {**PROJECT, "train.py": unknown})
    assert [(path, line, code) for path, line, _, code, _ in found] == [("large.py", 7, "ND105"), ("small.py", 7, "ND105")]


def test_a_branch_that_returns_guards_the_rest_of_the_function(lint):
    returning = PROJECT["configs.py"].replace(
        '    if encoder_type == "small":\n        return small.SmallEncoder(config.width)\n',
        '    if encoder_type == "large":\n        encoder = large.LargeEncoder(config.width)\n        return encoder\n'
        '    if config.width > 0:\n        return small.SmallEncoder(config.width)\n',
    )
    assert nd1(lint, {**PROJECT, "configs.py": returning}) == [("large.py", 7, 22, "ND105", MESSAGE + "; 1 more unseeded use in this module")]


SAMPLE = """
import argparse
import random

from sklearn.linear_model import LinearRegression

def get_files(args):
    files = ["a", "b", "c"]
    if getattr(args, "sample_pct", 0) > 0:
        files = random.sample(files, 2)
    return files

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample-pct", type=float, default=0)
    args = parser.parse_args()
    files = get_files(args)
    LinearRegression().fit([[len(name)] for name in files], list(range(len(files))))

if __name__ == "__main__":
    main()
"""


def test_an_option_read_with_getattr_off_by_default_guards_its_draw(lint):
    assert nd1(lint, {"train.py": SAMPLE}) == []


def test_an_option_read_with_getattr_on_by_default_keeps_its_draw(lint):
    found = nd1(lint, {"train.py": SAMPLE.replace("default=0)", "default=0.5)")})
    assert [(path, line, col, code) for path, line, col, code, _ in found] == [("train.py", 9, 17, "ND101")]
    assert found[0][4] == "Python `random` module RNG used here with no `random.seed` before it (this program never seeds it)"


BENCHMARK = """
import random
import torch
from torch.utils import benchmark

def main():
    random.seed(0)
    x = torch.randn(64, 64)
    timer = benchmark.Timer(stmt="x @ x", globals={"x": x})
    print(timer.blocked_autorange())

if __name__ == "__main__":
    main()
"""


def test_a_speed_benchmark_timed_with_torch_utils_benchmark_does_not_matter(lint):
    assert nd1(lint, {"benchmarks/matmul.py": BENCHMARK}) == []


def test_a_benchmark_folder_script_without_a_clock_still_matters(lint):
    untimed = BENCHMARK.replace('    timer = benchmark.Timer(stmt="x @ x", globals={"x": x})\n    print(timer.blocked_autorange())\n',
                                "    torch.nn.Linear(64, 64)(x).sum().backward()\n")
    found = nd1(lint, {"benchmarks/matmul.py": untimed})
    assert [(path, line, col, code) for path, line, col, code, _ in found] == [("matmul.py", 7, 9, "ND104")]


CALLBACK = {
    "layers.py": """
        import torch

        def make_head():
            return torch.nn.Linear(4, 2)
    """,
    "train.py": """
        import torch
        import layers

        def run(model_fn):
            model = model_fn()
            torch.optim.SGD(model.parameters(), lr=0.1).step()

        if __name__ == "__main__":
            run(layers.make_head)
    """,
    "export.py": """
        import random
        import torch
        import layers

        if __name__ == "__main__":
            random.seed(0)
            torch.save(layers.make_head().state_dict(), "head.pt")
    """,
}


def test_a_use_a_training_program_runs_through_a_callback_stays_its_own(lint):
    found = nd1(lint, CALLBACK)
    assert [(path, line, col, code) for path, line, col, code, _ in found] == [("layers.py", 4, 12, "ND104")]
    assert "(entry point train.py never seeds it)" in found[0][4]


SEED_FIELD = """
import dataclasses
from typing import Optional

import torch


@dataclasses.dataclass
class Config:
    seed: Optional[int] = None
    width: int = 4


def train(config):
    if config.seed is not None:
        torch.manual_seed(config.seed)
    model = torch.nn.Linear(config.width, 1)
    model(torch.ones(1, config.width)).sum().backward()


def main():
    train(Config(width=8))


if __name__ == "__main__":
    main()
"""


def test_a_seed_field_a_config_leaves_at_none_is_seeding_off_by_default(lint):
    assert nd1(lint, {"train.py": SEED_FIELD}) == [
        ("train.py", 14, 8, "ND106", "the seeding under this condition does not run by default (`config.seed` is None by default), "
                                     "so the run people launch is unseeded; give the option a constant default"),
        ("train.py", 16, 13, "ND104", "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it only "
                                      "when an option is set: `config.seed` is None by default (train.py:14))"),
    ]


def test_a_seed_field_the_config_call_sets_seeds(lint):
    assert nd1(lint, {"train.py": SEED_FIELD.replace("Config(width=8)", "Config(seed=0, width=8)")}) == []
