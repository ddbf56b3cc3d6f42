"""The memory suite (seed 001): is a stored long-term memory useful for the query?"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.kit import CaseView, DatasetFunctions, ReplayContext, Suite, SummaryFunctions, labelled
from assay.suites.memory import dataset, metrics, summary
from assay.suites.memory.importing import MemoryImporter
from assay.suites.memory.prompts import MEMORY_USEFULNESS
from assay.suites.memory.schema import MemoryCase, MemoryGeneration
from assay.suites.memory.summary import MemorySummary


class MemorySuite(Suite[MemoryCase, MemoryGeneration, MemorySummary]):
    name = "memory"
    title = "Long-term memory usefulness"
    seed = "001"
    description = (
        "Stored conversation memory per query: relevance, completeness, accuracy, noise (jury, 0-10), "
        "overall 0-100; expected-fact recall and stale values beside the judges; per scenario and overall."
    )
    group_label = "scenario"
    recorded_outputs = ("memories",)
    importer = MemoryImporter()  # `assay import memory FILE`
    dataset_functions = DatasetFunctions(dataset.load_memory_dataset, dataset.memory_validation_frames,
                                         dataset.memory_validation_parameters)
    families = metrics.FAMILIES
    prompts = (MEMORY_USEFULNESS,)
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections, summary.charts, summary.METRICS)

    def parse_cases(self, data: LoadedDataset, skip_ids: AbstractSet[str] = frozenset()) -> list[MemoryCase]:
        """The kit's typed cases, each with its session's conversation (for the report's case view)."""
        sessions = dataset.readable_sessions(data.extras.get("sessions", []))
        return [case.model_copy(update={"conversation": sessions[case.session_id].turns if case.session_id in sessions else []})
                for case in super().parse_cases(data, skip_ids)]

    def partition_group(self, case: MemoryCase) -> str:
        """A session's queries share its memory: they stay in one partition."""
        return case.session_id

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

    def case_view(self, case: MemoryCase, generation: MemoryGeneration | None) -> CaseView:
        conversation = "\n".join(f"{turn.role}: {turn.text}" for turn in case.conversation)
        inputs = labelled(("query", case.query), ("session", case.session_id), ("conversation", conversation),
                          ("expected facts", "\n".join(f.fact for f in case.expected_facts)),
                          ("stale facts (must not read as current)", "\n".join(f.fact for f in case.stale_facts)))
        outputs = labelled(("memory", generation.memory or "(empty)"), ("entities", ", ".join(generation.entities)),
                           ("error", generation.error)) if generation is not None else []
        return CaseView(group=case.scenario, inputs=inputs, outputs=outputs)
