"""ND2xx on code seen in public training repositories: names bound by star imports and
``tf.compat`` aliases, PyTorch Geometric's wrappers of torch's scatter-add and loader, a
local name that shadows a builtin, scatters whose indices cannot repeat, backward-only
ops where no gradient flows, ``tf.data`` parsers wired up in another module, and TF1
sessions that do no float work.  Each case has a near miss."""

from __future__ import annotations

from conftest import codes_at
from nondet_lint.names import ImportBindings, ImportMap
from nondet_lint.ruledata import load_rules
from nondet_lint.context import import_bindings

import libcst as cst

BENCHMARK_MESSAGE = (
    "`torch.backends.cudnn.benchmark = True` lets cuDNN pick convolution algorithms by timing, so two runs "
    "can use different algorithms and get different results; set it to False (convolutions with varying "
    "input shapes may run slower)"
)
GPU_TRAIN = (
    "model = torch.nn.Linear(3, 3).cuda()\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
)


def found(findings, code):
    return [(f.path.replace("\\", "/").rsplit("/", 1)[-1], *codes_at([f])[0]) for f in findings if f.code == code]


# ---------------------------------------------------------------- star imports, aliases ----
def test_a_framework_star_import_binds_torch(lint):
    source = "from fastai.vision.all import *\n\ntorch.backends.cudnn.benchmark = True\n"
    findings = [f for f in lint({"train.py": source}) if f.code == "ND201"]
    assert [(f.line, f.col + 1, f.message) for f in findings] == [(3, 1, BENCHMARK_MESSAGE)]
    assert findings[0].fix is not None


def test_a_star_import_of_an_unknown_module_binds_nothing(lint):
    source = "from mylib.everything import *\n\ntorch.backends.cudnn.benchmark = True\n"
    assert found(lint({"train.py": source}), "ND201") == []


def test_an_explicit_import_after_the_star_import_wins(lint):
    source = (
        "from fastai.vision.all import *\n"
        "from mylib import torch\n"
        "torch.backends.cudnn.benchmark = True\n"
    )
    assert found(lint({"train.py": source}), "ND201") == []


def test_a_star_import_of_a_project_module_binds_what_it_imports(lint):
    files = {
        "pkg/__init__.py": "",
        "pkg/common.py": "import torch\nimport torch.nn as nn\n",
        "pkg/limited.py": "import torch\nimport numpy as np\n__all__ = ['np']\n",
        "pkg/train.py": "from .common import *\n\ndef setup():\n    torch.backends.cudnn.benchmark = True\n",
        "pkg/other.py": "from pkg.limited import *\n\ntorch.backends.cudnn.benchmark = True\n",
    }
    findings = [f for f in lint(files) if f.code == "ND201"]
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1, f.message) for f in findings] == [
        ("train.py", 4, 5, BENCHMARK_MESSAGE),
    ]
    assert findings[0].fix is not None and findings[0].fix.edits[0].content == "False"


def test_star_exports_include_other_tables_and_user_rule_files_add_more(lint, tmp_path):
    bindings = import_bindings(load_rules())
    assert bindings.star("fastai.text")["DataLoader"] == "torch.utils.data.DataLoader"  # 1.x, by inclusion
    assert bindings.star("fastai.vision.all")["nn"] == "torch.nn"
    assert "DataLoader" not in bindings.star("fastai.vision.all")  # 2.x: fastai's own loader
    house = (
        '[ND000.data.imports.star_exports."house.prelude"]\n'
        'cudnn = "torch.backends.cudnn"\n'
    )
    files = {"house.toml": house, "train.py": "import torch\nfrom house.prelude import *\ncudnn.benchmark = True\n"}
    assert found(lint(files, {"rule-files": [str(tmp_path / "house.toml")]}), "ND201") == [("train.py", "ND201", 3, 1)]
    assert found(lint(files), "ND201") == []


def test_tf_compat_modules_are_the_tensorflow_api():
    bindings = ImportBindings(same_api={"tensorflow.compat.v1": "tensorflow"})
    source = (
        "import tensorflow.compat.v1 as tf\n"
        "from tensorflow.compat import v1 as tf1\n"
        "from tensorflow.compat.v1 import Session\n"
        "import tensorflow as tf2\n"
    )
    imports = ImportMap(cst.parse_module(source), bindings=bindings)
    assert imports.resolve_dotted("tf.data.Dataset.list_files") == "tensorflow.data.Dataset.list_files"
    assert imports.resolve_dotted("tf1.Session") == "tensorflow.Session"
    assert imports.resolve_dotted("Session") == "tensorflow.Session"
    assert imports.resolve_dotted("tf2.compat.v1.Session") == "tensorflow.Session"  # spelled out: the same API
    assert imports.resolve_dotted("tf2.compat.v1") == "tensorflow"
    assert imports.resolve_dotted("tf2.compat.v1x.Session") == "tensorflow.compat.v1x.Session"  # near miss: not the prefix


def test_tf_rules_match_through_compat_v1_as_through_tensorflow(lint):
    body = (
        "def main():\n"
        "    ds = tf.data.Dataset.list_files('x/*.tfrecord')\n"
        "    p = tf.keras.utils.get_file('a', 'http://x/y')\n"
        "    tf.config.threading.set_intra_op_parallelism_threads(4)\n"
        "    y = tf.math.unsorted_segment_sum(x, [0, 0, 1], 2)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    config = {"select": ["ND204", "ND206", "ND303", "ND304"], "target-versions": {"tensorflow": "2.15"}}
    plain = codes_at(lint({"train.py": "import tensorflow as tf\n" + body}, config))
    compat = codes_at(lint({"train.py": "import tensorflow.compat.v1 as tf\n" + body}, config))
    assert compat == plain
    assert sorted(code for code, _, _ in compat) == ["ND204", "ND206", "ND303", "ND304"]


def test_spelled_out_tf_compat_calls_are_the_tensorflow_api(lint):
    """``tf.compat.v1.X`` / ``tf.compat.v2.X`` written out under ``import tensorflow as tf``
    are the APIs ``tf.X`` names: the data, seeding and kernel rules see them alike."""
    body = (
        "def main():\n"
        "    files = tf.data.Dataset.list_files('x/*.tfrecord', shuffle=False)\n"
        "    ds = tf.data.TFRecordDataset(files).shuffle(100)\n"
        "    y = tf.math.unsorted_segment_sum(x, [0, 0, 1], 2)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    config = {"select": ["ND204", "ND304"], "target-versions": {"tensorflow": "2.15"}}
    plain = lint({"train.py": "import tensorflow as tf\n" + body}, config)
    for version in ("v1", "v2"):
        spelled = lint({"train.py": "import tensorflow as tf\n" + body.replace("tf.", f"tf.compat.{version}.")}, config)
        assert [(f.code, f.line, f.message) for f in spelled] == [(f.code, f.line, f.message) for f in plain]
    assert [(f.code, f.line, f.col + 1) for f in plain] == [("ND304", 3, 13), ("ND204", 5, 9)]
    assert plain[0].message.startswith("`list_files` builds the dataset from whatever files `'x/*.tfrecord'` holds")


# ---------------------------------------------------------------- PyTorch Geometric ----
def test_pyg_global_add_pool_and_scatter_sum_are_scatter_adds(lint):
    source = (
        "import torch\n"
        "from torch_geometric.nn import global_add_pool, global_max_pool\n"
        "from torch_geometric.utils import scatter, segment\n"
        + GPU_TRAIN +
        "def forward(x, batch, ptr):\n"
        "    a = global_add_pool(x, batch)\n"
        "    b = scatter(x, batch, 0, None, 'mean')\n"
        "    c = scatter(x, batch, reduce='max')\n"
        "    d = segment(x, ptr)\n"
        "    e = global_max_pool(x, batch)\n"
        "    return a + b + c + d + e\n"
    )
    findings = [f for f in lint({"train.py": source}) if f.code == "ND203"]
    assert [(f.line, f.col + 1) for f in findings] == [(7, 9), (8, 9)]
    assert findings[0].message == (
        "`torch_geometric.nn.global_add_pool` accumulates with atomic adds on the GPU, so its result changes "
        "from run to run while `torch.use_deterministic_algorithms(True)` is off; it sums node features per "
        "graph with `scatter_add_`: turn on `torch.use_deterministic_algorithms(True)` (deterministic kernels "
        "can be slower)"
    )


GNN = """import torch
import torch.nn.functional as F
from torch_geometric.nn import GCNConv, global_max_pool

device = torch.device("cuda")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = GCNConv(16, 4)

    def forward(self, x, edge_index):
        return F.relu(self.conv(x, edge_index))


model = Net().to(device)
opt = torch.optim.Adam(model.parameters())
loss = model(torch.ones(3, 16, device=device), torch.zeros(2, 4, dtype=torch.long, device=device)).sum()
loss.backward()
opt.step()
"""


def test_pyg_message_passing_layers_are_listed_in_nd205(lint):
    """A GCN's neighbour aggregation is a scatter-add on CUDA: ND205 names it (once per
    program) and ND203 does not report the layer itself."""
    findings = lint({"train.py": GNN, "requirements.txt": "torch==2.3.0\n"})
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND205", 5, 23)]
    assert "; it runs `torch_geometric.nn.MessagePassing` (train.py:11); turn it on" in findings[0].message
    pooled = GNN.replace("GCNConv(16, 4)", "torch.nn.Linear(16, 4)").replace("self.conv(x, edge_index)", "global_max_pool(self.conv(x), edge_index[0])")
    findings = lint({"train.py": pooled, "requirements.txt": "torch==2.3.0\n"})
    assert all("MessagePassing" not in f.message for f in findings)


def test_torch_scatter_ignores_the_switch(lint):
    source = (
        "import torch\n"
        "from torch_scatter import scatter_add\n"
        "torch.use_deterministic_algorithms(True)\n"
        + GPU_TRAIN +
        "def forward(x, batch):\n"
        "    return scatter_add(x, batch, dim=0)\n"
    )
    findings = [f for f in lint({"train.py": source}) if f.code == "ND203"]
    assert [(f.line, f.col + 1) for f in findings] == [(7, 12)]
    assert "no switch makes it deterministic" in findings[0].message


def test_pyg_dataloader_is_a_torch_dataloader(lint):
    source = (
        "import torch\n"
        "from torch_geometric.loader import DataLoader\n"
        "def main(dataset):\n"
        "    train = DataLoader(dataset, batch_size=32, shuffle=True)\n"
        "    test = DataLoader(dataset, batch_size=32, shuffle=False)\n"
        "    return train, test\n"
        "if __name__ == '__main__':\n"
        "    main(list(range(10)))\n"
    )
    assert found(lint({"train.py": source}), "ND109") == [("train.py", "ND109", 4, 13)]


# ---------------------------------------------------------------- names and indices ----
def test_a_local_name_that_shadows_a_builtin_is_a_tensor(lint):
    source = (
        "import torch\n"
        + GPU_TRAIN +
        "def step(x, idx):\n"
        "    input = torch.ones(4).cuda()\n"
        "    input.scatter_reduce(0, idx, x, reduce='prod')\n"
        "    return input\n"
        "def ask():\n"
        "    return input('epochs? ')\n"
    )
    findings = [f for f in lint({"train.py": source}) if f.code == "ND203"]
    assert [(f.line, f.col + 1) for f in findings] == [(6, 5)]
    assert findings[0].message.startswith("`torch.Tensor.scatter_reduce` has no deterministic CUDA implementation")


def test_scatters_with_indices_that_cannot_repeat_are_not_reported(lint):
    source = (
        "import torch\n"
        + GPU_TRAIN +
        "def step(x, idx, n):\n"
        "    out = torch.zeros(n).cuda()\n"
        "    out.index_add_(0, torch.arange(n).cuda(), x)\n"
        "    perm = torch.randperm(n, device='cuda')\n"
        "    out.scatter_add_(0, perm, x)\n"
        "    out.index_add_(0, idx, x)\n"
        "    out.index_add_(0, torch.arange(n).repeat(2), x)\n"
        "    return out\n"
    )
    assert found(lint({"train.py": source}), "ND203") == [("train.py", "ND203", 9, 5), ("train.py", "ND203", 10, 5)]


def test_tf_scatter_nd_with_a_single_index_is_not_reported(lint):
    source = (
        "import tensorflow as tf\n"
        "def gather_replicas(tensor, replica_id, indices, updates):\n"
        "    one = tf.scatter_nd(indices=[[replica_id]], updates=[tensor], shape=[8])\n"
        "    many = tf.scatter_nd(indices, updates, shape=[8])\n"
        "    return one, many\n"
    )
    config = {"target-versions": {"tensorflow": "2.15"}}
    assert found(lint({"m.py": source}, config), "ND204") == [("m.py", "ND204", 4, 12)]


def test_tf_scatter_nd_at_the_coordinates_tf_where_returns_is_not_reported(lint):
    """``tf.where(mask)`` lists each true element once: no two updates meet. Near misses:
    the three-argument ``tf.where`` selects values, and indices from elsewhere."""
    source = (
        "import tensorflow as tf\n"
        "def merge(mask, sampled, kept, shape, idx, a, b):\n"
        "    where_sampling = tf.cast(tf.where(mask), tf.int32)\n"
        "    one = tf.scatter_nd(indices=where_sampling, updates=sampled, shape=shape)\n"
        "    two = tf.scatter_nd(tf.where(tf.logical_not(mask)), kept, shape)\n"
        "    three = tf.scatter_nd(tf.where(mask, a, b), kept, shape)\n"
        "    four = tf.scatter_nd(idx, kept, shape)\n"
        "    return one + two + three + four\n"
    )
    config = {"target-versions": {"tensorflow": "2.15"}}
    findings = [f for f in lint({"m.py": source}, config) if f.code == "ND204"]
    assert [(f.line, f.col + 1) for f in findings] == [(6, 13), (7, 12)]
    assert all(f.message.startswith("`tf.scatter_nd` adds with atomics on the GPU") for f in findings)


# ---------------------------------------------------------------- where no gradient flows ----
def test_backward_only_torch_ops_under_no_grad_or_on_detached_inputs(lint):
    source = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        + GPU_TRAIN +
        "def update(output):\n"
        "    y_pred, y = output[0].detach(), output[1].detach()\n"
        "    y_pred = F.pad(y_pred.float(), [1, 1, 1, 1], mode='reflect')\n"
        "    return F.pad(y, [1, 1, 1, 1], mode='reflect')\n"
        "@torch.no_grad()\n"
        "def evaluate(x):\n"
        "    return F.pad(x, [1, 1, 1, 1], mode='reflect')\n"
        "def evaluate2(x):\n"
        "    with torch.inference_mode():\n"
        "        return F.pad(x, [1, 1, 1, 1], mode='reflect')\n"
        "def forward(x):\n"
        "    y = x.float()\n"
        "    return F.pad(y, [1, 1, 1, 1], mode='reflect')\n"
        "for _ in range(3):\n"
        "    x = model(torch.ones(3).cuda())\n"
        "    update((x, x))\n"
        "    evaluate(x), evaluate2(x)\n"
        "    forward(x).sum().backward()\n"
        "    opt.step()\n"
    )
    assert found(lint({"train.py": source}), "ND203") == [("train.py", "ND203", 17, 12)]


def test_torch_ops_on_a_tensor_moved_to_the_cpu_run_no_cuda_kernel(lint):
    """``x = x.to("cpu")`` then ``F.interpolate(x.unsqueeze(1), ...)``: the CPU kernel runs.
    Near misses: a chain that moves it back (``.cuda()``), a move to a device variable,
    a name bound to a GPU tensor again, the ``else`` of a branch that moved it."""
    source = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        + GPU_TRAIN +
        "def forward(x, device):\n"
        "    a = F.interpolate(x.cpu(), size=8, mode='linear')\n"
        "    y = x.to('cpu')\n"
        "    b = F.interpolate(y.unsqueeze(1), size=8, mode='linear').squeeze(1)\n"
        "    c = torch.bincount(x.to(device=torch.device('cpu')), weights=x)\n"
        "    d = F.interpolate(y.cuda(), size=8, mode='linear')\n"
        "    e = F.interpolate(x.to(device), size=8, mode='linear')\n"
        "    y = x * 2\n"
        "    f = F.interpolate(y, size=8, mode='linear')\n"
        "    if x.device.type == 'mps':\n"
        "        x = x.to('cpu')\n"
        "        g = F.interpolate(x, size=8, mode='linear')\n"
        "    else:\n"
        "        g = F.interpolate(x, size=8, mode='linear')\n"
        "    return a, b, c, d, e, f, g\n"
        "for _ in range(3):\n"
        "    forward(model(torch.ones(3).cuda()), 'cuda')[-1].sum().backward()\n"
        "    opt.step()\n"
    )
    findings = [f for f in lint({"train.py": source}) if f.code == "ND203"]
    assert [(f.line, f.col + 1) for f in findings] == [(10, 9), (11, 9), (13, 9), (18, 13)]
    assert all(f.message.startswith("`torch.nn.functional.interpolate` has no deterministic CUDA implementation") for f in findings)


# ---------------------------------------------------------------- tf.data across modules ----
PIPELINE_FILES = {
    "proj/__init__.py": "",
    "proj/data/__init__.py": "",
    "proj/tasks/__init__.py": "",
    "proj/data/reader.py": (
        "import tensorflow as tf\n"
        "def _maybe_map(dataset, fn):\n"
        "    return dataset if fn is None else dataset.map(fn)\n"
        "class InputReader:\n"
        "    def __init__(self, files, parser_fn=None):\n"
        "        self._files = files\n"
        "        self._parser_fn = parser_fn\n"
        "    def read(self):\n"
        "        dataset = tf.data.TFRecordDataset(self._files)\n"
        "        return _maybe_map(dataset, self._parser_fn)\n"
    ),
    "proj/data/parser.py": (
        "import tensorflow as tf\n"
        "from proj.data import ops\n"
        "class Parser:\n"
        "    def parse_fn(self, training):\n"
        "        def parse(data):\n"
        "            return self._parse_train(data)\n"
        "        return parse\n"
        "    def _parse_train(self, data):\n"
        "        masks = tf.image.crop_and_resize(data['masks'], data['boxes'], data['ids'], [7, 7])\n"
        "        return ops.resize_masks(masks)\n"
    ),
    "proj/data/ops.py": (
        "import tensorflow as tf\n"
        "def resize_masks(masks):\n"
        "    return tf.image.resize(masks, [64, 64], method='nearest')\n"
        "def upsample(features):\n"
        "    return tf.image.resize(features, [64, 64], method='nearest')\n"
    ),
    "proj/tasks/train.py": (
        "import tensorflow as tf\n"
        "from proj.data import ops, parser, reader\n"
        "def main():\n"
        "    p = parser.Parser()\n"
        "    ds = reader.InputReader(['a.tfrecord'], parser_fn=p.parse_fn(True)).read()\n"
        "    model = tf.keras.Sequential([tf.keras.layers.Dense(3)])\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_sum(ops.upsample(model(next(iter(ds)))))\n"
        "    tape.gradient(loss, model.trainable_variables)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}


def test_nd204_parsers_wired_into_tf_data_in_another_module_run_on_the_cpu(lint):
    findings = [f for f in lint(PIPELINE_FILES, {"target-versions": {"tensorflow": "2.15"}}) if f.code == "ND204"]
    # the parser (and the helper it calls in a third module) run in the pipeline; the
    # helper the model calls under the tape does not
    assert [(f.path.replace("\\", "/").split("proj/")[-1], f.line, f.col + 1) for f in findings] == [("data/ops.py", 5, 12)]
    assert findings[0].message.startswith("`tf.image.resize(method=\"nearest\")` has no deterministic GPU implementation")


def test_nd204_without_the_wiring_the_parser_is_reported(lint):
    files = dict(PIPELINE_FILES)
    files["proj/tasks/train.py"] = files["proj/tasks/train.py"].replace("parser_fn=p.parse_fn(True)", "p.parse_fn(True)")
    files["proj/data/reader.py"] = files["proj/data/reader.py"].replace("dataset.map(fn)", "dataset.batch(fn)")
    findings = [f for f in lint(files, {"target-versions": {"tensorflow": "2.15"}}) if f.code == "ND204"]
    assert sorted((f.path.replace("\\", "/").split("proj/")[-1], f.line) for f in findings) == [
        ("data/ops.py", 3), ("data/ops.py", 5), ("data/parser.py", 9),
    ]


# ---------------------------------------------------------------- TF1 sessions ----
def test_nd206_a_session_that_only_initialises_and_saves_does_no_float_work(lint):
    source = (
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "np.random.seed(0)\n"
        "def convert(path):\n"
        "    saver = tf.train.Saver({'v': tf.Variable(np.zeros(3))})\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(tf.global_variables_initializer())\n"
        "        saver.save(sess, path)\n"
        "def train(loss):\n"
        "    opt = tf.train.AdamOptimizer().minimize(loss)\n"
        "    with tf.Session() as sess:\n"
        "        sess.run(tf.global_variables_initializer())\n"
        "        sess.run(opt)\n"
        "if __name__ == '__main__':\n"
        "    convert('/tmp/x')\n"
        "    train(tf.reduce_sum(tf.Variable(np.zeros(3))))\n"
    )
    findings = [f for f in lint({"train.py": source}) if f.code == "ND206"]
    assert [(f.line, f.col + 1) for f in findings] == [(11, 10)]
    assert findings[0].message.startswith("`tensorflow.Session` runs ops on multi-threaded CPU pools")


def test_tf_scatter_adds_of_integer_values_are_exact(lint):
    source = (
        "import tensorflow as tf\n"
        "def build(indices, mask, cost, batch, length, x):\n"
        "    counts = tf.zeros_like(cost, dtype=tf.int32)\n"
        "    counts = tf.tensor_scatter_nd_add(counts, indices, tf.cast(mask, counts.dtype))\n"
        "    hot = tf.scatter_nd(indices, tf.ones(tf.shape(indices)[0], tf.float32), (batch, length))\n"
        "    total = tf.zeros_like(cost)\n"
        "    total = tf.tensor_scatter_nd_add(total, indices, x)\n"
        "    return counts, hot, total\n"
    )
    config = {"target-versions": {"tensorflow": "2.15"}}
    assert found(lint({"m.py": source}, config), "ND204") == [("m.py", "ND204", 7, 13)]


def test_every_tf_compat_name_in_rule_data_has_its_tensorflow_twin():
    """``import tensorflow.compat.v1 as tf`` resolves ``tf.X`` as ``tensorflow.X``: a table
    listing only ``tensorflow.compat.v1.X`` would miss it (op tables map both through
    their ``namespace_aliases``)."""
    import json

    rules = load_rules()
    same_api = import_bindings(rules).same_api
    missing = []
    for rule in rules:
        if "namespace_aliases" in rule.data:
            continue
        text = json.dumps(rule.data)
        for module, target in same_api.items():
            for name in set(text.split('"')):
                if name.startswith(module + ".") and f'"{target}{name[len(module):]}"' not in text:
                    missing.append((rule.code, name))
    assert missing == []


def test_nd204_callables_held_in_attributes_are_followed(lint):
    files = {
        "proj/__init__.py": "",
        "proj/labeler.py": (
            "import tensorflow as tf\n"
            "class Labeler:\n"
            "    def __call__(self, grid, centers, values):\n"
            "        return tf.tensor_scatter_nd_add(grid, centers, values)\n"
            "class Unused:\n"
            "    def __call__(self, grid, centers, values):\n"
            "        return tf.tensor_scatter_nd_add(grid, centers, values)\n"
        ),
        "proj/parser.py": (
            "import tensorflow as tf\n"
            "from proj import labeler\n"
            "class Parser:\n"
            "    def __init__(self, training=True):\n"
            "        self._label = labeler.Labeler()\n"
            "        if training:\n"
            "            self._parse = self._parse_train\n"
            "        else:\n"
            "            self._parse = self._parse_eval\n"
            "    def __call__(self, data):\n"
            "        return self._parse(data)\n"
            "    def _parse_train(self, data):\n"
            "        return self._label(data['grid'], data['centers'], data['values'])\n"
            "    def _parse_eval(self, data):\n"
            "        return tf.tensor_scatter_nd_add(data['grid'], data['centers'], data['values'])\n"
        ),
        "proj/train.py": (
            "import tensorflow as tf\n"
            "from proj import labeler\n"
            "from proj.parser import Parser\n"
            "def main(files):\n"
            "    ds = tf.data.TFRecordDataset(files).map(Parser())\n"
            "    with tf.GradientTape() as tape:\n"
            "        loss = labeler.Unused()(model(ds), [[0], [1]], model(ds))\n"
            "if __name__ == '__main__':\n"
            "    main(['a'])\n"
        ),
    }
    findings = [f for f in lint(files, {"target-versions": {"tensorflow": "2.15"}}) if f.code == "ND204"]
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("labeler.py", 7, 16)]


def test_pipeline_facts_are_the_json_form_of_their_type():
    import json

    from nondet_lint.config import Config
    from nondet_lint.engine import selected_codes
    from nondet_lint.families.kernels.pipeline import PipelineFacts
    from nondet_lint.fileanalysis import analyze_source
    from nondet_lint.results import FileResult
    from nondet_lint.source import decode_source

    config, rules = Config(), load_rules()
    result = analyze_source(
        "proj/data/reader.py", decode_source(PIPELINE_FILES["proj/data/reader.py"].encode()), config, rules,
        selected_codes(config, rules), "proj.data.reader",
    )
    restored = FileResult.from_dict(json.loads(json.dumps(result.to_dict()))).facts.get(PipelineFacts)
    assert restored is not None and restored == result.facts.get(PipelineFacts)
    facts = restored
    assert facts.parameters == ("fn", "parser_fn")
    assert facts.functions["InputReader.read"] == (True, (("local", "_maybe_map"),))


def test_tf_scatter_read_where_only_integers_are_taken_is_exact(lint):
    """``tf.transpose(a, perm)`` raises unless ``perm`` is an integer tensor: a scatter
    building it (through an update that keeps its dtype) adds integers, exactly."""
    source = (
        "import tensorflow as tf\n"
        "def moveaxis(a, rest, others, destination, source, rank):\n"
        "    if rank is None:\n"
        "        perm = [0, 1]\n"
        "    else:\n"
        "        perm = tf.scatter_nd(tf.expand_dims(rest, 1), others, [rank])\n"
        "        perm = tf.tensor_scatter_nd_update(perm, tf.expand_dims(destination, 1), source)\n"
        "    return tf.transpose(a, perm)\n"
        "def reused(a, rest, others, rank, x):\n"
        "    perm = tf.scatter_nd(rest, others, [rank])\n"
        "    perm = x * 2.0\n"
        "    return tf.transpose(a, perm)\n"
        "def summed(a, rest, others, rank):\n"
        "    totals = tf.scatter_nd(rest, others, [rank])\n"
        "    return tf.reduce_sum(totals), tf.transpose(a, rest)\n"
        "def branches(a, rest, others, rank, perm):\n"
        "    if rank:\n"
        "        perm = tf.scatter_nd(rest, others, [rank])\n"
        "    else:\n"
        "        a = tf.transpose(a, perm)\n"
        "    return a, perm\n"
    )
    config = {"target-versions": {"tensorflow": "2.15"}}
    findings = [f for f in lint({"m.py": source}, config) if f.code == "ND204"]
    assert [(f.line, f.col + 1) for f in findings] == [(10, 12), (14, 14), (18, 16)]
    assert findings[0].message.startswith(
        "`tf.scatter_nd` adds with atomics on the GPU, so its result changes from run to run while op determinism is off"
    )
