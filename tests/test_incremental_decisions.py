"""Pass 2 kept between edits (a language server's): deciding again after a change gives
what a run from scratch gives, and the seeding programs run again only when seeding facts
changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

from nondet_lint import engine
from nondet_lint.config import Config
from nondet_lint.families.seeding.program import Program
from nondet_lint.server.project import ProjectFacts
from nondet_lint.types import Finding

# entry points that share library code, a callback, a draw at import time and a cycle of imports
SHARED = {
    "common/__init__.py": "from common.util import *\nfrom common.model import Model\n",
    "common/util.py": (
        "import random\nimport numpy as np\nimport common\n\n\n"
        "def noise():\n    return np.random.rand()\n\n\n"
        "def pick(items):\n    return random.choice(items)\n\n\n"
        "def setup(seed):\n    np.random.seed(seed)\n    random.seed(seed)\n"
    ),
    "common/model.py": (
        "import torch\nimport numpy as np\nfrom common.util import noise\n\nJITTER = np.random.rand()\n\n\n"
        "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.scale = noise()\n\n"
        "    def on_epoch_end(self):\n        return np.random.randint(3)\n\n\n"
        "def fit(model, loader):\n    for x in loader:\n        loss = model(x)\n        loss.backward()\n"
    ),
    "train_a.py": (
        "import torch\nfrom common import Model, fit, noise\n\n\n"
        "def main():\n    model = Model()\n    noise()\n    fit(model, [])\n\n\n"
        "if __name__ == \"__main__\":\n    main()\n"
    ),
    "train_b.py": (
        "import torch\nfrom common.util import setup, noise, pick\nfrom common.model import Model, fit\n\n\n"
        "if __name__ == \"__main__\":\n    setup(0)\n    model = Model()\n    pick([1, 2])\n    fit(model, [])\n"
    ),
    "sample.py": (
        "import random\nfrom common.util import noise, pick\n\n"
        "if __name__ == \"__main__\":\n    random.seed(1)\n    print(noise(), pick([1]))\n"
    ),
}


def _write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _changes() -> List[Tuple[str, Dict[str, Any]]]:
    """Edits of the shared project: (what, {file: new text, or None to delete it})."""
    return [
        ("a seed added to an entry point", {"train_a.py": SHARED["train_a.py"].replace(
            "    model = Model()\n", "    torch.manual_seed(0)\n    model = Model()\n")}),
        ("cudnn.benchmark toggled in a library module", {"common/model.py": SHARED["common/model.py"]
                                                          + "\ntorch.backends.cudnn.benchmark = True\n"}),
        ("cudnn.benchmark toggled back", {"common/model.py": SHARED["common/model.py"]}),
        ("an import added", {"sample.py": SHARED["sample.py"].replace("import random\n", "import random\nimport train_b\n")}),
        ("the import removed", {"sample.py": SHARED["sample.py"]}),
        ("a seed in a library function", {"common/util.py": SHARED["common/util.py"].replace(
            "def noise():\n", "def noise():\n    np.random.seed(3)\n")}),
        ("an entry point deleted", {"train_b.py": None}),
        ("a library module deleted", {"common/util.py": None}),
        ("a module added back", {"common/util.py": SHARED["common/util.py"], "train_b.py": SHARED["train_b.py"]}),
    ]


def _decide_from_scratch(project: ProjectFacts) -> List[Finding]:
    names = sorted(project.results)
    return engine.decide([project.results[n] for n in names], [], [], project.config, project.rules, project.enabled)


def test_deciding_again_after_each_change_equals_a_run_from_scratch(tmp_path, monkeypatch):
    root = tmp_path / "project"
    _write(root, SHARED)
    monkeypatch.chdir(root)
    project = ProjectFacts(Config(root=str(root)), workers=0)
    project.index()
    ran: List[int] = []
    real = Program.run_all
    monkeypatch.setattr(Program, "run_all", lambda self: ran.append(len(self.entry_paths)) or real(self))

    def decide() -> List[Finding]:
        names = sorted(project.results)
        found = project.findings(names)
        return sorted((f for name in names for f in found[name]), key=lambda f: f.sort_key)

    first = decide()
    assert ran == [3]
    assert first == _decide_from_scratch(project)
    reruns: Dict[str, List[int]] = {}
    seen = set()
    for what, files in _changes():
        for name, text in files.items():
            if text is None:
                (root / name).unlink()
                project.forget(name)
            else:
                _write(root, {name: text})
                project.update(name, text.encode())
        ran.clear()
        incremental = decide()
        reruns[what] = list(ran)
        assert incremental == _decide_from_scratch(project), what
        seen.add(tuple(f.sort_key for f in incremental))
    assert len(seen) >= 4  # the changes changed the findings
    # the programs ran again where seeding facts changed, not for a switch
    assert reruns["a seed added to an entry point"] == [3]
    assert reruns["cudnn.benchmark toggled in a library module"] == []
    assert reruns["cudnn.benchmark toggled back"] == []
    assert reruns["an entry point deleted"] == [2]
