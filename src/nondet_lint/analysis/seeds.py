"""The seed helpers, recognised in one place from rule data (ND101's ``seeders`` table).

A seed helper is a function that seeds one or more global RNGs (``random.seed``,
``torch.manual_seed``, ``transformers.set_seed``, ``lightning.seed_everything``): which
RNGs, where its value is passed, and what it does without one.  The seeding rules, the
data rules (a split covered by a seed set anywhere) and the kernel rules (ND206: a
program that seeds) all read this one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Mapping, Optional, Tuple

from nondet_lint.ruledata import RuleSet

SEED_RULE = "ND101"  # the rule whose data holds the seeders


@dataclass(frozen=True)
class Seeder:
    seeds: Tuple[str, ...]  # the RNGs it seeds
    pos: Optional[int]  # where the seed value is passed
    kw: Optional[str]
    without_value: str  # entropy | fixed | required
    always_random: bool  # it reseeds from OS entropy whatever it is given
    # package -> version before which a call without a value picks a random seed
    random_without_value_before: Tuple[Tuple[str, str], ...] = ()
    known_versions: Tuple[str, ...] = ()  # of those packages, for their target version

    @property
    def sets_a_seed(self) -> bool:
        """It can make runs repeat (as opposed to ``torch.seed()``, which never does)."""
        return not self.always_random


@lru_cache(maxsize=8)
def seed_helpers(rules: RuleSet) -> Mapping[str, Seeder]:
    """Qualified name -> what the helper seeds (built once per loaded rule set)."""
    found: Dict[str, Seeder] = {}
    data = rules[SEED_RULE].data if SEED_RULE in rules else {}
    for entry in data.get("seeders", []):
        seeder = Seeder(
            tuple(entry.get("seeds", ())),
            entry.get("value", {}).get("pos"),
            entry.get("value", {}).get("kw"),
            entry.get("without_value", "required"),
            bool(entry.get("always_random", False)),
            tuple(sorted(entry.get("random_without_value_before", {}).items())),
            tuple(entry.get("known_versions", ())),
        )
        for name in entry.get("names", ()):
            found[name] = seeder
    return found
