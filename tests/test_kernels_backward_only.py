"""A gradient a call returns (``torch.autograd.grad``) runs a backward pass but trains
only where it feeds an update: normals taken as a density's gradient make no training
program (ND205), yet the backward kernels of the ops on the way still run (ND203)."""

from __future__ import annotations

from typing import Dict, List, Tuple

TORCH = {"target-versions": {"torch": "2.3"}}
GRID_SAMPLE = "`torch.nn.functional.grid_sample` has no deterministic CUDA implementation"
SWITCH = (
    "this program runs on a GPU (`.cuda()` in `proj/field.py` at line 6) but never turns on "
    "`torch.use_deterministic_algorithms(True)`"
)
FIELD = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "class Field(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.grid = torch.nn.Parameter(torch.zeros(1, 4, 8, 8)).cuda()\n"
    "    def forward(self, x):\n"
    "        return F.grid_sample(self.grid, x)\n"
    "    def normals(self, x):\n"
    "        x.requires_grad_(True)\n"
    "        density = self.forward(x)\n"
    "        return torch.autograd.grad(density.sum(), x)[0]\n"
)
NORMALS = (
    "import torch\n"
    "from proj.field import Field\n"
    "if __name__ == '__main__':\n"
    "    field = Field()\n"
    "    print(field.normals(torch.zeros(1, 8, 8, 2)))\n"
)
META = (
    "import torch\n"
    "from proj.field import Field\n"
    "if __name__ == '__main__':\n"
    "    field = Field()\n"
    "    params = list(field.parameters())\n"
    "    loss = field(torch.zeros(1, 8, 8, 2)).sum()\n"
    "    grads = torch.autograd.grad(loss, params)\n"
    "    params = [p - 0.1 * g for p, g in zip(params, grads)]\n"
)
SGD = (
    "import torch\n"
    "from proj.field import Field\n"
    "if __name__ == '__main__':\n"
    "    field = Field()\n"
    "    loss = field(torch.zeros(1, 8, 8, 2)).sum()\n"
    "    grads = torch.autograd.grad(loss, list(field.parameters()))\n"
    "    for p, g in zip(field.parameters(), grads):\n"
    "        p.data.sub_(0.1 * g)\n"
)

STEP = (
    "import torch\n"
    "from proj.field import Field\n"
    "def step(field, optimizer):\n"
    "    loss = field(torch.zeros(1, 8, 8, 2)).sum()\n"
    "    grads = torch.autograd.grad(loss, list(field.parameters()))\n"
    "    for p, g in zip(field.parameters(), grads):\n"
    "        p.grad = g\n"
    "    optimizer.step()\n"
    "if __name__ == '__main__':\n"
    "    step(Field(), None)\n"
)


def found(lint, **programs: str) -> List[Tuple[str, int, int, str]]:
    files: Dict[str, str] = {"proj/__init__.py": "", "proj/field.py": FIELD}
    files.update({f"proj/{name}.py": text for name, text in programs.items()})
    findings = [f for f in lint(files, {**TORCH, "select": ["ND203", "ND205"]}) if f.code in ("ND203", "ND205")]
    for f in findings:
        assert f.message.startswith(GRID_SAMPLE if f.code == "ND203" else SWITCH), f.message
    return sorted((f.path.replace("\\", "/").split("proj/")[-1], f.line, f.col + 1, f.code) for f in findings)


def test_normals_taken_as_a_gradient_train_nothing_but_run_the_backward(lint):
    assert found(lint, normals=NORMALS) == [("field.py", 8, 16, "ND203")]


def test_a_gradient_subtracted_from_parameters_trains(lint):
    assert found(lint, meta=META) == [("field.py", 8, 16, "ND203"), ("meta.py", 1, 1, "ND205")]


def test_a_gradient_handed_to_an_in_place_sub_trains(lint):
    assert found(lint, sgd=SGD) == [("field.py", 8, 16, "ND203"), ("sgd.py", 1, 1, "ND205")]


def test_a_gradient_stored_as_a_parameter_gradient_trains(lint):
    assert found(lint, step=STEP) == [("field.py", 8, 16, "ND203"), ("step.py", 1, 1, "ND205")]
