"""Command line: ``nondet-lint [PATHS...]`` and ``python -m nondet_lint``.

Exit codes: 0 no findings, 1 findings, 2 usage error, bad config or internal error
(one line on stderr; the traceback only with ``--verbose``).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Dict, List, NoReturn, Optional, Sequence

from nondet_lint import __version__
from nondet_lint.config import Config, discover_config, validate_codes, with_overrides
from nondet_lint.docs import explain, list_rules
from nondet_lint.fixes.options import add_arguments as add_fix_arguments, wants_fixes
from nondet_lint.runoptions import add_arguments as add_run_arguments, run_options
from nondet_lint.ruledata import CODE_RE, load_rules
from nondet_lint.reporters import FORMATS, get_reporter
from nondet_lint.reporters.progress import progress_for
from nondet_lint.reporters.text import statistics
from nondet_lint.types import UsageError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every other usage error
        raise UsageError(message)


def _codes(value: str) -> List[str]:
    return [code.strip() for code in value.split(",") if code.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="nondet-lint",
        description="Find sources of run-to-run non-determinism in Python ML code.",
    )
    parser.add_argument("paths", nargs="*", help="files or folders to check (default: .)")
    parser.add_argument("--select", type=_codes, help="rule codes or prefixes to enable (ND1 = every ND1xx)")
    parser.add_argument("--ignore", type=_codes, help="rule codes or prefixes to disable")
    parser.add_argument("--extend-select", type=_codes, help="codes to enable in addition to the selection")
    parser.add_argument("--extend-ignore", type=_codes, help="codes to disable in addition to ignore")
    parser.add_argument(
        "--per-file-ignores", action="append", metavar="PATTERN:CODES",
        help="ignore codes in files matching a glob, e.g. 'tests/*:ND1' (repeatable)",
    )
    parser.add_argument("--config", metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")
    parser.add_argument("--format", choices=FORMATS, help="output format (default: rich at a terminal, text otherwise)")
    parser.add_argument("--statistics", action="store_true", help="print the number of findings per code")
    add_fix_arguments(parser)
    parser.add_argument(
        "--stdin-filename", metavar="PATH",
        help="read the source from standard input and report it as PATH (how editors lint unsaved buffers)",
    )
    parser.add_argument("--baseline", metavar="FILE", help="report only findings that FILE does not hold")
    parser.add_argument(
        "--write-baseline", action="store_true", help="record every current finding in the --baseline FILE and exit 0",
    )
    add_run_arguments(parser)
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit")
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--verbose", "-v", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"nondet-lint {__version__}")
    return parser


def _per_file_ignores(values: Optional[Sequence[str]]) -> Optional[Dict[str, List[str]]]:
    if not values:
        return None
    table: Dict[str, List[str]] = {}
    for value in values:
        pattern, sep, codes = value.rpartition(":")
        if not sep or not pattern:
            raise UsageError(f"--per-file-ignores expects PATTERN:CODES, got {value!r}")
        table.setdefault(pattern, []).extend(_codes(codes))
    return table


def _explain(code: str, out) -> int:
    rules = load_rules()
    code = code.upper()
    rule = rules[code] if code in rules else rules.by_name(code.lower())
    if rule is None:
        raise UsageError(f"unknown rule '{code}' (see --list-rules)")
    out.write(explain(rule))
    return EXIT_CLEAN


def resolve_config(args: argparse.Namespace) -> Config:
    rules = load_rules()
    paths = args.paths or ["."]
    config = discover_config(paths, args.config, rules.codes)
    overrides = {
        "select": args.select,
        "ignore": args.ignore,
        "extend_select": args.extend_select,
        "extend_ignore": args.extend_ignore,
        "per_file_ignores": _per_file_ignores(args.per_file_ignores),
        "fixable": getattr(args, "fixable", None),
        "unfixable": getattr(args, "unfixable", None),
    }
    validate_codes({k: v for k, v in overrides.items() if v is not None}, rules.codes, "command line")
    if overrides["per_file_ignores"] is not None:
        merged = dict(config.per_file_ignores)
        merged.update(overrides["per_file_ignores"])
        overrides["per_file_ignores"] = merged
    return with_overrides(config, **overrides)


def _is_terminal(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("CI")


def default_format(out) -> str:
    return "rich" if _is_terminal(out) else "text"


def _read_stdin(args: argparse.Namespace, stdin) -> Optional[bytes]:
    """The source on standard input when the only path is ``-`` or only ``--stdin-filename`` is given.

    ``args.paths`` becomes the stdin file name, so config is discovered from its folder.
    """
    if args.paths != ["-"] and not (args.stdin_filename and not args.paths):
        if args.stdin_filename:
            raise UsageError("--stdin-filename names the source read from standard input: give no other paths")
        if "-" in args.paths:
            raise UsageError("'-' (standard input) cannot be combined with other paths")
        return None
    args.paths = [args.stdin_filename] if args.stdin_filename else []
    return (stdin if stdin is not None else sys.stdin.buffer).read()


def _write_baseline(args: argparse.Namespace, findings, sources, err) -> int:
    from nondet_lint.baseline import write_baseline

    if not args.baseline:
        raise UsageError("--write-baseline needs --baseline FILE")
    count = write_baseline(args.baseline, findings, sources)
    err.write(f"nondet-lint: recorded {count} finding(s) in {args.baseline}\n")
    return EXIT_CLEAN


def _run(argv: Sequence[str], out, err, stdin=None, own_process: bool = False) -> int:
    if len(argv) == 2 and argv[0] == "rule" and CODE_RE.match(argv[1].upper()):
        return _explain(argv[1], out)
    args = build_parser().parse_args(argv)
    if args.explain:
        return _explain(args.explain, out)
    if args.list_rules:
        out.write(list_rules(load_rules()))
        return EXIT_CLEAN
    from nondet_lint.engine import run
    from nondet_lint.parallel import settle_heap

    if own_process:  # after the imports, so that they are frozen with the rest
        settle_heap()
    source = _read_stdin(args, stdin)
    config = resolve_config(args)
    output_format = args.format or default_format(out)
    show_progress = output_format == "rich" and source is None and _is_terminal(err)
    with progress_for(err, show_progress) as progress:
        result = run(
            args.paths or ["."], config, stdin=source, stdin_filename=args.stdin_filename,
            progress=progress, **run_options(args, config),
        )
    sources = {args.stdin_filename or "-": source} if source is not None else None
    if args.write_baseline:
        return _write_baseline(args, result.findings, sources, err)
    report_out = out
    if wants_fixes(args):
        from nondet_lint.fixes.command import apply_fixes

        fixed = apply_fixes(args, config, result, load_rules(tuple(config.rule_files)), out, err, source)
        if fixed.exit_code is not None:
            return fixed.exit_code
        result.findings = fixed.findings
        report_out = err if source is not None else out  # stdout holds the fixed source
    if args.baseline:
        from nondet_lint.baseline import new_findings

        result.findings = new_findings(result.findings, args.baseline, sources)
    rules = load_rules(tuple(config.rule_files))
    get_reporter(output_format)(result.findings, rules, report_out)
    if args.statistics:
        statistics(result.findings, rules, report_out)
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def main(argv: Optional[Sequence[str]] = None, out=None, err=None, stdin=None, own_process: bool = False) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in argv or "-v" in argv
    try:
        return _run(argv, out, err, stdin, own_process)
    except UsageError as exc:
        err.write(f"nondet-lint: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        err.write("nondet-lint: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as exc:  # an internal error must not look like a crash of the user's code
        if verbose:
            traceback.print_exc(file=err)
        err.write(f"nondet-lint: internal error: {type(exc).__name__}: {exc} (run with --verbose for the traceback)\n")
        return EXIT_ERROR


def console() -> int:
    """The ``nondet-lint`` command and ``python -m nondet_lint``: the process is ours, so
    its garbage collector may be tuned for analyzing files (``parallel.settle_heap``);
    ``main`` called from other code leaves the host's collector alone."""
    return main(own_process=True)
