"""Your criteria as metric families of any suite (``--criteria``, ``criteria:`` in ``--config``).

Every suite gets them without code of its own: a criterion reads fields of the suite's case and
generation records by name (``readable_fields``: the records' fields, and any the suite derives
in ``Suite.derived_fields``), and becomes one jury-judged metric family named
``criterion.<name>`` whose metric is the criterion's name. The run's jury judges it like any
other family (ensemble, disagreement rule, retries, caching, budget); an offline jury cannot
read a rubric, so there each case is unscored with the reason, never given a made-up score.

The suite's own ``aggregate`` never sees these rows: ``with_criteria`` adds their ensembles, the
per-judge rows, and their statistics to the suite's result, and ``criteria_section`` lists each
criterion (rubric, steps, scale, fields, prompt version) in the report beside the suite's jury.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from assay.judges.criteria import Criterion, criterion_prompt, field_text
from assay.rendering.sections import ReportSection
from assay.rendering.tables import fmt, markdown_table, md_text
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.kit.families import missing_generation, verdict_rows
from assay.suites.kit.rows import RowSpool, ScoreRows
from assay.suites.kit.suite import AggregateResult, CaseWithId, MetricContext, MetricFamily, Suite
from assay.suites.kit.summary import JurySummary, JuryTally, Summary, ensemble, jury_section, metric_stats

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

FAMILY_PREFIX = "criterion."
NEEDS_LLM = "needs an LLM judge: the offline jury cannot read a rubric"
HIDDEN = {"id", "case_id"}  # the case's id is not the judge's business
FIELD_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def family_name(criterion: Criterion) -> str:
    return FAMILY_PREFIX + criterion.name


def is_criterion_family(name: str) -> bool:
    return name.startswith(FAMILY_PREFIX)


# -- what a criterion may read ---------------------------------------------------------------
def readable_fields(suite: Suite) -> list[str]:
    """The fields a criterion of this suite may read: case fields, then generation fields, then
    the suite's derived ones (rag_qa: ``contexts``, the retrieved chunks' texts)."""
    names = [*suite.case_model.model_fields, *suite.generation_model.model_fields, *suite.derived_fields]
    # a field reaches the prompt through a {name} slot, which takes lowercase names only
    return list(dict.fromkeys(n for n in names if n not in HIDDEN and FIELD_NAME.match(n)))


def criteria_problems(suite: Suite, spec: RunSpec) -> list[str]:
    """One line per criterion of the spec that cannot run on this suite: a field it reads that
    the suite does not have (the readable ones are listed), or a name the suite already uses for
    a family or a metric its families declare (others are caught when the scores are reduced)."""
    criteria = spec.criteria
    readable = readable_fields(suite)
    families = suite.metric_families()
    taken = {family.name for family in families}
    taken |= {metric for family in families if family.metrics is not None for metric in family.metrics(spec)}
    out = []
    for criterion in criteria:
        unknown = [f for f in criterion.reads if f not in readable]
        if unknown:
            out.append(
                f"criterion {criterion.name}: reads {', '.join(repr(f) for f in unknown)}, which suite {suite.name} "
                f"does not have; its readable fields: {', '.join(readable)}"
            )
        if criterion.name in taken:
            out.append(f"criterion {criterion.name}: suite {suite.name} already has a metric or family of that name; rename it")
    return out


def field_values(suite: Suite, case: CaseWithId, generation: BaseModel, reads: Sequence[str]) -> dict[str, str]:
    """The fields a criterion reads, each as the text the judge is shown."""
    out = {}
    for name in reads:
        if name in suite.derived_fields:
            value = suite.derived_fields[name](case, generation)
        elif name in suite.case_model.model_fields:  # the suite's cases are of its case model
            value = getattr(case, name)
        else:
            value = getattr(generation, name)
        out[name] = field_text(value)
    return out


# -- the families ----------------------------------------------------------------------------
def families_of(suite: Suite, spec: RunSpec) -> list[MetricFamily]:
    """The run's metric families: the suite's own, then one per criterion in the spec."""
    families = suite.metric_families()
    if not spec.criteria:
        return families
    problems = criteria_problems(suite, spec)
    if problems:  # the CLI and the API say so before a run starts; a deployment's spec lands here
        raise ValueError(problems[0])
    offline = bool(spec.jury and spec.jury.offline)
    return families + [criterion_family(suite, criterion, offline) for criterion in spec.criteria]


def criterion_family(
    suite: Suite, criterion: Criterion, offline: bool = False
) -> MetricFamily[CaseWithId, BaseModel]:
    """One criterion over every case; ``offline``: the jury is the offline one, which is never
    asked (it cannot read a rubric), so every case is unscored with that reason."""
    name = family_name(criterion)
    metric, scale = criterion.name, criterion.scale_text

    def compute(cases: list[CaseWithId], generations: Mapping[str, BaseModel], ctx: MetricContext) -> list[ScoreRow]:
        rows: list[ScoreRow] = []
        items = []
        for case in cases:
            generation = generations.get(case.id)
            reason = NEEDS_LLM if offline else missing_generation(generation)
            if reason:
                rows.append(ScoreRow.unscored(case.id, metric, name, scale, reason))
            elif generation is not None:  # always so without a reason; the check tells the type checker
                items.append((case.id, prompt.input_model.model_validate(field_values(suite, case, generation, criterion.reads))))
        if not items:
            return rows
        run = ctx.jury_runner().run(prompt, items)
        ctx.jury_runs.append(run)
        ctx.progress(f"jury: criterion {criterion.name} done")
        field = next(iter(prompt.score_fields))
        for case_id, results in run.results.items():
            for result in results:
                rows += verdict_rows(name, case_id, result, prompt, {metric: field}, {metric: scale}, _reason)
        return rows

    prompt = criterion_prompt(criterion)
    return MetricFamily(name, compute, uses_jury=not offline, description=f"your criterion: {criterion.rubric}",
                        metrics=lambda spec: [metric])


def _reason(metric: str, verdict: Any) -> dict[str, Any]:
    """What explains a judge's score: its reason, as the explorer and lineage show it."""
    data = verdict.model_dump() if isinstance(verdict, BaseModel) else dict(verdict)
    return {"reason": data.get("reason", "")}


# -- aggregate -------------------------------------------------------------------------------
def with_criteria(
    result: AggregateResult, rows: ScoreRows, cases: Sequence[CaseWithId], spec: RunSpec
) -> AggregateResult:
    """The suite's result with the criteria added: their ensemble rows (the kit's jury rule)
    and per-judge rows after the suite's rows, and their means, scales and jury figures in the
    summary. Read part by part, like the suite's own rows."""
    names = [c.name for c in spec.criteria]
    clash = sorted(set(names) & set(result.summary.metrics))
    if clash:
        raise ValueError(f"criterion {clash[0]}: suite {spec.suite} already has a metric of that name; rename it")
    tally = JuryTally(names)
    ensembles: list[ScoreRow] = []
    judged = RowSpool()
    for part in rows.parts_with_lines():
        for row, line in part:
            if row.judge is None:  # unscored before any judge was asked (offline, no generation)
                ensembles.append(row)
            else:
                tally.add(row)
                judged.add(row, line)
        ensembles += ensemble([r for r, _ in part if r.judge is not None], spec)
    ensembles.sort(key=lambda r: (r.case_id, r.metric))
    for row in ensembles:
        tally.add(row)
    values = {(r.case_id, r.metric): r.value for r in ensembles}
    summary = result.summary
    scales = {c.name: c.scale_text for c in spec.criteria}
    overall = {m: metric_stats(values.get((c.id, m)) for c in cases) for m in names}
    summary = summary.model_copy(update={
        "metrics": [*summary.metrics, *names],
        "scales": {**summary.scales, **scales},
        "overall": {**summary.overall, **overall},
        "jury": _merged(summary.jury, tally.summary(spec)),
    })

    def final_rows() -> Iterator[ScoreRow]:
        yield from result.rows
        yield from ensembles
        yield from judged.rows()

    return AggregateResult(rows=final_rows(), summary=summary)


def _merged(suite_jury: JurySummary | None, criteria: JurySummary) -> JurySummary:
    if suite_jury is None:
        return criteria
    missing = dict(suite_jury.missing_judge_scores)
    for judge, n in criteria.missing_judge_scores.items():
        missing[judge] = missing.get(judge, 0) + n
    return suite_jury.model_copy(update={
        "agreement_alpha": {**suite_jury.agreement_alpha, **criteria.agreement_alpha},
        "disagreements": [*suite_jury.disagreements, *criteria.disagreements],
        "missing_judge_scores": dict(sorted(missing.items())),
    })


# -- the report ------------------------------------------------------------------------------
def criteria_section(scores: pd.DataFrame, summary: Summary, spec: RunSpec) -> ReportSection | None:
    """Each criterion as the jury judged it: rubric, steps, scale, the fields it reads, its
    prompt version and hash, its mean; then each judge's score beside the ensemble (``scores``:
    the report's listed cases)."""
    if not spec.criteria:
        return None
    out = ["Your criteria (`--criteria`), each a metric judged by the run's jury. "
           "The fields a criterion reads are shown to the judges as data, never as instructions.", ""]
    for criterion in spec.criteria:
        prompt = criterion_prompt(criterion)
        stats = summary.overall.get(criterion.name)
        out += [
            f"**{md_text(criterion.name)}** — scale {md_text(criterion.scale_text)}, reads "
            f"{', '.join(md_text(f) for f in criterion.reads)}; prompt `{md_text(prompt.id)}` version "
            f"`{md_text(prompt.version)}` (sha256 `{prompt.sha256[:12]}`); mean {fmt(stats.mean if stats else None)} "
            f"({stats.n_scored if stats else 0} scored, {stats.n_unscored if stats else 0} unscored)",
            "",
            f"> {md_text(criterion.rubric)}",
        ]
        out += [f"> {i}. {md_text(step)}" for i, step in enumerate(criterion.steps, 1)]
        out.append("")
    jury = summary.jury
    if jury is not None and not jury.offline:
        names = {c.name for c in spec.criteria}
        ours = jury.model_copy(update={
            "agreement_alpha": {m: a for m, a in jury.agreement_alpha.items() if m in names},
            "disagreements": [d for d in jury.disagreements if d.metric in names],
        })
        out.append(jury_section(scores, ours, "Criteria", metrics=names))
    unscored = scores[(scores["judge"].isna()) & (scores["metric"].isin({c.name for c in spec.criteria}))
                      & (scores["value"].isna())] if len(scores) else scores
    if len(unscored):
        reasons = unscored.groupby("metric")["unscored_reason"].first()
        out += ["", markdown_table(["criterion", "unscored cases", "e.g."],
                                   [[m, int((unscored["metric"] == m).sum()), md_text(reasons[m])] for m in sorted(reasons.index)])]
    return ReportSection("Jury: your criteria", "\n".join(out))
