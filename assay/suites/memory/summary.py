"""memory aggregation and report: ensembles per criterion, the seed's overall (0-100) per
query, per scenario and overall summaries, the worst queries first.

Ensemble rules (seed 000's jury): per criterion, the weighted mean of the judges that
answered (weights renormalised), or the median when max − min ≥ the disagreement threshold
(flagged). A stale value stated as current caps accuracy at 3 (a time error the dataset
knows of). overall = (0.35·relevance + 0.30·completeness + 0.25·accuracy + 0.10·(10 − noise))·10
from the ensembles; unscored, with the criteria named, when any criterion is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from assay.metrics.memory import overall_score
from assay.rendering.tables import fmt, markdown_table, md_text
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    ReportSection,
    Summary,
    ensemble,
    group_means,
    jury_section,
    jury_summary,
    metric_stats,
    value_index,
)
from assay.suites.kit.charts import drawn, group_chart, means_chart
from assay.suites.memory.metrics import CRITERIA, FACT_METRICS
from assay.suites.memory.schema import SCENARIOS, MemoryCase, MemoryGeneration

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    from collections.abc import Iterable

    import pandas as pd

METRICS = ("overall", *CRITERIA, *FACT_METRICS)
SCALES = {"overall": "0-100", **dict.fromkeys(CRITERIA, "0-10"), **FACT_METRICS}
LOWER_IS_BETTER = ["noise", "stale_as_current", "noise_ratio"]
STALE_ACCURACY_CAP = 3.0


class QuerySummary(BaseModel):
    case_id: str
    session_id: str
    scenario: str
    query: str
    scores: dict[str, float | None]
    overall: float | None = None
    unscored: str | None = None
    reasons: dict[str, str] = Field(default_factory=dict, description="criterion -> the judges' reasoning")
    helpful_info: list[str] = Field(default_factory=list)
    missing_info: list[str] = Field(default_factory=list)
    judge_summary: str = ""
    missing_facts: list[str] = Field(default_factory=list)
    stale_facts: list[str] = Field(default_factory=list, description="superseded values stated as current")


class MemorySummary(Summary):
    by_scenario: dict[str, dict[str, float | None]]
    queries: list[QuerySummary] = Field(description="worst overall first; unscored last")


def aggregate(rows: Iterable[ScoreRow], cases: list[MemoryCase], spec: RunSpec) -> AggregateResult:
    rows = list(rows)  # thousands of cases: every row at once
    final = [r for r in rows if r.judge is None] + [_cap_stale(r, value_index(rows)) for r in ensemble(rows, spec)]
    values = value_index(final)
    final += [_overall_row(c.id, values) for c in cases]
    values = value_index(final)
    per_judge = [r for r in rows if r.judge is not None]
    queries = sorted((_query(c, values, final + per_judge) for c in cases),
                     key=lambda q: (q.overall is None, q.overall if q.overall is not None else 0, q.case_id))
    summary = MemorySummary(
        n_cases=len(cases),
        metrics=list(METRICS),
        scales=dict(SCALES),
        lower_is_better=LOWER_IS_BETTER,
        overall={m: metric_stats(values.get((c.id, m)) for c in cases) for m in METRICS},
        by_scenario=group_means(values, {c.id: c.scenario for c in cases}, METRICS),
        queries=queries,
        jury=jury_summary(final + per_judge, spec, CRITERIA),
    )
    return AggregateResult(rows=final + per_judge, summary=summary)


def _cap_stale(row: ScoreRow, checks: dict[tuple[str, str], float | None]) -> ScoreRow:
    """A memory that states a superseded value as current has a time error (seed 001: 시점
    오류), which the dataset knows even when a judge, seeing only the memory, cannot: its
    accuracy is capped at STALE_ACCURACY_CAP, as the seed's band for mostly inaccurate."""
    stale = checks.get((row.case_id, "stale_as_current"))
    if row.metric != "accuracy" or row.value is None or not stale or row.value <= STALE_ACCURACY_CAP:
        return row
    details = {**row.details, "judged": row.value, "capped_by_stale_facts": int(stale)}
    return row.model_copy(update={"value": STALE_ACCURACY_CAP, "details": details})


def _overall_row(case_id: str, values: dict[tuple[str, str], float | None]) -> ScoreRow:
    scores = {m: values.get((case_id, m)) for m in CRITERIA}
    missing = [m for m, v in scores.items() if v is None]
    if missing:
        return ScoreRow.unscored(case_id, "overall", "overall", "0-100", f"unscored criteria: {', '.join(missing)}",
                                 details={"criteria": scores})
    value = overall_score(**scores)  # type: ignore[arg-type]
    return ScoreRow(case_id=case_id, metric="overall", family="overall", value=value, scale="0-100",
                    details={"criteria": scores, "formula": "(0.35r + 0.30c + 0.25a + 0.10(10 - noise)) * 10"})


def _query(case: MemoryCase, values: dict[tuple[str, str], float | None], rows: list[ScoreRow]) -> QuerySummary:
    mine = [r for r in rows if r.case_id == case.id]
    judged = [r for r in mine if r.judge is not None and r.value is not None]
    facts = {r.metric: r for r in mine if r.judge is None and r.family == "facts"}
    overall = next((r for r in mine if r.metric == "overall"), None)
    reasons = {}
    for criterion in CRITERIA:
        texts = [r.details.get("reasoning", "") for r in judged if r.metric == criterion]
        reasons[criterion] = next((t for t in texts if t), "")
    return QuerySummary(
        case_id=case.id,
        session_id=case.session_id,
        scenario=case.scenario,
        query=case.query,
        scores={m: values.get((case.id, m)) for m in (*CRITERIA, *FACT_METRICS)},
        overall=values.get((case.id, "overall")),
        unscored=overall.unscored_reason if overall is not None else None,
        reasons=reasons,
        helpful_info=_merged(judged, "helpful_info"),
        missing_info=_merged(judged, "missing_info"),
        judge_summary=next((r.details.get("summary", "") for r in judged if r.details.get("summary")), ""),
        missing_facts=list(facts["fact_recall"].details.get("missing", [])) if "fact_recall" in facts else [],
        stale_facts=list(facts["stale_as_current"].details.get("stale_facts", [])) if "stale_as_current" in facts else [],
    )


def _merged(judged: list[ScoreRow], key: str, limit: int = 8) -> list[str]:
    """A verdict list of every judge that answered, de-duplicated (one row per judge is enough)."""
    items: list[str] = []
    for row in judged:
        if row.metric == CRITERIA[0]:
            items += row.details.get(key, [])
    return list(dict.fromkeys(items))[:limit]


# --------------------------------------------------------------------------- report


def report_sections(
    scores: pd.DataFrame, summary: MemorySummary, cases: list[MemoryCase], generations: dict[str, MemoryGeneration]
) -> list[ReportSection]:
    return [
        ReportSection("Overall", _overall_md(summary)),
        ReportSection("By scenario", _by_scenario_md(summary)),
        ReportSection("Per query (worst first)", _per_query_md(summary)),
        ReportSection("Query details", "\n\n".join(_query_md(q, generations.get(q.case_id)) for q in summary.queries)),
        ReportSection("Jury", jury_section(scores, summary.jury, "Memories", CRITERIA)),
        ReportSection("How to read these numbers", GUIDE),
    ]


def _overall_md(summary: MemorySummary) -> str:
    rows = [[m, SCALES[m], fmt(s.mean, 2), s.n_scored, s.n_unscored] for m, s in summary.overall.items()]
    head = (f"Mean overall usefulness over {summary.n_cases} queries: **{fmt(summary.mean('overall'), 1)}** / 100. "
            f"Lower is better: {', '.join(summary.lower_is_better)}.\n\n")
    return head + markdown_table(["metric", "scale", "mean", "scored", "unscored"], rows)


def _by_scenario_md(summary: MemorySummary) -> str:
    order = [s for s in SCENARIOS if s in summary.by_scenario] + sorted(set(summary.by_scenario) - set(SCENARIOS))
    shown = ["overall", *CRITERIA, "fact_recall", "stale_as_current"]
    counts = {s: sum(1 for q in summary.queries if q.scenario == s) for s in order}
    rows = [[md_text(s), counts[s], *[fmt(summary.by_scenario[s].get(m), 2) for m in shown]] for s in order]
    return markdown_table(["scenario", "queries", *shown], rows)


def _per_query_md(summary: MemorySummary) -> str:
    rows = [[md_text(q.case_id), md_text(q.scenario), fmt(q.overall, 1), *[fmt(q.scores[m], 1) for m in CRITERIA],
             fmt(q.scores["fact_recall"], 2), fmt(q.scores["stale_as_current"], 0)] for q in summary.queries]
    return markdown_table(["query", "scenario", "overall", *CRITERIA, "fact recall", "stale"], rows)


def _items(values: list[str]) -> str:
    return "; ".join(md_text(v) for v in values) if values else "none"


def _query_md(q: QuerySummary, gen: MemoryGeneration | None) -> str:
    overall = f"**overall {fmt(q.overall, 1)}**" if q.overall is not None else f"**overall unscored** ({md_text(q.unscored)})"
    lines = [f"### {md_text(q.case_id)} ({md_text(q.scenario)}): {md_text(q.query)}", "",
             f"- {overall}: " + ", ".join(f"{m} {fmt(q.scores[m], 1)}" for m in CRITERIA)]
    lines += [f"    - {m}: {md_text(q.reasons[m])}" for m in CRITERIA if q.reasons.get(m)]
    lines += [
        f"- Expected facts: recall {fmt(q.scores['fact_recall'], 2)}; missing: {_items(q.missing_facts)}",
        "- Stale values stated as current: " + (_items(q.stale_facts) if q.stale_facts else "none"),
        f"- Helpful: {_items(q.helpful_info)}",
        f"- Missing: {_items(q.missing_info)}",
    ]
    if q.judge_summary:
        lines.append(f"- Judge: {md_text(q.judge_summary)}")
    if gen is not None:
        memory = gen.memory or "(empty)"
        lines.append(f"- Stored memory ({len(gen.memory)} chars): {md_text(memory[:600])}")
        if gen.error:
            lines.append(f"- Summarizer error: {md_text(gen.error)}")
    return "\n".join(lines)


def charts(summary: MemorySummary) -> dict[str, bytes]:
    """Overall usefulness by scenario, and the mean of each criterion."""
    return drawn({
        "overall_by_scenario": group_chart(summary.by_scenario, "overall", (0, 100), 70, "mean overall (0-100)",
                                           "Overall by scenario"),
        "criterion_means": means_chart({m: summary.mean(m) for m in CRITERIA}, (0, 10.8), 7.0,
                                       "Criterion means (0-10; noise: lower is better)"),
    })


GUIDE = """Each query is judged on the stored memory alone (the conversation is not shown to the judge):
**relevance** (is information about the query there), **completeness** (is enough context there to
answer), **accuracy** (is it correct: figures, time, subject, status), each 0-10 higher is better, and
**noise** (resolved issues, unrelated topics, boilerplate, stale values), 0-10 lower is better.
**Overall** = (0.35 relevance + 0.30 completeness + 0.25 accuracy + 0.10 (10 − noise)) × 10, on 0-100.

Beside the jury, three checks need no model: **fact recall** (share of the query's expected facts the
memory states; numbers compared by value, so 1.2억 = 120,000,000원), **stale** (superseded values the
memory states as current; an information-update query should show 0), and **noise ratio** (share of
the memory's sentences that carry no expected fact). A high judged accuracy beside a stale flag, or a
high relevance beside a low recall, is worth reading case by case. An unscored criterion (every judge
failed, the summarizer failed) leaves the overall unscored with the reason; it is never counted as 0."""
