"""The fix flags of the command line (kept light: no engine import at start-up)."""

from __future__ import annotations

import argparse
from typing import List


def _codes(value: str) -> List[str]:
    return [code.strip() for code in value.split(",") if code.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    group.add_argument("--unsafe-fixes", action="store_true", help="with --fix, --fix-only or --diff: apply unsafe fixes too")
    group.add_argument(
        "--fix-only", action="store_true",
        help="apply fixes and report nothing that remains (exit 0 unless a file could not be written)",
    )
    group.add_argument(
        "--diff", action="store_true",
        help="print the changes fixes would make as a unified diff; write nothing (exit 1 if there would be changes)",
    )
    group.add_argument("--show-fixes", action="store_true", help="list the fixes applied")
    group.add_argument("--fixable", type=_codes, help="codes or prefixes whose fixes may be applied (default: all)")
    group.add_argument("--unfixable", type=_codes, help="codes or prefixes whose fixes are never applied")


def wants_fixes(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "fix", False) or getattr(args, "fix_only", False) or getattr(args, "diff", False))
