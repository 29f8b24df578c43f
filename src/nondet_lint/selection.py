"""Which rule codes are on: ruff-style prefix selection.

``ND1`` means every ND1xx.  When a code matches both a selected and an ignored prefix,
the longer (more specific) prefix wins, and on a tie ``ignore`` wins, as in ruff.
"""

from __future__ import annotations

import fnmatch
from pathlib import PurePath
from typing import FrozenSet, Iterable, List, Mapping, Sequence


def _normalize(codes: Iterable[str]) -> List[str]:
    out = []
    for code in codes:
        code = code.strip().upper()
        out.append("ND" if code == "ALL" else code)
    return out


def _longest(code: str, prefixes: Sequence[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def enabled_codes(
    all_codes: Iterable[str],
    select: Sequence[str],
    ignore: Sequence[str] = (),
    extend_select: Sequence[str] = (),
    extend_ignore: Sequence[str] = (),
) -> FrozenSet[str]:
    chosen = _normalize([*select, *extend_select])
    dropped = _normalize([*ignore, *extend_ignore])
    return frozenset(
        code for code in all_codes if _longest(code, chosen) > _longest(code, dropped)
    )


def ignored_for_path(path: str, per_file_ignores: Mapping[str, Sequence[str]]) -> FrozenSet[str]:
    """Codes (prefixes) that ``per-file-ignores`` turns off for ``path``."""
    posix = PurePath(path).as_posix()
    name = PurePath(path).name
    out = set()
    for pattern, codes in per_file_ignores.items():
        pattern = pattern.rstrip("/")
        if (
            fnmatch.fnmatchcase(posix, pattern)
            or fnmatch.fnmatchcase(name, pattern)
            or fnmatch.fnmatchcase(posix, f"*/{pattern}")
            or posix.startswith(pattern + "/")
            or f"/{pattern}/" in f"/{posix}"
        ):
            out.update(_normalize(codes))
    return frozenset(out)


def is_ignored(code: str, prefixes: FrozenSet[str]) -> bool:
    return any(code.startswith(prefix) for prefix in prefixes)
