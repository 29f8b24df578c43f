"""The seeding analysis beyond single rule examples: fixes on whole programs, facts that can
be cached, stable output, messages that name the program, and code that must not crash it."""

from __future__ import annotations

import ast
from dataclasses import replace
import json
import textwrap

import pytest

from conftest import lint_files, write_project
from fixtools import fix_project
from nondet_lint.families.seeding.facts import ModuleSeeding
from nondet_lint.config import Config
from nondet_lint.engine import run, selected_codes
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source

ND1 = {"select": ["ND1"]}

PROGRAM = {
    "train.py": """
        import random
        import numpy as np
        import torch.nn as nn

        from data import batches


        def main():
            model = nn.Linear(4, 2)
            for x in batches():
                if random.random() < 0.5:
                    x = x + np.random.normal(0, 0.1, x.shape)
                model(x).sum().backward()


        if __name__ == "__main__":
            main()
    """,
    "data.py": """
        import numpy as np


        def batches():
            return [np.random.rand(4) for _ in range(3)]
    """,
}


def codes(findings):
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for f in findings)


def test_one_seed_block_fixes_the_whole_program(tmp_path):
    before = lint_files(tmp_path, PROGRAM, ND1)
    assert codes(before) == [
        ("data.py", 5, "ND102"),
        ("train.py", 9, "ND104"),
        ("train.py", 11, "ND101"),
        ("train.py", 12, "ND102"),
    ]
    carrying = [f for f in before if f.fix is not None]
    # one block, in the entry point: the library module's finding carries the same edits
    assert [f.path.rsplit("/", 1)[-1] for f in carrying] == ["data.py", "train.py"]
    assert carrying[0].fix.edits == tuple(replace(e, path=str(tmp_path / "train.py")) for e in carrying[1].fix.edits)
    outcome, _ = fix_project(tmp_path, ND1)
    assert outcome.findings == []
    fixed = outcome.contents[str(tmp_path / "train.py")].decode()
    ast.parse(fixed)
    lines = fixed.splitlines()
    for statement in ("random.seed(0)", "np.random.seed(0)", "import torch", "torch.manual_seed(0)"):
        assert lines.count(statement) == 1, fixed
    # the block comes after the imports, before the first definition
    assert lines.index("torch.manual_seed(0)") < lines.index("def main():")
    assert lines.index("from data import batches") < lines.index("random.seed(0)")
    # applying the fix again changes nothing
    (tmp_path / "train.py").write_text(fixed, encoding="utf-8")
    again, _ = fix_project(tmp_path, ND1)
    assert again.changed == [] and again.findings == []


def test_the_seed_value_comes_from_the_config(tmp_path):
    config = {**ND1, "seed": 1234}
    outcome, _ = fix_project(write_project(tmp_path, PROGRAM), config)
    assert "torch.manual_seed(1234)" in outcome.contents[str(tmp_path / "train.py")].decode()


def test_a_finding_in_a_library_module_names_the_entry_point_and_carries_its_seed_block(tmp_path):
    findings = lint_files(tmp_path, PROGRAM, {"select": ["ND102"]})
    library = [f for f in findings if f.path.endswith("data.py")]
    assert len(library) == 1 and "train.py" in library[0].message
    # the block goes in the entry point: an edit with that file's path
    fix = library[0].fix
    assert fix.title == "Insert a seed block after the imports of train.py" and fix.applicability == "safe"
    assert [(e.path, e.line, e.content) for e in fix.edits] == [
        (str(tmp_path / "train.py"), 6, "\nnp.random.seed(0)\n"),
    ]


def test_generator_fix_imports_torch_when_the_module_has_no_name_for_it(tmp_path):
    files = {"train.py": """
        from torch.utils.data import DataLoader, random_split


        def main(ds):
            train, val = random_split(ds, [8, 2])
            return DataLoader(train, shuffle=True), val


        if __name__ == "__main__":
            main(list(range(10)))
    """}
    outcome, _ = fix_project(write_project(tmp_path, files), {"select": ["ND109", "ND110"]})
    fixed = outcome.contents[str(tmp_path / "train.py")].decode()
    ast.parse(fixed)
    assert fixed.count("import torch\n") == 1
    assert "random_split(ds, [8, 2], generator=torch.Generator().manual_seed(0))" in fixed
    assert "DataLoader(train, shuffle=True, generator=torch.Generator().manual_seed(0))" in fixed
    assert outcome.findings == []


def test_facts_are_plain_data_and_identical_from_run_to_run():
    rules = load_rules()
    config = Config()
    source = decode_source(textwrap.dedent(PROGRAM["train.py"]).encode())
    first = analyze_source("train.py", source, config, rules, selected_codes(config, rules), "train")
    second = analyze_source("train.py", source, config, rules, selected_codes(config, rules), "train")
    facts = first.facts.get(ModuleSeeding).to_json()
    assert json.loads(json.dumps(facts)) == facts
    assert json.dumps(facts, sort_keys=True) == json.dumps(second.facts.get(ModuleSeeding).to_json(), sort_keys=True)
    assert [d.to_dict() for d in first.deferred] == [d.to_dict() for d in second.deferred]


def test_output_is_the_same_whatever_order_files_come_in(tmp_path):
    write_project(tmp_path, PROGRAM)
    config = Config(select=("ND1",), root=str(tmp_path))
    forward = run([str(tmp_path / "train.py"), str(tmp_path / "data.py")], config).findings
    backward = run([str(tmp_path / "data.py"), str(tmp_path / "train.py")], config).findings
    assert [(f.path, f.line, f.code, f.message) for f in forward] == [(f.path, f.line, f.code, f.message) for f in backward]


def test_a_neighbouring_module_wins_over_one_of_the_same_name_elsewhere(tmp_path):
    files = {
        "a/train.py": "from helpers import seed\nimport torch\n\nif __name__ == '__main__':\n    seed()\n    torch.rand(2).sum()\n    torch.optim.SGD([], lr=0.1)\n",
        "a/helpers.py": "import torch\n\ndef seed():\n    torch.manual_seed(0)\n",
        "b/helpers.py": "def seed():\n    pass\n",
    }
    assert codes(lint_files(tmp_path, files, ND1)) == []


@pytest.mark.parametrize("source", [
    # recursion, nested and decorated definitions, lambdas, star arguments, walrus, globals
    "import random\n\ndef f(n):\n    return f(n - 1) if n else random.random()\n\nif __name__ == '__main__':\n    f(3)\n",
    "import random\n\ndef outer():\n    def inner(*a, **k):\n        return random.choice(a)\n    return inner(*[1, 2], **{})\n\nif __name__ == '__main__':\n    outer()\n",
    "import random\nimport functools\n\n@functools.lru_cache\ndef g():\n    global SEED\n    SEED = (x := random.random())\n    return x\n\nclass A:\n    class B:\n        def m(self):\n            return super().m()\n\nif __name__ == '__main__':\n    A.B().m()\n    g()\n",
    "from . import nothing\nfrom .. import *\nimport numpy.random as npr\nnpr.seed()\n",
    "def a():\n    b()\n\ndef b():\n    a()\n\na()\n",
    "class C(C):\n    def __init__(self):\n        C.__init__(self)\n\nC()\n",
])
def test_odd_code_does_not_crash(tmp_path, source):
    lint_files(tmp_path, {"prog.py": source, "pkg/__init__.py": "from .mod import *\n", "pkg/mod.py": "from . import *\n"})


def test_a_draw_that_only_picks_a_network_port_is_not_a_use(tmp_path):
    """``[ND101.data.no_result]``: a random ``MASTER_PORT`` (or a value named a port, or a
    ``port=`` argument) changes no result; a draw that reaches anything else is a use."""
    source = textwrap.dedent("""\
        import os
        import random
        import numpy as np
        import torch

        def main():
            os.environ["MASTER_PORT"] = str(random.randint(10_000, 50_000))
            port = 29500 + np.random.randint(0, 100)
            launch(master_port=random.randint(1, 9))
            url = f"tcp://localhost:{random.randint(1, 9)}"
            os.environ["SEED"] = str(random.randint(0, 9))
            opt = torch.optim.SGD([], lr=np.random.rand())

        if __name__ == "__main__":
            main()
    """)
    findings = lint_files(tmp_path, {"train.py": source}, {"select": ["ND101", "ND102"]})
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND101", 10, 30), ("ND102", 12, 34)]
    assert findings[0].message == (
        "Python `random` module RNG used here with no `random.seed` before it (this program never seeds it); "
        "1 more unseeded use in this module"
    )


@pytest.mark.parametrize("framework", ["import tensorflow as tf", "import torch"])
def test_a_parameter_that_hides_an_import_is_not_the_module(tmp_path, framework):
    """``def noise(np): np.random.rand()``: ``np`` is whatever the caller passes.  Checks
    that read names before the walk (ND204's ``tf.data`` collectors, in files that mention
    TensorFlow) must not leave the module's meaning behind for the walk to reuse."""
    source = textwrap.dedent(f"""\
        import random
        import numpy as np
        {framework}

        random.seed(0)

        def noise(np):
            return np.random.rand(3)

        def draw():
            return np.random.rand(3)

        if __name__ == "__main__":
            print(noise(np) + draw())
    """)
    findings = lint_files(tmp_path, {"sample.py": source}, {"select": ["ND102", "ND204"]})
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND102", 11, 12)]


def test_an_unseeded_estimator_in_test_code_is_not_reported_unless_test_code_is_checked(lint):
    """What a test's estimator or generated data draws decides whether that test passes,
    not what a training run learns (contract "Test code"): ND108 skips test code by
    default; the same call in a training script (near miss) is reported, and so is the
    test's with ``test-code = "check"``."""
    fit = """
        from sklearn.cluster import KMeans
        def fit(x):
            return KMeans(n_clusters=3).fit(x)
        """
    main = "\n        if __name__ == '__main__':\n            fit([[0.0], [1.0], [2.0]])\n"
    files = {"tests/test_clusters.py": fit, "train.py": fit + main}
    findings = [f for f in lint(files, {"select": ["ND108"]}) if f.code == "ND108"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("train.py", 3, 12)]
    assert findings[0].message == (
        "`sklearn.cluster.KMeans` is random with these arguments and its `random_state` is omitted, so it draws"
        " from NumPy's global RNG, which nothing seeds before it (this program never seeds it); pass random_state"
    )
    checked = lint(files, {"select": ["ND108"], "test-code": "check"})
    assert sorted((f.path.rsplit("/", 1)[-1], f.line) for f in checked if f.code == "ND108") == [
        ("test_clusters.py", 3), ("train.py", 3)
    ]


def test_an_unseeded_numpy_generator_in_test_code_is_not_reported_unless_test_code_is_checked(lint):
    """ND103 is reported at the call but is one of the seeding rules (ND101 to ND106) that
    never judge test code (contract "Test code"): a test's ``RandomState()`` decides
    whether the test passes.  The same call in a script (near miss) is reported, and the
    test's with ``test-code = "check"``."""
    draw = """
        import numpy as np
        def draw(n):
            rng = np.random.RandomState()
            return rng.rand(n)
        """
    main = "\n        if __name__ == '__main__':\n            print(draw(3))\n"
    files = {"specs/wrappers_test.py": draw + main, "sample.py": draw + main}
    findings = [f for f in lint(files, {"select": ["ND103"]}) if f.code == "ND103"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("sample.py", 3, 11)]
    assert findings[0].message == (
        "`np.random.RandomState` is created with no seed, so it draws fresh entropy from the OS and differs"
        " every run; pass a seed"
    )
    checked = lint(files, {"select": ["ND103"], "test-code": "check"})
    assert sorted((f.path.rsplit("/", 1)[-1], f.line) for f in checked if f.code == "ND103") == [
        ("sample.py", 3), ("wrappers_test.py", 3)
    ]


def test_a_clock_seed_in_test_code_is_not_reported_unless_test_code_is_checked(lint):
    """A test that seeds from the clock (to hunt flaky failures) decides whether that test
    passes, not what a training run learns: ND107 skips test code by default like the
    other seeding rules; the same seed in a training script (near miss) is reported, and
    the test's with ``test-code = "check"``."""
    body = """
        import time
        import torch
        def run():
            torch.manual_seed(int(time.time()))
            return torch.rand(3)
        """
    main = "\n        if __name__ == '__main__':\n            run()\n"
    files = {"tests/test_fit.py": body, "train.py": body + main}
    findings = [f for f in lint(files, {"select": ["ND107"]}) if f.code == "ND107"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("train.py", 4, 27)]
    assert findings[0].message == (
        "`time.time()` changes from run to run and is used as a seed, so the seed itself differs every run;"
        " use a fixed value (log it if it varies on purpose)"
    )
    checked = lint(files, {"select": ["ND107"], "test-code": "check"})
    assert sorted((f.path.rsplit("/", 1)[-1], f.line) for f in checked if f.code == "ND107") == [
        ("test_fit.py", 4), ("train.py", 4)
    ]


def test_an_unseeded_search_sampler_in_test_code_is_not_reported_unless_test_code_is_checked(lint):
    """What a test's hyper-parameter search tries decides whether that test passes, not
    which model a training run keeps (contract "Test code"): ND111 skips test code by
    default; the same search in a tuning script (near miss) is reported, and the test's
    with ``test-code = "check"``."""
    search = """
        import optuna
        def objective(trial):
            return trial.suggest_float("lr", 1e-4, 1e-1)
        def tune():
            study = optuna.create_study()
            study.optimize(objective, n_trials=2)
            return study
        """
    main = "\n        if __name__ == '__main__':\n            tune()\n"
    files = {"tests/test_search.py": search, "tune.py": search + main}
    findings = [f for f in lint(files, {"select": ["ND111"]}) if f.code == "ND111"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("tune.py", 5, 13)]
    assert findings[0].message == (
        "`optuna.create_study` has no `sampler=`, so it builds an unseeded `TPESampler`: the hyper-parameters it"
        " tries, and so the model it picks, change every run; pass a seeded sampler"
    )
    checked = lint(files, {"select": ["ND111"], "test-code": "check"})
    assert sorted((f.path.rsplit("/", 1)[-1], f.line) for f in checked if f.code == "ND111") == [
        ("test_search.py", 5), ("tune.py", 5)
    ]


def test_keywords_spread_from_a_dict_the_module_writes_out_are_read_like_keywords(tmp_path):
    """``SGDClassifier(**params)`` where ``params`` is a dict display or ``dict(k=v)`` bound
    once and only ever spread: its keywords are known, so the call is judged on them (and
    fixed by adding ``random_state=``).  Near misses: a dict that sets ``random_state``; a
    dict some function adds a key to; a parameter's keywords (unknown) stay silent; and a
    spread ``random_state=None`` is reported without a fix, since adding the keyword again
    would raise.  The dict's later spreads count too, though the walk has not reached them."""
    source = textwrap.dedent("""\
        from sklearn.linear_model import SGDClassifier

        sgd_params = dict(alpha=1e-5, penalty="l2", loss="log_loss")
        seeded = {"alpha": 1e-5, "random_state": 0}
        unseeded = {"random_state": None}
        mutated = dict(alpha=1e-5)


        def main(X, y, extra):
            mutated["random_state"] = 0
            SGDClassifier(**sgd_params).fit(X, y)
            SGDClassifier(**seeded).fit(X, y)
            SGDClassifier(**unseeded).fit(X, y)
            SGDClassifier(**mutated).fit(X, y)
            SGDClassifier(**extra).fit(X, y)
            SGDClassifier(**{"loss": "hinge"}).fit(X, y)
            SGDClassifier(**sgd_params).partial_fit(X, y)


        if __name__ == "__main__":
            main([[0.0]], [0], {})
    """)
    findings = lint_files(tmp_path, {"train.py": source}, {"select": ["ND108"]})
    assert [(f.line, f.col + 1, f.fix is not None) for f in findings] == [(11, 5, True), (13, 5, False), (16, 5, True), (17, 5, True)]
    assert findings[1].message == (
        "`sklearn.linear_model.SGDClassifier` is random with these arguments and its `random_state` is None, so it draws"
        " from NumPy's global RNG, which nothing seeds before it (this program never seeds it); pass random_state"
    )
    outcome, _ = fix_project(tmp_path, {"select": ["ND108"]})
    fixed = outcome.contents[str(tmp_path / "train.py")].decode().splitlines()
    assert fixed[10] == "    SGDClassifier(**sgd_params, random_state=0).fit(X, y)"
    assert fixed[15] == '    SGDClassifier(**{"loss": "hinge"}, random_state=0).fit(X, y)'
    assert [f.line for f in outcome.findings] == [13]


def test_keywords_spread_from_a_dict_decide_whether_data_of_a_known_size_draws(tmp_path):
    """Data sizes meet spread keywords: ``HistGradientBoostingRegressor(**params)`` on 2,000
    rows draws nothing with early stopping left at ``'auto'``, but does when the spread
    dict turns it on (read from the dict, not taken as the default)."""
    source = textwrap.dedent("""\
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingRegressor

        X = np.linspace(0, 10, 2000).reshape(-1, 1)
        y = X.ravel()
        quiet = dict(max_iter=50)
        stopping = dict(max_iter=50, early_stopping=True)

        if __name__ == "__main__":
            HistGradientBoostingRegressor(**quiet).fit(X, y)
            HistGradientBoostingRegressor(**stopping).fit(X, y)
    """)
    findings = lint_files(tmp_path, {"train.py": source}, {"select": ["ND108"]})
    assert [(f.line, f.col + 1) for f in findings] == [(11, 5)]


def test_a_random_state_set_through_set_params_before_any_use_counts_as_given(tmp_path):
    """``est.set_params(random_state=rng)`` right after the constructor (the estimator's
    first use, on every path from it) gives the same ``random_state`` as the constructor
    would: the binding in one branch of an ``if`` counts. A conditional ``set_params``, one
    after a fit, and ``random_state=None`` keep the finding."""
    source = textwrap.dedent("""\
        from sklearn.ensemble import GradientBoostingRegressor


        def surrogate(X, y, rng, base=None):
            if base is None:
                est = GradientBoostingRegressor(loss="quantile")
            else:
                est = base
                if not isinstance(est, GradientBoostingRegressor):
                    raise ValueError(est.loss)
            est.set_params(random_state=rng)
            return est.fit(X, y)


        def conditional(X, y, flag):
            est = GradientBoostingRegressor(loss="quantile")
            if flag:
                est.set_params(random_state=0)
            est.fit(X, y)


        def after_the_fit(X, y):
            est = GradientBoostingRegressor()
            est.fit(X, y)
            est.set_params(random_state=0)


        def set_to_none(X, y):
            est = GradientBoostingRegressor()
            est.set_params(random_state=None)
            est.fit(X, y)


        if __name__ == "__main__":
            surrogate([[0.0]], [0.0], 3)
    """)
    findings = lint_files(tmp_path, {"train.py": source}, {"select": ["ND108"]})
    assert [(f.line, f.col + 1) for f in findings] == [(16, 11), (23, 11), (29, 11)]
    assert findings[0].message == (
        "`sklearn.ensemble.GradientBoostingRegressor` is random (features are permuted at random at each split, which decides"
        " between tied splits) and its `random_state` is omitted, so it draws from NumPy's global RNG, which nothing seeds"
        " before it (no entry point of this project reaches it, so nothing seeds it first); pass random_state"
    )


def test_a_generator_whose_draws_only_become_text_seeds_nothing(tmp_path):
    """A draw that seeds a generator used only to spell a run id (``"".join(gen.choice(...))``,
    an f-string, ``str()``) changes the name, not a result: neither ND107 nor ND102. A
    generator whose draws are also kept as numbers keeps its seed reported, and a draw that
    also seeds the global RNG stays ND107."""
    source = textwrap.dedent("""\
        import numpy as np


        def run_id():
            seed = np.random.randint(0, 2**31 - 1)
            gen = np.random.default_rng(seed)
            return "".join(gen.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), 8))


        def tag():
            gen = np.random.default_rng(np.random.randint(1000))
            return f"run-{gen.integers(1000)}-{str(gen.integers(10))}"


        def weights():
            seed = np.random.randint(0, 2**31 - 1)
            gen = np.random.default_rng(seed)
            name = "".join(gen.choice(list("abc"), 8))
            return name, gen.normal(size=3)


        def also_seeds():
            seed = np.random.randint(0, 2**31 - 1)
            gen = np.random.default_rng(seed)
            np.random.seed(seed)
            return "".join(gen.choice(list("abc"), 8))


        if __name__ == "__main__":
            print(run_id(), tag(), weights(), also_seeds())
    """)
    findings = lint_files(tmp_path, {"train.py": source}, {"select": ["ND102", "ND107"]})
    assert [(f.line, f.col + 1, f.code) for f in findings] == [(16, 12, "ND107"), (23, 12, "ND107")]
    assert findings[0].message == (
        "this draw from the NumPy global RNG runs before anything seeds that RNG, and its result is used as a seed;"
        " use a fixed value (log it if it varies on purpose)"
    )
