"""Command line: ``nondet-lint [check] [PATHS...]``, ``rule``, ``server``, ``version``.

The first word picks the subcommand; anything else is ``check``'s (so ``nondet-lint .``
is ``nondet-lint check .``).  A first word that is neither a subcommand nor an existing
file or folder is a usage error with a suggestion; a file named like a subcommand is
checked when written as a path (``./check``) or after the subcommand
(``nondet-lint check check``).

Exit codes: 0 no findings, 1 findings, 2 usage error, bad config or internal error
(one line on stderr; the traceback only with ``--verbose``).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import io
import os
import re
import sys
import traceback
from typing import BinaryIO, Dict, List, Mapping, NoReturn, Optional, Sequence, TextIO

from nondet_lint import __version__
from nondet_lint.config import Config, discover_config, validate_codes, with_overrides
from nondet_lint.docs import explain, list_rules
from nondet_lint.fixes.options import add_arguments as add_fix_arguments, wants_fixes
from nondet_lint.runoptions import add_arguments as add_run_arguments, run_options
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.reporters import FORMATS, get_reporter, get_summary
from nondet_lint.reporters.marks import FixMarks
from nondet_lint.reporters.progress import progress_for
from nondet_lint.reporters.text import statistics
from nondet_lint.types import Finding, UsageError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("check", "rule", "server", "version")
SERVER_EXTRA = 'nondet-lint server needs the server extra: pip install "nondet-lint[server]"'
# a first argument that reads as a command name rather than a path
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every other usage error
        raise UsageError(message)


def _codes(value: str) -> List[str]:
    return [code.strip() for code in value.split(",") if code.strip()]


EPILOG = """subcommands (the first word; check is the default):
  check [PATHS...]     check files and folders (these options)
  rule CODE | --all    print the documentation of a rule, or of every rule
  server               start the language server (needs the server extra)
  version              print the version"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="nondet-lint",
        usage="%(prog)s [check] [OPTIONS] [PATHS ...]\n       %(prog)s rule CODE | --all | server | version",
        description="Find sources of run-to-run non-determinism in Python ML code.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    parser.add_argument(
        "--respect-gitignore", dest="respect_gitignore", action="store_true", default=None,
        help="skip files that .gitignore, .ignore and git's excludes name (the default)",
    )
    parser.add_argument(
        "--no-respect-gitignore", dest="respect_gitignore", action="store_false",
        help="check files that git ignores too",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output-format", "--format", dest="format", choices=FORMATS,
        help="output format (default: rich at a terminal, text otherwise)",
    )
    output.add_argument("--output-file", "-o", metavar="PATH", help="write the report to PATH instead of standard output")
    output.add_argument("--statistics", action="store_true", help="print the number of findings per code")
    output.add_argument("--quiet", "-q", action="store_true", help="print the findings only: no summary")
    output.add_argument("--silent", action="store_true", help="print nothing; the exit code tells")
    output.add_argument(
        "--show-settings", action="store_true", help="print the resolved settings and where each comes from, and exit",
    )
    output.add_argument("--show-files", action="store_true", help="print the files that would be checked, and exit")
    add_fix_arguments(parser)
    parser.add_argument(
        "--add-noqa", action="store_true", help="add a '# noqa: CODE' comment to the line of every finding, and exit",
    )
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
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule and exit (as `rule CODE`)")
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


def _explain(code: str, out: TextIO) -> int:
    rules = load_rules()
    code = code.upper()
    rule = rules[code] if code in rules else rules.by_name(code.lower())
    if rule is None:
        raise UsageError(f"unknown rule '{code}' (see `nondet-lint rule --all` or --list-rules)")
    out.write(explain(rule))
    return EXIT_CLEAN


def _rule_command(argv: Sequence[str], out: TextIO) -> int:
    parser = _Parser(prog="nondet-lint rule", description="Print the documentation of a rule.")
    parser.add_argument("code", nargs="?", help="a rule code (ND201) or name (cudnn-benchmark)")
    parser.add_argument("--all", action="store_true", help="print the documentation of every rule")
    args = parser.parse_args(argv)
    if args.all == bool(args.code):
        raise UsageError("rule: give one rule CODE or --all (see --list-rules for the codes)")
    if args.code:
        return _explain(args.code, out)
    out.write("\n\n".join(explain(rule).rstrip("\n") for rule in load_rules()) + "\n")
    return EXIT_CLEAN


def _version_command(argv: Sequence[str], out: TextIO) -> int:
    _Parser(prog="nondet-lint version", description="Print the version.").parse_args(argv)
    out.write(f"nondet-lint {__version__}\n")
    return EXIT_CLEAN


def _server_command(argv: Sequence[str], err: TextIO) -> int:
    """Start the language server (``nondet_lint.server``, imported only here: it needs
    the optional ``pygls``)."""
    try:
        server = importlib.import_module("nondet_lint.server")
    except ModuleNotFoundError as exc:
        if exc.name not in ("nondet_lint.server", "pygls", "lsprotocol") and not (exc.name or "").startswith("pygls."):
            raise
        err.write(SERVER_EXTRA + "\n")
        return EXIT_ERROR
    return int(server.main(list(argv)) or 0)


def known_frameworks(rules: RuleSet) -> Mapping[str, str]:
    """Accepted ``target-versions`` names (canonical names and the rule data's aliases)
    -> the framework they mean."""
    if "ND205" not in rules:
        return {}
    data = rules["ND205"].data
    names = {name: name for name in data.get("frameworks", {})}
    names.update(data.get("package_aliases", {}))
    return names


def command_line_settings(args: argparse.Namespace) -> Dict[str, object]:
    """Config attributes the flags set (None: not given)."""
    return {
        "select": args.select,
        "ignore": args.ignore,
        "extend_select": args.extend_select,
        "extend_ignore": args.extend_ignore,
        "per_file_ignores": _per_file_ignores(args.per_file_ignores),
        "fixable": getattr(args, "fixable", None),
        "unfixable": getattr(args, "unfixable", None),
        "respect_gitignore": getattr(args, "respect_gitignore", None),
    }


def resolve_config(args: argparse.Namespace) -> Config:
    rules = load_rules()
    paths = args.paths or ["."]
    config = discover_config(paths, args.config, rules.codes, known_frameworks(rules))
    overrides = command_line_settings(args)
    validate_codes({k: v for k, v in overrides.items() if v is not None}, rules.codes, "command line")
    extra = _per_file_ignores(args.per_file_ignores)
    if extra is not None:  # patterns from the command line add to the config's
        overrides["per_file_ignores"] = {**config.per_file_ignores, **extra}
    return with_overrides(config, **overrides)


def _is_terminal(stream: object) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("CI")


def default_format(out: object) -> str:
    return "rich" if _is_terminal(out) else "text"


def _read_stdin(args: argparse.Namespace, stdin: Optional[BinaryIO]) -> Optional[bytes]:
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


def _write_baseline(args: argparse.Namespace, findings: Sequence[Finding], sources: Optional[Mapping[str, bytes]],
                    err: TextIO) -> int:
    from nondet_lint.baseline import write_baseline

    if not args.baseline:
        raise UsageError("--write-baseline needs --baseline FILE")
    count = write_baseline(args.baseline, findings, sources)
    err.write(f"nondet-lint: recorded {count} finding(s) in {args.baseline}\n")
    return EXIT_CLEAN


def _fix_marks(config: Config, args: argparse.Namespace) -> FixMarks:
    from nondet_lint.selection import enabled_codes

    rules = load_rules(tuple(config.rule_files))
    return FixMarks(enabled_codes(rules.codes, config.fixable, config.unfixable), bool(args.unsafe_fixes))


def _open_report(path: Optional[str], out: TextIO) -> TextIO:
    if not path:
        return out
    try:
        return open(path, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise UsageError(f"--output-file: cannot write {path}: {exc.strerror or exc}") from None


def _check(argv: Sequence[str], out: TextIO, err: TextIO, stdin: Optional[BinaryIO] = None,
           own_process: bool = False) -> int:
    args = build_parser().parse_args(argv)
    if args.explain:
        return _explain(args.explain, out)
    if args.list_rules:
        out.write(list_rules(load_rules()))
        return EXIT_CLEAN
    if args.silent:
        out = err = io.StringIO()
    source = _read_stdin(args, stdin)
    config = resolve_config(args)
    if args.show_settings:
        from nondet_lint.settings import show_settings

        show_settings(config, command_line_settings(args), out)
        return EXIT_CLEAN
    if args.show_files:
        from nondet_lint.discovery import discover

        files, _ = discover(args.paths or ["."], (*config.exclude, *config.extend_exclude), config.respect_gitignore)
        out.write("".join(f"{path}\n" for path in files))
        return EXIT_CLEAN
    if args.unsafe_fixes and not wants_fixes(args):
        err.write(
            "nondet-lint: hint: --unsafe-fixes applies fixes only with --fix, --fix-only or --diff; "
            "here it only marks unsafe fixes [*]\n"
        )
    from nondet_lint.engine import run
    from nondet_lint.parallel import settle_heap

    if own_process:  # after the imports, so that they are frozen with the rest
        settle_heap()
    output_format = args.format or default_format(out)
    show_progress = output_format == "rich" and source is None and _is_terminal(err) and not args.silent
    with progress_for(err, show_progress) as progress:
        result = run(
            args.paths or ["."], config, stdin=source, stdin_filename=args.stdin_filename,
            progress=progress, **run_options(args, config),
        )
    sources = {args.stdin_filename or "-": source} if source is not None else None
    if args.write_baseline:
        return _write_baseline(args, result.findings, sources, err)
    if args.add_noqa:
        from nondet_lint.addnoqa import add_noqa

        if source is not None:
            raise UsageError("--add-noqa edits files: it cannot be used with standard input")
        return add_noqa(result.findings, err)
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
    marks = _fix_marks(config, args)
    report_out = _open_report(args.output_file, report_out)
    try:
        get_reporter(output_format, marks)(result.findings, rules, report_out)
        if args.statistics:
            statistics(result.findings, rules, report_out)
        summary = get_summary(output_format, marks)
        if summary is not None and not args.quiet:
            summary(result.findings, rules, report_out)
    finally:
        if report_out is not out and report_out is not err:
            report_out.close()
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _suggestion(word: str) -> str:
    close = difflib.get_close_matches(word.lower(), SUBCOMMANDS, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _run(argv: Sequence[str], out: TextIO, err: TextIO, stdin: Optional[BinaryIO] = None,
         own_process: bool = False) -> int:
    first = argv[0] if argv else ""
    if first == "check":
        return _check(argv[1:], out, err, stdin, own_process)
    if first == "rule":
        return _rule_command(argv[1:], out)
    if first == "version":
        return _version_command(argv[1:], out)
    if first == "server":
        return _server_command(argv[1:], err)
    if _WORD.match(first) and not os.path.lexists(first):
        raise UsageError(
            f"'{first}' is neither a subcommand ({', '.join(SUBCOMMANDS)}) nor an existing file or folder"
            + _suggestion(first)
        )
    return _check(argv, out, err, stdin, own_process)


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None, err: Optional[TextIO] = None,
         stdin: Optional[BinaryIO] = None, own_process: bool = False) -> int:
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
