"""rag_qa aggregation and report sections: overall, per category, per case, jury details."""

from __future__ import annotations

from typing import Any

import pandas as pd

from assay.aggregation import agreement_by_metric, ensemble_rows
from assay.metrics.retrieval import quality_label
from assay.report.tables import fmt, markdown_table
from assay.schemas import ScoreRow
from assay.suites.base import AggregateResult, ReportSection
from assay.suites.rag_qa.metrics import ANSWER_METRICS, retrieval_metric_names
from assay.suites.rag_qa.schema import RagCase, RagGeneration


def answer_label(score: float) -> str:
    """Seed 003 §6: accuracy/completeness/relevance ≥ 4.5 excellent, ≥ 4.0 good, else needs work."""
    return "excellent" if score >= 4.5 else "good" if score >= 4.0 else "needs work"


def aggregate(rows: list[ScoreRow], cases: list[RagCase], params: dict[str, Any]) -> AggregateResult:
    jury = params.get("jury") or {}
    weights = {j["name"]: float(j.get("weight", 1.0)) for j in jury.get("panel", [])}
    ensembles = ensemble_rows(rows, weights, float(params.get("disagreement_threshold", 3.0)))
    final = [row for row in rows if row.judge is None] + ensembles
    frame = scores_frame(final)
    categories = {case.id: case.category for case in cases}
    frame["category"] = frame["case_id"].map(categories)
    k = int(params.get("k", 10))
    metrics = [m for m in retrieval_metric_names(k) + list(ANSWER_METRICS) if m in set(frame["metric"])]
    overall = {}
    for metric in metrics:
        values = frame.loc[frame["metric"] == metric, "value"]
        mean = float(values.mean()) if values.notna().any() else None
        label_fn = answer_label if metric in ANSWER_METRICS else quality_label
        overall[metric] = {
            "mean": mean,
            "n_scored": int(values.notna().sum()),
            "n_unscored": int(values.isna().sum()),
            "label": label_fn(mean) if mean is not None and metric not in {f"precision@{k}", f"recall@{k}"} else None,
        }
    by_category = (
        frame[frame["metric"].isin(metrics)].pivot_table(index="category", columns="metric", values="value", aggfunc="mean")
    )
    disagreements = [
        {"case_id": row.case_id, "metric": row.metric, "judge_scores": row.details.get("judge_scores")}
        for row in ensembles
        if row.details.get("disagreement")
    ]
    summary = {
        "k": k,
        "n_cases": len(cases),
        "metrics": metrics,
        "scales": {m: ("1-5" if m in ANSWER_METRICS else "0-1") for m in metrics},
        "overall": overall,
        "by_category": {
            cat: {m: (None if pd.isna(v) else float(v)) for m, v in values.items()}
            for cat, values in by_category.to_dict(orient="index").items()
        },
        "jury": {
            "offline": bool(jury.get("offline", False)),
            "judges": jury.get("panel", []),
            "agreement_alpha": agreement_by_metric(rows),
            "disagreements": disagreements,
        },
    }
    # Per-judge rows stay in the table (judge column set) so every ensemble can be traced.
    per_judge = [row for row in rows if row.judge is not None]
    return AggregateResult(rows=final + per_judge, summary=summary)


def scores_frame(rows: list[ScoreRow]) -> pd.DataFrame:
    columns = ["case_id", "metric", "family", "judge", "value", "scale", "unscored_reason"]
    return pd.DataFrame([row.model_dump(include=set(columns)) for row in rows], columns=columns)


def report_sections(
    scores: pd.DataFrame, summary: dict[str, Any], cases: list[RagCase], generations: dict[str, RagGeneration]
) -> list[ReportSection]:
    k = summary["k"]
    metrics = summary["metrics"]
    sections = [ReportSection("Overall", _overall(summary)), ReportSection("By category", _by_category(summary))]
    final = scores[scores["judge"].isna()]
    sections.append(ReportSection("Per case", _per_case(final, metrics, cases)))
    sections.append(ReportSection("Retrieval misses and gaps", _gaps(final, cases, generations, k)))
    if any(m in ANSWER_METRICS for m in metrics):
        sections.append(ReportSection("Jury", _jury(scores, summary)))
    sections.append(ReportSection("How to read these numbers", _guide()))
    return sections


def _overall(summary: dict[str, Any]) -> str:
    rows = []
    for metric in summary["metrics"]:
        info = summary["overall"][metric]
        mean = info["mean"]
        scale = "/5" if metric in ANSWER_METRICS else ""
        label = info["label"] or ""
        rows.append([metric, f"{fmt(mean)}{scale}", label, str(info["n_scored"]), str(info["n_unscored"])])
    mrr = summary["overall"].get("reciprocal_rank", {}).get("mean")
    head = f"MRR over {summary['n_cases']} cases: **{fmt(mrr)}** ({quality_label(mrr) if mrr is not None else 'unscored'}).\n\n"
    return head + markdown_table(["metric", "mean", "reading", "scored", "unscored"], rows)


def _by_category(summary: dict[str, Any]) -> str:
    metrics = summary["metrics"]
    rows = [[cat] + [fmt(values.get(m)) for m in metrics] for cat, values in sorted(summary["by_category"].items())]
    return markdown_table(["category", *metrics], rows)


def _per_case(final: pd.DataFrame, metrics: list[str], cases: list[RagCase]) -> str:
    wide = final.pivot_table(index="case_id", columns="metric", values="value", aggfunc="first")
    rows = []
    for case in cases:
        values = wide.loc[case.id] if case.id in wide.index else {}
        rows.append([case.id, case.category] + [fmt(values.get(m)) if len(values) else "—" for m in metrics])
    return markdown_table(["case", "category", *metrics], rows)


def _gaps(final: pd.DataFrame, cases: list[RagCase], generations: dict[str, RagGeneration], k: int) -> str:
    lines = []
    rr = final[final["metric"] == "reciprocal_rank"].set_index("case_id")["value"]
    for case in cases:
        gen = generations.get(case.id)
        value = rr.get(case.id)
        if gen is None or value is None or pd.isna(value):
            lines.append(f"- **{case.id}**: unscored (no generation)")
            continue
        if value >= 1.0:
            continue
        seen = [c.source for c in gen.retrieved[:k]]
        where = "no relevant document retrieved" if value == 0 else f"first relevant chunk at rank {round(1 / value)}"
        lines.append(
            f"- **{case.id}** ({case.category}) {where}; expected {', '.join(case.source_docs)}; "
            f"top retrieved: {', '.join(seen[:3]) or 'nothing'}"
        )
    unscored = final[final["value"].isna()]
    for _, row in unscored.iterrows():
        lines.append(f"- **{row.case_id}** `{row.metric}` unscored: {row.unscored_reason}")
    return "\n".join(lines) if lines else "Every case retrieved a relevant document at rank 1."


def _jury(scores: pd.DataFrame, summary: dict[str, Any]) -> str:
    jury = summary["jury"]
    kind = "**offline jury** (deterministic judges, no LLM calls)" if jury["offline"] else "LLM jury"
    names = ", ".join(f"{j['name']} (weight {j.get('weight', 1.0):g})" for j in jury["judges"])
    out = [f"Answers were judged by the {kind}: {names}.", ""]
    alphas = jury["agreement_alpha"]
    out.append(
        markdown_table(
            ["metric", "Krippendorff's alpha (interval)"], [[m, fmt(a)] for m, a in sorted(alphas.items())]
        )
    )
    per_judge = scores[scores["judge"].notna()]
    if len(per_judge):
        wide = per_judge.pivot_table(index=["case_id", "metric"], columns="judge", values="value", aggfunc="first")
        ens = scores[scores["judge"].isna() & scores["metric"].isin(ANSWER_METRICS)].set_index(["case_id", "metric"])
        flagged = {(d["case_id"], d["metric"]) for d in jury["disagreements"]}
        rows = []
        for (case_id, metric), values in wide.iterrows():
            ensemble = ens["value"].get((case_id, metric)) if len(ens) else None
            flag = "⚠ median" if (case_id, metric) in flagged else ""
            rows.append([case_id, metric, *[fmt(v) for v in values.tolist()], fmt(ensemble), flag])
        out += ["", "Each judge's score, the ensemble, and disagreement flags (max − min ≥ threshold → median):", ""]
        out.append(markdown_table(["case", "metric", *wide.columns.tolist(), "ensemble", "disagreement"], rows))
    dropped = per_judge[per_judge["value"].isna()]
    if len(dropped):
        out += ["", f"{len(dropped)} judge scores are missing (judge failed after retries; weights renormalised):"]
        for judge, count in dropped.groupby("judge").size().items():
            out.append(f"- {judge}: {count} scores missing")
    return "\n".join(out)


def _guide() -> str:
    return (
        "Seed 003's reading: MRR, nDCG and keyword coverage ≥ 0.9 excellent, ≥ 0.75 good, below needs work; "
        "answer accuracy, completeness and relevance (1-5) ≥ 4.5 excellent, ≥ 4.0 good. RR uses the first "
        "retrieved chunk whose source document is in `source_docs`; nDCG uses binary relevance per chunk with "
        "IDCG from the ideal reordering of the retrieved relevances; P@k divides by k; R@k counts distinct "
        "relevant documents found. Low retrieval with good answers suggests the model answered from prior "
        "knowledge; good retrieval with poor answers points at the prompt or the generator."
    )
