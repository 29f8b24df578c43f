"""Automatic fixes: building them (``builders``, used by checks in pass 1) and applying
them (``apply``: non-overlapping edits on source text; ``loop``: fix, re-lint, repeat;
``writer``: atomic writes that keep encoding, BOM, newlines and permissions;
``diff``: the unified diff of ``--diff``; ``command``: the command-line modes)."""
