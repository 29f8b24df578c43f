"""The fix builders checks use: each edit is minimal, keeps the code around it, parses,
and a second application finds nothing left to do."""

from __future__ import annotations

import textwrap
from typing import List

import libcst as cst
import pytest

from nondet_lint.config import Config
from nondet_lint.context import FileContext, NodeEdit, PendingFix, to_edits
from nondet_lint.fixes import builders
from nondet_lint.fixes.apply import apply_text_edits
from nondet_lint.positions import node_spans
from nondet_lint.ruledata import load_rules
from nondet_lint.walk import Dispatch, walk


def context(source: str) -> FileContext:
    module = cst.parse_module(source)
    ctx = FileContext(
        path="t.py", module=module, module_name="t", is_package=False,
        rules=load_rules(), config=Config(), enabled=frozenset(),
    )
    walk(module, Dispatch([]), ctx.ancestors, ctx.parents)
    return ctx


def calls(ctx: FileContext, name: str) -> List[cst.Call]:
    found: List[cst.Call] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            spelled = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
            if spelled == name:
                found.append(node)

    ctx.module.visit(Finder())
    return found


def applied(source: str, ctx: FileContext, edits) -> str:
    nodes = [e.node for e in edits if isinstance(e, NodeEdit)]
    spans = node_spans(ctx.module, nodes, source)
    fix = to_edits(PendingFix("t", "safe", list(edits)), spans)
    return apply_text_edits(source, fix.edits)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


KEYWORD_CASES = [
    ("f()\n", "f(seed=0)\n"),
    ("f(a)\n", "f(a, seed=0)\n"),
    ("f(a, b,)\n", "f(a, b, seed=0,)\n"),
    ("f(**kw)\n", "f(**kw, seed=0)\n"),
    ("f(x for x in y)\n", "f((x for x in y), seed=0)\n"),
    ("x = (f(a))  # c\n", "x = (f(a, seed=0))  # c\n"),
    (
        """
        def main():
            loader = f(
                ds,
                shuffle=True,  # why
            )
        """,
        """
        def main():
            loader = f(
                ds,
                shuffle=True,  # why
                seed=0,
            )
        """,
    ),
    (
        """
        def main():
            loader = f(
                ds,
                shuffle=True  # why
            )
        """,
        """
        def main():
            loader = f(
                ds,
                shuffle=True,  # why
                seed=0
            )
        """,
    ),
    (
        """
        loader = f(ds,
                   shuffle=True)
        """,
        """
        loader = f(ds,
                   shuffle=True, seed=0)
        """,
    ),
]


@pytest.mark.parametrize("before,after", KEYWORD_CASES)
def test_add_keyword_argument_inserts_only_the_argument(before, after):
    source, expected = dedent(before), dedent(after)
    ctx = context(source)
    result = applied(source, ctx, builders.add_keyword_argument(ctx, calls(ctx, "f")[0], "seed", "0"))
    assert result == expected
    again = context(result)
    assert builders.add_keyword_argument(again, calls(again, "f")[0], "seed", "0") == []


def test_set_keyword_argument_replaces_a_value_once():
    source = "ds.shuffle(10, reshuffle_each_iteration=True)\n"
    ctx = context(source)
    call = calls(ctx, "shuffle")[0]
    result = applied(source, ctx, builders.set_keyword_argument(ctx, call, "reshuffle_each_iteration", "False"))
    assert result == "ds.shuffle(10, reshuffle_each_iteration=False)\n"
    assert builders.set_keyword_argument(ctx, call, "reshuffle_each_iteration", "True") == []
    assert applied(source, ctx, builders.set_keyword_argument(ctx, call, "seed", "0")) == (
        "ds.shuffle(10, reshuffle_each_iteration=True, seed=0)\n"
    )


@pytest.mark.parametrize(
    "before,after",
    [
        ("for f in os.listdir(d):  # files\n    pass\n", "for f in sorted(os.listdir(d)):  # files\n    pass\n"),
        ("names = (os.listdir(\n    d))\n", "names = (sorted(os.listdir(\n    d)))\n"),
    ],
)
def test_wrap_in_call_leaves_the_expression_text_alone(before, after):
    ctx = context(before)
    assert applied(before, ctx, builders.wrap_in_call(ctx, calls(ctx, "listdir")[0], "sorted")) == after


def test_wrap_in_call_refuses_a_rebound_builtin():
    source = "def sorted(x):\n    return x\nfor f in os.listdir(d):\n    pass\n"
    ctx = context(source)
    assert builders.wrap_in_call(ctx, calls(ctx, "listdir")[0], "sorted") == []


def test_replace_expression_keeps_the_enclosing_indentation():
    source = dedent(
        """
        def main():
            x = old(
                1,
            )
        """
    )
    ctx = context(source)
    call = calls(ctx, "old")[0]
    result = applied(source, ctx, [builders.replace_expression(ctx, call, call.with_changes(func=cst.Name("new")))])
    assert result == source.replace("old(", "new(")


SEEDS = "random.seed(0)\nnp.random.seed(0)\n"
IMPORTS = ["import random", "import numpy as np"]

BLOCK_CASES = [
    (  # after a docstring, __future__ imports and the imports; comments stay with their code
        '''
        """Train."""
        from __future__ import annotations

        import numpy as np
        # the model
        model = 1
        ''',
        '''
        """Train."""
        from __future__ import annotations

        import random

        import numpy as np

        random.seed(0)
        np.random.seed(0)

        # the model
        model = 1
        ''',
    ),
    (  # no imports: at the top, below a shebang and a coding cookie
        """
        #!/usr/bin/env python
        # -*- coding: utf-8 -*-
        x = 1
        """,
        """
        #!/usr/bin/env python
        # -*- coding: utf-8 -*-
        import random
        import numpy as np

        random.seed(0)
        np.random.seed(0)

        x = 1
        """,
    ),
    (  # a name the block uses is imported late: the block goes after that import
        """
        import os
        os.environ["A"] = "1"
        import numpy as np

        def main():
            pass
        """,
        """
        import os
        import random
        os.environ["A"] = "1"
        import numpy as np

        random.seed(0)
        np.random.seed(0)

        def main():
            pass
        """,
    ),
    (  # part of the block is there: the rest joins it, nothing is repeated
        """
        import random
        import numpy as np

        random.seed(0)
        model = 1
        """,
        """
        import random
        import numpy as np

        random.seed(0)
        np.random.seed(0)
        model = 1
        """,
    ),
    (  # an import inside try/except counts
        """
        try:
            import numpy as np
        except ImportError:
            np = None
        x = 1
        """,
        """
        try:
            import numpy as np
        except ImportError:
            np = None
        import random

        random.seed(0)
        np.random.seed(0)

        x = 1
        """,
    ),
    ("import numpy as np", "import random\n\nimport numpy as np\n\nrandom.seed(0)\nnp.random.seed(0)"),
]


@pytest.mark.parametrize("before,after", BLOCK_CASES)
def test_insert_after_imports(before, after):
    source, expected = (dedent(before), dedent(after)) if before.startswith("\n") else (before, after)
    result = apply_text_edits(source, builders.insert_after_imports(cst.parse_module(source), SEEDS, IMPORTS))
    assert result == expected
    assert builders.insert_after_imports(cst.parse_module(result), SEEDS, IMPORTS) == []


def test_insert_after_imports_keeps_crlf():
    source = "import os\r\nx = 1\r\n"
    edits = builders.insert_after_imports(cst.parse_module(source), SEEDS, IMPORTS)
    result = apply_text_edits(source, edits)
    assert result == "import os\r\nimport random\r\n\r\nimport numpy as np\r\n\r\nrandom.seed(0)\r\nnp.random.seed(0)\r\n\r\nx = 1\r\n"


@pytest.mark.parametrize(
    "source,imports",
    [
        ("np = None\nx = 1\n", ["import numpy as np"]),  # np means something else here
        ("def f():\n    import numpy as np\n", []),  # bound only inside a function
    ],
)
def test_insert_after_imports_refuses_what_would_not_run(source, imports):
    assert builders.insert_after_imports(cst.parse_module(source), "np.random.seed(0)\n", imports) == []


CUBLAS = 'os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n'


@pytest.mark.parametrize(
    "before,after",
    [
        ("import numpy\nimport torch\n", 'import numpy\nimport os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\nimport torch\n'),
        (
            "import os\n# frameworks\nfrom torch import nn\n",
            'import os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n# frameworks\nfrom torch import nn\n',
        ),
        ("import numpy\n", 'import os\n\nimport numpy\n\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n'),
    ],
)
def test_insert_before_import(before, after):
    result = apply_text_edits(before, builders.insert_before_import(cst.parse_module(before), ["torch"], CUBLAS, ["import os"]))
    assert result == after
    assert builders.insert_before_import(cst.parse_module(result), ["torch"], CUBLAS, ["import os"]) == []


def test_name_for_uses_the_module_aliases():
    module = cst.parse_module("import numpy as np\nfrom torch import Generator\nrandom = 3\n")
    assert builders.name_for(module, "numpy.random.seed") == ("np.random.seed", None)
    assert builders.name_for(module, "torch.Generator") == ("Generator", None)
    assert builders.name_for(module, "torch.manual_seed") == ("torch.manual_seed", "import torch")
    assert builders.name_for(module, "random.seed") is None  # `random` is taken


@pytest.mark.parametrize(
    "before,after",
    [
        # a new stdlib import joins the stdlib run in order; a new third-party one gets a run of its own
        ("import os\nimport sys\n\nimport torch\nx = 1\n",
         "import os\nimport random\nimport sys\n\nimport numpy as np\nimport torch\n\nrandom.seed(0)\nnp.random.seed(0)\n\nx = 1\n"),
        # only third-party imports: the stdlib one goes first, in a run of its own
        ("import torch\nx = 1\n", "import random\n\nimport numpy as np\nimport torch\n\nrandom.seed(0)\nnp.random.seed(0)\n\nx = 1\n"),
        # the block goes after every import flake8 accepts at the top (try/if blocks and
        # dunder assignments do not end the top), so none of them becomes E402
        ("import os\ntry:\n    import apex\nexcept ImportError:\n    apex = None\n__all__ = []\nimport torch\nx = 1\n",
         "import os\nimport random\ntry:\n    import apex\nexcept ImportError:\n    apex = None\n__all__ = []\n"
         "import numpy as np\nimport torch\n\nrandom.seed(0)\nnp.random.seed(0)\n\nx = 1\n"),
        # pycodestyle takes the first string literal for the docstring wherever it stands:
        # the imports after it are still at the top, so the block goes after them
        ('import torch\n\n"""An example."""\n\nfrom os.path import join\nx = 1\n',
         'import numpy as np\nimport torch\n\n"""An example."""\n\nimport random\nfrom os.path import join\n\n'
         "random.seed(0)\nnp.random.seed(0)\n\nx = 1\n"),
        # a second string literal is code: the block goes before it
        ('"""Doc."""\nimport torch\n"""A second string is code."""\nx = 1\n',
         '"""Doc."""\nimport random\n\nimport numpy as np\nimport torch\n\nrandom.seed(0)\nnp.random.seed(0)\n\n'
         '"""A second string is code."""\nx = 1\n'),
    ],
)
def test_inserted_imports_keep_the_import_block_sorted_and_e402_clean(before, after):
    result = apply_text_edits(before, builders.insert_after_imports(cst.parse_module(before), SEEDS, IMPORTS))
    assert result == after


@pytest.mark.parametrize(
    "after_index,expected",
    [
        (1, "import argparse\nimport random\n\n\ndef main():\n    parser = make()\n    args = parser.parse_args()\n    random.seed(args.seed)\n    run(args)\n"),
        (-1, "import argparse\nimport random\n\n\ndef main():\n    random.seed(args.seed)\n    parser = make()\n    args = parser.parse_args()\n    run(args)\n"),
    ],
)
def test_insert_in_block_uses_the_block_indentation_and_adds_the_import(after_index, expected):
    source = "import argparse\n\n\ndef main():\n    parser = make()\n    args = parser.parse_args()\n    run(args)\n"
    module = cst.parse_module(source)
    body = module.body[1].body
    anchor = body.body[max(after_index, 0)]
    spans = node_spans(module, [anchor], module.code)
    edits = builders.insert_in_block(module, body, after_index, ["random.seed(args.seed)"], ["import random"], spans)
    assert apply_text_edits(source, edits) == expected
