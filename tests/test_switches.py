"""Determinism switches are recognised in one place: every rule that asks agrees."""

from __future__ import annotations

import pytest

SELECT = {"select": ["ND205", "ND307"]}
PROGRAM = """\
import os
import tensorflow as tf
{switch}
files = tf.data.Dataset.list_files("*.tfrecord")
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(files)
"""


def codes(findings):
    return sorted({(f.code, f.line) for f in findings})


def test_without_a_switch_both_rules_fire(lint):
    assert codes(lint({"train.py": PROGRAM.format(switch="")}, SELECT)) == [("ND205", 2), ("ND307", 4)]


@pytest.mark.parametrize("switch", [
    "os.environ['TF_DETERMINISTIC_OPS'] = '1'",
    "os.environ.setdefault('TF_DETERMINISTIC_OPS', 'true')",
    "os.environ.update({'TF_DETERMINISTIC_OPS': '1'})",
    "os.environ.update(TF_DETERMINISTIC_OPS='1')",
    "os.putenv('TF_DETERMINISTIC_OPS', '1')",
    "os.environ['TF_CUDNN_DETERMINISTIC'] = '1'",
    "tf.config.experimental.enable_op_determinism()",
])
def test_each_spelling_of_tensorflow_op_determinism_silences_both(lint, switch):
    assert codes(lint({"train.py": PROGRAM.format(switch=switch)}, SELECT)) == []


def test_a_switch_turned_off_silences_neither(lint):
    switch = "os.environ.update({'TF_DETERMINISTIC_OPS': '0'})"
    assert codes(lint({"train.py": PROGRAM.format(switch=switch)}, SELECT)) == [("ND205", 2), ("ND307", 4)]
