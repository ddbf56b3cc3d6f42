"""rag_qa aggregation and report sections: overall, per category, per case, jury details."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from assay.rendering.tables import fmt, markdown_table, md_text
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    JuryTally,
    ReportSection,
    RowSpool,
    ScoreRows,
    Summary,
    as_score_rows,
    ensemble,
    group_means,
    jury_section,
    metric_stats,
)
from assay.suites.kit.charts import bars, drawn, group_chart, png, pyplot
from assay.suites.kit.grounding import FIGURE_SUPPORT, GROUNDING_METRICS, OFFLINE_SCALES
from assay.suites.rag_qa.metrics import ANSWER_METRICS, JUDGED_GROUNDING, retrieval_metric_names
from assay.suites.rag_qa.retrieval_metrics import quality_label
from assay.suites.rag_qa.schema import RagCase, RagGeneration

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd


class RagSummary(Summary):
    k: int
    by_category: dict[str, dict[str, float | None]]


def answer_label(score: float) -> str:
    """Seed 003 §6: accuracy/completeness/relevance ≥ 4.5 excellent, ≥ 4.0 good, else needs work."""
    return "excellent" if score >= 4.5 else "good" if score >= 4.0 else "needs work"


def aggregate(rows: ScoreRows | Iterable[ScoreRow], cases: list[RagCase], spec: RunSpec) -> AggregateResult:
    """Ensembles, summary and final rows, reduced part by part so a 100,000-case run never holds
    its ~1.7 million rows: the same rows, in the same order, as reducing them all at once
    (automatic rows, then ensembles sorted by case and metric, then per-judge rows).

    One pass over the parts keeps per row only its value (the summary's means) and what the
    jury summary counts, and per part the ensembles of its cases (a case's per-judge rows are all
    in its partition's file) as JSON, sorted at the end. The rows themselves are set aside in two
    spools (automatic, per judge) as they are read, so the final rows are streamed without
    reading the score files a second and third time.
    """
    rows = as_score_rows(rows)
    values: dict[tuple[str, str], float | None] = {}
    tally = JuryTally((*ANSWER_METRICS, *JUDGED_GROUNDING))
    ensembles: list[tuple[tuple[str, str], str]] = []
    automatic, judged = RowSpool(), RowSpool()

    def final(row: ScoreRow) -> None:
        values[(sys.intern(row.case_id), row.metric)] = row.value
        tally.add(row)

    for part in rows.parts_with_lines():
        for row, line in part:
            if row.judge is None:
                final(row)
                automatic.add(row, line)
            else:
                tally.add(row)
                judged.add(row, line)
        ensembles += [((row.case_id, row.metric), row.model_dump_json()) for row in ensemble([r for r, _ in part], spec)]
    ensembles.sort(key=lambda keyed: keyed[0])
    for _, text in ensembles:
        final(ScoreRow.model_validate_json(text))

    k = spec.k
    present = {metric for _, metric in values}
    metrics = [m for m in retrieval_metric_names(k) + list(ANSWER_METRICS) + list(GROUNDING_METRICS) if m in present]
    unlabelled = {f"precision@{k}", f"recall@{k}"}  # the seed gives no reading for P@k and R@k
    overall = {
        m: metric_stats(
            (values.get((c.id, m)) for c in cases),
            # the seed reads its own metrics only: the reference-free ones get no reading
            None if m in unlabelled or m in GROUNDING_METRICS else answer_label if m in ANSWER_METRICS else quality_label,
        )
        for m in metrics
    }
    summary = RagSummary(
        k=k,
        n_cases=len(cases),
        metrics=metrics,
        scales={m: ("1-5" if m in ANSWER_METRICS else OFFLINE_SCALES.get(m, "0-1")) for m in metrics},
        overall=overall,
        by_category=group_means(values, {c.id: c.category for c in cases}, metrics),
        jury=tally.summary(spec),
    )

    def final_rows() -> Iterator[ScoreRow]:
        yield from automatic.rows()
        yield from (ScoreRow.model_validate_json(text) for _, text in ensembles)
        # Per-judge rows stay in the table (judge column set) so every ensemble can be traced.
        yield from judged.rows()

    return AggregateResult(rows=final_rows(), summary=summary)


def charts(summary: RagSummary) -> dict[str, bytes]:
    """Seed 003's plots: metric means (0-1 and 1-5 scales side by side) and MRR per category."""
    out: dict[str, bytes] = {}
    means = {m: s.mean for m, s in summary.overall.items() if s.mean is not None}
    unit = {m: v for m, v in means.items() if summary.scales.get(m) == "0-1"}
    five = {m: v for m, v in means.items() if summary.scales.get(m) == "1-5"}
    if unit or five:
        fig, axes = pyplot().subplots(1, 2 if five else 1, figsize=(12 if five else 7, 4), squeeze=False)
        bars(axes[0][0], unit, (0, 1.1), 0.75, "Retrieval metrics (mean, 0-1)")
        if five:
            bars(axes[0][1], five, (0, 5.5), 4.0, "Answer metrics (mean, 1-5)")
        out["metric_means"] = png(fig)
    mrr = group_chart(summary.by_category, "reciprocal_rank", (0, 1.05), 0.75, "mean reciprocal rank", "MRR by category")
    return drawn({**out, "mrr_by_category": mrr})


def report_sections(
    scores: pd.DataFrame, summary: RagSummary, cases: list[RagCase], generations: dict[str, RagGeneration]
) -> list[ReportSection]:
    k = summary.k
    metrics = summary.metrics
    sections = [ReportSection("Overall", _overall(summary)), ReportSection("By category", _by_category(summary))]
    final = scores[scores["judge"].isna()]
    sections.append(ReportSection("Per case", _per_case(final, metrics, cases)))
    sections.append(ReportSection("Retrieval misses and gaps", _gaps(final, cases, generations, k)))
    judged = (*ANSWER_METRICS, *JUDGED_GROUNDING)
    if any(m in judged for m in metrics):
        sections.append(ReportSection("Jury", jury_section(scores, summary.jury, "Answers", judged)))
    sections.append(ReportSection("How to read these numbers", _guide()))
    return sections


def _overall(summary: RagSummary) -> str:
    rows = []
    for metric in summary.metrics:
        info = summary.overall[metric]
        scale = "/5" if summary.scales.get(metric) == "1-5" else ""
        name = f"{metric} (offline figure check)" if metric == FIGURE_SUPPORT else metric
        rows.append([name, f"{fmt(info.mean)}{scale}", info.label or "", str(info.n_scored), str(info.n_unscored)])
    mrr = summary.mean("reciprocal_rank")
    head = f"MRR over {summary.n_cases} cases: **{fmt(mrr)}** ({quality_label(mrr) if mrr is not None else 'unscored'}).\n\n"
    return head + markdown_table(["metric", "mean", "reading", "scored", "unscored"], rows)


def _by_category(summary: RagSummary) -> str:
    metrics = summary.metrics
    rows = [[md_text(cat)] + [fmt(values.get(m)) for m in metrics] for cat, values in sorted(summary.by_category.items())]
    return markdown_table(["category", *metrics], rows)


def _per_case(final: pd.DataFrame, metrics: list[str], cases: list[RagCase]) -> str:
    wide = final.pivot_table(index="case_id", columns="metric", values="value", aggfunc="first")
    rows = []
    for case in cases:
        values = wide.loc[case.id] if case.id in wide.index else {}
        rows.append([md_text(case.id), md_text(case.category)] + [fmt(values.get(m)) if len(values) else "—" for m in metrics])
    return markdown_table(["case", "category", *metrics], rows)


def _gaps(final: pd.DataFrame, cases: list[RagCase], generations: dict[str, RagGeneration], k: int) -> str:
    lines = []
    rr = final[final["metric"] == "reciprocal_rank"].set_index("case_id")["value"]
    for case in cases:
        gen = generations.get(case.id)
        value = rr.get(case.id)
        if gen is None:
            lines.append(f"- **{md_text(case.id)}**: unscored (no generation)")
            continue
        if value is None or math.isnan(value):
            continue  # unscored, with its reason, below
        if value >= 1.0:
            continue
        seen = [md_text(c.source) for c in gen.retrieved[:k]]
        where = "no relevant document retrieved" if value == 0 else f"first relevant chunk at rank {round(1 / value)}"
        lines.append(
            f"- **{md_text(case.id)}** ({md_text(case.category)}) {where}; expected {', '.join(md_text(d) for d in case.source_docs)}; "
            f"top retrieved: {', '.join(seen[:3]) or 'nothing'}"
        )
    unscored = final[final["value"].isna()]
    # One line per reason: a dataset without relevance labels gives every case the same one.
    for reason, rows in unscored.groupby(unscored["unscored_reason"].fillna("no reason recorded"), sort=True):
        metrics = ", ".join(md_text(m) for m in dict.fromkeys(rows["metric"]))
        who = md_text(rows["case_id"].iloc[0]) if rows["case_id"].nunique() == 1 else f"{rows['case_id'].nunique()} cases"
        lines.append(f"- **{who}** {metrics} unscored: {md_text(reason)}")
    return "\n".join(lines) if lines else "Every case retrieved a relevant document at rank 1."


def _guide() -> str:
    return (
        "Seed 003's reading: MRR, nDCG and keyword coverage ≥ 0.9 excellent, ≥ 0.75 good, below needs work; "
        "answer accuracy, completeness and relevance (1-5) ≥ 4.5 excellent, ≥ 4.0 good. RR uses the first "
        "retrieved chunk whose source document is in `source_docs`; nDCG uses binary relevance per chunk with "
        "IDCG from the ideal reordering of the retrieved relevances; P@k divides by k; R@k counts distinct "
        "relevant documents found. Low retrieval with good answers suggests the model answered from prior "
        "knowledge; good retrieval with poor answers points at the prompt or the generator. A case without a "
        "reference answer is judged reference-free instead: faithfulness (0-1, the share of the answer's claims the "
        "retrieved contexts support), answer_relevancy (1-5) and context_relevance (0-1, the share of relevant "
        "chunks); with the offline jury only figure_support (the offline figure check) is scored for it."
    )
