"""The clinical suite (seed 002): medical answers in a multi-turn dialogue, against the patient record."""

from __future__ import annotations

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.clinical import dataset, metrics, summary
from assay.suites.clinical.importing import ClinicalImporter
from assay.suites.clinical.prompts import CLINICAL_ANSWER
from assay.suites.clinical.schema import ClinicalAnswer, ClinicalCase
from assay.suites.clinical.summary import ClinicalSummary
from assay.suites.kit import DatasetFunctions, ReplayContext, Suite, SummaryFunctions


class ClinicalSuite(Suite[ClinicalCase, ClinicalAnswer, ClinicalSummary]):
    name = "clinical"
    title = "Clinical answers against the patient record"
    seed = "002"
    description = (
        "Multi-turn medical answers per turn: slot factuality (SFS), contraindication penalty (CSP), "
        "context utilisation (CUS), the jury's faithfulness and relevance, and the weighted aggregate; "
        "per patient and overall, safety violations first."
    )
    importer = ClinicalImporter()  # `assay import clinical FILE`
    dataset_functions = DatasetFunctions(dataset.load_clinical_dataset, dataset.clinical_validation_frames,
                                         dataset.clinical_validation_parameters)
    families = metrics.FAMILIES
    prompts = (CLINICAL_ANSWER,)
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections, summary.charts, summary.METRICS)

    def partition_group(self, case: ClinicalCase) -> str:
        """A patient's turns are read as one dialogue: they stay in one partition."""
        return case.patient_id

    def live_replay(self, cases: list[ClinicalCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.clinical.live import live_answers

        return live_answers(cases, ctx)
