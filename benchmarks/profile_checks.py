"""What each check costs, next to what parsing costs, on real code.

    .venv/bin/python benchmarks/profile_checks.py benchmarks/.corpus/timm-1.0.31/timm
    .venv/bin/python benchmarks/profile_checks.py PATH --limit 100

Pass 1's budget is about half a parse for everything besides the parse (see the README's
Performance section); this shows where it goes: the nesting guard, import collection,
the bare walk, each check's handlers (``visit_*``, ``leave_*`` and ``finish``), and the
positions of reported nodes. CPU time of this process, so other load matters little.

``--pass2`` also runs pass 1 as the CLI does (``parallel.analyze_files``) and shows what
follows the walk: the text form of each result (``FileResult.to_text``, what a worker
sends), reading it back, and pass 2 (``engine.decide``), its decoding of the facts it
asks for (``FileFacts`` decodes a kind on first use) apart from the rest.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from typing import Callable, Dict, FrozenSet, List

import libcst as cst

from nondet_lint import engine, nesting
from nondet_lint.families.registry import all_checks
from nondet_lint.config import DEFAULT_EXCLUDE, Config
from nondet_lint.context import FileContext, NodeEdit
from nondet_lint.discovery import discover, module_name_for
from nondet_lint.facts import FileFacts
from nondet_lint.parallel import analyze_files, settle_heap
from nondet_lint.results import FileResult
from nondet_lint.ruledata import RuleSet
from nondet_lint.positions import node_spans
from nondet_lint.prefilter import active_checks
from nondet_lint.walk import Dispatch, walk


def timed(costs: Dict[str, float], key: str, function: Callable) -> Callable:
    def wrapper(*args):
        started = time.process_time()
        try:
            return function(*args)
        finally:
            costs[key] += time.process_time() - started

    return wrapper


def after_walk(files: List[str], config: Config, rules: RuleSet, enabled: FrozenSet[str], costs: Dict[str, float]) -> None:
    """The costs of pass 1's results once the checks are done: their text form and its
    reading back, then pass 2 with the facts it decodes counted apart."""
    FileResult.to_text = timed(costs, "(result to text)", FileResult.to_text)  # type: ignore[method-assign]
    FileResult.from_text = timed(costs, "(result from text)", FileResult.from_text)  # type: ignore[method-assign]
    decode = timed(costs, "(pass 2: facts decoded)", FileFacts._built)
    FileFacts._built = decode  # type: ignore[method-assign]
    results = analyze_files(files, config, rules, enabled)
    clock = time.process_time()
    before = costs["(pass 2: facts decoded)"]
    engine.decide(results, [], [], config, rules, enabled)
    costs["(pass 2: the rest)"] += time.process_time() - clock - (costs["(pass 2: facts decoded)"] - before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--pass2", action="store_true", help="also the result text round trip and pass 2 (runs pass 1 again)")
    args = parser.parse_args()
    files = [path for path in discover([args.path], DEFAULT_EXCLUDE)[0] if path.endswith(".py")]
    files = files[: args.limit] if args.limit else files
    config = Config(root=args.path)
    rules = engine.load_rules()
    settle_heap()  # as the CLI does
    enabled = engine.selected_codes(config, rules)
    costs: Dict[str, float] = collections.defaultdict(float)
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        module_name, is_package = module_name_for(path)
        clock = time.process_time()
        try:
            nesting.check_nesting(text)
        except nesting.NestingError:
            continue
        costs["(nesting guard)"] += time.process_time() - clock
        clock = time.process_time()
        try:
            module = cst.parse_module(text)
        except Exception:
            continue
        costs["(parse)"] += time.process_time() - clock
        clock = time.process_time()
        walk(module, Dispatch([]), [], {})
        costs["(bare walk)"] += time.process_time() - clock
        clock = time.process_time()
        ctx = FileContext(
            path=path, module=module, module_name=module_name, is_package=is_package,
            rules=rules, config=config, enabled=enabled,
        )
        costs["(imports)"] += time.process_time() - clock
        checks = []
        visitors = [ctx.index]  # as fileanalysis walks: the module index first
        for check_class in active_checks(all_checks(), rules, enabled, ctx):
            clock = time.process_time()
            check = check_class(ctx)
            name = f"{check_class.__module__.rsplit('.', 1)[-1]}.{check_class.__name__}"
            costs[name] += time.process_time() - clock
            setattr(check, "finish", timed(costs, name, check.finish))
            for visitor in check.visitors():
                for attribute in dir(type(visitor)):
                    if attribute.startswith(("visit_", "leave_")):
                        setattr(visitor, attribute, timed(costs, name, getattr(visitor, attribute)))
                visitors.append(visitor)
            checks.append(check)
        clock = time.process_time()
        walk(module, Dispatch(visitors), ctx.ancestors, ctx.parents)
        costs["(walk, handlers included)"] += time.process_time() - clock
        for check in checks:
            check.finish()
        nodes = [pending.node for pending in ctx.pending]
        for pending in ctx.pending:
            if pending.fix:
                nodes.extend(edit.node for edit in pending.fix.edits if isinstance(edit, NodeEdit))
        clock = time.process_time()
        if nodes:
            node_spans(module, nodes, text, ctx.parents)
        costs["(positions)"] += time.process_time() - clock
    if args.pass2:
        after_walk(files, config, rules, enabled, costs)
    parse = costs["(parse)"] or 1e-9
    print(f"{len(files)} files; parse {parse:.2f} s CPU")
    print("| part | CPU | x parse |\n|---|---|---|")
    for name, cost in sorted(costs.items(), key=lambda item: -item[1]):
        print(f"| {name} | {cost:.2f} s | {cost / parse:.2f} |")
    checks_total = sum(cost for name, cost in costs.items() if not name.startswith("("))
    print(f"| all checks | {checks_total:.2f} s | {checks_total / parse:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
