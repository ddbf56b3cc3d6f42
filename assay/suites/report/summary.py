"""report aggregation (seed 000 §3.3, §3.5, §4.2): judge ensembles, output quality,
hallucination, overall score and grade, strengths/weaknesses/recommendations, summaries.

Ensemble rules, per case:
- factual accuracy, coherence, relevance (0-10): weighted mean of the judges that answered
  (weights renormalised); when max − min ≥ 3.0 the median, flagged ``disagreement``.
- output quality = 0.4 · factual + 0.3 · coherence + 0.3 · relevance (ensembles).
- hallucination: count = median over judges, citation accuracy = min over judges, then
  combined with the automatic tag check: citation accuracy is capped by the share of
  ``[SOURCE:N]`` tags that point at an existing source, and the count is at least the number
  of such invalid tags (each is a §1.5 "인용 부정확성" case; a judge that missed it cannot
  hide it). Score = citation accuracy · 10. Cases of all judges merged, de-duplicated, ≤ 10.
- overall = Σ weight · metric (§3.5) and grade (§1.8). An unscored component (every judge
  failed, no generation) makes overall unscored with the component named, never 0.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from assay.judges.ensemble import aggregate_hallucination, merge_hallucination_cases
from assay.rendering.tables import counted, fmt, markdown_table, md_markup, md_text
from assay.schemas import JsonObject, ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    JurySummary,
    ReportSection,
    Summary,
    ensemble,
    group_means,
    jury_section,
    jury_summary,
    metric_stats,
    value_index,
)
from assay.suites.report import formulas as rp
from assay.suites.report.metrics import AUTOMATIC_METRICS, HALLUCINATION_METRICS, JURY, SCORE_PROMPTS
from assay.suites.report.schema import TEAM_TYPES, ReportCase, ReportGeneration

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    from collections.abc import Iterable

    import pandas as pd

SIX = tuple(rp.WEIGHTS)  # task_success, output_quality, completeness, hallucination, efficiency, source_quality
DETAIL_METRICS = ("factual_accuracy", "coherence", "relevance", "hallucination_count", "citation_accuracy", "invalid_citations")
METRICS = (*SIX, "overall", *DETAIL_METRICS)
SCALES = {**{m: "0-10" for m in (*SIX, "overall", *SCORE_PROMPTS)}, **HALLUCINATION_METRICS, **AUTOMATIC_METRICS}
LOWER_IS_BETTER = ["hallucination_count", "invalid_citations"]
GRADE_ORDER = [letter for _, letter in rp.GRADES] + ["F"]
MAX_CASES = 10  # §3.3.3: merged hallucination cases kept per report


class CaseSummary(BaseModel):
    """One query's scores, grade and the evidence the report shows for it."""

    case_id: str
    query: str
    team_type: str
    scores: dict[str, float | None]
    overall: float | None = None
    grade: str | None = None
    success_level: str | None = None
    completion_percentage: float | None = None
    missing_requirements: list[str] = Field(default_factory=list)
    missing_sections: list[str] = Field(default_factory=list)
    missing_fields: list[str] = Field(default_factory=list)
    field_headers: list[JsonObject] = Field(default_factory=list)
    section_rate: float | None = None
    schema_rate: float | None = None
    hallucination_cases: list[JsonObject] = Field(default_factory=list)
    invalid_tags: list[int] = Field(default_factory=list)
    output_quality_disagreement: list[str] = Field(default_factory=list)
    efficiency: JsonObject = Field(default_factory=dict)
    sources: JsonObject = Field(default_factory=dict)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    unscored: dict[str, str] = Field(default_factory=dict, description="metric -> why it has no score")


class TeamSummary(BaseModel):
    name: str
    n_cases: int
    means: dict[str, float | None]
    grades: dict[str, int]


class ReportSummary(Summary):
    six_metrics: list[str]
    weights: dict[str, float]
    by_team_type: dict[str, TeamSummary]
    grade_distribution: dict[str, int]
    cases: list[CaseSummary]


def aggregate_rows(rows: list[ScoreRow], cases: list[ReportCase], spec: RunSpec) -> tuple[list[ScoreRow], list[CaseSummary]]:
    """Final rows (automatic, ensembles, derived, per-judge) and one summary per case."""
    order = [judge.name for judge in spec.jury.panel] if spec.jury else []
    case_rank = {c.id: n for n, c in enumerate(cases)}
    per_judge = sorted(
        (r for r in rows if r.judge is not None),
        key=lambda r: (case_rank.get(r.case_id, len(case_rank)), r.case_id, _metric_rank(r.metric), _judge_rank(r.judge, order)),
    )
    final: dict[tuple[str, str], ScoreRow] = {(r.case_id, r.metric): r for r in rows if r.judge is None}
    for row in ensemble([r for r in per_judge if r.metric in SCORE_PROMPTS], spec):
        final[(row.case_id, row.metric)] = row
    judged: dict[str, list[ScoreRow]] = defaultdict(list)
    for row in per_judge:
        judged[row.case_id].append(row)

    summaries = []
    for case in cases:
        get = lambda m, c=case.id: final.get((c, m))  # noqa: E731
        for row in (_output_quality(case.id, get), *_hallucination(case.id, judged[case.id], get)):
            final[(case.id, row.metric)] = row
        overall, info = _overall(case, get, judged[case.id])
        final[(case.id, "overall")] = overall
        summaries.append(info)

    ordered = [final[k] for k in sorted(final, key=lambda k: (case_rank.get(k[0], len(case_rank)), k[0], _metric_rank(k[1])))]
    return ordered + per_judge, summaries


def _judge_rank(name: str | None, order: list[str]) -> tuple[int, str]:
    return (order.index(name) if name in order else len(order), name or "")


def _metric_rank(metric: str) -> int:
    return METRICS.index(metric) if metric in METRICS else len(METRICS)


def _jury_rules(jury: JurySummary | None) -> str:
    """How the report's jury combines its judges (nothing when the run had no jury)."""
    if jury is None:
        return ""
    return ("Factual accuracy, coherence and relevance: weighted mean, or the median when max − min ≥ "
            f"{jury.disagreement_threshold:g} (flagged). Hallucination count: median; "
            "citation accuracy: minimum. A judge that failed is dropped and the weights renormalised.")


def _reason(row: ScoreRow | None, metric: str) -> str:
    if row is None:
        return f"no {metric} score"
    return row.unscored_reason or "unscored"


def _output_quality(case_id: str, get: Any) -> ScoreRow:
    parts = {m: get(m) for m in SCORE_PROMPTS}
    missing = {m: _reason(r, m) for m, r in parts.items() if r is None or r.value is None}
    if missing:
        why = "; ".join(f"{m}: {r}" for m, r in missing.items())
        return ScoreRow.unscored(case_id, "output_quality", JURY, "0-10", f"unscored components: {why}",
                                 details={"unscored_components": sorted(missing)})
    values = {m: float(r.value) for m, r in parts.items()}  # type: ignore[arg-type,union-attr]
    return ScoreRow(
        case_id=case_id, metric="output_quality", family=JURY, scale="0-10",
        value=rp.output_quality_score(values["factual_accuracy"], values["coherence"], values["relevance"]),
        details={
            "components": values,
            "weights": {"factual_accuracy": 0.4, "coherence": 0.3, "relevance": 0.3},
            "disagreement": {m: bool(r.details.get("disagreement")) for m, r in parts.items()},  # type: ignore[union-attr]
        },
    )


def _hallucination(case_id: str, judged: list[ScoreRow], get: Any) -> list[ScoreRow]:
    counts = {r.judge: r for r in judged if r.metric == "hallucination_count"}
    accs = {r.judge: r for r in judged if r.metric == "citation_accuracy"}
    answered = [j for j in counts if counts[j].value is not None and j in accs and accs[j].value is not None]
    dropped = {j: r.unscored_reason for j, r in counts.items() if j not in answered}
    if not answered:
        if counts:
            why = "every judge failed (" + "; ".join(f"{j}: {r}" for j, r in dropped.items()) + ")"
        else:
            why = _reason(get("hallucination_count"), "hallucination_count")
        return [
            ScoreRow.unscored(case_id, m, JURY, SCALES[m], why, details={"dropped_judges": dropped})
            for m in ("hallucination_count", "citation_accuracy", "hallucination")
        ]
    count, accuracy = aggregate_hallucination(
        [counts[j].value for j in answered], [accs[j].value for j in answered]
    )
    judge_cases = _same_spot_once([counts[j].details.get("hallucinations") or [] for j in answered])
    auto = get("invalid_citations")
    invalid = list(auto.details.get("invalid_tags", [])) if auto is not None and auto.value is not None else []
    tag_accuracy = auto.details.get("tag_accuracy") if auto is not None else None
    mentioned = " ".join(f"{c.get('location', '')} {c.get('description', '')}" for cs in judge_cases for c in cs)
    auto_cases = [
        {"type": "citation_inaccuracy", "location": f"SOURCE {n}", "severity": 2, "source": "automatic",
         "description": f"SOURCE {n}번 인용: 출처 목록({auto.details.get('n_sources')}개)에 없는 번호"}  # type: ignore[union-attr]
        for n in dict.fromkeys(invalid)
        if not re.search(rf"SOURCE\s*:\s*{n}\b", mentioned, re.IGNORECASE)
    ]
    final_accuracy = min(accuracy, tag_accuracy) if tag_accuracy is not None else accuracy
    final_count = max(count, float(len(invalid)))
    merged = merge_hallucination_cases([auto_cases, *judge_cases], limit=MAX_CASES)
    common = {
        "judge_counts": {j: counts[j].value for j in answered},
        "judge_citation_accuracies": {j: accs[j].value for j in answered},
        "dropped_judges": dropped,
        "automatic": {"invalid_tags": invalid, "tag_accuracy": tag_accuracy},
    }
    score = rp.hallucination_score(final_accuracy)
    return [
        ScoreRow(case_id=case_id, metric="hallucination_count", family=JURY, value=final_count, scale="count",
                 details={**common, "method": "median", "judge_median": count}),
        ScoreRow(case_id=case_id, metric="citation_accuracy", family=JURY, value=final_accuracy, scale="0-1",
                 details={**common, "method": "min", "judge_min": accuracy}),
        ScoreRow(case_id=case_id, metric="hallucination", family=JURY, value=score, scale="0-10",
                 details={**common, "hallucination_rate": 1 - final_accuracy, "hallucination_count": final_count,
                          "citation_accuracy": final_accuracy, "cases": merged,
                          "capped_by_automatic": tag_accuracy is not None and tag_accuracy < accuracy}),
    ]


def _same_spot_once(case_lists: list[list[JsonObject]]) -> list[list[JsonObject]]:
    """Drop a judge's case when an earlier judge already reported the same type at the same
    location ("문장 12"): judges word the same finding differently, so merging on the claim
    text alone would list one hallucination once per judge."""
    seen: set[tuple[str, str]] = set()
    out = []
    for cases in case_lists:
        kept = []
        for case in cases:
            where = re.sub(r"\s+", "", str(case.get("location") or "")).casefold()
            key = (str(case.get("type")), where)
            if where and key in seen:
                continue
            seen.add(key)
            kept.append(case)
        out.append(kept)
    return out


def _judge_items(judged: list[ScoreRow], metric: str, key: str) -> list[str]:
    """A verdict list (e.g. coherence strengths) of every judge that answered, in panel order."""
    items: list[str] = []
    for row in judged:
        if row.metric == metric and row.value is not None:
            items += [str(x) for x in row.details.get(key) or []]
    return list(dict.fromkeys(items))


def _overall(case: ReportCase, get: Any, judged: list[ScoreRow]) -> tuple[ScoreRow, CaseSummary]:
    rows = {m: get(m) for m in (*SIX, *DETAIL_METRICS)}
    scores = {m: (r.value if r is not None else None) for m, r in rows.items()}
    d = {m: (r.details if r is not None else {}) for m, r in rows.items()}
    halluc_cases = d["hallucination"].get("cases", [])
    swr_details: JsonObject = {
        "task_success_percentage": d["task_success"].get("completion_percentage"),
        "hallucination_count": scores["hallucination_count"],
        "source_diversity": d["source_quality"].get("source_diversity"),
        "avg_source_reliability": d["source_quality"].get("avg_reliability"),
        "source_count": d["source_quality"].get("source_count"),
        "redundant_steps": d["efficiency"].get("redundant_steps"),
        "citation_count": d["invalid_citations"].get("total_tags"),
    }
    if "missing_sections" in d["task_success"]:
        swr_details["missing_sections"] = d["task_success"]["missing_sections"]
    if scores["hallucination"] is not None:
        swr_details["unverified_claims"] = sum(1 for c in halluc_cases if c.get("type") == "unfounded_claims")
    strengths, weaknesses, recommendations = rp.strengths_weaknesses_recommendations(
        {m: scores[m] for m in SIX},
        {k: v for k, v in swr_details.items() if v is not None},
        judge_strengths=_judge_items(judged, "coherence", "strengths"),
        judge_weaknesses=_judge_items(judged, "coherence", "weaknesses") + _judge_items(judged, "factual_accuracy", "issues"),
        judge_recommendations=[f"요청의 빠진 요구사항을 보고서에 반영하세요: {x}"
                               for x in _judge_items(judged, "relevance", "missing_requirements")],
    )
    unscored = {m: _reason(rows[m], m) for m in SIX if scores[m] is None}
    info = CaseSummary.model_validate({
        "case_id": case.id,
        "query": case.query,
        "team_type": case.team_type,
        "scores": {m: scores[m] for m in (*SIX, *DETAIL_METRICS)},
        "success_level": d["task_success"].get("level"),
        "completion_percentage": d["task_success"].get("completion_percentage"),
        "missing_requirements": d["task_success"].get("missing_requirements", []),
        "missing_sections": d["task_success"].get("missing_sections", []),
        "missing_fields": d["completeness"].get("missing_fields", []),
        "field_headers": d["completeness"].get("field_headers", []),
        "section_rate": d["completeness"].get("section_rate"),
        "schema_rate": d["completeness"].get("schema_rate"),
        "hallucination_cases": halluc_cases,
        "invalid_tags": d["invalid_citations"].get("invalid_tags", []),
        "output_quality_disagreement": [m for m, f in d["output_quality"].get("disagreement", {}).items() if f],
        "efficiency": {k: d["efficiency"].get(k) for k in (
            "execution_time_s", "total_tokens", "api_calls", "cost_usd", "redundant_steps", "penalties", "model")},
        "sources": {k: d["source_quality"].get(k) for k in ("source_count", "avg_reliability", "source_diversity", "source_types")},
        "strengths": strengths,
        "weaknesses": weaknesses,
        "recommendations": recommendations,
        "unscored": unscored,
    })
    if unscored:
        why = "; ".join(f"{m}: {r}" for m, r in unscored.items())
        row = ScoreRow.unscored(case.id, "overall", "overall", "0-10", f"unscored components: {why}",
                                details={"unscored_components": sorted(unscored), "strengths": strengths,
                                         "weaknesses": weaknesses, "recommendations": recommendations})
        return row, info
    value = rp.overall_score({m: float(v) for m, v in scores.items() if m in SIX})  # type: ignore[arg-type]
    letter = rp.grade(value)
    info.overall, info.grade = value, letter
    row = ScoreRow(
        case_id=case.id, metric="overall", family="overall", value=value, scale="0-10",
        details={"grade": letter, "components": {m: scores[m] for m in SIX}, "weights": dict(rp.WEIGHTS),
                 "strengths": strengths, "weaknesses": weaknesses, "recommendations": recommendations},
    )
    return row, info


def summarise(final: list[ScoreRow], infos: list[CaseSummary], cases: list[ReportCase], spec: RunSpec) -> ReportSummary:
    from assay.suites.report.schema_match import load_team_types

    values = value_index(final)
    names = {k: t.name for k, t in load_team_types().items()}
    teams = group_means(values, {c.id: c.team_type for c in cases}, METRICS)
    by_team: dict[str, TeamSummary] = {}
    for team in dict.fromkeys(c.team_type for c in cases):
        grades = [i.grade for i in infos if i.team_type == team]
        by_team[team] = TeamSummary(
            name=names.get(team, team),
            n_cases=sum(1 for c in cases if c.team_type == team),
            means=teams[team],
            grades={g: grades.count(g) for g in GRADE_ORDER if grades.count(g)},
        )
    grades = [i.grade for i in infos]
    distribution = {g: grades.count(g) for g in GRADE_ORDER}
    distribution["unscored"] = grades.count(None)
    return ReportSummary(
        n_cases=len(cases),
        metrics=list(METRICS),
        six_metrics=list(SIX),
        weights=dict(rp.WEIGHTS),
        scales={m: SCALES[m] for m in METRICS},
        lower_is_better=LOWER_IS_BETTER,
        overall={m: metric_stats(values.get((c.id, m)) for c in cases) for m in METRICS},
        by_team_type=by_team,
        grade_distribution=distribution,
        cases=infos,
        jury=jury_summary(final, spec, SCORE_PROMPTS),
    )


# --------------------------------------------------------------------------- entry point and report


def aggregate(rows: Iterable[ScoreRow], cases: list[ReportCase], spec: RunSpec) -> AggregateResult:
    rows = list(rows)  # thousands of cases: every row at once
    final, infos = aggregate_rows(rows, cases, spec)
    return AggregateResult(rows=final, summary=summarise(final, infos, cases, spec))


SHORT = {"task_success": "task", "output_quality": "quality", "completeness": "complete",
         "hallucination": "halluc.", "efficiency": "effic.", "source_quality": "sources"}


def report_sections(
    scores: pd.DataFrame, summary: ReportSummary, cases: list[ReportCase], generations: dict[str, ReportGeneration]
) -> list[ReportSection]:
    rank = {info.case_id: n for n, info in enumerate(summary.cases)}
    sections = [
        ReportSection("Overall", _overall_md(summary)),
        ReportSection("By team type", _by_team_md(summary)),
        ReportSection("Per query", _per_query_table(summary)),
        ReportSection("Per query details", "\n\n".join(_case_md(info) for info in summary.cases)),
        ReportSection("Jury", jury_section(
            scores, summary.jury, "Reports",
            order=lambda case, metric: (rank.get(case, len(rank)), case, _metric_rank(metric)), digits=2,
            rules=_jury_rules(summary.jury),
        )),
    ]
    unscored = [f"- **{md_text(i.case_id)}** {m}: {md_text(why)}" for i in summary.cases for m, why in i.unscored.items()]
    if unscored:
        sections.append(ReportSection("Unscored", "\n".join(unscored)))
    sections.append(ReportSection("How to read these numbers", GUIDE))
    return sections


def _grade_of(mean: float | None) -> str:
    return rp.grade(mean) if mean is not None else "unscored"


def _overall_md(summary: ReportSummary) -> str:
    ov = summary.overall
    mean = summary.mean("overall")
    # The summary is stored with sorted keys, so order comes from GRADE_ORDER, not the dict.
    dist = ", ".join(f"{g} {n}" for g in [*GRADE_ORDER, "unscored"] if (n := summary.grade_distribution.get(g)))
    head = (f"Mean overall score over {summary.n_cases} queries: **{fmt(mean, 2)}** / 10 "
            f"(grade of the mean: {_grade_of(mean)}). Grades: {dist}.\n\n")
    rows = [[m, f"{summary.weights[m]:.0%}", fmt(ov[m].mean, 2), ov[m].n_scored, ov[m].n_unscored] for m in SIX]
    rows.append([md_markup("**overall**"), "100%", fmt(mean, 2), ov["overall"].n_scored, ov["overall"].n_unscored])
    rows += [[m, "—", fmt(ov[m].mean, 2) + ("" if SCALES[m] == "0-10" else f" ({SCALES[m]})"),
              ov[m].n_scored, ov[m].n_unscored] for m in DETAIL_METRICS]
    tail = f"\n\nLower is better: {', '.join(summary.lower_is_better)}; every other metric: higher is better."
    return head + markdown_table(["metric", "weight", "mean (0-10)", "scored", "unscored"], rows) + tail


def _by_team_md(summary: ReportSummary) -> str:
    rows = []
    teams = summary.by_team_type
    for team in sorted(teams, key=lambda t: (TEAM_TYPES.index(t) if t in TEAM_TYPES else len(TEAM_TYPES), t)):
        info = teams[team]
        grades = ", ".join(f"{g}×{info.grades[g]}" for g in GRADE_ORDER if g in info.grades) or "—"
        rows.append([md_markup(f"{md_text(info.name)} ({md_text(team)})"), info.n_cases, *[fmt(info.means[m], 2) for m in SIX],
                     fmt(info.means["overall"], 2), grades])
    return markdown_table(["team type", "n", *[SHORT[m] for m in SIX], "overall", "grades"], rows)


def _per_query_table(summary: ReportSummary) -> str:
    rows = [[md_text(i.case_id), md_text(i.team_type), *[fmt(i.scores[m], 2) for m in SIX], fmt(i.overall, 2),
             i.grade or "unscored", i.success_level or "—"] for i in summary.cases]
    return markdown_table(["query", "team", *[SHORT[m] for m in SIX], "overall", "grade", "success level"], rows)


def _items(values: list[Any]) -> str:
    return "; ".join(md_text(v) for v in values) if values else "none"


def _case_md(i: CaseSummary) -> str:
    s = i.scores
    grade = f"**overall {fmt(i.overall, 2)} ({i.grade})**" if i.grade else "**overall unscored**"
    scores = ", ".join(f"{m} {fmt(s[m], 2)}" for m in SIX)
    eff, src = i.efficiency, i.sources
    pen = ", ".join(f"{k} −{v:g}" for k, v in (eff.get("penalties") or {}).items() if v) or "none"
    disagreed = ", ".join(i.output_quality_disagreement)
    lines = [
        f"### {md_text(i.case_id)}: {md_text(i.query)}", "",
        f"- {grade}: {scores}",
        f"- Task success: {i.success_level or '—'} ({fmt(i.completion_percentage, 0)} %); "
        f"missing requirements: {_items(i.missing_requirements)}; missing required sections: {_items(i.missing_sections)}",
        f"- Completeness: section rate {fmt(i.section_rate, 2)}, schema rate {fmt(i.schema_rate, 2)}; "
        f"schema fields without a header: {_items(i.missing_fields)}",
        f"- Output quality: factual {fmt(s['factual_accuracy'], 2)}, coherence {fmt(s['coherence'], 2)}, "
        f"relevance {fmt(s['relevance'], 2)}" + (f" (judges disagreed on {disagreed}: median used)" if disagreed else ""),
        f"- Hallucination: {counted(s['hallucination_count'], 'case')} (median over judges), citation accuracy "
        f"{fmt(s['citation_accuracy'], 2)} (min over judges); invalid tags: "
        + (", ".join(f"[SOURCE:{int(n)}]" for n in i.invalid_tags) or "none"),
    ]
    for case in i.hallucination_cases:
        lines.append(f"    - {md_text(case.get('type'))} (severity {md_text(case.get('severity'))}): "
                     f"{md_text(str(case.get('description', ''))[:200])}")
    if eff.get("execution_time_s") is not None:
        lines.append(
            f"- Efficiency: {eff['execution_time_s']:g} s, {eff['total_tokens']:,} tokens, {counted(eff['api_calls'], 'API call')}, "
            f"${eff['cost_usd']:.3f} ({md_text(eff['model'])}), {counted(eff['redundant_steps'], 'redundant step')}; penalties: {pen}"
        )
    if src.get("source_count") is not None:
        lines.append(
            f"- Sources: {src['source_count']}, mean reliability {fmt(src['avg_reliability'], 2)}, "
            f"{counted(src['source_diversity'], 'type')} ({', '.join(md_text(t) for t in src['source_types'])})"
        )
    lines += [
        f"- **Strengths**: {_items(i.strengths)}",
        f"- **Weaknesses**: {_items(i.weaknesses)}",
        f"- **Recommendations**: {_items(i.recommendations)}",
    ]
    lines += [f"- Unscored {m}: {md_text(why)}" for m, why in i.unscored.items()]
    return "\n".join(lines)


GUIDE = """**Overall** = 0.25 task success + 0.25 output quality + 0.20 completeness + 0.15 hallucination
+ 0.10 efficiency + 0.05 source quality, each 0-10. Grades: A+ ≥ 9.5, A ≥ 9.0, B+ ≥ 8.5, B ≥ 8.0,
C+ ≥ 7.5, C ≥ 7.0, D ≥ 6.0, F below (seed 000 §1.8).

Reading the overall score (seed 000 §4.3.1):

- **9.0 and above (A, A+)**: a very good report; meets nearly every requirement with strong factual
  accuracy and logic, almost no hallucination. Keep the current level and fine-tune.
- **8.0-8.9 (B, B+)**: a good report that meets the basic requirements with room to improve; work on
  output quality, fewer hallucinations, efficiency.
- **7.0-7.9 (C, C+)**: acceptable but needs work; strengthen completeness, recheck the requirements,
  add sources.
- **6.9 and below (D, F)**: low quality or unusable; needs a full review: recheck the requirements,
  write the basic structure, verify the facts.

What a low metric usually means (§4.3.2):

- **Task success** low: the query's intent was missed, required items or sections are missing, or the
  requested format was not followed (see "missing requirements" and "missing required sections").
- **Output quality** low: facts that disagree with the sources (factual accuracy), logical jumps or
  contradictions (coherence), content unrelated to the query (relevance).
- **Completeness** low: missing sections (introduction, conclusion...), unfinished structure, or headers
  that do not fit the team type's schema (see "schema fields without a header").
- **Hallucination** low: figures without a source, citations that do not match the cited source or point
  at no source at all, speculation stated as fact.
- **Efficiency** low: long runs (> 2 minutes), repeated searches or log lines, too many tokens or cost.
- **Source quality** low: sources with low retriever relevance, few source types, a single database.

Hallucination count and invalid citations are lower-is-better; everything else is higher-is-better.
An unscored metric (every judge failed, no generation) is shown as "—" and makes the overall score
unscored with the component named; it is never counted as 0. Formulas and the choices made where the
seed is ambiguous: `docs/suites/report.md`."""
