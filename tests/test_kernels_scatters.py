"""ND203 / ND208: scatter-adds that cannot vary run to run are not reported: those into an
evidently integer array (integer sums are exact in any order) and JAX ``.at[]`` updates
with a basic index (each element updated at most once).  Float accumulators, values the
code does not show (a parameter, one float branch) and fancy indices still are."""

from __future__ import annotations

from conftest import codes_at

TORCH = "import torch\ntorch.ones(1).cuda()\n"  # a GPU program
JAX = "import jax\nimport jax.numpy as jnp\n"
SCATTER_ADD = (
    "`torch.Tensor.scatter_add_` accumulates with atomic adds on the GPU, so its result changes from run to run "
    "while `torch.use_deterministic_algorithms(True)` is off; turn on `torch.use_deterministic_algorithms(True)` "
    "(deterministic kernels can be slower), or express the sum as a one-hot matmul"
)

INDEX_ADD = SCATTER_ADD.replace("`torch.Tensor.scatter_add_`", "`torch.Tensor.index_add_`")


def reported(findings, code):
    return [(*codes_at([f])[0][1:], f.message) for f in findings if f.code == code]


def test_nd203_integer_accumulators_are_not_reported(lint):
    source = TORCH + (
        "def counts(ids, values, device, labels):\n"
        "    a = torch.zeros(10, dtype=torch.long)\n"
        "    a.scatter_add_(0, ids, values)\n"
        "    b = torch.zeros(10).long()\n"
        "    b.index_add_(0, ids, values)\n"
        "    c = torch.zeros_like(a)\n"
        "    c.scatter_add_(0, ids, values)\n"
        "    d = torch.zeros(10, dtype=torch.int32).to(device)\n"
        "    d.scatter_add_(0, ids, values)\n"
        "    e = torch.zeros(10).to(torch.int64).cuda()\n"
        "    e.scatter_add_(0, ids, values)\n"
        "    f = a.new_zeros(10)\n"
        "    f.scatter_add_(0, ids, values)\n"
        "    torch.zeros(10, dtype=torch.long, device=device).index_add_(0, ids, values)\n"
        "    g = torch.index_add(a, 0, ids, values)\n"
        "    torch.Tensor.index_add_(a, 0, ids, values)\n"
    )
    assert reported(lint({"train.py": source}), "ND203") == []


def test_nd203_float_or_unknown_accumulators_are_reported(lint):
    source = TORCH + (
        "def sums(ids, values, device, given, flag):\n"
        "    a = torch.zeros(10)\n"
        "    a.scatter_add_(0, ids, values)\n"
        "    b = torch.zeros(10, dtype=torch.long).to(torch.float)\n"
        "    b.scatter_add_(0, ids, values)\n"
        "    given.scatter_add_(0, ids, values)\n"
        "    c = torch.zeros(10, dtype=torch.long)\n"
        "    if flag:\n"
        "        c = torch.zeros(10)\n"
        "    c.scatter_add_(0, ids, values)\n"
        "    d = torch.zeros(10).long().to(device, torch.float32)\n"
        "    d.scatter_add_(0, ids, values)\n"
        "    e = torch.zeros_like(given)\n"
        "    e.scatter_add_(0, ids, values)\n"
        "    torch.Tensor.index_add_(given, 0, ids, values)\n"
    )
    assert reported(lint({"train.py": source}), "ND203") == [
        (5, 5, SCATTER_ADD), (7, 5, SCATTER_ADD), (8, 5, SCATTER_ADD), (12, 5, SCATTER_ADD), (14, 5, SCATTER_ADD),
        (16, 5, SCATTER_ADD), (17, 5, INDEX_ADD),
    ]


AT_ADD = (
    "`.at[].add()` adds with a GPU scatter whose conflicting updates land in a different order each run, while "
    "`XLA_FLAGS` lacks `--xla_gpu_deterministic_ops=true`; set `XLA_FLAGS=--xla_gpu_deterministic_ops=true` before "
    "JAX starts (scatters get slower), or sum with a one-hot matmul"
)
SEGMENT_SUM = (
    "`jax.ops.segment_sum` adds with a GPU scatter whose conflicting updates land in a different order each run, "
    "while `XLA_FLAGS` lacks `--xla_gpu_deterministic_ops=true`; set `XLA_FLAGS=--xla_gpu_deterministic_ops=true` "
    "before JAX starts (scatters get slower), or sum with a one-hot matmul"
)


def test_nd208_integer_accumulators_are_not_reported(lint):
    source = JAX + (
        "def count(ids, v, n):\n"
        "    a = jnp.zeros(n, jnp.int32).at[ids].add(v)\n"
        "    b = jnp.zeros((n,), dtype=int)\n"
        "    b = b.at[ids].add(v)\n"
        "    c = jnp.zeros_like(b).at[ids].add(v)\n"
        "    d = jnp.ones(n).astype(jnp.uint8).at[ids].add(v)\n"
        "    e = jax.ops.segment_sum(jnp.ones(n, dtype='int32'), ids, n)\n"
        "    return a, b, c, d, e\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == []


def test_nd208_float_or_unknown_accumulators_are_reported(lint):
    source = JAX + (
        "def total(ids, v, n, given, flag):\n"
        "    a = jnp.zeros(n).at[ids].add(v)\n"
        "    b = jnp.zeros(n, jnp.int32).astype('float32').at[ids].add(v)\n"
        "    c = given.at[ids].add(v)\n"
        "    d = jnp.zeros(n, jnp.int32)\n"
        "    if flag:\n"
        "        d = jnp.zeros(n)\n"
        "    d = d.at[ids].add(v)\n"
        "    e = jax.ops.segment_sum(v, ids, n)\n"
        "    return a, b, c, d, e\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == [
        (4, 9, AT_ADD), (5, 9, AT_ADD), (6, 9, AT_ADD), (10, 9, AT_ADD), (11, 9, SEGMENT_SUM),
    ]


def test_nd208_basic_indices_update_each_element_once(lint):
    source = JAX + (
        "def paste(canvas, tile, x, y, rows):\n"
        "    canvas = canvas.at[0:4, x:x + 4].add(tile)\n"
        "    canvas = canvas.at[..., None, :].add(tile)\n"
        "    for i in range(rows):\n"
        "        canvas = canvas.at[i, 2 * i + 1].add(tile)\n"
        "    k = int(y)\n"
        "    k += 1\n"
        "    canvas = canvas.at[k, -1].multiply(tile)\n"
        "    return canvas.at[len(tile)].add(tile)\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == []


def test_nd208_indices_that_may_be_arrays_are_reported(lint):
    source = JAX + (
        "def paste(canvas, tile, x, ids, positions):\n"
        "    canvas = canvas.at[x].add(tile)\n"
        "    canvas = canvas.at[0:4, ids].add(tile)\n"
        "    for i in positions:\n"
        "        canvas = canvas.at[i].add(tile)\n"
        "    k = 0\n"
        "    k = jnp.argsort(ids)\n"
        "    return canvas.at[k].add(tile)\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == [(4, 14, AT_ADD), (5, 14, AT_ADD), (7, 18, AT_ADD), (10, 12, AT_ADD)]


def test_nd208_sums_of_zeros_and_ones_are_counts(lint):
    # a boolean cast to float32 (directly, through a name, a rearranging op, or a vmapped
    # local function's return) or a select between 0 and 1: its segment sum is a count
    source = JAX + (
        "def count(x, ids, n):\n"
        "    @jax.vmap\n"
        "    def hit(c):\n"
        "        inside = (c > 0) & (c < 1)\n"
        "        return c * 2, jnp.array(inside, dtype=jnp.float32)\n"
        "    y, flags = hit(x)\n"
        "    a = jax.ops.segment_sum(jnp.tile(flags, 2), ids, n)\n"
        "    b = jax.ops.segment_sum(jnp.where(x > 0, 1.0, 0.0), ids, n)\n"
        "    c = jax.ops.segment_sum((x < 0).astype(jnp.float32).reshape(-1), ids, n)\n"
        "    return a, b, c\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == []


def test_nd208_near_misses_of_zeros_and_ones_are_reported(lint):
    # the other return value, a bfloat16 count (rounds above 256), a select of other values,
    # a cast of a non-boolean, and `.at[].add` of flags into an array that may hold anything
    source = JAX + (
        "def count(x, ids, n, acc):\n"
        "    @jax.vmap\n"
        "    def hit(c):\n"
        "        inside = (c > 0) & (c < 1)\n"
        "        return c * 2, jnp.array(inside, dtype=jnp.float32)\n"
        "    y, flags = hit(x)\n"
        "    a = jax.ops.segment_sum(y, ids, n)\n"
        "    b = jax.ops.segment_sum((x < 0).astype(jnp.bfloat16), ids, n)\n"
        "    c = jax.ops.segment_sum(jnp.where(x > 0, 2.0, 0.0), ids, n)\n"
        "    d = jax.ops.segment_sum(jnp.array(x, dtype=jnp.float32), ids, n)\n"
        "    e = acc.at[ids].add(flags)\n"
        "    return a, b, c, d, e\n"
    )
    assert reported(lint({"m.py": source}), "ND208") == [
        (9, 9, SEGMENT_SUM), (10, 9, SEGMENT_SUM), (11, 9, SEGMENT_SUM), (12, 9, SEGMENT_SUM), (13, 9, AT_ADD),
    ]


# ---------------------------------------------------------------- index_put accumulate --
# ``index_put_(..., accumulate=True)`` adds in parallel on a CPU tensor only: on CUDA it sorts
# its indices and adds in order (torch.use_deterministic_algorithms lists it "when called on
# a CPU tensor"; source torch_index_put_cuda), and so does the backward of advanced indexing
INDEX_PUT_CPU = (
    "`torch.Tensor.index_put_(accumulate=True)` adds in parallel on a CPU tensor, so its result changes from run to run "
    "while `torch.use_deterministic_algorithms(True)` is off (on a CUDA tensor it adds in a fixed order); "
    "turn on `torch.use_deterministic_algorithms(True)` (deterministic kernels can be slower)"
)


def test_nd203_index_put_accumulate_is_reported_on_a_cpu_tensor(lint):
    source = TORCH + (
        "def bins(ids, values):\n"
        "    a = torch.zeros(10)\n"
        "    a.index_put_((ids,), values, accumulate=True)\n"
        "    return a\n"
    )
    assert reported(lint({"train.py": source}), "ND203") == [(5, 5, INDEX_PUT_CPU)]


def test_nd203_index_put_accumulate_is_not_reported_on_a_gpu_tensor(lint):
    source = TORCH + (
        "def bins(ids, values, device):\n"
        "    a = torch.zeros(10, device=device)\n"
        "    a.index_put_((ids,), values, accumulate=True)\n"
        "    b = torch.zeros(10).cuda()\n"
        "    b.index_put_((ids,), values, True)\n"
        "    torch.zeros(10, device=torch.device('cuda')).index_put_((ids,), values, accumulate=True)\n"
        "    c = torch.zeros(10).to(device)\n"
        "    c[ids] += values\n"
        "    c.index_put_((ids,), values, accumulate=True)\n"
        "    return a, b, c\n"
    )
    assert reported(lint({"train.py": source}), "ND203") == []


DQN = """import numpy as np
import torch

device = torch.device("cuda")
q_net = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.Adam(q_net.parameters())
obs = torch.ones(8, 4, device=device)
actions = np.zeros(8, dtype=np.int64)
q = {gather}
loss = (q - 1.0).pow(2).mean()
loss.backward()
opt.step()
"""


def test_nd205_lists_gather_backward_but_not_the_backward_of_advanced_indexing(lint):
    # ``q_net(obs)[np.arange(8), actions]``'s backward is ``index_put_(accumulate=True)``:
    # deterministic on CUDA, so the program runs nothing the switch changes
    indexed = DQN.format(gather="q_net(obs)[np.arange(8), actions]")
    assert [f for f in lint({"train.py": indexed}) if f.code in ("ND203", "ND205")] == []
    gathered = DQN.format(gather="q_net(obs).gather(1, torch.as_tensor(actions, device=device)[:, None]).squeeze(1)")
    [finding] = [f for f in lint({"dqn/train.py": gathered}) if f.code == "ND205"]
    assert codes_at([finding]) == [("ND205", 4, 23)]
    assert "; it runs `torch.gather` (dqn/train.py:9); turn it on" in finding.message


def test_nd203_scatter_adds_of_0_1_flags_are_counts(lint):
    """A comparison cast to float (``(pred == target).float()``), one minus such flags, or a
    name last assigned one adds 0 or 1 per update: every addend is the same, so the float
    count is the same in any order. Other differences, numbers that are not flags and a
    parameter stay reported."""
    source = TORCH + (
        "def stat_scores(pred, target, num_classes, weights):\n"
        "    pred = pred.view((-1, )).long()\n"
        "    target = target.view((-1, )).long()\n"
        "    tps = torch.zeros((num_classes + 1, ), device=pred.device)\n"
        "    match_true = (pred == target).float()\n"
        "    match_false = 1 - match_true\n"
        "    tps.scatter_add_(0, pred, match_true)\n"
        "    tps.scatter_add_(0, target, match_false)\n"
        "    tps.index_add_(0, pred, (pred != target).to(tps))\n"
        "    tps.scatter_add_(0, pred, 2 - match_true)\n"
        "    tps.scatter_add_(0, pred, pred.float())\n"
        "    tps.scatter_add_(0, pred, weights)\n"
        "    tps.scatter_add_(0, pred, match_true * weights)\n"
    )
    assert reported(lint({"train.py": source}), "ND203") == [(12, 5, SCATTER_ADD), (13, 5, SCATTER_ADD), (14, 5, SCATTER_ADD), (15, 5, SCATTER_ADD)]
