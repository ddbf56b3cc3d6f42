"""The summary kit: typed summaries and the parts every suite's summary and report share.

A suite's ``aggregate`` returns a ``Summary`` subclass (stored as ``summary.json``); other
modules (compare, the report, the audit) read it through the model, never by guessing keys.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from assay.rendering.tables import fmt, markdown_table, md_text
from assay.schemas import ScoreRow
from assay.spec import PanelJudge, RunSpec

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd
    from _typeshed import SupportsRichComparison


class MetricStats(BaseModel):
    mean: float | None
    n_scored: int
    n_unscored: int
    label: str | None = Field(default=None, description="the seed's reading of the mean, e.g. 'good'")


class Disagreement(BaseModel):
    case_id: str
    metric: str
    judge_scores: dict[str, float] | None = None


class JurySummary(BaseModel):
    offline: bool = False
    judges: list[PanelJudge] = Field(default_factory=list, description="the panel: name, model, weight")
    disagreement_threshold: float = 3.0
    agreement_alpha: dict[str, float | None] = Field(default_factory=dict, description="Krippendorff's alpha per metric")
    disagreements: list[Disagreement] = Field(default_factory=list)
    missing_judge_scores: dict[str, int] = Field(default_factory=dict, description="judge -> scores it failed to give")
    dropped: dict[str, str] = Field(
        default_factory=dict, description="judge -> why it was dropped (it gave no score at all; its weight counts as 0)"
    )


class Summary(BaseModel):
    """What every suite's summary holds; suites add their groupings and totals."""

    model_config = ConfigDict(extra="forbid")

    n_cases: int
    metrics: list[str]
    scales: dict[str, str]
    lower_is_better: list[str] = Field(default_factory=list)
    overall: dict[str, MetricStats]
    jury: JurySummary | None = None

    def mean(self, metric: str) -> float | None:
        stats = self.overall.get(metric)
        return stats.mean if stats is not None else None


def metric_stats(values: Iterable[float | None], label: Callable[[float], str] | None = None) -> MetricStats:
    values = list(values)
    scored = [float(v) for v in values if v is not None and not math.isnan(v)]
    mean = statistics.fmean(scored) if scored else None
    return MetricStats(
        mean=mean,
        n_scored=len(scored),
        n_unscored=len(values) - len(scored),
        label=label(mean) if label is not None and mean is not None else None,
    )


def value_index(rows: Iterable[ScoreRow]) -> dict[tuple[str, str], float | None]:
    """(case, metric) -> value of the final rows (automatic and ensemble, not per judge)."""
    return {(r.case_id, r.metric): r.value for r in rows if r.judge is None}


def group_means(
    values: Mapping[tuple[str, str], float | None],
    groups: Mapping[str, str],
    metrics: Sequence[str],
) -> dict[str, dict[str, float | None]]:
    """Mean of each metric per group of cases (``groups``: case id -> group)."""
    members: dict[str, list[str]] = defaultdict(list)
    for case_id, group in groups.items():
        members[group].append(case_id)
    return {
        group: {m: metric_stats(values.get((c, m)) for c in ids).mean for m in metrics}
        for group, ids in members.items()
    }


def jury_summary(rows: Iterable[ScoreRow], spec: RunSpec, metrics: Iterable[str] | None = None) -> JurySummary:
    """Panel, agreement, disagreements and missing judge scores of a run's final rows."""
    tally = JuryTally(metrics)
    for row in rows:
        tally.add(row)
    return tally.summary(spec)


class JuryTally:
    """What ``jury_summary`` reports, gathered one row at a time, so a suite that streams its
    rows (rag_qa, partition by partition) keeps only these figures, not the rows.

    Order matters as in a list: disagreements are listed in the order their rows are added, and
    per-judge rows in the order the agreement table and the dropped judges' reasons see them.
    """

    def __init__(self, metrics: Iterable[str] | None = None) -> None:
        self.judged = set(metrics) if metrics is not None else None
        self.disagreements: list[Disagreement] = []
        self.missing: dict[str, int] = defaultdict(int)
        self.reasons: dict[str, list[str]] = defaultdict(list)
        self.given: set[str] = set()
        self.table: dict[str, dict[str, dict[str, float | None]]] = defaultdict(lambda: defaultdict(dict))

    def add(self, r: ScoreRow) -> None:
        if r.judge is None:
            if r.details.get("disagreement") is True and (self.judged is None or r.metric in self.judged):
                self.disagreements.append(
                    Disagreement(case_id=r.case_id, metric=r.metric, judge_scores=r.details.get("judge_scores"))
                )
            return
        # case ids interned: the table holds one per metric and judge, a large run 100,000s of them
        self.table[r.metric][r.judge][sys.intern(r.case_id)] = r.value
        if r.value is None:
            self.missing[r.judge] += 1
            self.reasons[r.judge].append(r.unscored_reason or "no reason recorded")
        else:
            self.given.add(r.judge)

    def summary(self, spec: RunSpec) -> JurySummary:
        from assay.aggregation import agreement_of_table

        # A judge with no score at all was dropped; its most frequent failure is the reason.
        dropped = {
            judge: max(set(why), key=lambda text, w=why: (w.count(text), -w.index(text)))
            for judge, why in sorted(self.reasons.items())
            if judge not in self.given
        }
        jury = spec.jury
        return JurySummary(
            offline=bool(jury and jury.offline),
            judges=list(jury.panel) if jury else [],
            disagreement_threshold=spec.disagreement_threshold,
            agreement_alpha=agreement_of_table(self.table),
            disagreements=list(self.disagreements),
            missing_judge_scores=dict(sorted(self.missing.items())),
            dropped=dropped,
        )


def ensemble(rows: Sequence[ScoreRow], spec: RunSpec) -> list[ScoreRow]:
    """Seed 000's jury rule over the per-judge rows: one ensemble row per case and metric,
    weighted by the recorded panel, median and a flag when the judges disagree."""
    from assay.aggregation import ensemble_rows

    weights = spec.jury.weights() if spec.jury else {}
    return ensemble_rows(list(rows), weights, spec.disagreement_threshold)


def jury_section(
    scores: pd.DataFrame,
    jury: JurySummary | None,
    subject: str,
    metrics: Iterable[str] | None = None,
    order: Callable[[str, str], SupportsRichComparison] | None = None,
    digits: int = 3,
    rules: str = "",
) -> str:
    """The report's jury section: who judged, agreement, each judge's score beside the
    ensemble with disagreement flags, and the judge scores that are missing.

    ``subject`` names what was judged ("Answers", "Reports"); ``metrics`` limits the table to
    judged metrics; ``order(case, metric)`` sorts its rows; ``rules`` explains the ensemble.
    ``jury`` is a summary's, None when the run had no jury: the section then says so in one line.
    """
    if jury is None:
        return f"{subject} were not judged: the run had no jury."
    kind = "**offline jury** (deterministic judges, no LLM calls)" if jury.offline else "LLM jury"
    names = ", ".join(
        f"{md_text(j.name)} (weight 0, dropped)" if j.name in jury.dropped else f"{md_text(j.name)} (weight {j.weight:g})"
        for j in jury.judges
    ) or "none"
    out = [f"{subject} were judged by the {kind}: {names}." + (f" {rules}" if rules else ""), ""]
    if jury.dropped:
        out += ["Dropped judges (no score at all; their weight counts as 0 and the rest are renormalised):", ""]
        out += [f"- {md_text(j)}: {md_text(why)}" for j, why in jury.dropped.items()]
        out.append("")
    out.append(
        markdown_table(
            ["metric", "Krippendorff's alpha (interval)"], [[m, fmt(a)] for m, a in sorted(jury.agreement_alpha.items())]
        )
    )
    judged = scores[scores["judge"].notna()] if "judge" in scores else scores.iloc[0:0]
    if len(judged):
        wide = judged.pivot_table(index=["case_id", "metric"], columns="judge", values="value", aggfunc="first")
        final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
        wanted = set(metrics) if metrics is not None else None
        flagged = {(d.case_id, d.metric) for d in jury.disagreements}
        keys = [k for k in wide.index if wanted is None or k[1] in wanted]
        if order is not None:
            keys = sorted(keys, key=lambda k: order(k[0], k[1]))
        rows = [
            [c, m, *[fmt(v, digits) for v in wide.loc[(c, m)].tolist()], fmt(final.get((c, m)), digits),
             "⚠ median" if (c, m) in flagged else ""]
            for c, m in keys
        ]
        out += ["", "Each judge's score, the ensemble, and disagreement flags (max − min ≥ threshold → median):", ""]
        out.append(markdown_table(["case", "metric", *wide.columns.tolist(), "ensemble", "disagreement"], rows))
    if jury.missing_judge_scores:
        out += ["", "Judge scores missing (judge failed after retries; weights renormalised over the rest):"]
        out += [f"- {md_text(j)}: {n} scores" for j, n in jury.missing_judge_scores.items()]
    return "\n".join(out)


def scores_frame(rows: Iterable[ScoreRow]) -> pd.DataFrame:
    """The final rows as a table (one row per case × metric, × judge for per-judge rows)."""
    import pandas as pd  # the report step's library, not the suite declaration's

    columns = ["case_id", "metric", "family", "judge", "value", "scale", "unscored_reason"]
    return pd.DataFrame([row.model_dump(include=set(columns)) for row in rows], columns=columns)
