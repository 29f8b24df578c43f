"""Positions of reported nodes agree with libcst's PositionProvider, node for node."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from nondet_lint import libcst_shim
from nondet_lint.positions import node_spans
from nondet_lint.walk import Dispatch, walk

SOURCES = {
    "repeated code in nested blocks": '''
        import numpy as np


        class A:
            def f(self):
                x = np.random.rand(3)
                if x:
                    x = np.random.rand(3)
                return x

            def g(self):
                x = np.random.rand(3)
                if x:
                    x = np.random.rand(3)
                return x


        def f():
            x = np.random.rand(3)
            return x
        ''',
    "continuation lines, comments, decorators": '''
        # header comment
        import torch

        @decorator(
            torch.manual_seed(0),
        )
        def train(model,
                  data):  # trailing
            for batch in data:
                loss = model(batch,
                             torch.randn(2,
                                         3))
                # comment in the block
                total = loss + \\
                    torch.randn(1)
            return total
        ''',
    "one-line suites and semicolons": '''
        import random
        if random.random(): x = random.random(); y = random.random()
        while True: random.random()
        def f(): return random.random()
        ''',
    "elif chains, annotations, elements, match": '''
        import random


        def f(x: int = 1, *args: str, k: float = 2.0, **kw: float) -> int:
            if x:
                y = random.random()
            elif x > 1:
                y = random.random()
            elif x > 2:
                pass
            else:
                y = [random.random(), random.random(),]
            match y:
                case [a, *rest] if a:
                    y = random.random()
                case {"k": v, **others}:
                    y = random.random()
            return {"a": y, **kw}
        ''',
    "copied methods and repeated statements": '''
        import torch

        torch.manual_seed(0)
        x = torch.randn(3)
        torch.manual_seed(0)
        x = torch.randn(3)


        class A(Base):
            # Copied from B
            def forward(self, mask=None):
                if mask is not None:
                    x = torch.randn(3)
                return x


        class B(Base):
            # Copied from B
            def forward(self, mask=None):
                if mask is not None:
                    x = torch.randn(3)
                return x

        x = torch.randn(3)
        if x:
            y = torch.randn(3)
            y = torch.randn(3)
        ''',
    "strings that repeat the code": '''
        import random
        code = "random.random()"
        doc = """
        random.random()
        """
        value = random.random()
        ''',
}


def _all_nodes(module: cst.Module):
    parents = {}
    walk(module, Dispatch([]), [], parents)
    nodes = []  # the module itself is never reported
    stack = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            if id(child) in parents:
                nodes.append(child)
                stack.append(child)
    return nodes, parents


def _expected(module: cst.Module):
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    return {
        id(node): (r.start.line, r.start.column, r.end.line, r.end.column)
        for node, r in positions.items()
    }


def _variants():
    for name, source in SOURCES.items():
        text = textwrap.dedent(source).lstrip("\n")
        yield name, text
        yield f"{name} (CRLF)", text.replace("\n", "\r\n")
        yield f"{name} (tabs)", text.replace("    ", "\t")
        yield f"{name} (no final newline)", text.rstrip("\n")


@pytest.mark.parametrize("name,text", list(_variants()), ids=[name for name, _ in _variants()])
@pytest.mark.parametrize("pieces,fast", [(True, True), (False, True), (True, False)], ids=["pieces", "module", "public"])
def test_every_walked_node_has_libcsts_position(name, text, pieces, fast, monkeypatch):
    monkeypatch.setattr(libcst_shim, "FAST", fast)
    module = cst.parse_module(text)
    nodes, parents = _all_nodes(module)
    expected = _expected(module)
    got = node_spans(module, nodes, text, parents if pieces else None)
    assert len(nodes) > 20
    mismatched = [
        (type(node).__name__, got.get(id(node)), expected[id(node)])
        for node in nodes if got.get(id(node)) != expected[id(node)]
    ]
    assert mismatched == []


def test_a_few_nodes_at_a_time():
    text = textwrap.dedent(SOURCES["repeated code in nested blocks"]).lstrip("\n")
    module = cst.parse_module(text)
    nodes, parents = _all_nodes(module)
    expected = _expected(module)
    calls = [node for node in nodes if isinstance(node, cst.Call)]
    assert len(calls) == 5
    for call in calls:
        assert node_spans(module, [call], text, parents) == {id(call): expected[id(call)]}
