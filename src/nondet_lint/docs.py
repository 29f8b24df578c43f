"""Rule documentation, rendered from the rule data: one source for ``--explain``,
``--list-rules`` and the generated reference ``docs/rules.md``."""

from __future__ import annotations

import textwrap
from typing import List

from nondet_lint.ruledata import Rule, RuleSet

FIX_LABELS = {
    "safe": "safe fix (`--fix`)",
    "unsafe": "unsafe fix (`--unsafe-fixes`)",
    "suggest": "suggestion only (no automatic fix)",
    "none": "no fix",
}


_LANGUAGES = {".txt": "text", ".in": "text", ".toml": "toml", ".yml": "yaml", ".yaml": "yaml", ".cfg": "ini"}


def _code_block(source: str, path: str = "example.py") -> str:
    language = next((lang for ext, lang in _LANGUAGES.items() if path.endswith(ext)), "python")
    return f"```{language}\n" + textwrap.dedent(source).strip("\n") + "\n```"


def explain(rule: Rule, heading: str = "#") -> str:
    docs = rule.docs
    parts: List[str] = [
        f"{heading} {rule.code} ({rule.name})",
        "",
        rule.summary,
        "",
        f"Fix: {FIX_LABELS[rule.fix]}.",
        "",
        f"{heading}# What it does",
        textwrap.dedent(docs["what"]).strip(),
        "",
        f"{heading}# Why is this bad?",
        textwrap.dedent(docs["why"]).strip(),
        "",
        f"{heading}# Example",
        _code_block(docs["example"], docs.get("example_path", "example.py")),
        "",
        f"{heading}# Use instead",
        _code_block(docs["use_instead"], docs.get("example_path", "example.py")),
        "",
        f"{heading}# Fix safety",
        textwrap.dedent(docs["fix_safety"]).strip(),
        "",
        f"{heading}# References",
        *[f"- {ref}" for ref in docs["references"]],
    ]
    return "\n".join(parts) + "\n"


def list_rules(rules: RuleSet) -> str:
    width = max((len(r.name) for r in rules), default=10)
    lines = [f"{'code':<6} {'name':<{width}} fix"]
    for rule in rules:
        lines.append(f"{rule.code:<6} {rule.name:<{width}} {rule.fix}")
    return "\n".join(lines) + "\n"


def reference(rules: RuleSet) -> str:
    """The whole rules reference (``docs/rules.md``)."""
    out = [
        "# nondet-lint rules",
        "",
        "<!-- Generated from rules/*.toml by `python -m nondet_lint.docs`; do not edit. -->",
        "",
        "| code | name | summary | fix |",
        "|---|---|---|---|",
    ]
    for rule in rules:
        out.append(f"| [{rule.code}](#{rule.code.lower()}-{rule.name}) | {rule.name} | {rule.summary} | {rule.fix} |")
    out.append("")
    for rule in rules:
        out.append(explain(rule, heading="##"))
    return "\n".join(out)


def main() -> None:  # pragma: no cover - thin wrapper used to regenerate docs/rules.md
    import sys

    from nondet_lint.ruledata import load_rules

    sys.stdout.write(reference(load_rules()))


if __name__ == "__main__":  # pragma: no cover
    main()
