"""Backward-only ops where no gradient can flow (ND203 / ND204): in a function used only
under ``torch.no_grad()``, as a weight-loading hook or for a ``tf.summary``; and the
kernel rules in test code.  Each case has a near miss that keeps the finding."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

INTERPOLATE = '`torch.nn.functional.interpolate` has no deterministic CUDA implementation'
RESIZE = '`tf.compat.v1.image.resize_nearest_neighbor` has no deterministic GPU implementation'
POOL = '`torch.nn.AdaptiveAvgPool2d` has no deterministic CUDA implementation'

Found = List[Tuple[str, str, int, int]]


def found(lint, files: Dict[str, str], code: str, start: str, config: Optional[dict] = None) -> Found:
    findings = [f for f in lint(files, config) if f.code == code]
    assert all(f.message.startswith(start) for f in findings), [f.message for f in findings]
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.code, f.line, f.col + 1) for f in findings)


# ---------------------------------------------------------------- torch: weight loading ----
VIT = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from timm.models.helpers import build_model_with_cfg\n"
    "class ViT(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.pos_embed = torch.nn.Parameter(torch.zeros(1, 4, 8))\n"
    "    def forward(self, x):\n"
    "        return x + self.pos_embed\n"
    "def resize_pos_embed(posemb, size):\n"
    "    return F.interpolate(posemb, size=size, mode='bicubic')\n"
    "@torch.no_grad()\n"
    "def load_weights(model, weights):\n"
    "    model.pos_embed.copy_(resize_pos_embed(weights['pos_embed'], (2, 2)))\n"
    "def checkpoint_filter_fn(state_dict, model):\n"
    "    return {k: resize_pos_embed(v, (2, 2)) for k, v in state_dict.items()}\n"
    "def create_vit(pretrained=False):\n"
    "    return build_model_with_cfg(ViT, 'vit', pretrained, pretrained_filter_fn=checkpoint_filter_fn)\n"
)
TRAIN_VIT = (
    "import torch\n"
    "from proj import vit\n"
    "def main():\n"
    "    model = vit.create_vit().cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    model(torch.ones(1, 4, 8).cuda()).sum().backward()\n"
    "    opt.step()\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def vit_project(vit: str = VIT, train: str = TRAIN_VIT) -> Dict[str, str]:
    return {"proj/__init__.py": "", "proj/vit.py": vit, "proj/train.py": train}


def test_a_resize_used_only_while_loading_weights_is_not_reported(lint):
    # ``resize_pos_embed`` runs under ``no_grad`` and in a checkpoint filter timm calls
    assert found(lint, vit_project(), "ND203", INTERPOLATE) == []


def test_near_miss_the_resize_also_runs_in_forward(lint):
    vit = VIT.replace("return x + self.pos_embed", "return x + resize_pos_embed(self.pos_embed, (2, 2))")
    assert found(lint, vit_project(vit), "ND203", INTERPOLATE) == [("vit.py", "ND203", 11, 12)]


def test_near_miss_a_filter_given_under_another_keyword(lint):
    vit = VIT.replace("pretrained_filter_fn=checkpoint_filter_fn", "feature_cfg=checkpoint_filter_fn")
    assert found(lint, vit_project(vit), "ND203", INTERPOLATE) == [("vit.py", "ND203", 11, 12)]


def test_a_load_state_dict_hook_gets_no_gradient(lint):
    vit = VIT.replace(
        "return build_model_with_cfg(ViT, 'vit', pretrained, pretrained_filter_fn=checkpoint_filter_fn)",
        "model = ViT()\n    model.register_load_state_dict_pre_hook(checkpoint_filter_fn)\n    return model",
    ).replace("from timm.models.helpers import build_model_with_cfg\n", "")
    assert found(lint, vit_project(vit), "ND203", INTERPOLATE) == []


def test_near_miss_the_loader_is_not_under_no_grad(lint):
    vit = VIT.replace("@torch.no_grad()\n", "")
    assert found(lint, vit_project(vit), "ND203", INTERPOLATE) == [("vit.py", "ND203", 11, 12)]


def test_near_miss_a_function_nothing_refers_to_is_still_reported(lint):
    # looked up by a string, it may run anywhere
    vit = VIT.replace("resize_pos_embed(weights['pos_embed'], (2, 2))", "weights['pos_embed']").replace(
        "{k: resize_pos_embed(v, (2, 2)) for", "{k: v for")
    assert found(lint, vit_project(vit), "ND203", INTERPOLATE) == [("vit.py", "ND203", 11, 12)]


# ---------------------------------------------------------------- TensorFlow: summaries ----
TF = {"target-versions": {"tensorflow": "2.15"}}
UTIL = (
    "import tensorflow as tf\n"
    "def to_image(roll, dilation=1):\n"
    "    roll = tf.compat.v1.image.resize_nearest_neighbor(roll, [8 * dilation, 8])\n"
    "    return tf.cast(roll, tf.uint8)\n"
)
TRAIN_TF = (
    "import tensorflow as tf\n"
    "from proj import util\n"
    "def main():\n"
    "    model = tf.keras.Sequential([tf.keras.layers.Dense(3)])\n"
    "    x = tf.ones([2, 8, 8, 1])\n"
    "    tf.summary.image('roll', util.to_image(x, dilation=2))\n"
    "    with tf.GradientTape() as tape:\n"
    "        loss = tf.reduce_sum({loss})\n"
    "    tape.gradient(loss, model.trainable_variables)\n"
    "    tf.summary.image('raw', tf.compat.v1.image.resize_nearest_neighbor(x, [16, 8]))\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def tf_project(loss: str = "model(x)") -> Dict[str, str]:
    return {"proj/__init__.py": "", "proj/util.py": UTIL, "proj/train.py": TRAIN_TF.format(loss=loss)}


def test_an_image_built_only_for_a_summary_is_not_reported(lint):
    # the resize in ``to_image`` and the one written in the summary call get no gradient
    assert found(lint, tf_project(), "ND204", RESIZE, TF) == []


def test_near_miss_the_image_helper_is_also_differentiated(lint):
    assert found(lint, tf_project("model(util.to_image(x))"), "ND204", RESIZE, TF) == [("util.py", "ND204", 3, 12)]


# ---------------------------------------------------------------- test code ----
TEST_MODEL = (
    "import torch\n"
    "def test_resume_is_reproducible():\n"
    "    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.AdaptiveAvgPool2d(1)).cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    model(torch.ones(1, 3, 8, 8).cuda()).sum().backward()\n"
    "    opt.step()\n"
)


def test_kernel_ops_in_test_code_are_not_reported_by_default(lint):
    assert found(lint, {"tests/test_engine.py": TEST_MODEL}, "ND203", POOL) == []


def test_near_miss_test_code_checked_on_request(lint):
    assert found(lint, {"tests/test_engine.py": TEST_MODEL}, "ND203", POOL, {"test-code": "check"}) == [
        ("test_engine.py", "ND203", 3, 59),
    ]


def test_near_miss_the_same_model_outside_test_code(lint):
    source = TEST_MODEL.replace("def test_resume_is_reproducible():", "def main():") + "main()\n"
    assert found(lint, {"train.py": source}, "ND203", POOL) == [("train.py", "ND203", 3, 59)]


# ---------------------------------------------------------------- scatters with one index per row ----
SCATTER_ND = "`tf.scatter_nd` adds with atomics on the GPU"
FINAL = (
    "import tensorflow as tf\n"
    "def final_index(lengths, time_major=True):\n"
    "    indices = [tf.maximum(0, lengths - 1), {column}]\n"
    "    if not time_major:\n"
    "        indices = indices[-1::-1]\n"
    "    return tf.stack(indices, axis={axis})\n"
    "def set_final(sequence, lengths, values):\n"
    "    index = final_index(lengths, time_major=False)\n"
    "    return sequence + tf.scatter_nd(index, values, tf.shape(sequence))\n"
    "def set_first(sequence, lengths, values):\n"
    "    rows = tf.stack([tf.zeros_like(lengths), {column}], axis={axis})\n"
    "    return sequence + tf.scatter_nd(rows, values, tf.shape(sequence))\n"
)


def final_module(column: str = "tf.range(lengths.shape[0])", axis: str = "1") -> Dict[str, str]:
    return {"seq.py": FINAL.format(column=column, axis=axis)}


def test_a_scatter_with_one_index_per_batch_row_is_not_reported(lint):
    # each row holds its own ``tf.range`` value: no two updates meet
    assert found(lint, final_module(), "ND204", SCATTER_ND, TF) == []
    assert found(lint, final_module(axis="-1"), "ND204", SCATTER_ND, TF) == []


def test_near_miss_rows_without_a_distinct_column(lint):
    assert found(lint, final_module(column="lengths"), "ND204", SCATTER_ND, TF) == [
        ("seq.py", "ND204", 9, 23), ("seq.py", "ND204", 12, 23),
    ]


def test_near_miss_indices_stacked_along_the_first_axis(lint):
    # ``[2, batch]``: two index vectors of depth ``batch``, nothing says they differ
    assert found(lint, final_module(axis="0"), "ND204", SCATTER_ND, TF) == [
        ("seq.py", "ND204", 9, 23), ("seq.py", "ND204", 12, 23),
    ]


def test_near_miss_the_list_is_rebound_to_something_else(lint):
    files = final_module()
    files["seq.py"] = files["seq.py"].replace("indices[-1::-1]", "indices[:1] + [lengths]")
    assert found(lint, files, "ND204", SCATTER_ND, TF) == [("seq.py", "ND204", 9, 23)]


# ---------------------------------------------------------------- a branch no caller opens ----
CONTRAST = "`tf.image.adjust_contrast` has no deterministic GPU implementation"
AUGMENT = (
    "import tensorflow as tf\n"
    "def augment(images, do_colors=False, crop_size=None):\n"
    "    images = tf.image.random_flip_left_right(images)\n"
    "    if do_colors:\n"
    "        images = tf.image.adjust_contrast(images, 1.5)\n"
    "    return images\n"
)
USE_AUGMENT = (
    "import tensorflow as tf\n"
    "from proj import aug\n"
    "def main():\n"
    "    print({call})\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def augment_project(call: str) -> Dict[str, str]:
    return {"proj/__init__.py": "", "proj/aug.py": AUGMENT, "proj/run.py": USE_AUGMENT.format(call=call)}


def test_an_op_under_a_flag_no_call_sets_is_not_reported(lint):
    for call in ("aug.augment(tf.ones([4, 4, 3]))", "aug.augment(tf.ones([4, 4, 3]), do_colors=False)",
                 "aug.augment(tf.ones([4, 4, 3]), crop_size=[2, 2])"):
        assert found(lint, augment_project(call), "ND204", CONTRAST, TF) == [], call


def test_near_miss_a_call_sets_the_flag(lint):
    for call in ("aug.augment(tf.ones([4, 4, 3]), do_colors=True)", "aug.augment(tf.ones([4, 4, 3]), True)",
                 "aug.augment(*args)", "list(map(aug.augment, [tf.ones([4, 4, 3])]))"):
        assert found(lint, augment_project(call), "ND204", CONTRAST, TF) == [("aug.py", "ND204", 5, 18)], call


def test_near_miss_a_flag_function_nothing_calls(lint):
    assert found(lint, augment_project("'no call'"), "ND204", CONTRAST, TF) == [("aug.py", "ND204", 5, 18)]


# ---------------------------------------------------------------- torch: module-level layers ----
AVG_POOL = '`torch.nn.AvgPool3d` has no deterministic CUDA implementation'
MESH = (
    "import torch\n"
    "\n"
    "avg_pool_3d = torch.nn.AvgPool3d(2, stride=2)\n"
    "\n"
    "\n"
    "def pyramid(points):\n"
    "    return [points, avg_pool_3d(points[None])[0]]\n"
    "\n"
    "\n"
    "@torch.no_grad()\n"
    "def export_mesh(field, points):\n"
    "    return [field(level) for level in pyramid(points)]\n"
)
TRAIN_FIELD = (
    "import torch\n"
    "from mesh import export_mesh\n"
    "\n"
    "\n"
    "def main():\n"
    "    field = torch.nn.Linear(8, 8).cuda()\n"
    "    opt = torch.optim.Adam(field.parameters())\n"
    "    points = torch.randn(3, 8, 8, 8, device='cuda')\n"
    "    field(points).sum().backward()\n"
    "    opt.step()\n"
    "    export_mesh(field, points)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_module_level_layer_called_only_under_no_grad_is_not_reported(lint):
    assert found(lint, {"mesh.py": MESH, "train.py": TRAIN_FIELD}, "ND203", AVG_POOL) == []


def test_near_miss_the_layer_is_also_called_where_a_gradient_flows(lint):
    mesh = MESH + "\n\ndef smooth(points):\n    return avg_pool_3d(points)\n"
    train = TRAIN_FIELD.replace("from mesh import export_mesh", "from mesh import export_mesh, smooth").replace(
        "field(points).sum()", "field(smooth(points)).sum()")
    assert found(lint, {"mesh.py": mesh, "train.py": train}, "ND203", AVG_POOL) == [("mesh.py", "ND203", 3, 15)]


def test_near_miss_the_layer_is_handed_on(lint):
    # put in a model, it runs wherever the model does
    mesh = MESH + "\n\nhead = torch.nn.Sequential(avg_pool_3d)\n"
    assert found(lint, {"mesh.py": mesh, "train.py": TRAIN_FIELD}, "ND203", AVG_POOL) == [("mesh.py", "ND203", 3, 15)]


def test_near_miss_another_module_imports_the_layer(lint):
    train = TRAIN_FIELD.replace("from mesh import export_mesh", "from mesh import export_mesh, avg_pool_3d").replace(
        "field(points).sum()", "field(avg_pool_3d(points)).sum()")
    assert found(lint, {"mesh.py": MESH, "train.py": train}, "ND203", AVG_POOL) == [("mesh.py", "ND203", 3, 15)]


# ------------------------------------------------- torch: tensors that carry no gradient ----
VALUES = (
    "import numpy as np\n"
    "import torch\n"
    "import torch.nn.functional as F\n"
    "class ViT(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.pos_embed = torch.nn.Parameter(torch.zeros(1, 4, 8))\n"
    "    def forward(self, x):\n"
    "        return x + self.pos_embed\n"
    "    def show(self, x):\n"
    "        with torch.no_grad():\n"
    "            out = self.forward(x)\n"
    "        return F.interpolate(out[None].float(), size=(2, 2), mode='bilinear')\n"
    "def interpolate_pos_embed(model, checkpoint_model):\n"
    "    pos = checkpoint_model['pos_embed'][:, 1:]\n"
    "    pos = pos.reshape(1, 2, 2, 8).permute(0, 3, 1, 2)\n"
    "    checkpoint_model['pos_embed'] = F.interpolate(pos, size=(4, 4), mode='bicubic')\n"
    "def resize_depth(depths):\n"
    "    depth = torch.tensor(np.array(depths)).cuda()\n"
    "    return F.interpolate(depth, size=(2, 2), mode='bilinear')\n"
    "def resize_loaded(path):\n"
    "    pos = torch.load(path)['model']['pos_embed']\n"
    "    return F.interpolate(pos, size=(2, 2), mode='bilinear')\n"
)


def values_project(source: str = VALUES) -> Dict[str, str]:
    return vit_project(source, TRAIN_VIT.replace("vit.create_vit()", "vit.ViT()"))


def test_tensors_that_carry_no_gradient_are_not_reported(lint):
    # computed under no_grad, an entry of a state-dict parameter, made from an array, loaded
    assert found(lint, values_project(), "ND203", INTERPOLATE) == []


def test_near_misses_of_tensors_that_carry_no_gradient(lint):
    source = (
        VALUES.replace("            out = self.forward(x)\n", "            out = self.pos_embed if x is None else x\n")
        .replace("checkpoint_model", "weights")
        .replace("torch.tensor(np.array(depths))", "torch.tensor(np.array(depths), requires_grad=True)")
        .replace("    pos = torch.load(path)['model']['pos_embed']\n",
                 "    pos = torch.load(path)['model']['pos_embed']\n    pos = pos * model_scale(pos)\n")
    )
    # a parameter (or the input) picked as it is under no_grad, a dict of another name, a tensor that
    # asks for a gradient, a name rebound to an op's result outside no_grad
    assert found(lint, values_project(source), "ND203", INTERPOLATE) == [
        ("vit.py", "ND203", 13, 16), ("vit.py", "ND203", 17, 28), ("vit.py", "ND203", 20, 12), ("vit.py", "ND203", 24, 12),
    ]


# ------------------------------------- torch: parameters every call gives without gradient ----
TSDF = (
    "import numpy as np\n"
    "import torch\n"
    "import torch.nn.functional as F\n"
    "class TSDF:\n"
    "    def integrate(self, grid, depths, colors=None):\n"
    "        sampled = F.grid_sample(input=depths, grid=grid)\n"
    "        if colors is not None:\n"
    "            sampled = sampled + F.grid_sample(colors[:, :3], grid)\n"
    "        return sampled\n"
    "def export(model, renders, grid):\n"
    "    depths = torch.tensor(np.array(renders)).cuda()\n"
    "    with torch.no_grad():\n"
    "        colors = model(grid)\n"
    "    tsdf = TSDF()\n"
    "    for i in range(2):\n"
    "        tsdf.integrate(grid, depths[i:i + 1], colors=colors.permute(0, 3, 1, 2))\n"
    "    return tsdf\n"
)
GRID_SAMPLE = '`torch.nn.functional.grid_sample` has no deterministic CUDA implementation'


def tsdf_project(source: str = TSDF) -> Dict[str, str]:
    train = TRAIN_VIT.replace("vit.create_vit()", "vit.ViT()") + "from proj.tsdf import export\n"
    return {**vit_project(VALUES, train), "proj/tsdf.py": source}


def test_a_method_every_call_gives_tensors_without_gradient(lint):
    assert found(lint, tsdf_project(), "ND203", GRID_SAMPLE) == []


def test_near_misses_of_arguments_without_gradient(lint):
    # a call that gives the model's output made outside no_grad (at a keyword, at a
    # position); a class with a base (a Module's methods run when the library calls them)
    source = TSDF.replace("    with torch.no_grad():\n        colors = model(grid)\n", "    colors = model(grid)\n")
    assert found(lint, tsdf_project(source), "ND203", GRID_SAMPLE) == [("tsdf.py", "ND203", 8, 33)]
    source = TSDF.replace("torch.tensor(np.array(renders)).cuda()", "model(grid)")
    assert found(lint, tsdf_project(source), "ND203", GRID_SAMPLE) == [("tsdf.py", "ND203", 6, 19)]
    source = TSDF.replace("class TSDF:", "class TSDF(torch.nn.Module):")
    assert found(lint, tsdf_project(source), "ND203", GRID_SAMPLE) == [("tsdf.py", "ND203", 6, 19), ("tsdf.py", "ND203", 8, 33)]
