"""The op tables cover every API the sources list (tests/fixtures/kernels/catalog_apis.toml), and every entry is matched through the ways code
spells it: module aliases (``import torch.nn.functional as F``), ``from`` imports
(``from torch import Tensor``), ``tf.compat.v1`` / ``tf.keras``, and methods on tensors
(``x.index_add_(...)``).  Generated from the rule data, so a new entry is tested by adding
it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

import pytest

from nondet_lint import _toml
from nondet_lint.families.kernels.gpu import canonical
from nondet_lint.families.kernels.ops import KernelOps, OpTable
from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source

RULES = load_rules()
CATALOG = _toml.loads((Path(__file__).parent / "fixtures" / "kernels" / "catalog_apis.toml").read_text())
OP_RULES = {"ND203": "torch", "ND204": "tensorflow", "ND208": "jax"}
ROOT_IMPORT = {"torch": "import torch", "tensorflow": "import tensorflow as tf", "keras": "import tensorflow as tf\nimport keras",
               "jax": "import jax\nimport jax.numpy as jnp", "flax": "import jax\nimport flax", "tensorflow_addons": "import tensorflow as tf\nimport tensorflow_addons"}


def table(code: str) -> OpTable:
    return OpTable(RULES[code].data)


def matched_ids(source: str) -> Dict[str, Tuple[str, ...]]:
    config = Config()
    text = textwrap.dedent(source).lstrip("\n").encode()
    result = analyze_source("m.py", decode_source(text), config, RULES, selected_codes(config, RULES))
    assert result.parsed, source
    ops = result.facts.get(KernelOps)
    return dict(ops.by_code) if ops is not None else {}


# ---------------------------------------------------------------- coverage ------------
@pytest.mark.parametrize("name", CATALOG["torch"])
def test_every_pytorch_catalog_api_is_in_the_data(name):
    assert canonical(name, {}) in table("ND203").by_name, name


@pytest.mark.parametrize("name", CATALOG["tensorflow"])
def test_every_tensorflow_catalog_api_is_in_the_data(name):
    tf_table = table("ND204")
    assert canonical(name, tf_table.aliases) in tf_table.by_name, name


@pytest.mark.parametrize("row,entry_id", sorted(CATALOG["rows"].items()))
def test_catalog_rows_without_an_api_have_an_entry(row, entry_id):
    assert any(entry_id in table(code).by_id for code in OP_RULES), row


def test_rows_left_out_of_the_data_say_why():
    assert CATALOG["left_out"]
    for row, reason in CATALOG["left_out"].items():
        assert reason.startswith("not an API: "), row


def test_entries_are_well_formed():
    for code in OP_RULES:
        ids = set()
        for entry in RULES[code].data["ops"]:
            assert entry["id"] not in ids, entry["id"]
            ids.add(entry["id"])
            assert entry.get("report", "call") in ("call", "program", "none"), entry["id"]
            assert entry.get("phase") in ("forward", "backward", "forward+backward"), entry["id"]
            for item in entry.get("status", []):
                assert item["kind"] in ("switch", "raises", "unfixed"), entry["id"]
            if entry.get("report", "call") == "call":
                assert entry.get("advice") or all(i.get("advice") for i in entry["status"]), entry["id"]


# ---------------------------------------------------------------- aliases -------------
def arguments(entry: Mapping[str, Any], leading: int) -> str:
    """Arguments that meet the entry's conditions: placeholders up to ``min_args`` (plus
    the tensor of a function form), and the condition values as keywords."""
    positional = [f"a{i}" for i in range(leading + entry.get("min_args", 0))]
    keywords = []
    for cond in entry.get("when", []):
        if cond.get("negate") or "exact" in cond or "unique" in cond:
            continue  # absent: the default does not match what is negated / is not exact / unique
        if "present" in cond:
            if cond["present"]:
                keywords.append(f"{cond['arg']}=w")
            continue
        value = cond["in"][0] if "in" in cond else cond["is"]
        keywords.append(f"{cond['arg']}={value!r}")
    return ", ".join(positional + keywords)


def spellings(name: str) -> List[Tuple[str, str]]:
    """(imports, callee) pairs that all mean the qualified ``name``."""
    root, *rest = name.split(".")
    parent, last = name.rsplit(".", 1)
    base = ROOT_IMPORT.get(root, f"import {root}")
    first = "tf" if root == "tensorflow" else root
    out = [(base, ".".join([first, *rest]))]
    if ".Tensor." in name:  # ``from torch import Tensor``; ``Tensor.put_(x, ...)``
        out.append((f"{base}\nfrom torch import Tensor as T", f"T.{last}"))
    elif "." in parent:
        out.append((f"{base}\nimport {parent} as P", f"P.{last}"))  # import torch.nn.functional as F
        out.append((f"{base}\nfrom {parent} import {last} as aliased", "aliased"))
    if root == "keras":
        out.append(("import tensorflow as tf", "tf." + name))  # tf.keras.layers.X
    if name.startswith("tensorflow.") and not name.startswith("tensorflow.compat."):
        out.append(("import tensorflow as tf", "tf.compat.v1." + name[len("tensorflow."):]))
    return out


def alias_cases():
    for code in OP_RULES:
        for entry in RULES[code].data["ops"]:
            for name in entry.get("names", []):
                for imports, callee in spellings(name):
                    lead = 1 if entry.get("tensor_op") else 0
                    yield pytest.param(code, entry, f"{imports}\ny = {callee}({arguments(entry, lead)})\n",
                                       id=f"{code}-{entry['id']}-{callee}")
            for method in entry.get("methods", []) + entry.get("generic_methods", []):
                root = OP_RULES[code]
                if method.startswith(".at[]."):
                    call = f"x.at[i].{method.rsplit('.', 1)[1]}({arguments(entry, 1)})"
                else:
                    call = f"x.{method}({arguments(entry, 0)})"
                yield pytest.param(code, entry, f"{ROOT_IMPORT[root]}\ny = {call}\n", id=f"{code}-{entry['id']}-.{method}")


@pytest.mark.parametrize("code,entry,source", list(alias_cases()))
def test_entry_is_matched_through_aliases(code, entry, source):
    assert entry["id"] in matched_ids(source).get(code, []), source


def test_a_condition_that_does_not_hold_does_not_match():
    found = matched_ids("import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2, mode='nearest')\n")
    assert "interpolate_linear_backward" not in found.get("ND203", [])
    found = matched_ids("import torch\ny = x.put_(i, v, accumulate=flag)\n")  # computed: unknown
    assert not {"put_", "put_accumulate_cuda"} & set(found.get("ND203", []))


def test_other_libraries_methods_do_not_match():
    source = """
    import numpy as np
    import pandas as pd
    import torch

    arr = np.zeros(3)
    np.add.at(arr, [0, 0], 1.0)
    s = arr.cumsum(0)
    df = pd.read_csv("x.csv")
    m = df.median(0)
    q.put(item)
    """
    assert matched_ids(source).get("ND203", []) == []


def test_generic_method_names_need_the_framework_imported():
    assert matched_ids("def f(x, i, v):\n    return x.put(i, v)\n") == {}
    # a torch-only method name matches even where torch is used without being imported
    found = matched_ids("import torch\ndef f(x, i, v):\n    return x.put(i, v)\n")
    assert "put_" in found["ND203"]
