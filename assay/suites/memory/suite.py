"""The memory suite (seed 001): is a stored long-term memory useful for the query?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    CaseView,
    MetricFamily,
    ReplayContext,
    ReportSection,
    ScoreRows,
    Suite,
    labelled,
)
from assay.suites.memory import dataset, metrics, summary
from assay.suites.memory.importing import MemoryImporter
from assay.suites.memory.schema import MemoryCase, MemoryGeneration

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd


class MemorySuite(Suite[MemoryCase, MemoryGeneration]):
    name = "memory"
    title = "Long-term memory usefulness"
    seed = "001"
    description = (
        "Stored conversation memory per query: relevance, completeness, accuracy, noise (jury, 0-10), "
        "overall 0-100; expected-fact recall and stale values beside the judges; per scenario and overall."
    )
    case_model = MemoryCase
    generation_model = MemoryGeneration
    group_label = "scenario"
    recorded_outputs = ("memories",)
    importer = MemoryImporter()  # `assay import memory FILE`
    summary_model = summary.MemorySummary

    def parse_cases(self, data: LoadedDataset, skip_ids: set[str] = frozenset()) -> list[MemoryCase]:  # type: ignore[assignment]
        """The kit's typed cases, each with its session's conversation (for the report's case view)."""
        sessions = dataset.readable_sessions(data.extras.get("sessions", []))
        return [case.model_copy(update={"conversation": sessions[case.session_id].turns if case.session_id in sessions else []})
                for case in super().parse_cases(data, skip_ids)]

    def partition_group(self, case: MemoryCase) -> str:
        """A session's queries share its memory: they stay in one partition."""
        return case.session_id

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_memory_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.memory_validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> JsonObject:
        return dataset.memory_validation_parameters(data)

    def recorded_generations(self, data: LoadedDataset, cases: list[MemoryCase]) -> list[JsonObject]:
        """Each query gets the memory stored for its session (memories.jsonl is per session)."""
        stored = {str(m.get("session_id")): m for m in data.generations}
        out = []
        for case in cases:
            memory = stored.get(case.session_id)
            if memory is not None:
                fields = {k: v for k, v in memory.items() if k not in ("_line", "session_id", "case_id")}
                out.append({**fields, "case_id": case.id, "session_id": case.session_id})
        return out

    def live_replay(self, cases: list[MemoryCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.memory.live import live_memories

        return live_memories(cases, data.extras.get("sessions", []), ctx)

    def metric_families(self) -> list[MetricFamily]:
        return metrics.FAMILIES

    def metric_names(self, spec: RunSpec) -> list[str]:
        return list(summary.METRICS)

    def aggregate(self, rows: ScoreRows, cases: list[MemoryCase], spec: RunSpec) -> AggregateResult:
        return summary.aggregate(list(rows), cases, spec)  # thousands of cases: every row at once

    def charts(self, summary_: summary.MemorySummary) -> dict[str, bytes]:  # type: ignore[override]
        return summary.charts(summary_)

    def case_view(self, case: MemoryCase, generation: MemoryGeneration | None) -> CaseView:
        conversation = "\n".join(f"{turn.role}: {turn.text}" for turn in case.conversation)
        inputs = labelled(("query", case.query), ("session", case.session_id), ("conversation", conversation),
                          ("expected facts", "\n".join(f.fact for f in case.expected_facts)),
                          ("stale facts (must not read as current)", "\n".join(f.fact for f in case.stale_facts)))
        outputs = labelled(("memory", generation.memory or "(empty)"), ("entities", ", ".join(generation.entities)),
                           ("error", generation.error)) if generation is not None else []
        return CaseView(group=case.scenario, inputs=inputs, outputs=outputs)

    def report_sections(
        self, scores: pd.DataFrame, summary_: summary.MemorySummary, cases: list[MemoryCase],  # type: ignore[override]
        generations: dict[str, MemoryGeneration],
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)
