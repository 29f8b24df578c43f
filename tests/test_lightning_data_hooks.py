"""ND109 / ND110 in Lightning's data hooks: a datamodule made through a class method of
Lightning's base (``DM.from_argparse_args(args)``, ``cls(**kwargs)`` in the base) is made
as ``DM()`` is, so its ``setup`` / ``train_dataloader`` run; the data hooks run also where
the project is Lightning itself (its own code names them); a loader whose ``shuffle=`` is a
parameter shuffles in the calls that pass a true value.  Each with a near miss."""

from __future__ import annotations

from pathlib import Path
from typing import List, Mapping, Tuple

from conftest import lint_files

SHUFFLES = (
    "`DataLoader` shuffles with the PyTorch global RNG: no `generator=` is passed and no `torch.manual_seed` "
    "runs before it (this program never seeds it); pass a seeded generator"
)
SPLITS = (
    "`torch.utils.data.random_split` draws from the PyTorch global RNG: no `generator=` is passed and no "
    "`torch.manual_seed` runs before it (this program never seeds it); pass a seeded generator"
)


def lint(root: Path, files: Mapping[str, str]) -> List[Tuple[str, str, int, int, str]]:
    findings = lint_files(root, files, {"select": ["ND109", "ND110"]})
    return sorted((Path(f.path).relative_to(root).as_posix(), f.code, f.line, f.col + 1, f.message) for f in findings)


DATAMODULE = """from argparse import ArgumentParser

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, random_split


class DM({base}):
    def __init__(self, batch_size: int = 32):
        super().__init__()
        self.batch_size = batch_size

    def setup(self, stage=None):
        data = torch.arange(100).float()
        self.train_set, self.val_set = random_split(data, [90, 10])

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)


class Model(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch.sum()


def main():
    parser = DM.add_argparse_args(pl.Trainer.add_argparse_args(ArgumentParser()))
    args = parser.parse_args()
    dm = {made}
    trainer = pl.Trainer.from_argparse_args(args)
    trainer.fit(Model(), datamodule=dm)


if __name__ == "__main__":
    main()
"""


def _datamodule(base: str = "pl.LightningDataModule", made: str = "DM.from_argparse_args(args)") -> str:
    return DATAMODULE.replace("{base}", base).replace("{made}", made)


def test_a_datamodule_made_by_from_argparse_args_runs_its_hooks(tmp_path):
    files = {"train.py": _datamodule(), "requirements.txt": "pytorch-lightning==1.2.10\ntorch==1.8.1\n"}
    assert lint(tmp_path, files) == [
        ("train.py", "ND109", 18, 16, SHUFFLES),
        ("train.py", "ND110", 15, 40, SPLITS),
    ]


def test_a_datamodule_class_only_named_is_not_made(tmp_path):
    # near miss: the class's own class method is named (``add_argparse_args``), nothing
    # makes one: its hooks never run
    files = {"train.py": _datamodule(made="None"), "requirements.txt": "pytorch-lightning==1.2.10\n"}
    assert lint(tmp_path, files) == []


def test_from_argparse_args_of_a_class_outside_lightning_makes_nothing_known(tmp_path):
    # near miss: the method of another library's base may return anything
    source = _datamodule(base="other.Base").replace("import torch\n", "import other\nimport torch\n", 1)
    files = {"train.py": source, "requirements.txt": "pytorch-lightning==1.2.10\n"}
    assert lint(tmp_path, files) == []


# Lightning itself (its sdist ships examples): the base's class method hands ``cls`` to a
# helper that calls it, and the trainer's own code names the data hooks
OWN = {
    "PKG-INFO": "Metadata-Version: 2.1\nName: pytorch-lightning\nVersion: 1.2.10\n\n",
    "pytorch_lightning/__init__.py": (
        "from pytorch_lightning.core import LightningDataModule, LightningModule\nfrom pytorch_lightning.trainer import Trainer\n"
    ),
    "pytorch_lightning/argparse_utils.py": "def from_argparse_args(cls, args):\n    return cls(**vars(args))\n",
    "pytorch_lightning/core.py": (
        "import torch\n\nfrom pytorch_lightning.argparse_utils import from_argparse_args\n\n\n"
        "class LightningModule(torch.nn.Module):\n    pass\n\n\nclass LightningDataModule:\n"
        "    @classmethod\n    def add_argparse_args(cls, parser):\n        return parser\n\n"
        "    @classmethod\n    def from_argparse_args(cls, args):\n        return from_argparse_args(cls, args)\n"
    ),
    "pytorch_lightning/trainer.py": (
        "class Trainer:\n    @classmethod\n    def from_argparse_args(cls, args):\n        return cls()\n\n"
        "    @staticmethod\n    def add_argparse_args(parser):\n        return parser\n\n"
        "    def fit(self, model, datamodule=None):\n        datamodule.setup()\n"
        "        for batch in datamodule.train_dataloader():\n            model.training_step(batch, 0)\n"
    ),
}


def test_lightning_itself_runs_the_hooks_of_a_datamodule_made_by_its_class_method(tmp_path):
    files = {**OWN, "pl_examples/train.py": _datamodule()}
    assert lint(tmp_path, files) == [
        ("pl_examples/train.py", "ND109", 18, 16, SHUFFLES),
        ("pl_examples/train.py", "ND110", 15, 40, SPLITS),
    ]
    # near miss: seeded first, as the example that uses such a datamodule is
    seeded = _datamodule().replace("    dm = ", "    pl.seed_everything(1234)\n    dm = ")
    seeded = seeded.replace("import torch\n", "import torch\nimport pytorch_lightning.utilities\n", 1)
    files = {**OWN, "pytorch_lightning/__init__.py": OWN["pytorch_lightning/__init__.py"] + "from pytorch_lightning.seeding import seed_everything\n",
             "pytorch_lightning/seeding.py": "import torch\n\n\ndef seed_everything(seed):\n    torch.manual_seed(seed)\n",
             "pl_examples/train.py": seeded}
    assert lint(tmp_path / "seeded", files) == []


LOADER = """import torch
from torch.utils.data import DataLoader


def make(train: bool):
    return DataLoader(torch.arange(10).float(), batch_size=2, shuffle=train)


class Holder(torch.nn.Module):
    def _make(self, train: bool):
        return DataLoader(torch.arange(10).float(), batch_size=2, shuffle=train)

    def loader(self):
        return self._make(train={flag})


def main():
    for batch in make({flag}):
        print(batch)
    for batch in Holder().loader():
        print(batch)


if __name__ == "__main__":
    main()
"""


def test_a_loader_shuffled_by_a_parameter_shuffles_where_a_call_passes_true(tmp_path):
    assert lint(tmp_path, {"train.py": LOADER.replace("{flag}", "True")}) == [
        ("train.py", "ND109", 6, 12, SHUFFLES),
        ("train.py", "ND109", 11, 16, SHUFFLES),
    ]


def test_a_loader_shuffled_by_a_parameter_every_call_leaves_false_does_not_shuffle(tmp_path):
    assert lint(tmp_path, {"train.py": LOADER.replace("{flag}", "False")}) == []
