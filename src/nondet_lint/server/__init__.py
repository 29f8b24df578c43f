"""``nondet-lint server``: nondet-lint as a language server (LSP over standard input and
output), for diagnostics as you type, quick fixes, fix-all and rule docs on hover.

Needs the ``server`` extra (``pip install "nondet-lint[server]"``: pygls and lsprotocol);
``main`` says so when it is missing.  Also runs as ``python -m nondet_lint.server``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Optional, Sequence

from nondet_lint import __version__

EXIT_OK, EXIT_ERROR = 0, 2
MISSING_EXTRA = (
    "nondet-lint: error: the language server needs the 'server' extra: "
    "pip install \"nondet-lint[server]\" (pygls and lsprotocol)\n"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nondet-lint server",
        description="Run nondet-lint as a language server over standard input and output.",
    )
    parser.add_argument(
        "--workers", type=int, metavar="N",
        help="worker processes for the first index of a project (default: one per CPU; 0: none)",
    )
    parser.add_argument("--version", action="version", version=f"nondet-lint {__version__}")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve until the client says exit; the exit status follows the protocol (0 after
    ``shutdown``, 1 without)."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.workers is not None and args.workers < 0:
        sys.stderr.write("nondet-lint: error: --workers must be 0 or more\n")
        return EXIT_ERROR
    try:
        from nondet_lint.server.lsp import create_server
    except ImportError as exc:
        if getattr(exc, "name", "") and str(exc.name).split(".")[0] in ("pygls", "lsprotocol", "cattrs", "attrs"):
            sys.stderr.write(MISSING_EXTRA)
            return EXIT_ERROR
        raise
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="nondet-lint server: %(message)s")
    server = create_server(workers=args.workers)
    try:
        server.start_io()
    except SystemExit as exc:  # the ``exit`` notification
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else EXIT_ERROR
    return EXIT_OK
