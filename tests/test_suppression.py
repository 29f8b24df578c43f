"""``# noqa`` handling, applied by the engine."""

from __future__ import annotations

from nondet_lint.suppression import parse_suppressions

LINE = "torch.backends.cudnn.benchmark = True"


def test_noqa_variants(lint):
    files = {
        "a.py": f"import torch\n{LINE}  # noqa\n",
        "b.py": f"import torch\n{LINE}  # noqa: ND201\n",
        "c.py": f"import torch\n{LINE}  # noqa: ND101,ND305\n",
        "d.py": f"import torch\n{LINE}  # NOQA:ND2\n",
        "e.py": f"# nondet-lint: noqa\nimport torch\n{LINE}\n",
        "f.py": f"# nondet-lint: noqa: ND101\nimport torch\n{LINE}\n",
        "g.py": f"import torch\n{LINE}  # noqa: ND101, ND201\n",
    }
    found = sorted({f.path.rsplit("/", 1)[1] for f in lint(files)})
    assert found == ["c.py", "f.py"]


def test_noqa_does_not_hide_unparsable_file(lint):
    findings = lint({"old.py": "print 'x'  # noqa\n"})
    assert [f.code for f in findings] == ["ND000"]


def test_parse_suppressions():
    s = parse_suppressions("x = 1  # noqa: ND101 ND102\ny = 2\n# nondet-lint: noqa: ND3\n")
    assert s.suppresses(1, "ND101") and s.suppresses(1, "ND102") and not s.suppresses(1, "ND103")
    assert s.suppresses(2, "ND301") and not s.suppresses(2, "ND201")
