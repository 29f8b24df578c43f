"""Which programs matter and which functions a program runs, on small projects (one
folder per case under ``tests/fixtures/programs``): each case holds a program that
matters and a near miss that does not, beside each other in one project."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import pytest

from fixture_projects import FIXTURES as ALL_FIXTURES, cases, expected_lines, lint_case
from nondet_lint import _toml
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run

FIXTURES = ALL_FIXTURES / "programs"
CASES = cases("programs")
SELECT = ["ND1", "ND205", "ND209"]
JAX_SWITCH = (
    "this program runs on a GPU (TensorFlow / JAX use the GPU by default) but never turns on "
    "`XLA_FLAGS=--xla_gpu_deterministic_ops=true`"
)
JAX_SWITCH_MESSAGE = (
    JAX_SWITCH + ", so cuDNN autotuning and atomic-add kernels can change its results from run to run; "
    "turn it on (deterministic kernels can be slower)"
)
TF_SWITCH = (
    "this program runs on a GPU (TensorFlow / JAX use the GPU by default) but never turns on op determinism "
    "(`tf.config.experimental.enable_op_determinism()`)"
)


@pytest.mark.parametrize("name", CASES)
def test_fixture_project(name, tmp_path):
    case = FIXTURES / name
    assert lint_case(case, tmp_path / name, SELECT) == expected_lines(case)


def findings(name: str, root: Path) -> List[Tuple[str, int, int, str, str]]:
    """``(relpath, line, column, code, message)`` of a case, column 1-based."""
    lint_case(FIXTURES / name, root, SELECT)
    table = {}
    if (FIXTURES / name / "config.toml").is_file():
        table = _toml.loads((FIXTURES / name / "config.toml").read_text(encoding="utf-8"))
    config = Config(**parse_table({"select": SELECT, **table}, "fixture"), root=str(root))
    return sorted(
        (Path(f.path).relative_to(root).as_posix(), f.line, f.col + 1, f.code, f.message)
        for f in run([str(root)], config).findings
    )


def test_a_reexport_as_its_own_name_runs_nothing(tmp_path):
    [(path, line, col, code, message)] = findings("reexport_as_name", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(JAX_SWITCH)


def test_a_class_a_lookup_only_registry_records_runs_nothing_at_import(tmp_path):
    [(path, line, col, code, message)] = findings("lookup_registry", tmp_path)
    assert (path, line, col, code) == ("train.py", 2, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_an_override_forwarding_to_super_is_not_training(tmp_path):
    [(path, line, col, code, message)] = findings("super_forwarding", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_a_main_that_only_runs_the_modules_own_test_function_is_test_code(tmp_path):
    found = findings("self_test_main", tmp_path)
    assert [f[:4] for f in found] == [("train.py", 2, 1, "ND205"), ("train.py", 8, 21, "ND102")]
    assert found[0][4].startswith(TF_SWITCH)
    assert found[1][4] == "NumPy global RNG used here with no `np.random.seed` before it (this program never seeds it)"


def test_a_program_that_loads_a_model_and_writes_none_predicts(tmp_path):
    [(path, line, col, code, message)] = findings("loads_a_model", tmp_path)
    assert (path, line, col, code) == ("predict.py", 3, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_a_vjp_that_feeds_no_update_is_not_training(tmp_path):
    [(path, line, col, code, message)] = findings("jacobian_is_not_training", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(JAX_SWITCH)


def test_a_tape_inside_a_custom_gradient_is_not_training(tmp_path):
    [(path, line, col, code, message)] = findings("custom_gradient", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_a_flax_grad_transform_feeding_an_update_trains(tmp_path):
    [(path, line, col, code, message)] = findings("flax_grad_transform", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(JAX_SWITCH)


def test_an_import_finds_the_module_beside_the_script(tmp_path):
    [(path, line, col, code, message)] = findings("neighbour_modules", tmp_path)
    assert (path, line, col, code) == ("a_trainer/main.py", 1, 1, "ND205")
    assert message.startswith(JAX_SWITCH)


def test_a_program_that_loads_a_model_through_a_helper_and_saves_it_converts(tmp_path):
    found = findings("converter_through_helper", tmp_path)
    assert [f[:4] for f in found] == [("finetune.py", 4, 1, "ND205"), ("predict.py", 5, 1, "ND205")]
    assert all(f[4].startswith(TF_SWITCH) for f in found)


def test_a_class_only_listed_is_constructed_once_looked_up_and_called(tmp_path):
    found = findings("listed_classes", tmp_path)
    assert [f[:4] for f in found] == [("device_train.py", 2, 1, "ND205"), ("dist_train.py", 2, 1, "ND205")]
    assert found[0][4].startswith(
        "this program runs on a GPU (a `\"cuda\"` device in `comp/__init__.py` at line 10) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )
    assert found[1][4].startswith(
        "this program runs on a GPU (`torch.cuda.set_device` in `comp/__init__.py` at line 15) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_a_class_taken_from_a_module_by_a_computed_name_may_be_any_of_its_classes(tmp_path):
    [(path, line, col, code, message)] = findings("getattr_lookup", tmp_path)
    assert (path, line, col, code) == ("predict.py", 4, 1, "ND205")
    assert message.startswith(
        "this program runs on a GPU (`.cuda()` in `predictors.py` at line 10) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_a_method_runs_only_on_a_class_instantiated_that_does_not_override_it(tmp_path):
    [(path, line, col, code, message)] = findings("overridden_method", tmp_path)
    assert (path, line, col, code) == ("gpu_train.py", 2, 1, "ND205")
    assert message.startswith(
        "this program runs on a GPU (a `\"cuda\"` device in `comp.py` at line 13) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_an_import_finds_the_module_in_the_folder_the_script_puts_on_sys_path(tmp_path):
    found = findings("sys_path_entries", tmp_path)
    assert [f[:4] for f in found] == [("scripts/train_gpu.py", 7, 1, "ND205"), ("scripts/train_pathlib.py", 7, 1, "ND205")]
    assert all(f[4].startswith(
        "this program runs on a GPU (`.cuda()` in `lib_b/helpers.py` at line 2) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    ) for f in found)


def test_nd205_only_where_the_switch_changes_something_the_program_runs(tmp_path):
    found = {f[0]: f[4] for f in findings("switch_changes_nothing", tmp_path) if f[3] == "ND205"}
    assert "extract_features.py" not in found and "rl_enjoy.py" not in found and "write_records.py" not in found
    # training runs the backward passes: the convolution's and the embedding's are named
    assert "; it runs `torch.nn.Conv1d` (model.py:8), `torch.nn.Embedding` (model.py:9); turn it on" in found["train.py"]
    # inference names only what its forward pass runs
    assert "; it runs `torch.Tensor.index_copy_` (scatter_eval.py:7); turn it on" in found["scatter_eval.py"]
    assert "; it runs `cuDNN convolution autotuning` (keras_predict.py:7); turn it on" in found["keras_predict.py"]
    assert "; it runs" not in found["extract_autotuned.py"] and "; it runs" not in found["hub_eval.py"]


def test_a_device_set_only_when_one_is_given_selects_no_gpu(tmp_path):
    # ``if self.device is not None: torch.cuda.set_device(self.device)`` in a thread the
    # CPU program starts with no device, and an option without a default: no GPU program
    reported = findings("device_set_when_given", tmp_path)
    assert [(path, line, col, code) for path, line, col, code, _ in reported] == [
        ("train_device_id.py", 10, 5, "ND205"), ("train_gpu.py", 4, 1, "ND205"),
    ]
    assert reported[0][4].startswith(
        "this program runs on a GPU (`torch.cuda.set_device` in `train_device_id.py` at line 10) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_a_gpu_probe_in_a_function_returning_a_bool_selects_no_gpu(tmp_path):
    [(path, line, col, code, message)] = findings("capability_probe", tmp_path)
    assert (path, line, col, code) == ("train_gpu.py", 2, 1, "ND205")
    assert message.startswith(
        "this program runs on a GPU (a `\"cuda\"` device in `ext.py` at line 14) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_an_exporter_through_a_helper_function_does_not_matter(tmp_path):
    # export.py reaches a layer that seeds NumPy in its constructor and a task with a
    # train_step hook, and writes the model through the project's export function;
    # train.py hands the same task to an outside trainer
    reported = findings("exports_through_helpers", tmp_path)
    assert [(path, line, col, code) for path, line, col, code, _ in reported] == [
        ("export_seeded.py", 4, 1, "ND205"), ("train.py", 4, 1, "ND205"),
    ]
    tail = ", so cuDNN autotuning and atomic-add kernels can change its results from run to run; "
    assert reported[0][4] == TF_SWITCH + tail + "it runs `tf.keras.layers.Conv2D` (tasks.py:9); turn it on (deterministic kernels can be slower)"
    assert reported[1][4] == TF_SWITCH + tail + "turn it on (deterministic kernels can be slower)"


def test_a_gpu_selected_where_a_collective_runs_on_every_path_needs_a_process_group(tmp_path):
    reported = findings("distributed_only_gpu", tmp_path)
    assert [(path, line, col, code) for path, line, col, code, _ in reported] == [
        ("train_ddp.py", 2, 1, "ND205"), ("train_reduce.py", 2, 1, "ND205"),
    ]
    assert reported[0][4].startswith("this program runs on a GPU (`.cuda()` in `dist_utils.py` at line 7) but never turns on")
    assert reported[1][4].startswith("this program runs on a GPU (`.cuda()` in `dist_utils.py` at line 14) but never turns on")


def test_a_registry_objects_definitions_run_where_that_registry_is_looked_up(tmp_path):
    [(path, line, col, code, message)] = findings("registry_objects", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(TF_SWITCH)
    assert "it runs `tf.nn.conv2d` (models.py:10)" in message


def test_a_function_computing_a_defuns_gradient_is_not_training(tmp_path):
    [(path, line, col, code, message)] = findings("defun_gradient", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_viewers_and_converters_whose_own_code_does_not_train_do_not_matter(tmp_path):
    [(path, line, col, code, message)] = findings("viewers_and_converters", tmp_path)
    assert (path, line, col, code) == ("train.py", 3, 1, "ND205")
    assert message.startswith(TF_SWITCH)


def test_a_program_that_only_writes_model_outputs_as_arrays_converts_data(tmp_path):
    found = findings("feature_writers", tmp_path)
    assert [f[:4] for f in found] == [
        ("evaluate.py", 13, 13, "ND205"), ("evaluate_fold.py", 12, 23, "ND205"), ("report.py", 9, 13, "ND205"),
        ("seeded_extract.py", 9, 13, "ND205"), ("train.py", 8, 13, "ND205"),
    ]
    for path, line, _, _, message in found:
        assert message == (
            f"this program runs on a GPU (`.cuda()` in `{path}` at line {line}) "
            "but never turns on `torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add "
            "kernels can change its results from run to run; it runs `torch.Tensor.index_copy_` (model.py:11); "
            "turn it on (deterministic kernels can be slower)"
        )


def test_a_viewer_a_project_class_constructor_serves_does_not_matter(tmp_path):
    found = findings("viewer_classes", tmp_path)
    assert [f[:4] for f in found] == [("model.py", 8, 21, "ND104"), ("show.py", 3, 1, "ND205"), ("train.py", 8, 13, "ND205")]
    assert found[1][4].startswith(
        "this program runs on a GPU (`.cuda()` in `model.py` at line 17) but never turns on `torch.use_deterministic_algorithms(True)`"
    )


def test_a_function_stored_under_a_field_runs_where_the_field_is_read(tmp_path):
    [(path, line, col, code, message)] = findings("stored_fields", tmp_path)
    assert (path, line, col, code) == ("train.py", 1, 1, "ND205")
    assert message.startswith(TF_SWITCH)


LAUNCHED = (
    "import tensorflow as tf\n"
    "\n"
    "def main(_):\n"
    "    weights = tf.Variable(tf.ones((2, 2)))\n"
    "    tf.compat.v1.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.nn.conv2d(tf.ones((1, 4, 4, 2)), weights[None, None], 1, 'SAME')))\n"
    "\n"
    "def report(_):\n"
    "    print('nothing to train')\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    tf.compat.v1.app.run({given})\n"
)


def test_a_launcher_given_no_function_runs_main(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    script = tmp_path / "train.py"
    config = Config(**parse_table({"select": ["ND205"]}, "test"), root=str(tmp_path))
    script.write_text(LAUNCHED.format(given=""), encoding="utf-8")
    [found] = run([str(tmp_path)], config).findings
    assert (found.line, found.col + 1, found.code) == (1, 1, "ND205")
    assert found.message.startswith(TF_SWITCH) and "`tf.nn.conv2d` (train.py:5)" in found.message
    # near miss: the launcher is given another function; main never runs
    script.write_text(LAUNCHED.format(given="report"), encoding="utf-8")
    assert run([str(tmp_path)], config).findings == []


def test_a_function_bound_by_a_module_level_partial_runs_where_the_name_is_used(tmp_path):
    [(path, line, col, code, message)] = findings("partial_binding", tmp_path)
    assert (path, line, col, code) == ("evaluate.py", 3, 1, "ND205")
    assert message.startswith(TF_SWITCH)
    assert "it runs `cuDNN convolution autotuning` (layers.py:7)" in message


def test_a_jax_gradient_trains_only_where_it_feeds_an_update(tmp_path):
    found = findings("gradient_feeds_update", tmp_path)
    assert [f[:4] for f in found] == [("handwritten.py", 2, 1, "ND205"), ("train.py", 1, 1, "ND205")]
    assert all(f[4] == JAX_SWITCH_MESSAGE for f in found)


def test_a_documentation_guide_without_a_dataset_does_not_matter(tmp_path):
    found = findings("documentation_guide", tmp_path)
    assert [f[:4] for f in found] == [("docs/tutorial.py", 2, 1, "ND205"), ("examples/toy.py", 2, 1, "ND205")]
    assert all(f[4] == JAX_SWITCH_MESSAGE for f in found)


def test_documentation_code_check_judges_a_guide(tmp_path):
    assert findings("documentation_guide_checked", tmp_path) == [
        ("docs/guides/optimizers.py", 2, 1, "ND205", JAX_SWITCH_MESSAGE),
    ]


def test_an_import_from_the_root_finds_a_namespace_package(tmp_path):
    assert findings("namespace_import_from_root", tmp_path) == [
        ("examples/agent/run.py", 1, 1, "ND205", JAX_SWITCH_MESSAGE),
    ]


def test_tensorflow_training_on_the_cpu_makes_no_gpu_program(tmp_path):
    found = findings("tf_cpu_placement", tmp_path)
    assert [(path, line, col, code) for path, line, col, code, _ in found] == [
        ("gpu_inside_cpu.py", 1, 1, "ND205"), ("gpu_scope.py", 1, 1, "ND205"),
        ("gpu_setting.py", 3, 1, "ND205"), ("input_on_cpu.py", 1, 1, "ND205"), ("partly_cpu.py", 1, 1, "ND205"),
    ]
    tail = ", so cuDNN autotuning and atomic-add kernels can change its results from run to run; "
    assert [message for _, _, _, _, message in found] == [
        TF_SWITCH + tail + f"it runs `tf.nn.bias_add` ({where}); turn it on (deterministic kernels can be slower)"
        for where in (
            "gpu_inside_cpu.py:5", "gpu_scope.py:5", "gpu_setting.py:25", "input_on_cpu.py:7",
            "partly_cpu.py:5",
        )
    ]


def test_a_module_that_only_starts_another_entry_points_program_is_reported_there(tmp_path):
    found = findings("module_shims", tmp_path)
    assert [(path, line, col, code) for path, line, col, code, _ in found] == [
        ("pkg/cli.py", 7, 13, "ND205"), ("pkg/hpo/cli.py", 7, 13, "ND205"),
        ("pkg/sweep/__main__.py", 2, 1, "ND205"), ("pkg/sweep/run.py", 2, 1, "ND205"),
    ]
    assert found[0][4].startswith(
        "this program runs on a GPU (`.cuda()` in `pkg/cli.py` at line 7) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )


def test_a_program_that_writes_a_render_out_as_a_point_cloud_converts(tmp_path):
    [(path, line, col, code, message)] = findings("mesh_export", tmp_path)
    assert (path, line, col, code) == ("measure.py", 7, 13, "ND205")
    assert message.startswith(
        "this program runs on a GPU (`.cuda()` in `measure.py` at line 7) but never turns on "
        "`torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add kernels can change "
        "its results from run to run; it runs `torch.cumsum` (scene.py:17)"
    )


def test_a_method_called_on_a_declared_return_value_runs_only_in_that_class_lineage(tmp_path):
    found = [item for item in findings("returned_receivers", tmp_path) if item[3] == "ND205"]
    assert [(path, line, col) for path, line, col, _, _ in found] == [("rerun.py", 2, 1), ("resume.py", 2, 1)]
    for _, _, _, _, message in found:
        assert message.startswith(
            "this program runs on a GPU (`.cuda()` in `engine.py` at line 16) but never turns on "
            "`torch.use_deterministic_algorithms(True)`"
        )


def test_a_method_called_on_a_local_built_from_a_project_class_runs_only_in_its_lineage(tmp_path):
    found = [item for item in findings("built_receivers", tmp_path) if item[3] == "ND205"]
    assert [(path, line, col) for path, line, col, _, _ in found] == [("train.py", 2, 1), ("tune.py", 3, 1)]
    for _, _, _, _, message in found:
        assert message.startswith(
            "this program runs on a GPU (`.cuda()` in `engine.py` at line 16) but never turns on "
            "`torch.use_deterministic_algorithms(True)`"
        )


def test_equinox_gradients_train_where_they_feed_an_update(tmp_path):
    found = findings("equinox_updates", tmp_path)
    assert [f[:4] for f in found] == [("handwritten.py", 2, 1, "ND205"), ("train.py", 3, 1, "ND205")]
    assert found[0][4] == JAX_SWITCH_MESSAGE
    assert found[1][4] == (
        JAX_SWITCH + ", so cuDNN autotuning and atomic-add kernels can change its results from run to run; "
        "it runs `jax.numpy.take` (train.py:11); turn it on (deterministic kernels can be slower)"
    )


def test_a_viewer_whose_rendering_is_in_a_project_function_it_calls_does_not_matter(tmp_path):
    found = findings("viewer_through_helper", tmp_path)
    assert [f[:4] for f in found] == [("evaluate.py", 4, 1, "ND205"), ("train.py", 2, 1, "ND205")]
    tail = (
        "but never turns on `torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add "
        "kernels can change its results from run to run; it runs `torch.nn.LSTM` (pkg/policy.py:8); turn it on "
        "(deterministic kernels can be slower)"
    )
    assert found[0][4] == "this program runs on a GPU (a `\"cuda\"` device in `pkg/evaluation.py` at line 17) " + tail
    assert found[1][4] == "this program runs on a GPU (a `\"cuda\"` device in `pkg/training.py` at line 12) " + tail


def test_a_class_a_function_defines_and_returns_runs_its_methods_where_it_is_used(tmp_path):
    [(path, line, col, code, message)] = findings("class_factory", tmp_path)
    assert (path, line, col, code) == ("train.py", 2, 1, "ND205")
    assert message == (
        TF_SWITCH + ", so cuDNN autotuning and atomic-add kernels can change its results from run to run; "
        "it runs `tf.nn.bias_add` (train.py:8); turn it on (deterministic kernels can be slower)"
    )


def test_an_interactive_demo_that_prompts_in_a_loop_is_a_viewer(tmp_path):
    [(path, line, col, code, message)] = findings("interactive_demo", tmp_path)
    assert (path, line, col, code) == ("evaluate.py", 4, 1, "ND205")
    assert message == (
        "this program runs on a GPU (`.cuda()` in `models.py` at line 6) but never turns on "
        "`torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add kernels can change its "
        "results from run to run; it runs `torch.nn.LSTM` (models.py:6); turn it on (deterministic kernels can be "
        "slower)"
    )


def test_a_framework_imported_under_a_config_field_declared_false_is_not_used(tmp_path):
    found = findings("field_default_branch", tmp_path)
    assert [f[:4] for f in found] == [("compare.py", 5, 1, "ND205"), ("compare_given.py", 5, 1, "ND205")]
    assert all(f[4] == (
        "this program runs on a GPU (TensorFlow / JAX use the GPU by default) but never turns on "
        "`torch.use_deterministic_algorithms(True)` and `XLA_FLAGS=--xla_gpu_deterministic_ops=true`, so cuDNN "
        "autotuning and atomic-add kernels can change its results from run to run; turn it on (deterministic "
        "kernels can be slower)"
    ) for f in found)
