"""Reducing per-judge score rows to ensemble rows (seed 000 §3.3), shared by every jury suite."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from assay.judges.criteria import PASS_FAIL
from assay.judges.ensemble import aggregate_scores
from assay.metrics.agreement import krippendorff_alpha
from assay.schemas import ScoreRow


def parse_scale(scale: str) -> tuple[float, float]:
    if scale == PASS_FAIL:  # a pass/fail criterion: fail is 0, pass 1
        return 0.0, 1.0
    lo, hi = scale.split("-")
    return float(lo), float(hi)


def ensemble_rows(
    rows: Iterable[ScoreRow],
    judge_weights: Mapping[str, float],
    disagreement_threshold: float = 3.0,
) -> list[ScoreRow]:
    """One ensemble row (judge=None) per case and metric from the per-judge rows.

    Judges without a score for that case are left out and the remaining weights
    renormalised (aggregate_scores does that); the row records who was dropped and why.
    When no judge scored, the ensemble is unscored, never 0.
    """
    groups: dict[tuple[str, str], list[ScoreRow]] = defaultdict(list)
    for row in rows:
        if row.judge is not None:
            groups[(row.case_id, row.metric)].append(row)
    out = []
    for (case_id, metric), judged in sorted(groups.items()):
        scored = [row for row in judged if row.value is not None]
        dropped = {row.judge: row.unscored_reason for row in judged if row.value is None}
        first = judged[0]
        if not scored:
            reasons = "; ".join(f"{j}: {why}" for j, why in dropped.items())
            out.append(
                ScoreRow.unscored(
                    case_id, metric, first.family, first.scale, f"every judge failed ({reasons})",
                    details={"dropped_judges": dropped},
                )
            )
            continue
        values = [row.value for row in scored if row.value is not None]
        weights = [judge_weights.get(row.judge or "", 1.0) for row in scored]
        value, disagreement = aggregate_scores(
            values, weights, disagreement_threshold=disagreement_threshold, scale=parse_scale(first.scale)
        )
        out.append(
            ScoreRow(
                case_id=case_id,
                metric=metric,
                family=first.family,
                value=value,
                scale=first.scale,
                details={
                    "judge_scores": {row.judge: row.value for row in scored},
                    "disagreement": disagreement,
                    "method": "median" if disagreement else "weighted_mean",
                    "dropped_judges": dropped,
                },
            )
        )
    return out


def agreement_by_metric(rows: Iterable[ScoreRow]) -> dict[str, float | None]:
    """Krippendorff's alpha (interval) between judges, per metric, over all cases."""
    table: dict[str, dict[str, dict[str, float | None]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        if row.judge is not None:
            table[row.metric][row.judge][row.case_id] = row.value
    return agreement_of_table(table)


def agreement_of_table(table: Mapping[str, Mapping[str, Mapping[str, float | None]]]) -> dict[str, float | None]:
    """Krippendorff's alpha per metric of metric -> judge -> case -> value (judges in the order
    they were first seen)."""
    alphas: dict[str, float | None] = {}
    for metric, by_judge in table.items():
        cases = sorted({case for scores in by_judge.values() for case in scores})
        matrix = [[scores.get(case) for case in cases] for scores in by_judge.values()]
        alphas[metric] = krippendorff_alpha(matrix) if len(matrix) >= 2 else None
    return alphas
