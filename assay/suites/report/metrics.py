"""report metric families (seed 000): ``automatic`` (§1.2, §1.4, §1.6, §1.7, citation tags)
and ``jury`` (§1.3, §1.5: four judge prompts, one row per case, metric and judge).

Every score is 0-10 unless its row says otherwise (``scale``); figures that explain a score
go into its ``details`` so the report and ``assay lineage`` can show them. Ensembles, output
quality, the hallucination score, overall and grade are computed in ``summary.aggregate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from assay.schemas import JsonObject, ScoreRow
from assay.suites.kit import AutomaticFamily, JuryFamily, JuryPrompt, MetricContext
from assay.suites.report import formulas as rp
from assay.suites.report.schema import ReportCase, ReportGeneration
from assay.suites.report.schema_match import requirement_met, resolve_team_type, schema_completeness

AUTOMATIC = "automatic"
JURY = "jury"
AUTOMATIC_METRICS: dict[str, str] = {
    "task_success": "0-10",
    "completeness": "0-10",
    "efficiency": "0-10",
    "source_quality": "0-10",
    "invalid_citations": "count",
}
# Per-judge 0-10 scores and the prompt that gives each (seed 000 §3.2.1-3.2.3).
SCORE_PROMPTS: dict[str, str] = {
    "factual_accuracy": "report_factual_accuracy",
    "coherence": "report_coherence",
    "relevance": "report_relevance",
}
HALLUCINATION_PROMPT = "report_hallucination"  # §3.2.4
HALLUCINATION_METRICS: dict[str, str] = {"hallucination_count": "count", "citation_accuracy": "0-1"}
# Verdict lists kept in a per-judge row's details (S/W/R and the report use them).
_VERDICT_LISTS = ("issues", "strengths", "weaknesses", "fulfilled_requirements", "missing_requirements")
MAX_LIST_ITEMS, MAX_TEXT = 10, 400


def _automatic(case: ReportCase, gen: ReportGeneration, ctx: MetricContext) -> list[ScoreRow]:
    # embedding_model None: lexical schema matching (the default)
    return automatic_rows(case, gen, ctx.spec.generator.embedding_model)


def automatic_rows(case: ReportCase, gen: ReportGeneration, embedding_model: Any = None) -> list[ScoreRow]:
    report = gen.report

    def row(metric: str, value: float, details: JsonObject) -> ScoreRow:
        return ScoreRow(
            case_id=case.id, metric=metric, family=AUTOMATIC, value=float(value),
            scale=AUTOMATIC_METRICS[metric], details=details,
        )

    # §1.2 task success (30 generated + 40 sections + 30 requirements, see report.task_success)
    ts = rp.task_success(
        report, case.required_sections, case.requirements, requirement_matcher=requirement_met, error=gen.error
    )
    out = [row("task_success", ts.score, ts.model_dump(exclude={"score"}))]

    # §1.4 completeness: section rate from header count, schema rate from the team type's fields
    section_rate = rp.section_completeness(report)
    schema_rate, mapping = schema_completeness(report, case.team_type, embedding_model=embedding_model)
    team = resolve_team_type(case.team_type)
    fields = [{"key": f.key, "name": f.name, "header": mapping.get(f.key)} for f in team.fields]
    out.append(
        row(
            "completeness",
            rp.completeness_score(section_rate, schema_rate),
            {
                "section_rate": section_rate,
                "n_headers": len(rp.markdown_headers(report)),
                "schema_rate": schema_rate,
                "team_type": team.key,
                "field_headers": fields,
                "missing_fields": [f["name"] for f in fields if f["header"] is None],
                "schema_matching": "embedding+lexical" if embedding_model else "lexical",
            },
        )
    )

    # §1.6 efficiency: penalties for time, redundant steps, tokens, cost
    repeated_queries = rp.redundant_steps(gen.search_queries, [])
    repeated_logs = rp.redundant_steps([], gen.execution_log)
    redundant = repeated_queries + repeated_logs
    time_s, tokens, cost = gen.total_execution_time, gen.total_tokens, gen.estimated_cost
    out.append(
        row(
            "efficiency",
            rp.efficiency_score(time_s, redundant, tokens, cost),
            {
                "execution_time_s": time_s,
                "redundant_steps": redundant,
                "repeated_search_queries": repeated_queries,
                "repeated_log_lines": repeated_logs,
                "repeated_examples": _repeats(gen.search_queries) + _repeats(gen.execution_log),
                "total_tokens": tokens,
                "input_tokens": gen.input_tokens,
                "output_tokens": gen.output_tokens,
                "api_calls": gen.api_calls,
                "cost_usd": cost,
                "model": gen.model,
                "penalties": {
                    "time": 10 - rp.efficiency_score(time_s, 0, 0, 0),
                    "redundant_steps": 10 - rp.efficiency_score(0, redundant, 0, 0),
                    "tokens": 10 - rp.efficiency_score(0, 0, tokens, 0),
                    "cost": 10 - rp.efficiency_score(0, 0, 0, cost),
                },
            },
        )
    )

    # §1.7 source quality: credibility (mean score) and diversity (distinct types / 8)
    stats = rp.source_stats(gen.sources)
    out.append(
        row(
            "source_quality",
            rp.source_quality(gen.sources),
            {
                "source_count": stats.count,
                "avg_reliability": stats.avg_reliability,
                "source_diversity": len(stats.types),
                "source_types": list(stats.types),
                "credibility_score": stats.avg_reliability * 10,
                "diversity_score": min(len(stats.types) / rp.MAX_SOURCE_TYPES, 1.0) * 10,
            },
        )
    )

    # §1.5 citation inaccuracy that needs no judge: [SOURCE:N] with no source N
    check = rp.citation_check(report, [s.number for s in gen.sources])
    out.append(
        row(
            "invalid_citations",
            len(check.invalid),
            {
                "invalid_tags": check.invalid,
                "valid_tags": len(check.valid),
                "total_tags": check.total,
                "tag_accuracy": check.accuracy,
                "n_sources": len(gen.sources),
            },
        )
    )
    return out


def _repeats(items: Sequence[str], limit: int = 5) -> list[str]:
    """Items that occur more than once (display only; the count is report.redundant_steps)."""
    counts = Counter(" ".join(i.split()) for i in items if i.strip())
    return [f"{text[:120]} ×{n}" for text, n in counts.items() if n > 1][:limit]


# --------------------------------------------------------------------------- jury


def judge_input(case: ReportCase, gen: ReportGeneration, ctx: MetricContext | None = None) -> Any:
    from assay.suites.report.prompts import ReportInput

    return ReportInput.model_validate(
        {
            "query": case.query,
            "report": gen.report,
            "sources": [{"number": s.number, "title": s.title, "content": s.content} for s in gen.sources],
        }
    )


def _verdict_details(metric: str, verdict: JsonObject) -> JsonObject:
    """The judge's reasoning and verdict lists (S/W/R and the report use them), truncated."""
    details: JsonObject = {"reasoning": str(verdict.get("reasoning", ""))[:MAX_TEXT]}
    for key in _VERDICT_LISTS:
        if key in verdict:
            details[key] = [str(x)[:MAX_TEXT] for x in verdict[key][:MAX_LIST_ITEMS]]
    return details


def _hallucination_details(metric: str, verdict: JsonObject) -> JsonObject:
    if metric != "hallucination_count":
        return {}
    return {"hallucinations": list(verdict.get("hallucinations") or [])[:20]}


FAMILIES = [
    AutomaticFamily(
        AUTOMATIC, AUTOMATIC_METRICS, _automatic,
        "task success, completeness, efficiency, source quality, invalid [SOURCE:N] tags",
    ),
    JuryFamily(
        JURY,
        [
            *(JuryPrompt(prompt_id, {metric: "score"}, _verdict_details) for metric, prompt_id in SCORE_PROMPTS.items()),
            JuryPrompt(HALLUCINATION_PROMPT, {m: m for m in HALLUCINATION_METRICS}, _hallucination_details),
        ],
        judge_input,
        "jury: factual accuracy, coherence, relevance (0-10); hallucination count, citation accuracy",
    ),
]
