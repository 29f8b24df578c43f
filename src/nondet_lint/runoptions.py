"""Options that change how a run executes, never what it reports: workers and the cache."""

from __future__ import annotations

import argparse
from typing import Any, Dict, Optional

from nondet_lint.cache import resolve_dir
from nondet_lint.parallel import default_workers
from nondet_lint.types import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=int, metavar="N",
        help="worker processes for parsing (default: one per CPU, fewer when few files need parsing)",
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    parser.add_argument(
        "--cache-dir", metavar="DIR",
        help="cache folder (default: $NONDET_LINT_CACHE_DIR, else cache-dir from config: .nondet_lint_cache in the project root, or in the current folder for files outside any project)",
    )


def run_options(args: argparse.Namespace, config: Any) -> Dict[str, Optional[Any]]:
    """Keyword arguments for ``engine.run``."""
    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    return {"workers": workers, "cache_dir": None if args.no_cache else resolve_dir(config, args.cache_dir)}
