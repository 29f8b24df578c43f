"""ND109 with a computed ``shuffle=``: judged the way the default run goes."""

from __future__ import annotations

LOADERS = """
import argparse
import torch
from torch.utils.data import DataLoader, DistributedSampler

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--world", default=None)
    args = parser.parse_args()
    data = list(range(10))
    sampler = DistributedSampler(data) if args.distributed else None
    a = DataLoader(data, shuffle=(sampler is None), sampler=sampler)
    guarded = None
    if args.distributed:
        guarded = DistributedSampler(data)
    b = DataLoader(data, shuffle=guarded is None, sampler=guarded)
    always = DistributedSampler(data, shuffle=False)
    c = DataLoader(data, shuffle=(always is None), sampler=always)
    d = DataLoader(data, shuffle=not args.distributed)
    e = DataLoader(data, shuffle=args.world is not None)
    f = DataLoader(data, shuffle=is_train(data))
    for batch in a:
        torch.tensor(1.0, requires_grad=True).backward()

if __name__ == "__main__":
    main()
"""


def test_computed_shuffle_follows_the_default_run(lint):
    findings = [f for f in lint({"train.py": LOADERS}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == [(12, 9), (16, 9), (19, 9)]
    assert findings[0].message.startswith("`DataLoader` shuffles with the PyTorch global RNG: no `generator=` is passed")
    assert findings[0].fix is not None


def test_computed_shuffle_off_in_the_default_run_is_not_reported(lint):
    source = LOADERS.replace('action="store_true"', 'action="store_false"')
    findings = [f for f in lint({"train.py": source}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == []


AUGMENT = {
    "aug.py": (
        "import numpy as np\n"
        "def _uniform(low, high):\n"
        "    return np.random.uniform(low, high)\n"
        "def effect_generator(contrast=(0.9, 1.1)):\n"
        "    while True:\n"
        "        yield _uniform(*contrast)\n"
    ),
    "train.py": (
        "import argparse\n"
        "import torch\n"
        "from aug import effect_generator\n"
        "def main():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--random-transform', {option})\n"
        "    args = parser.parse_args()\n"
        "    effects = None\n"
        "    if args.random_transform:\n"
        "        effects = effect_generator()\n"
        "    model = torch.nn.Linear(2, 2)\n"
        "    torch.optim.SGD(model.parameters(), lr=0.1).step()\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}


def test_draws_in_code_called_only_under_an_option_off_by_default_are_not_judged(tmp_path):
    """The default run never calls what ``if args.random_transform:`` guards when the
    option defaults to off; with the option on by default the draw is reported."""
    from conftest import lint_files

    def run(name, option):
        files = {path: text.replace("{option}", option) for path, text in AUGMENT.items()}
        return lint_files(tmp_path / name, files, {"select": ["ND102"]})

    assert run("off", "action='store_true'") == []
    # an option left at None (required, or filled in at run time) says nothing about the run
    assert len(run("none", "default=None")) == 1
    findings = run("on", "type=int, default=1")
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("aug.py", 3, 12)]
    assert findings[0].message == "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py never seeds it)"
