"""The rag_qa suite (seed 003): retrieval metrics and a judged answer score per case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from assay.schemas import ScoreRow
from assay.suites.base import AggregateResult, LoadedDataset, MetricFamily, ProgressFn, ReportSection, Suite
from assay.suites.rag_qa import dataset, metrics, summary
from assay.suites.rag_qa.schema import CATEGORIES, RagCase, RagGeneration


class RagQASuite(Suite):
    name = "rag_qa"
    title = "RAG question answering"
    seed = "003"
    description = (
        "Retrieval (MRR, nDCG@k, P@k, R@k, keyword coverage) and answers (jury: accuracy, completeness, "
        "relevance 1-5), per case, per category and overall."
    )
    case_model = RagCase
    generation_model = RagGeneration
    default_params = {"k": 10, "disagreement_threshold": 3.0}
    categories = CATEGORIES

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_rag_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.rag_validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> dict[str, Any]:
        return dataset.rag_validation_parameters(data)

    def parse_cases(self, data: LoadedDataset, skip_ids: set[str] = frozenset()) -> list[BaseModel]:  # type: ignore[assignment]
        fields = set(RagCase.model_fields)
        # Rows without a usable id failed the gate and can only reach here when quarantined.
        return [
            RagCase.model_validate({k: v for k, v in record.items() if k in fields})
            for record in data.records
            if isinstance(record.get("id"), str) and record["id"] and record["id"] not in skip_ids
        ]

    def live_replay(
        self, cases: list[BaseModel], data: LoadedDataset, params: dict[str, Any], progress: ProgressFn
    ) -> list[dict[str, Any]]:
        from assay.suites.rag_qa.live import live_generations

        return live_generations(cases, data.root / "kb", params, progress)  # type: ignore[arg-type]

    def metric_families(self) -> list[MetricFamily]:
        return [
            MetricFamily("retrieval", metrics.compute_retrieval, description="MRR, nDCG@k, P@k, R@k, keyword coverage"),
            MetricFamily("answer", metrics.compute_answers, uses_jury=True, description="jury: accuracy, completeness, relevance"),
        ]

    def aggregate(self, rows: list[ScoreRow], cases: list[BaseModel], params: dict[str, Any]) -> AggregateResult:
        return summary.aggregate(rows, cases, params)  # type: ignore[arg-type]

    def report_sections(
        self, scores: pd.DataFrame, summary_: dict[str, Any], cases: list[BaseModel], generations: dict[str, BaseModel]
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)  # type: ignore[arg-type]
