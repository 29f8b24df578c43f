"""Every check, and for every rule code the one check that decides it.

Like ruff's rule table: ``nondet-lint`` asks "where is ND305?" here.  ``CHECKS`` is the
walk order (fact collectors first: the others' pass-2 decisions read what they record).
ND000 (a file that cannot be read or parsed) is the engine's own and has no check.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Sequence, Type

from nondet_lint.analysis import entrypoints
from nondet_lint.check import Check, FileChecker
from nondet_lint.families import files
from nondet_lint.families.data import hashsplit, order, pinning, split, tfds, urls
from nondet_lint.families.environment import check as environment
from nondet_lint.families.environment import setuppy
from nondet_lint.families.kernels import cudafiles, custom, gpu, ops, switches
from nondet_lint.families.seeding import check as seeding
from nondet_lint.families.seeding import search

ENGINE_CODES = ("ND000",)

CHECKS: List[Type[Check]] = [
    entrypoints.EntryPoints,
    gpu.GpuFacts, switches.CudnnBenchmark, switches.CudnnDeterministicOff, switches.ProgramSwitches,
    switches.TensorFlowThreads, ops.TorchOps, ops.TensorFlowOps, ops.JaxScatter, custom.CustomKernels, cudafiles.ExtensionSources,
    environment.UnpinnedFramework, setuppy.SetupRequires,
    order.ListingOrder, order.StringSetOrder,
    pinning.ModuleConstants, pinning.HubRevision, pinning.DirectoryDataset, urls.UrlDownloads, tfds.TfdsReads,
    split.SeedingFacts, split.SplitterSeed, split.ShuffleThenSlice, split.TfDataSplit, split.TfDataOrder, hashsplit.HashSplit,
    seeding.Seeding, search.SeedOptionPasses, search.SearchSeeds,
]

# non-Python files some family reads (requirement files: ND401; CUDA sources: ND207)
FILE_CHECKERS: Sequence[FileChecker] = files.FILE_CHECKERS


def all_checks() -> List[Type[Check]]:
    return list(CHECKS)


def deciders(checks: Sequence[Type[Check]]) -> Dict[str, Type[Check]]:
    """Code -> the check that decides it, among ``checks``; a later check takes a code
    over (a plugin's, or a test's probe)."""
    return {code: check for check in checks for code in check.decided_codes()}


DECIDERS: Mapping[str, Type[Check]] = deciders(CHECKS)
