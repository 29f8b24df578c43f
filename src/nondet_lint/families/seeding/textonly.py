"""ND107: a generator whose every draw is joined into text seeds no result.

``gen = np.random.default_rng(seed)`` then ``run_id = "".join(gen.choice(alphabet, 8))``:
the generator makes a name (a run id, a tag), and a seed that varies per run changes that
name only; it is not reported as a seed.  Followed syntactically in the function that
binds the generator: the constructor's value is bound once, to a plain name, and every
other occurrence of that name is a method call on it whose result is the one argument of
``"<literal>".join(...)`` or ``str(...)``, or sits directly in an f-string.  Any other read
(a draw kept as a number, the generator handed on, returned or stored, a nested function
reading it) keeps the seed reported.  What the text itself feeds is not followed.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.walk import children

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)


def only_makes_text(call: cst.Call, ancestors: Sequence[cst.CSTNode],
                    qualname: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether the generator ``call`` builds (``ancestors``: its parents, outermost first)
    only ever makes text in its function."""
    if len(ancestors) < 3:
        return False
    statement, line = ancestors[-1], ancestors[-2]
    if not isinstance(statement, cst.Assign) or statement.value is not call or len(statement.targets) != 1:
        return False
    if not isinstance(line, cst.SimpleStatementLine):
        return False
    target = statement.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    function = next((a for a in reversed(ancestors) if isinstance(a, _SCOPES)), None)
    if not isinstance(function, cst.FunctionDef):
        return False
    uses = 0
    for node, holders in _names(function.body, target.value):
        if node is target:
            continue
        if not _makes_text(node, holders, qualname):
            return False
        uses += 1
    return uses > 0


def _names(root: cst.CSTNode, name: str) -> List[Tuple[cst.Name, Tuple[cst.CSTNode, ...]]]:
    """Every ``Name`` spelled ``name`` under ``root`` (nested scopes included), with its
    three nearest parents, nearest first."""
    found: List[Tuple[cst.Name, Tuple[cst.CSTNode, ...]]] = []
    stack: List[Tuple[cst.CSTNode, Tuple[cst.CSTNode, ...]]] = [(root, ())]
    while stack:
        node, holders = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            found.append((node, holders))
        below = (node, *holders[:5])
        stack.extend((kid, below) for kid in children(node))
    return found


def _makes_text(name: cst.Name, holders: Tuple[cst.CSTNode, ...], qualname: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``name.draw(...)`` whose result is joined into a string, given to ``str()``, or
    formatted in an f-string."""
    if len(holders) < 4:
        return False
    attribute, draw, arg, outer = holders[:4]
    if not (isinstance(attribute, cst.Attribute) and attribute.value is name and isinstance(draw, cst.Call) and draw.func is attribute):
        return False
    if isinstance(arg, cst.FormattedStringExpression) and arg.expression is draw:
        return True
    if not isinstance(arg, cst.Arg) or arg.value is not draw or arg.keyword is not None or arg.star:
        return False
    if not isinstance(outer, cst.Call) or len(outer.args) != 1:
        return False
    func = outer.func
    if isinstance(func, cst.Attribute) and func.attr.value == "join":
        return isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))
    return isinstance(func, cst.Name) and qualname(func) == "builtins.str"
