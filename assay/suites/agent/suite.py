"""The agent suite (seed 004): a tool-using hiring agent scored on intent, accuracy,
consistency, latency and stability over repeated calls."""

from __future__ import annotations

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.agent import dataset, metrics, summary
from assay.suites.agent.importing import AgentImporter
from assay.suites.agent.prompts import AGENT_INTENT
from assay.suites.agent.schema import AgentCase, AgentGeneration
from assay.suites.agent.summary import AgentSummary
from assay.suites.kit import (
    CaseField,
    CaseView,
    DatasetFunctions,
    ReplayContext,
    Suite,
    SummaryFunctions,
    as_text,
    labelled,
)


class AgentSuite(Suite[AgentCase, AgentGeneration, AgentSummary]):
    name = "agent"
    title = "Tool-using agent responses"
    seed = "004"
    description = (
        "A hiring agent's responses over repeated calls: intent (jury), accuracy checks, consistency, "
        "latency by class, stability; total 0-5 per query, per latency class and overall."
    )
    group_label = "latency class"
    recorded_outputs = ("responses",)
    importer = AgentImporter()  # `assay import agent FILE`
    scores_failed_calls = True  # seed 004: a call that failed is an accuracy and stability of 0
    dataset_functions = DatasetFunctions(dataset.load_agent_dataset, dataset.agent_validation_frames,
                                         dataset.agent_validation_parameters)
    families = metrics.FAMILIES
    prompts = (AGENT_INTENT,)
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections, summary.charts, summary.METRICS)

    def recorded_generations(self, data: LoadedDataset, cases: list[AgentCase]) -> list[JsonObject]:
        """responses.jsonl holds one line per call; a query's generation is all its repeats."""
        calls: dict[str, list[JsonObject]] = {}
        for rec in data.generations:
            calls.setdefault(str(rec.get("case_id")), []).append({
                "repeat": rec.get("repeat"), "raw": rec.get("raw"),
                "response_time_sec": rec.get("responseTimeSec"), "error": rec.get("error"),
            })
        return [{"case_id": c.id, "calls": sorted(calls[c.id], key=lambda x: x["repeat"])} for c in cases if c.id in calls]

    def live_replay(self, cases: list[AgentCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.agent.live import live_calls

        return live_calls(cases, ctx)

    def case_view(self, case: AgentCase, generation: AgentGeneration | None) -> CaseView:
        checks = "\n".join(f"{c.path} {c.op} {as_text(c.value)}" for c in case.checks)
        inputs = labelled(("query", case.query), ("expected intent", case.expected_intent),
                          ("expected result", case.expected_result), ("accuracy checks", checks))
        outputs = []
        if generation is not None:
            outputs = labelled(("error", generation.error))
            for call in generation.calls:
                took = f", {call.response_time_sec:.2f} s" if call.response_time_sec is not None else ""
                text = "\n".join(t for t in (f"error: {call.error}" if call.error else "", call.raw or "") if t)
                outputs.append(CaseField(label=f"agent response, call {call.repeat}{took}", text=text or "(empty)"))
        return CaseView(group=case.latency_class, inputs=inputs, outputs=outputs)
