"""Per-file facts: what pass 1 records about a module for pass 2, one typed value per kind.

Each kind of fact is a dataclass of the analysis or family that records it (``EntryFacts``,
``ModuleSeeding``, ``GpuModuleFacts``, ...), a ``ModuleFact`` with a ``key`` and a JSON
form (``to_json`` / ``from_json``) that workers send and the cache stores.  ``FileFacts``
holds at most one value of each kind and is asked by class, so a reader gets the type it
asked for.  It is keyed by class, not one field per family, because the context and the
project index that carry it sit below the families in the layers.  Every subclass of
``ModuleFact`` is a kind the JSON form can name (a plugin's check may bring its own).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Dict, Iterable, Mapping, Optional, Type, TypeVar


class ModuleFact:
    """One kind of fact about a module; subclasses are dataclasses with a JSON form."""

    key: ClassVar[str]  # the name of this kind in the JSON form

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "\t" in cls.key or "\n" in cls.key:  # the text form (``FileFacts.to_text``) separates with them
            raise TypeError(f"{cls.__qualname__}: the fact key {cls.key!r} holds a tab or a newline")
        known = _KINDS.setdefault(cls.key, cls)
        if known is not cls:
            raise TypeError(f"{cls.__qualname__}: the fact key {cls.key!r} is {known.__qualname__}'s")

    def to_json(self) -> Dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_json(cls: Type[FactT], data: Mapping[str, Any]) -> FactT:
        raise NotImplementedError


FactT = TypeVar("FactT", bound=ModuleFact)
_KINDS: Dict[str, Type[ModuleFact]] = {}  # every kind, by key


class FileFacts:
    """The facts of one file, at most one of each kind (written in pass 1, read in pass 2).

    Read from their text (``from_text``) or JSON form, each kind is decoded and built on
    its first use: a warm run whose pass 2 comes from the cache never reads them (decoding
    every module's facts was a third of its time, building them half), and a cold pass 2
    asks most modules for a few kinds only."""

    def __init__(self, values: Iterable[ModuleFact] = ()) -> None:
        # by key: the fact, or until it is asked for its JSON form or the text of that
        # (in the order they were read)
        self._slots: Dict[str, Any] = {value.key: value for value in values}

    def _built(self, key: str) -> Optional[ModuleFact]:
        value = self._slots.get(key)
        if value is None or isinstance(value, ModuleFact):
            return value
        if isinstance(value, str):
            value = json.loads(value)
        built = self._slots[key] = _KINDS[key].from_json(value)
        return built

    @property
    def _values(self) -> Dict[str, ModuleFact]:
        for key in self._slots:
            self._built(key)
        return self._slots

    def __eq__(self, other: object) -> bool:
        """Equal when they hold equal facts (the language server reuses pass 2 while every
        module's facts are equal to those it was decided with)."""
        return isinstance(other, FileFacts) and self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, not hashable

    def get(self, kind: Type[FactT]) -> Optional[FactT]:
        value = self._built(kind.key)
        return value if isinstance(value, kind) else None

    def __contains__(self, kind: Type[ModuleFact]) -> bool:
        return kind.key in self._slots

    def put(self, value: ModuleFact) -> None:
        """Record (or replace) the value of its kind."""
        self._slots[value.key] = value

    def with_fact(self, value: ModuleFact) -> "FileFacts":
        """A copy with ``value`` recorded (pass 2 adds what only the project knows)."""
        copy = FileFacts()
        copy._slots = dict(self._slots)
        copy.put(value)
        return copy

    def to_json(self) -> Dict[str, Any]:
        return {key: _json_form(value) for key, value in self._slots.items()}

    def to_text(self) -> str:
        """One line per kind: its key, a tab and its compact JSON form (which never holds a
        newline), so that ``from_text`` can leave each kind undecoded until it is asked for.
        A kind still in text form is copied as it is."""
        return "\n".join(f"{key}\t{value if isinstance(value, str) else _dumps(_json_form(value))}"
                         for key, value in self._slots.items())

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "FileFacts":
        """Facts of the JSON form; a kind no class records is a ``KeyError`` here, at once."""
        unknown = [key for key in data if key not in _KINDS]
        if unknown:
            raise KeyError(unknown[0])
        facts = cls()
        facts._slots = dict(data)
        return facts

    @classmethod
    def from_text(cls, text: str) -> "FileFacts":
        """Facts of the text form (``to_text``), each kind decoded on its first use; a line
        without a key is a ``ValueError``.  The keys are not looked up here: the classes of
        the kinds are imported with the checks, which a warm run never imports (a reader
        asks for a kind by its class, so only a kind it knows is built)."""
        facts = cls()
        if not text:
            return facts
        for line in text.split("\n"):  # not splitlines(): JSON text may hold U+2028 and the like
            key, tab, value = line.partition("\t")
            if not tab:
                raise ValueError("a fact line without a key")
            facts._slots[key] = value
        return facts


def _json_form(value: Any) -> Any:
    if isinstance(value, ModuleFact):
        return value.to_json()
    return json.loads(value) if isinstance(value, str) else value


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
