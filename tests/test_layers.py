"""The import graph points one way: CLI -> engine -> families -> analysis -> primitives.

Every import counts, those inside functions too (that is where a circle hides).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

import nondet_lint

PACKAGE = Path(nondet_lint.__file__).resolve().parent

# highest first; a module belongs to the first layer one of whose prefixes it matches,
# the rest are primitives (names, positions, rule data, fix edit builders, ...)
LAYERS: Sequence[Tuple[str, Tuple[str, ...]]] = (
    ("cli", ("__main__", "cli", "server", "addnoqa", "flake8_plugin", "reporters", "fixes.command", "fixes.loop",
             "fixes.options", "fixes.diff", "fixes.writer", "runoptions", "baseline", "docs")),
    ("engine", ("engine", "fileanalysis", "parallel", "nonpython", "prefilter", "cache", "results")),
    ("families", ("families",)),
    ("analysis", ("analysis",)),
)
RANK = {name: len(LAYERS) - index for index, (name, _) in enumerate(LAYERS)}
RANK["primitives"] = 0


def modules() -> Dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def import_graph() -> Dict[str, List[str]]:
    """Module -> the project modules it imports (anywhere in its body)."""
    known = modules()
    graph = {}
    for name, path in known.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name.split(".")[0] == "nondet_lint")
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "nondet_lint":
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in known else node.module)
            elif isinstance(node, ast.ImportFrom) and node.level:
                raise AssertionError(f"{name}: relative import")
        graph[name] = sorted(targets - {name})
    return graph


def layer_of(module: str) -> str:
    local = module.partition(".")[2]
    for name, prefixes in LAYERS:
        if any(local == prefix or local.startswith(prefix + ".") for prefix in prefixes):
            return name
    return "primitives"


def layer_violations(graph: Mapping[str, Sequence[str]]) -> List[str]:
    return [
        f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})"
        for module, targets in graph.items() for target in targets
        if RANK[layer_of(target)] > RANK[layer_of(module)]
    ]


def cycles(graph: Mapping[str, Sequence[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_imports_point_down_the_layers():
    assert layer_violations(import_graph()) == []


def test_no_import_circle():
    assert cycles(import_graph()) == []


def test_the_layers_are_the_ones_described():
    graph = import_graph()
    assert layer_of("nondet_lint.families.seeding.collect") == "families"
    assert layer_of("nondet_lint.analysis.dataflow") == "analysis"
    assert layer_of("nondet_lint.fixes.builders") == "primitives"
    assert layer_of("nondet_lint.fixes.loop") == "cli"
    # the engine reaches the families only through the registry
    assert [t for t in graph["nondet_lint.engine"] if t.startswith("nondet_lint.families")] == ["nondet_lint.families.registry"]


def test_the_checks_catch_a_wrong_import():
    assert layer_violations({"nondet_lint.analysis.dataflow": ["nondet_lint.families.data.order"]}) == [
        "nondet_lint.analysis.dataflow (analysis) imports nondet_lint.families.data.order (families)"
    ]
    assert layer_violations({"nondet_lint.families.kernels.gpu": ["nondet_lint.engine"]}) != []
    circle = {"nondet_lint.engine": ["nondet_lint.parallel"], "nondet_lint.parallel": ["nondet_lint.notebooks"],
              "nondet_lint.notebooks": ["nondet_lint.engine"], "nondet_lint.types": []}
    assert cycles(circle) == [["nondet_lint.engine", "nondet_lint.notebooks", "nondet_lint.parallel"]]


def test_every_package_is_installed():
    """``pyproject.toml`` lists packages one by one: a new one left out would not ship."""
    from nondet_lint import _toml

    repository = Path(__file__).resolve().parents[1]  # the sources, wherever the package is installed
    pyproject = repository / "pyproject.toml"
    listed = set(_toml.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    source = repository / "src"
    folders = {".".join(path.parent.relative_to(source).parts) for path in (source / "nondet_lint").rglob("__init__.py")}
    assert "nondet_lint.families.seeding" in folders
    assert folders <= listed
