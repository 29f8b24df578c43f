"""Long fuzz run of the reliability properties (the test suite runs them bounded).

    python benchmarks/fuzz.py                 # 2,000 examples per property
    python benchmarks/fuzz.py --examples 20000 --seed 7

Properties (tests/fuzzprops.py): pass 1 and pass 2 never raise on a generated program
(hypothesmith, from the grammar and from libcst syntax trees), alone or mixed with every
rule's firing examples; with fixes on (safe, and unsafe too), a file that parsed still
parses and a second fix pass changes nothing. A failure prints the smallest program that
shows it, and the run exits 1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import hypothesmith  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzzprops import (  # noqa: E402
    check_analysis_never_raises, check_fix_is_safe_and_idempotent, mixed, rule_examples,
)


def properties(examples: int):
    common = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)
    samples = rule_examples()

    @settings(max_examples=examples, **common)
    @given(hypothesmith.from_grammar())
    def grammar(text):
        check_analysis_never_raises(text)

    @settings(max_examples=max(examples // 10, 1), **common)
    @given(hypothesmith.from_node())
    def nodes(text):
        check_analysis_never_raises(text)

    @settings(max_examples=examples, **common)
    @given(st.sampled_from(samples), hypothesmith.from_grammar())
    def examples_mixed(example, text):
        check_analysis_never_raises(mixed(example, text))

    @settings(max_examples=max(examples // 4, 1), **common)
    @given(st.sampled_from(samples), hypothesmith.from_grammar(), st.booleans())
    def fixes(example, text, unsafe):
        with tempfile.TemporaryDirectory() as folder:
            check_fix_is_safe_and_idempotent(Path(folder), mixed(example, text), unsafe)

    return {"grammar": grammar, "syntax-trees": nodes, "rule-examples": examples_mixed, "fixes": fixes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="examples per property (fixes: a quarter)")
    parser.add_argument("--seed", type=int, default=None, help="fix the random seed to repeat a run")
    parser.add_argument("--only", choices=["grammar", "syntax-trees", "rule-examples", "fixes"], action="append")
    args = parser.parse_args()
    failed = 0
    for name, test in properties(args.examples).items():
        if args.only and name not in args.only:
            continue
        if args.seed is not None:
            test = seed(args.seed)(test)
        started = time.perf_counter()
        try:
            test()
            status = "ok"
        except Exception as exc:  # the falsifying example was printed by hypothesis
            failed += 1
            status = f"FAILED: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        print(f"{name:14s} {time.perf_counter() - started:8.1f} s  {status}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
