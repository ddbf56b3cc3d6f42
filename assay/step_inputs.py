"""What each evaluation step in ``assay.pipeline`` is given: one frozen record per step.

A step reads ``(store, suite, inputs)``: the artifact store and the suite it works in, and this
record of what to do — content hashes, the quarantined case ids, the run spec and how to run
(concurrency, progress). The Prefect tasks in ``tasks/`` keep their flat parameters (their
cache key is built from them by name: locations and concurrency are left out) and build the
record; the deep audit and the worker processes build the same records, so every caller of a
step names what it passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.spec import RunSpec
from assay.suites.kit import ProgressFn


def quiet(message: str) -> None:
    """Progress nobody reads (tests, the deep audit)."""


@dataclass(frozen=True)
class IngestInputs:
    dataset_dir: str | Path
    allow_symlinks: bool = False  # follow symlinks out of the dataset directory (refused by default)


@dataclass(frozen=True)
class ValidateInputs:
    snapshot: str
    require_generations: bool = False  # a recorded replay: the generations file must be there


@dataclass(frozen=True)
class ReplayInputs:
    snapshot: str
    skip_ids: tuple[str, ...]
    spec: RunSpec
    concurrency: int | None = None
    progress: ProgressFn = quiet


@dataclass(frozen=True)
class PartitionInputs:
    snapshot: str
    generations: str
    skip_ids: tuple[str, ...]
    size: int  # cases per partition, about (whole groups are kept together)


@dataclass(frozen=True)
class Scoring:
    """How a metric step scores its cases: the run spec, where judge calls are kept, how many
    are in flight, where progress goes, and whether remote judges may be asked at all."""

    spec: RunSpec
    call_store_url: str | None
    concurrency: int | None = None
    progress: ProgressFn = quiet
    send: bool = True  # False: answer remote judges from the call store only (a deep audit)


@dataclass(frozen=True)
class FamilyInputs:
    """One metric family over every case of the run."""

    family: str
    snapshot: str
    generations: str
    skip_ids: tuple[str, ...]
    scoring: Scoring


@dataclass(frozen=True)
class FamilyPartitionInputs:
    """One metric family over one partition (``partition``: its sha; ``index`` names its artifacts)."""

    family: str
    index: int
    partition: str
    scoring: Scoring


@dataclass(frozen=True)
class AggregateInputs:
    """``family_scores``: family -> its score files (one, or one per partition, in partition
    order); ``score_names`` names them for lineage (None: the whole-run family files)."""

    snapshot: str
    family_scores: Mapping[str, Sequence[str]]
    skip_ids: tuple[str, ...]
    spec: RunSpec
    score_names: Mapping[str, Sequence[str]] | None = None
