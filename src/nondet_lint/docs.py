"""Rule documentation, rendered from the rule data: one source for ``--explain``,
``--list-rules``, the generated reference ``docs/rules.md`` and the fix-safety table
that the README embeds between markers (``python -m nondet_lint.docs --readme README.md``
rewrites it; a test fails when it is stale)."""

from __future__ import annotations

import re
import string
import textwrap
from typing import List

from nondet_lint.ruledata import Rule, RuleSet

FIX_LABELS = {
    "safe": "safe fix (`--fix`)",
    "unsafe": "unsafe fix (`--unsafe-fixes`)",
    "suggest": "suggestion only (no automatic fix)",
    "none": "no fix",
}


_LANGUAGES = {
    ".txt": "text", ".in": "text", ".toml": "toml", ".yml": "yaml", ".yaml": "yaml", ".cfg": "ini", ".cu": "cuda", ".cuh": "cuda",
}


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


FIX_KINDS = {
    "safe": "safe (`--fix`)",
    "unsafe": "unsafe (`--unsafe-fixes`)",
    "suggest": "suggestion only",
    "none": "none",
}
FIX_TABLE_BEGIN = "<!-- fix-safety:begin: generated from rules/*.toml by `python -m nondet_lint.docs --readme README.md` -->"
FIX_TABLE_END = "<!-- fix-safety:end -->"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(textwrap.dedent(text).split()), maxsplit=1)[0]


def _title_pattern(title: str) -> str:
    """A fix title template with its fields shown as ``<field>``."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(title):
        parts.append(literal + (f"<{name}>" if name else ""))
    return "".join(parts)


def fix_safety_table(rules: RuleSet) -> str:
    """Per rule: whether ``--fix`` can fix it, what the fix does, and why it is safe or not."""
    out = ["| code | name | fix | what the fix does | safety |", "|---|---|---|---|---|"]
    for rule in rules:
        title = _title_pattern(rule.fix_title) if rule.fix in ("safe", "unsafe") else ""
        out.append(
            f"| {rule.code} | {rule.name} | {FIX_KINDS[rule.fix]} | {_cell(title)} | "
            f"{_cell(_first_sentence(rule.docs['fix_safety']))} |"
        )
    return "\n".join(out) + "\n"


def with_fix_table(document: str, rules: RuleSet) -> str:
    """``document`` with the text between the fix-safety markers replaced by the table."""
    begin, end = document.find(FIX_TABLE_BEGIN), document.find(FIX_TABLE_END)
    if begin < 0 or end < begin:
        raise ValueError("the fix-safety markers are missing")
    head = document[: begin + len(FIX_TABLE_BEGIN)]
    return f"{head}\n{fix_safety_table(rules)}{document[end:]}"


def reference(rules: RuleSet) -> str:
    """The whole rules reference (``docs/rules.md``)."""
    out = [
        "# nondet-lint rules",
        "",
        "<!-- Generated from rules/*.toml by `python -m nondet_lint.docs`; do not edit. -->",
        "",
        "Terms such as entry point, program, library code, GPU program and target version are",
        "defined in [contract.md](contract.md); the source keys in the references are listed in",
        "[sources.md](sources.md).",
        "",
        "| code | name | summary | fix |",
        "|---|---|---|---|",
    ]
    for rule in rules:
        out.append(f"| [{rule.code}](#{rule.code.lower()}-{rule.name}) | {rule.name} | {rule.summary} | {rule.fix} |")
    out.append("")
    out.append("## Fix safety")
    out.append("")
    out.append("`--fix` applies safe fixes; unsafe ones also need `--unsafe-fixes` (see the README, \"Fixes\").")
    out.append("")
    out.append(fix_safety_table(rules))
    for rule in rules:
        out.append(explain(rule, heading="##"))
    return "\n".join(out)


def main() -> None:  # pragma: no cover - thin wrapper used to regenerate docs/rules.md
    import sys
    from pathlib import Path

    from nondet_lint.ruledata import load_rules

    if sys.argv[1:2] == ["--readme"] and len(sys.argv) == 3:
        path = Path(sys.argv[2])
        text = path.read_text(encoding="utf-8")
        path.write_text(with_fix_table(text, load_rules()), encoding="utf-8")
        return
    sys.stdout.write(reference(load_rules()))


if __name__ == "__main__":  # pragma: no cover
    main()
