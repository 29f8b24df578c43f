"""Hugging Face ``datasets`` objects: which values are one, and whether a shuffle is seeded.

A map-style ``Dataset.shuffle()`` or ``train_test_split()`` given no ``seed`` and no
``generator`` takes its seed from NumPy's global state (``np.random.get_state()``), so
``np.random.seed`` covers it and nothing else does; a streaming ``IterableDataset.shuffle()``
makes ``np.random.default_rng(None)`` instead, which no global seed reaches (source:
datasets ``arrow_dataset.py`` and ``iterable_dataset.py``, ``shuffle``). The seeding family
counts the first as a NumPy draw (ND102), the data family judges both as held-out splits
(ND305). The facts live in ``[ND000.data.hf_datasets]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex
from nondet_lint.analysis.moduleview import is_none
from nondet_lint.callargs import find_arg
from nondet_lint.names import ImportMap

_MAX_STEPS = 12  # links of a method chain / assignment chain followed back to its origin


@dataclass(frozen=True)
class HfDatasets:
    modules: Tuple[str, ...] = ()  # a call of these modules makes a dataset
    other_modules: Tuple[str, ...] = ()  # their datasets shuffle too (``tf.data``): origin unknown is not enough
    seed_keywords: Tuple[str, ...] = ()  # ``seed=`` / ``generator=``: the shuffle is seeded
    shuffles: Tuple[str, ...] = ()  # methods that shuffle the rows
    streaming: Tuple[str, ...] = ()  # methods whose result is an ``IterableDataset``
    streaming_keyword: str = ""  # ``load_dataset(..., streaming=True)``
    streaming_generator: str = ""  # the generator a streaming shuffle makes with the seed it is given

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "HfDatasets":
        return cls(
            tuple(data.get("modules", ())), tuple(data.get("other_modules", ())),
            tuple(data.get("seed_keywords", ())), tuple(data.get("shuffles", ())),
            tuple(data.get("streaming_methods", ())), str(data.get("streaming_keyword", "")),
            str(data.get("streaming_generator", "")),
        )

    def origin(self, receiver: cst.BaseExpression, qualname: Callable[[cst.BaseExpression], Optional[str]],
               index_for: Callable[[cst.CSTNode], ScopeIndex], imports: ImportMap) -> Optional["Origin"]:
        """Whether ``receiver`` is a ``datasets`` dataset, followed back through method calls,
        subscripts (``load_dataset(...)["train"]``) and plain assignments to a call with a
        qualified name; of unknown origin, a dataset in a module that uses ``datasets`` and
        none of ``other_modules``. None when it is not (or cannot be told from) one."""
        streaming = False
        current: Optional[cst.BaseExpression] = receiver
        for _ in range(_MAX_STEPS):
            if isinstance(current, cst.Call):
                name = qualname(current.func)
                if name is not None:
                    if not name.startswith(self.modules):
                        return None
                    return Origin(streaming or self._streams(current))
                func = current.func
                if isinstance(func, cst.Attribute):
                    streaming = streaming or func.attr.value in self.streaming
                    current = func.value
                else:
                    current = None
            elif isinstance(current, cst.Subscript):
                current = current.value
            elif isinstance(current, cst.Name):
                binding = index_for(current).reaching(current)
                if binding is None or binding.kind not in ("assign", "walrus"):
                    break
                current = binding.value
            else:
                break
        if imports.mentions(*self.modules) and not imports.mentions(*self.other_modules):
            return Origin(streaming)
        return None

    def _streams(self, call: cst.Call) -> bool:
        """``load_dataset(..., streaming=True)``: the dataset is an ``IterableDataset``."""
        if not self.streaming_keyword:
            return False
        value = find_arg(call, self.streaming_keyword, None)
        return isinstance(value, cst.Name) and value.value == "True"

    def seeded(self, call: cst.Call) -> bool:
        """The shuffle is given a seed or a generator other than ``None``."""
        for keyword in self.seed_keywords:
            value = find_arg(call, keyword, None)
            if value is not None and not is_none(value):
                return True
        return False


@dataclass(frozen=True)
class Origin:
    streaming: bool  # an ``IterableDataset``: its unseeded shuffle draws OS entropy, not NumPy's state


def hf_datasets(rules_data: Mapping[str, Any]) -> HfDatasets:
    """The ``[ND000.data.hf_datasets]`` table of the rule data."""
    return HfDatasets.from_data(rules_data.get("hf_datasets", {}))
