"""What a suite is: data + a small module. The flow only talks to this interface, so adding
a suite never touches the flow.

A suite declares its case and generation schemas, how to read a dataset directory, its
Great Expectations suite (a JSON file under ``datasets/<suite>/expectations/``), its metric
families (each family becomes one parallel metric task), how per-judge scores are reduced
to ensemble scores and totals, and the sections of its report.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from assay.schemas import RowProblem, ScoreRow

ProgressFn = Callable[[str], None]


@dataclass
class LoadedDataset:
    """Everything read from a dataset directory, including what could not be read.

    ``records`` are raw dicts (one per parseable JSONL line, with ``_line`` set to the 1-based
    line number), so the validation gate can name bad rows instead of failing on the first.
    ``files`` maps a logical name ("cases", "generations", "kb/<path>") to the file's path;
    the ingest step snapshots each into the artifact store.
    """

    suite: str
    root: Path
    records: list[dict[str, Any]]
    parse_problems: list[RowProblem] = field(default_factory=list)
    generations: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class MetricContext:
    """What a metric family may use besides cases and generations."""

    params: dict[str, Any]
    jury: Any = None  # assay.judges runner, set when the family needs judges
    progress: ProgressFn = lambda message: None
    dataset_root: Path | None = None
    jury_runs: list[Any] = field(default_factory=list)  # JuryRun records, stored for lineage


@dataclass(frozen=True)
class MetricFamily:
    """A group of metrics computed together in one task (e.g. all retrieval metrics)."""

    name: str
    compute: Callable[[list[BaseModel], dict[str, BaseModel], MetricContext], list[ScoreRow]]
    uses_jury: bool = False
    description: str = ""


@dataclass
class AggregateResult:
    rows: list[ScoreRow]
    summary: dict[str, Any]


@dataclass
class ReportSection:
    title: str
    markdown: str


class Suite(ABC):
    name: str
    title: str
    seed: str
    description: str
    case_model: type[BaseModel]
    generation_model: type[BaseModel]
    default_params: dict[str, Any] = {}

    @property
    def default_dataset(self) -> Path:
        from assay.paths import datasets_dir

        return datasets_dir() / self.name

    @property
    def expectations_dir(self) -> Path:
        from assay.paths import datasets_dir

        return datasets_dir() / self.name / "expectations"

    @abstractmethod
    def load_dataset(self, root: Path) -> LoadedDataset:
        """Read a dataset directory without raising on bad rows (problems are collected)."""

    @abstractmethod
    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        """Tables the GX suites run on, keyed by the expectation file stem (e.g. "cases")."""

    def validation_parameters(self, data: LoadedDataset) -> dict[str, Any]:
        """Values for ``{"$PARAMETER": name}`` placeholders in the expectation files."""
        return {}

    @abstractmethod
    def parse_cases(self, data: LoadedDataset, skip_ids: set[str] = frozenset()) -> list[BaseModel]:  # type: ignore[assignment]
        """Typed cases of the rows that passed the gate (quarantined ids are skipped)."""

    def parse_generations(self, raw: list[dict[str, Any]]) -> dict[str, BaseModel]:
        """Typed generations keyed by case id."""
        return {g["case_id"]: self.generation_model.model_validate(g) for g in raw}

    def live_replay(
        self, cases: list[BaseModel], data: LoadedDataset, params: dict[str, Any], progress: ProgressFn
    ) -> list[dict[str, Any]]:
        """Regenerate outputs with a live system instead of reading recorded ones."""
        raise NotImplementedError(f"suite {self.name!r} has no live replay; use --replay recorded")

    @abstractmethod
    def metric_families(self) -> list[MetricFamily]: ...

    @abstractmethod
    def aggregate(self, rows: list[ScoreRow], cases: list[BaseModel], params: dict[str, Any]) -> AggregateResult:
        """Reduce per-judge rows to ensemble rows, add totals, and summarise per group."""

    def charts(self, summary: dict[str, Any]) -> dict[str, bytes]:
        """PNG charts for the report, by name. The default plots metric means and MRR by category."""
        from assay.report.render import render_charts

        return render_charts(summary)

    @abstractmethod
    def report_sections(
        self, scores: pd.DataFrame, summary: dict[str, Any], cases: list[BaseModel], generations: dict[str, BaseModel]
    ) -> list[ReportSection]: ...
