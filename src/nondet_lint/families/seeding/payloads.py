"""What a seeding candidate carries to pass 2 (``SeedingPayload``): the index events refer
to it by, and the values of its kind: a draw from a global RNG, or a call of the rule
tables (``random_state``, a ``DataLoader``, a loader factory, a sampler, a seed call that
is random in older versions).

Their JSON form is the deferred payload (workers send it, the cache stores it): the index
under ``cid``, then the values' own keys.  The candidate's code says which kind it holds;
ND107 and ND109 have two kinds each, told apart by their first key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple, Union


@dataclass(frozen=True)
class Draw:
    """A use of a global RNG (ND101, ND102, ND104, ND105; ND107 when its result is used as a
    seed and it ran unseeded)."""

    built: bool = False  # a TF-Keras layer or initializer made at import time (it draws when built)
    seed_value: bool = False  # its result reaches a seed
    origin: Optional[int] = None  # then: the ``Origin`` that value is (its id in the module)
    weights: bool = False  # it draws only initial weights (a layer, a variable, an initializer)
    applied: bool = False  # it draws when applied to data, not when made (a random transform)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if self.built:
            out["built"] = 1
        if self.seed_value:
            out["seed_value"] = True
        if self.origin is not None:
            out["oid"] = self.origin
        if self.weights:
            out["weights"] = 1
        if self.applied:
            out["applied"] = 1
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Draw":
        return cls(bool(data.get("built")), bool(data.get("seed_value")), data.get("oid"), bool(data.get("weights")),
                   bool(data.get("applied")))


@dataclass(frozen=True)
class RandomStateCall:
    """ND108: a call that is random with its arguments and draws from NumPy's global RNG
    through ``random_state`` (the message's ``name``, ``why`` and ``state``)."""

    name: str
    why: str  # "(<why the arguments make it random>)", or "with these arguments"
    state: str  # "None" or "omitted"
    # a call that draws only on data of some size, fitted where the size is known: per fit,
    # the scikit-learn version ranges in which it draws nothing there (pass 2 knows the
    # project's versions); empty: not decided by size
    quiet: Tuple[Tuple[str, ...], ...] = ()

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"name": self.name, "why": self.why, "state": self.state}
        if self.quiet:
            out["quiet"] = [list(fit) for fit in self.quiet]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RandomStateCall":
        return cls(data["name"], data["why"], data["state"], tuple(tuple(fit) for fit in data.get("quiet", ())))


@dataclass(frozen=True)
class GeneratorCall:
    """ND103: a NumPy generator given a seed that a parameter, an option or an attribute
    holds; pass 2 reports it where a program runs it with that seed None (``seed=None``
    that no caller sets)."""

    name: str  # the constructor's short name
    seed: str  # the expression that holds the seed, as written

    def to_json(self) -> Dict[str, Any]:
        return {"generator": self.name, "seed": self.seed}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GeneratorCall":
        return cls(data["generator"], data["seed"])


@dataclass(frozen=True)
class LoaderCall:
    """ND109: a ``DataLoader`` that shuffles with the global torch RNG, or (``only_workers``)
    one that starts worker processes with no ``worker_init_fn`` and does not shuffle."""

    workers: Optional[str]  # the dataset class its workers run, when it has workers and no worker_init_fn
    only_workers: bool = False

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"workers": self.workers}
        if self.only_workers:
            out["only_workers"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "LoaderCall":
        return cls(data["workers"], bool(data.get("only_workers")))


@dataclass(frozen=True)
class LoaderFactoryCall:
    """ND109: a function that builds a shuffling ``DataLoader`` with no generator, called
    with its ``when`` argument true in the default run."""

    factory: str  # its short name
    when: str  # the keyword that makes it shuffle

    def to_json(self) -> Dict[str, Any]:
        return {"factory": self.factory, "when": self.when}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "LoaderFactoryCall":
        return cls(data["factory"], data["when"])


@dataclass(frozen=True)
class SamplerCall:
    """ND110: a sampler that draws from the global torch RNG (no ``generator=``)."""

    name: str

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SamplerCall":
        return cls(data["name"])


@dataclass(frozen=True)
class RandomBefore:
    """ND107: a seed call given no value (or None), which picks a random seed when the
    target version of ``package`` is before ``bound`` (known only in pass 2)."""

    package: str
    bound: str
    known: Tuple[str, ...]  # the package's versions the rule data knows
    name: str  # the seed call's short name
    given: str  # "no value" or "None"

    def to_json(self) -> Dict[str, Any]:
        return {"random_before": [self.package, self.bound, list(self.known)], "name": self.name, "given": self.given}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RandomBefore":
        package, bound, known = data["random_before"]
        return cls(package, bound, tuple(known), data["name"], data["given"])


CandidateValues = Union[Draw, RandomStateCall, GeneratorCall, LoaderCall, LoaderFactoryCall, SamplerCall, RandomBefore]


def _values_from_json(code: str, data: Mapping[str, Any]) -> CandidateValues:
    if code == "ND103":
        return GeneratorCall.from_json(data)
    if code == "ND108":
        return RandomStateCall.from_json(data)
    if code == "ND109":
        return LoaderFactoryCall.from_json(data) if "factory" in data else LoaderCall.from_json(data)
    if code == "ND110":
        return SamplerCall.from_json(data)
    if code == "ND107" and "random_before" in data:
        return RandomBefore.from_json(data)
    return Draw.from_json(data)


@dataclass(frozen=True)
class SeedingPayload:
    """A seeding candidate's deferred payload: its index (``cid``, which events refer to
    it by), and either its values or, for an anchor (a node pass 2 only needs the
    position of), none."""

    cid: int
    values: Optional[CandidateValues] = None  # None: an anchor

    @property
    def anchor(self) -> bool:
        return self.values is None

    def to_json(self) -> Dict[str, Any]:
        if self.values is None:
            return {"cid": self.cid, "anchor": True}
        return {"cid": self.cid, **self.values.to_json()}

    @classmethod
    def from_json(cls, code: str, data: Mapping[str, Any]) -> "SeedingPayload":
        if data.get("anchor"):
            return cls(data["cid"])
        return cls(data["cid"], _values_from_json(code, data))
