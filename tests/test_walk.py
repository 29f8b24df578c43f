"""The shared walk visits every syntax node once, in order, with the right ancestors."""

from __future__ import annotations

from typing import List, Tuple

import libcst as cst

from nondet_lint.walk import Dispatch, _is_syntax, calls_in, walk

SOURCE = '''
"""Docstring."""
import torch as t, numpy as np
from . import helpers

@decorator(arg=1)
def train(model: "Model", *, seed: int = 0, **kw) -> None:
    x = [i * 2 for i in range(10) if i]
    y = {k: v for k, v in kw.items()}
    if seed:
        t.manual_seed(seed)
    elif x:
        np.random.seed(x[0])
    else:
        pass
    with open(f"{seed}-{x!r:>10}") as handle, t.no_grad():
        for batch, label in loader:
            model(batch).sum().backward()
    try:
        z = lambda a, b=3: a + b if a else -b
    except (ValueError, KeyError) as error:
        raise RuntimeError("x") from error
    finally:
        del y
    try:
        pass
    except* OSError as group:
        print(group)
    return None

class Model(Base, metaclass=Meta):
    size: int = 3
    async def run(self):
        async for item in self.items():
            await item
        return [*self.items(), *(1, 2)]

match command:
    case {"go": [1, *rest]} if len(rest) > 1:
        print(rest)
    case Point(x=0) | None:
        pass
'''


# where the code runs in another order than it reads, the walk follows the run (the seeding
# analysis records events in that order): a conditional expression's test before its
# branches; a keyword argument's value before its name
RUN_ORDER = {cst.IfExp: ("test", "body", "orelse"), cst.Arg: ("value", "keyword")}


def expected_order(module: cst.Module) -> Tuple[List[cst.CSTNode], List[Tuple[int, ...]]]:
    """Syntax nodes in libcst's own child order (``CSTNode.children``, which follows the
    text), each with the ids of its syntax ancestors."""
    order: List[cst.CSTNode] = []
    chains: List[Tuple[int, ...]] = []
    stack = [(module, ())]
    while stack:
        node, chain = stack.pop()
        order.append(node)
        chains.append(chain)
        kids = [child for child in node.children if _is_syntax(type(child))]
        fields = RUN_ORDER.get(type(node))
        if fields:
            rank = {id(getattr(node, name)): index for index, name in enumerate(fields) if getattr(node, name, None) is not None}
            kids.sort(key=lambda child: rank[id(child)])
        stack.extend((child, (*chain, id(node))) for child in reversed(kids))
    return order, chains


class Everything:
    """Visits every node (through ``CSTNode``) and leaves names, recording what it saw."""

    def __init__(self, ancestors: List[cst.CSTNode]) -> None:
        self.ancestors = ancestors
        self.order: List[cst.CSTNode] = []
        self.chains: List[Tuple[int, ...]] = []
        self.left: List[Tuple[cst.CSTNode, Tuple[int, ...]]] = []

    def visit_CSTNode(self, node: cst.CSTNode) -> None:
        self.order.append(node)
        self.chains.append(tuple(id(n) for n in self.ancestors))

    def leave_Name(self, node: cst.Name) -> None:
        # as for any node: its own ancestors again, whether or not a leaf was pushed
        self.left.append((node, tuple(id(n) for n in self.ancestors)))


def test_walk_visits_in_source_order_with_ancestors_and_parents():
    module = cst.parse_module(SOURCE)
    expected, expected_chains = expected_order(module)
    ancestors: List[cst.CSTNode] = []
    parents: dict = {}
    seen = Everything(ancestors)
    walk(module, Dispatch([seen]), ancestors, parents)
    assert [type(n).__name__ for n in seen.order] == [type(n).__name__ for n in expected]
    assert {cst.IfExp, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase, cst.Arg} <= {type(n) for n in expected}
    assert all(a is b for a, b in zip(seen.order, expected))
    assert seen.chains == expected_chains
    assert ancestors == []
    for node, chain in zip(seen.order[1:], seen.chains[1:]):
        assert id(parents[id(node)]) == chain[-1]
    names = [(n, chain) for n, chain in zip(expected, expected_chains) if isinstance(n, cst.Name)]
    assert len(seen.left) == len(names) > 20
    assert all(a is b and left_chain == chain for (a, left_chain), (b, chain) in zip(seen.left, names))


def test_leaves_without_leave_handlers_are_not_on_the_chain():
    module = cst.parse_module("f(a.b, 1)\n")
    ancestors: List[cst.CSTNode] = []
    chains = {}

    class Names:
        def visit_Name(self, node: cst.Name) -> None:
            chains[node.value] = [type(n).__name__ for n in ancestors]

        def visit_Integer(self, node: cst.Integer) -> None:
            chains["1"] = [type(n).__name__ for n in ancestors]

    walk(module, Dispatch([Names()]), ancestors, {})
    assert chains == {
        "f": ["Module", "SimpleStatementLine", "Expr", "Call"],
        "a": ["Module", "SimpleStatementLine", "Expr", "Call", "Arg", "Attribute"],
        "b": ["Module", "SimpleStatementLine", "Expr", "Call", "Arg", "Attribute"],
        "1": ["Module", "SimpleStatementLine", "Expr", "Call", "Arg"],
    }


def test_calls_in_source_order_with_or_without_nested_definitions():
    module = cst.parse_module(
        "run(a(b()), c())\n"
        "@deco(d())\n"
        "def f(x=e()):\n    g()\n"
        "h(lambda: i(), [j() for _ in k()])\n"
        "class C(l()):\n    m()\n"
    )
    names = lambda calls: [cst.ensure_type(call.func, cst.Name).value for call in calls]  # noqa: E731
    assert names(calls_in(module)) == ["run", "a", "b", "c", "deco", "d", "e", "g", "h", "i", "j", "k", "l", "m"]
    statements = module.body
    assert [names(calls_in(stmt, into_definitions=False)) for stmt in statements] == [
        ["run", "a", "b", "c"], ["deco", "d", "e", "g"], ["h", "j", "k"], ["l", "m"],
    ]
