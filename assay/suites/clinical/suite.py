"""The clinical suite (seed 002): medical answers in a multi-turn dialogue, against the patient record."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.spec import RunSpec
from assay.suites.clinical import dataset, metrics, summary
from assay.suites.clinical.importing import ClinicalImporter
from assay.suites.clinical.schema import ClinicalAnswer, ClinicalCase
from assay.suites.kit import AggregateResult, MetricFamily, ReplayContext, ReportSection, ScoreRows, Suite

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd


class ClinicalSuite(Suite[ClinicalCase, ClinicalAnswer]):
    name = "clinical"
    title = "Clinical answers against the patient record"
    seed = "002"
    description = (
        "Multi-turn medical answers per turn: slot factuality (SFS), contraindication penalty (CSP), "
        "context utilisation (CUS), the jury's faithfulness and relevance, and the weighted aggregate; "
        "per patient and overall, safety violations first."
    )
    case_model = ClinicalCase
    generation_model = ClinicalAnswer
    summary_model = summary.ClinicalSummary
    importer = ClinicalImporter()  # `assay import clinical FILE`

    def partition_group(self, case: ClinicalCase) -> str:
        """A patient's turns are read as one dialogue: they stay in one partition."""
        return case.patient_id

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_clinical_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.clinical_validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> JsonObject:
        return dataset.clinical_validation_parameters(data)

    def live_replay(self, cases: list[ClinicalCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.clinical.live import live_answers

        return live_answers(cases, ctx)

    def metric_families(self) -> list[MetricFamily]:
        return metrics.FAMILIES

    def metric_names(self, spec: RunSpec) -> list[str]:
        return list(summary.METRICS)

    def aggregate(self, rows: ScoreRows, cases: list[ClinicalCase], spec: RunSpec) -> AggregateResult:
        return summary.aggregate(list(rows), cases, spec)  # thousands of cases: every row at once

    def charts(self, summary_: summary.ClinicalSummary) -> dict[str, bytes]:  # type: ignore[override]
        return summary.charts(summary_)

    def report_sections(
        self, scores: pd.DataFrame, summary_: summary.ClinicalSummary, cases: list[ClinicalCase],  # type: ignore[override]
        generations: dict[str, ClinicalAnswer],
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)
