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

from typing import Any, ClassVar, Dict, Iterable, Mapping, Optional, Type, TypeVar


class ModuleFact:
    """One kind of fact about a module; subclasses are dataclasses with a JSON form."""

    key: ClassVar[str]  # the name of this kind in the JSON form

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
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

    Read from JSON, the values are built on first use: a warm run whose pass 2 comes from
    the cache never reads them, and building every module's facts was half its time."""

    def __init__(self, values: Iterable[ModuleFact] = ()) -> None:
        self._built: Optional[Dict[str, ModuleFact]] = {value.key: value for value in values}
        self._json: Mapping[str, Any] = {}

    @property
    def _values(self) -> Dict[str, ModuleFact]:
        built = self._built
        if built is None:
            built = self._built = {key: _KINDS[key].from_json(value) for key, value in self._json.items()}
            self._json = {}
        return built

    def __eq__(self, other: object) -> bool:
        """Equal when they hold equal facts (the language server reuses pass 2 while every
        module's facts are equal to those it was decided with)."""
        return isinstance(other, FileFacts) and self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, not hashable

    def get(self, kind: Type[FactT]) -> Optional[FactT]:
        value = self._values.get(kind.key)
        return value if isinstance(value, kind) else None

    def __contains__(self, kind: Type[ModuleFact]) -> bool:
        return kind.key in (self._json if self._built is None else self._built)

    def put(self, value: ModuleFact) -> None:
        """Record (or replace) the value of its kind."""
        self._values[value.key] = value

    def with_fact(self, value: ModuleFact) -> "FileFacts":
        """A copy with ``value`` recorded (pass 2 adds what only the project knows)."""
        return FileFacts((*self._values.values(), value))

    def to_json(self) -> Dict[str, Any]:
        if self._built is None:
            return dict(self._json)
        return {key: value.to_json() for key, value in self._built.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "FileFacts":
        """Facts of the JSON form; a kind no class records is a ``KeyError`` here, at once."""
        unknown = [key for key in data if key not in _KINDS]
        if unknown:
            raise KeyError(unknown[0])
        facts = cls()
        facts._built, facts._json = None, data
        return facts
