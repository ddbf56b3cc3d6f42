"""answers aggregation and report sections: overall, per group, per case, the claims the
contexts do not support, unscored metrics with their reasons, and the jury."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING

from assay.rendering.tables import fmt, markdown_table, md_text
from assay.spec import RunSpec
from assay.suites.answers.metrics import CORRECTNESS_METRICS
from assay.suites.answers.schema import AnswerCase, AnswerGeneration
from assay.suites.kit import (
    AggregateResult,
    ReportSection,
    ScoreRows,
    Summary,
    ensemble,
    group_means,
    jury_section,
    jury_summary,
    metric_stats,
    value_index,
)
from assay.suites.kit.grounding import FIGURE_CHECK, FIGURE_SUPPORT, GROUNDING_METRICS, OFFLINE_SCALES

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

METRIC_ORDER = (*CORRECTNESS_METRICS, *GROUNDING_METRICS)
SCALES = {**dict.fromkeys(CORRECTNESS_METRICS, "1-5"), **OFFLINE_SCALES}
JUDGED = tuple(m for m in METRIC_ORDER if m != FIGURE_SUPPORT)


class AnswersSummary(Summary):
    by_group: dict[str, dict[str, float | None]]


def aggregate(rows: ScoreRows, cases: list[AnswerCase], spec: RunSpec) -> AggregateResult:
    """Ensembles and summary over every row at once: an answers table is thousands of rows at
    most (a larger one is scored in partitions; this holds ~10 rows a case)."""
    rows = list(rows)
    per_judge = [r for r in rows if r.judge is not None]
    final = [r for r in rows if r.judge is None] + ensemble(per_judge, spec)
    values = value_index(final)
    present = {m for _, m in values}
    metrics = [m for m in METRIC_ORDER if m in present]
    summary = AnswersSummary(
        n_cases=len(cases),
        metrics=metrics,
        scales={m: SCALES[m] for m in metrics},
        overall={m: metric_stats(values.get((c.id, m)) for c in cases) for m in metrics},
        by_group=group_means(values, {c.id: c.group for c in cases}, metrics),
        jury=jury_summary(final + per_judge, spec, JUDGED),
    )
    return AggregateResult(rows=final + per_judge, summary=summary)


def report_sections(
    scores: pd.DataFrame, summary: AnswersSummary, cases: list[AnswerCase], generations: dict[str, AnswerGeneration]
) -> list[ReportSection]:
    final = scores[scores["judge"].isna()]
    sections = [ReportSection("Overall", _overall(summary))]
    if len(summary.by_group) > 1:
        sections.append(ReportSection("By group", _by_group(summary)))
    sections += [
        ReportSection("Per case", _per_case(final, summary.metrics, cases)),
        ReportSection("Claims the contexts do not support", _unsupported(scores)),
        ReportSection("Unscored", _unscored(final)),
    ]
    if any(m in JUDGED for m in summary.metrics):
        sections.append(ReportSection("Jury", jury_section(scores, summary.jury, "Answers", JUDGED)))
    sections.append(ReportSection("How to read these numbers", _guide()))
    return sections


def _overall(summary: AnswersSummary) -> str:
    rows = []
    for metric in summary.metrics:
        info = summary.overall[metric]
        name = f"{metric} (offline figure check)" if metric == FIGURE_SUPPORT else metric
        rows.append([name, fmt(info.mean), summary.scales[metric], str(info.n_scored), str(info.n_unscored)])
    return f"{summary.n_cases} cases.\n\n" + markdown_table(["metric", "mean", "scale", "scored", "unscored"], rows)


def _by_group(summary: AnswersSummary) -> str:
    rows = [[md_text(group)] + [fmt(v.get(m)) for m in summary.metrics] for group, v in sorted(summary.by_group.items())]
    return markdown_table(["group", *summary.metrics], rows)


def _per_case(final: pd.DataFrame, metrics: list[str], cases: list[AnswerCase]) -> str:
    wide = final.pivot_table(index="case_id", columns="metric", values="value", aggfunc="first")
    rows = []
    for case in cases:
        values = wide.loc[case.id] if case.id in wide.index else {}
        rows.append([md_text(case.id), md_text(case.group)] + [fmt(values.get(m)) if len(values) else "—" for m in metrics])
    return markdown_table(["case", "group", *metrics], rows)


def _unsupported(scores: pd.DataFrame) -> str:
    """Each claim a judge found unsupported (LLM jury), or each sentence whose figures or names
    the contexts lack (offline figure check)."""
    lines: list[str] = []
    if "details" not in scores:
        return "None found."
    claims = scores[(scores["metric"] == "faithfulness") & scores["judge"].notna()]
    for row in claims.itertuples(index=False):
        for claim in _details(row.details).get("claims") or []:
            if not claim.get("supported"):
                lines.append(f"- **{md_text(row.case_id)}** ({md_text(row.judge)}): {md_text(claim.get('text', ''))} "
                             f"— {md_text(claim.get('reason', ''))}")
    checks = scores[(scores["metric"] == FIGURE_SUPPORT) & scores["judge"].isna()]
    for row in checks.itertuples(index=False):
        for check in _details(row.details).get("sentences") or []:
            if check.get("missing"):
                lines.append(f"- **{md_text(row.case_id)}** (offline figure check): {md_text(check['sentence'])} "
                             f"— not in the contexts: {md_text(', '.join(check['missing']))}")
    return "\n".join(lines) if lines else "None found."


def _details(value: object) -> dict:
    """A row's details: a dict in memory, JSON text in the stored score table."""
    if isinstance(value, str) and value:
        loaded = json.loads(value)
        return loaded if isinstance(loaded, dict) else {}
    return value if isinstance(value, dict) else {}


def _unscored(final: pd.DataFrame) -> str:
    unscored = final[final["value"].isna()]
    by_reason: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in unscored.itertuples(index=False):
        by_reason[str(row.unscored_reason or "no reason recorded")][str(row.metric)].add(str(row.case_id))
    lines = []
    for reason, metrics in sorted(by_reason.items()):
        for metric, ids in sorted(metrics.items()):
            who = md_text(next(iter(ids))) if len(ids) == 1 else f"{len(ids)} cases"
            lines.append(f"- {md_text(metric)}, {who}: {md_text(reason)}")
    return "\n".join(lines) if lines else "Every metric was scored for every case."


def _guide() -> str:
    return (
        "faithfulness (0-1): the share of the answer's claims that the retrieved contexts support, each claim judged "
        "on its own. answer_relevancy (1-5): does the answer address the question (5 directly and completely, "
        "4 with a minor gap, 3 partly, 2 on topic without answering, 1 not at all). context_relevance (0-1): the "
        "share of retrieved chunks relevant to the question (precision without a reference). correctness and "
        "completeness (1-5): rag_answer's accuracy and completeness against the reference, only where a case has "
        f"one. {FIGURE_SUPPORT} (0-1, offline jury only) is the {FIGURE_CHECK}."
    )
