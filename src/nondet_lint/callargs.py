"""Arguments of a call, and what their values are when the code says so literally.

Rule data states conditions on arguments (``accumulate=True``, ``mode='max'``, a
``weights`` tensor given); these helpers find an argument by keyword or position and
read its value without running anything: literals, and names resolved through imports
(``tf.image.ResizeMethod.NEAREST_NEIGHBOR``).  A value the code computes is ``UNKNOWN``,
and rules stay silent on unknown values rather than guess.
"""

from __future__ import annotations

from ast import literal_eval
from functools import lru_cache
from typing import Any, Callable, List, Optional, Tuple, Union

import libcst as cst

UNKNOWN = object()  # a value computed at run time
ABSENT = object()  # the argument is not passed


def find_arg(call: cst.Call, name: Optional[str], pos: Optional[int], shift: int = 0) -> Optional[cst.BaseExpression]:
    """The expression passed for a parameter, by keyword ``name`` or at ``pos`` (+ ``shift``
    for the function form of a method: ``torch.put(x, ...)`` vs ``x.put_(...)``)."""
    positional: List[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is not None:
            if name is not None and arg.keyword.value == name:
                return arg.value
        elif arg.star:
            return None  # ``*args``: positions are unknown from here on
        else:
            positional.append(arg)
    if pos is not None and 0 <= pos + shift < len(positional):
        return positional[pos + shift].value
    return None


def has_star_args(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def literal_value(node: Optional[cst.BaseExpression], qualname: Callable[[cst.BaseExpression], Optional[str]]) -> Any:
    """The value of a literal (bool, None, int, float, str, or a qualified name as str).

    Returns ``ABSENT`` for None (no argument) and ``UNKNOWN`` for computed values.
    (``type() is``: this runs for most arguments of most calls, and isinstance() against
    libcst's node classes, ABCs, costs much; none of these classes has subclasses.)
    """
    if node is None:
        return ABSENT
    kind = type(node)
    if kind is cst.Name:
        if node.value in _CONSTANTS:  # type: ignore[attr-defined]
            return _CONSTANTS[node.value]  # type: ignore[attr-defined]
        return qualname(node) or UNKNOWN
    if kind is cst.Attribute:
        return qualname(node) or UNKNOWN
    if kind is cst.SimpleString:
        value = string_value(node.value)  # type: ignore[attr-defined]
        return value if isinstance(value, str) else UNKNOWN
    if kind is cst.ConcatenatedString:
        value = node.evaluated_value  # type: ignore[attr-defined]
        return value if isinstance(value, str) else UNKNOWN
    if kind is cst.Integer or kind is cst.Float:
        try:
            return _number_value(node.value)  # type: ignore[attr-defined]
        except (ValueError, SyntaxError):
            return UNKNOWN
    if kind is cst.UnaryOperation and type(node.operator) is cst.Minus:  # type: ignore[attr-defined]
        inner = literal_value(node.expression, qualname)  # type: ignore[attr-defined]
        return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else UNKNOWN
    return UNKNOWN


_CONSTANTS = {"True": True, "False": False, "None": None}


def token_parts(token: str) -> Tuple[str, str]:
    """A string token's prefix, in lower case, and its text between the quotes: what
    ``SimpleString.prefix`` and ``.raw_value`` give, without their loops over characters
    (checks read every string literal of a module, docstrings included)."""
    start = 0
    while token[start] not in "'\"":
        start += 1
    end = start
    while end < len(token) and token[end] == token[start]:
        end += 1
    width = 1 if end - start < 3 else 3  # ``''`` is empty; ``''''''`` and ``''''a'''`` are triple-quoted
    return token[:start].lower(), token[start + width:len(token) - width]


def string_value(token: str) -> Union[str, bytes]:
    """``SimpleString.evaluated_value`` by the token's text, without ``ast.literal_eval``
    for most strings (checks read every string of a module): a str with no backslash (no
    escape, no line continuation), no carriage return (which Python reads as a line break)
    and only ASCII characters is its text between the quotes."""
    if "\\" in token or "\r" in token or "\0" in token or not token.isascii():
        return _evaluated(token) if len(token) <= 200 else literal_eval(token)  # (docstrings: not kept)
    prefix, raw = token_parts(token)
    return _evaluated(token) if "b" in prefix else raw


@lru_cache(maxsize=4096)
def _evaluated(token: str) -> Union[str, bytes]:
    """``ast.literal_eval`` of a string token, as ``evaluated_value`` runs it: the same few
    strings (``"cuda"``, ``"mean"``) come back in call after call."""
    value: Union[str, bytes] = literal_eval(token)
    return value


@lru_cache(maxsize=4096)
def _number_value(token: str) -> Union[int, float]:
    """``Integer.evaluated_value`` / ``Float.evaluated_value`` by the token's text: the
    same few numbers (``0``, ``1``, ``0.5``) come back in call after call."""
    value: Union[int, float] = literal_eval(token)
    return value


def string_parts(node: cst.BaseExpression) -> Tuple[str, bool]:
    """The literal text inside a string expression and whether anything else is in it.

    ``"a" + os.environ.get("X", "") + f" --b={n}"`` → (``"a --b="``, True): rules look
    for flags in the literal text and know the value is not fully literal.
    """
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return (value, False) if isinstance(value, str) else ("", True)
    if isinstance(node, cst.ConcatenatedString):
        left, left_other = string_parts(node.left)
        right, right_other = string_parts(node.right)
        return left + right, left_other or right_other
    if isinstance(node, cst.FormattedString):
        text, other = [], False
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                text.append(part.value)
            else:
                other = True
        return "".join(text), other
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, left_other = string_parts(node.left)
        right, right_other = string_parts(node.right)
        return left + " " + right, left_other or right_other
    return "", True
