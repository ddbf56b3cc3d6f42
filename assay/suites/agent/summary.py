"""Aggregate and report of the agent suite: the seed's markdown score report.

Per query: intent (jury ensemble), consistency (from the repeats' intent labels and data
signatures), accuracy, latency, stability and the total; failed checks with expected vs actual,
verdicts and labels across repeats, latency per repeat. Per latency class and overall; the
lowest totals, the slowest and the least consistent queries first.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from assay.rendering.tables import fmt, markdown_table, md_text
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.agent import formulas as am
from assay.suites.agent.schema import AgentCase, AgentGeneration
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

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    from collections.abc import Iterable

    import pandas as pd

SCORES = ("intent", "consistency", "accuracy", "latency", "stability")
METRICS = ("total", *SCORES)
SCALES = dict.fromkeys(METRICS, "0-5")
WORST_LISTED = 10


class QuerySummary(BaseModel):
    case_id: str
    query: str
    latency_class: str
    expected_intent: str
    scores: dict[str, float | None]
    total: float | None = None
    unscored: str | None = None
    repeats: int = 0
    seconds: list[float | None] = Field(default_factory=list, description="response time per repeat")
    failed_checks: list[list[str]] = Field(default_factory=list, description="per repeat")
    problems: list[str] = Field(default_factory=list, description="errors, timeouts, unreadable JSON per repeat")
    labels: list[str] = Field(default_factory=list, description="ensemble intent label per repeat")
    verdicts: dict[str, list[str]] = Field(default_factory=dict, description="judge -> verdict per repeat")
    signatures: list[str] = Field(default_factory=list)


class AgentSummary(Summary):
    by_latency_class: dict[str, dict[str, float | None]]
    queries: list[QuerySummary] = Field(description="lowest total first; unscored last")
    slowest: list[str] = Field(description="case ids, slowest mean response first")
    least_consistent: list[str] = Field(description="case ids, least consistent first")


def aggregate(rows: Iterable[ScoreRow], cases: list[AgentCase], spec: RunSpec) -> AggregateResult:
    rows = list(rows)  # thousands of cases: every row at once
    weights = spec.jury.weights() if spec.jury else {}
    per_judge = [r for r in rows if r.judge is not None]
    final = [r for r in rows if r.judge is None] + ensemble(rows, spec)
    by_case = {c.id: [r for r in rows if r.case_id == c.id] for c in cases}
    final += [_consistency_row(c.id, by_case[c.id], weights) for c in cases]
    values = value_index(final)
    final += [_total_row(c.id, values) for c in cases]
    values = value_index(final)
    queries = sorted((_query(c, values, final + per_judge, weights) for c in cases),
                     key=lambda q: (q.total is None, q.total if q.total is not None else 0, q.case_id))
    timed = [q for q in queries if any(s is not None for s in q.seconds)]
    summary = AgentSummary(
        n_cases=len(cases),
        metrics=list(METRICS),
        scales=dict(SCALES),
        overall={m: metric_stats(values.get((c.id, m)) for c in cases) for m in METRICS},
        by_latency_class=group_means(values, {c.id: c.latency_class for c in cases}, METRICS),
        queries=queries,
        slowest=[q.case_id for q in sorted(timed, key=lambda q: -_mean_seconds(q))][:WORST_LISTED],
        least_consistent=[q.case_id for q in sorted(queries, key=lambda q: (q.scores["consistency"] is None, q.scores["consistency"] or 0))
                          if q.scores["consistency"] is not None][:WORST_LISTED],
        jury=jury_summary(final + per_judge, spec, ["intent"]),
    )
    return AggregateResult(rows=final + per_judge, summary=summary)


def _mean_seconds(q: QuerySummary) -> float:
    seconds = [s for s in q.seconds if s is not None]
    return sum(seconds) / len(seconds) if seconds else 0.0


def repeat_labels(case_rows: list[ScoreRow], weights: dict[str, float]) -> list[str | None]:
    """The jury's intent label per repeat: the label with the most judge weight (ties: the
    first judge's); None for a repeat no judge labelled."""
    judged = [r for r in case_rows if r.metric == "intent" and r.judge is not None and r.value is not None]
    if not judged:
        return []
    n = max(len(r.details.get("labels", [])) for r in judged)
    labels: list[str | None] = []
    for i in range(n):
        votes: Counter[str] = Counter()
        for row in judged:
            row_labels = row.details.get("labels", [])
            if i < len(row_labels):
                votes[row_labels[i]] += weights.get(row.judge or "", 1.0)
        labels.append(max(votes, key=lambda lab: votes[lab]) if votes else None)
    return labels


def _consistency_row(case_id: str, case_rows: list[ScoreRow], weights: dict[str, float]) -> ScoreRow:
    calls = next((r for r in case_rows if r.metric == "stability" and r.judge is None), None)
    signatures = list((calls.details if calls else {}).get("signatures", []))
    labels = repeat_labels(case_rows, weights)
    if calls is None or calls.value is None:
        return ScoreRow.unscored(case_id, "consistency", "consistency", "0-5", "no calls to compare")
    if len(labels) != len(signatures) or any(label is None for label in labels):
        return ScoreRow.unscored(case_id, "consistency", "consistency", "0-5",
                                 "no intent label for every repeat (every judge failed on some)",
                                 details={"signatures": signatures})
    value = am.consistency_score(labels, signatures)
    details = {"labels": labels, "signatures": signatures, "ratio_labels": am.mode_share(labels),
               "ratio_signatures": am.mode_share(signatures), "repeats": len(signatures),
               "note": "fewer than 2 repeats: consistency is 0 (seed 004)" if len(signatures) < 2 else ""}
    return ScoreRow(case_id=case_id, metric="consistency", family="consistency", value=value, scale="0-5", details=details)


def _total_row(case_id: str, values: dict[tuple[str, str], float | None]) -> ScoreRow:
    scores = {m: values.get((case_id, m)) for m in SCORES}
    total = am.total_score(scores)
    if total is None:
        missing = [m for m, v in scores.items() if v is None]
        return ScoreRow.unscored(case_id, "total", "total", "0-5", f"unscored: {', '.join(missing)}", details={"scores": scores})
    return ScoreRow(case_id=case_id, metric="total", family="total", value=total, scale="0-5",
                    details={"scores": scores, "weights": am.WEIGHTS})


def _query(case: AgentCase, values: dict[tuple[str, str], float | None], rows: list[ScoreRow],
           weights: dict[str, float]) -> QuerySummary:
    mine = [r for r in rows if r.case_id == case.id]
    final = {r.metric: r for r in mine if r.judge is None}
    acc, lat, stab = (final.get(m) for m in ("accuracy", "latency", "stability"))
    total = final.get("total")
    return QuerySummary(
        case_id=case.id,
        query=case.query,
        latency_class=case.latency_class,
        expected_intent=case.expected_intent,
        scores={m: values.get((case.id, m)) for m in SCORES},
        total=values.get((case.id, "total")),
        unscored=total.unscored_reason if total is not None else None,
        repeats=int((stab.details if stab else {}).get("repeats", 0)),
        seconds=list((lat.details if lat else {}).get("seconds", [])),
        failed_checks=list((acc.details if acc else {}).get("failed_checks", [])),
        problems=list((stab.details if stab else {}).get("problems", [])),
        labels=[label or "?" for label in repeat_labels(mine, weights)],
        verdicts={r.judge: list(r.details.get("verdicts", [])) for r in mine
                  if r.metric == "intent" and r.judge is not None and r.value is not None},
        signatures=list((stab.details if stab else {}).get("signatures", [])),
    )


# --------------------------------------------------------------------------- report


def report_sections(
    scores: pd.DataFrame, summary: AgentSummary, cases: list[AgentCase], generations: dict[str, AgentGeneration]
) -> list[ReportSection]:
    by_id = {q.case_id: q for q in summary.queries}
    return [
        ReportSection("Overall", _overall_md(summary)),
        ReportSection("By latency class", _by_class_md(summary)),
        ReportSection("Per query (lowest total first)", _per_query_md(summary)),
        ReportSection("Slowest queries", _short_md([by_id[i] for i in summary.slowest], "mean seconds")),
        ReportSection("Least consistent queries", _short_md([by_id[i] for i in summary.least_consistent], "consistency")),
        ReportSection("Query details", "\n\n".join(_query_md(q) for q in summary.queries)),
        ReportSection("Jury", jury_section(scores, summary.jury, "Agent messages", ["intent"])),
        ReportSection("How to read these numbers", GUIDE),
    ]


def _overall_md(summary: AgentSummary) -> str:
    rows = [[m, fmt(s.mean, 2), s.n_scored, s.n_unscored] for m, s in summary.overall.items()]
    head = f"Mean total over {summary.n_cases} queries: **{fmt(summary.mean('total'), 2)}** / 5.\n\n"
    return head + markdown_table(["metric (0-5)", "mean", "scored", "unscored"], rows)


def _by_class_md(summary: AgentSummary) -> str:
    counts = Counter(q.latency_class for q in summary.queries)
    rows = [[md_text(c), counts[c], *[fmt(v.get(m), 2) for m in METRICS]] for c, v in sorted(summary.by_latency_class.items())]
    return markdown_table(["latency class", "queries", *METRICS], rows)


def _per_query_md(summary: AgentSummary) -> str:
    rows = [[md_text(q.case_id), md_text(q.latency_class), fmt(q.total, 2), *[fmt(q.scores[m], 2) for m in SCORES]]
            for q in summary.queries]
    return markdown_table(["query", "class", "total", *SCORES], rows)


def _short_md(queries: list[QuerySummary], what: str) -> str:
    if not queries:
        return "None."
    rows = [[md_text(q.case_id), md_text(q.query[:80]), fmt(_mean_seconds(q), 2) if what == "mean seconds" else fmt(q.scores["consistency"], 2),
             ", ".join(fmt(s, 2) for s in q.seconds)] for q in queries]
    return markdown_table(["query", "text", what, "seconds per repeat"], rows)


def _query_md(q: QuerySummary) -> str:
    total = f"**total {fmt(q.total, 2)}**" if q.total is not None else f"**total unscored** ({md_text(q.unscored)})"
    lines = [f"### {md_text(q.case_id)} ({md_text(q.latency_class)}, expected {md_text(q.expected_intent)}): {md_text(q.query)}", "",
             f"- {total}: " + ", ".join(f"{m} {fmt(q.scores[m], 2)}" for m in SCORES),
             f"- Seconds per repeat: {', '.join(fmt(s, 2) for s in q.seconds) or 'none'}",
             f"- Intent labels per repeat: {', '.join(md_text(x) for x in q.labels) or 'none'}"]
    lines += [f"    - {md_text(judge)}: {', '.join(md_text(v) for v in verdicts)}" for judge, verdicts in q.verdicts.items()]
    for i, failed in enumerate(q.failed_checks):
        if failed:
            lines.append(f"- Repeat {i} failed checks: " + "; ".join(md_text(f) for f in failed))
    for i, problem in enumerate(q.problems):
        if problem:
            lines.append(f"- Repeat {i} problem: {md_text(problem)}")
    if len(set(q.signatures)) > 1:
        lines.append(f"- Data signatures differ across repeats ({len(set(q.signatures))} distinct)")
    return "\n".join(lines)


def charts(summary: AgentSummary) -> dict[str, bytes]:
    """Total by latency class, and the mean of each of the five scores."""
    return drawn({
        "total_by_latency_class": group_chart(summary.by_latency_class, "total", (0, 5), 3.5, "mean total (0-5)",
                                              "Total by latency class"),
        "score_means": means_chart({m: summary.mean(m) for m in SCORES}, (0, 5.4), 3.5, "Score means (0-5)"),
    })


GUIDE = """Every query is sent N times (repeats). Per repeat: **accuracy** from the share of the query's
checks that pass (all 5, from 0.75 4, from 0.5 3, from 0.25 2, above 0 1; 0 on an error, a timeout,
unreadable JSON, or when the query has no checks); **latency** by class (SINGLE ≤ 5/8/10/15/20 s,
MULTI ≤ 20/30/40/50/60 s → 5..1, slower or missing 0); **stability** 5 when the call had no error,
its JSON parsed and it holds assistantMessage and dataUIList, else 0; **intent** the jury's verdict on
the assistantMessage (PERFECT 5, GOOD 4, PARTIAL 3, WEAK 2, RELATED_BUT_WRONG 1, FAILED 0; a failed
call is FAILED). The query's score for each is the **mean over its repeats**. **Consistency** =
((share of the most common intent label + share of the most common data signature) / 2) × 5, 0 with
fewer than 2 repeats. **Total** = 0.2 intent + 0.1 consistency + 0.3 accuracy + 0.2 latency + 0.2
stability, on 0-5. An unscored score (every judge failed) leaves the total unscored, never 0."""
