"""``assay compare``: per-metric deltas between two runs with paired bootstrap confidence intervals.

Cases are paired by id (only cases scored in both runs count). For each metric the delta is
mean(B) − mean(A); its confidence interval comes from resampling the paired per-case
differences. A metric *regressed* when the whole interval lies on the worse side of zero
(below for higher-is-better metrics, above for lower-is-better ones such as CSP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from assay import artifacts as names

DEFAULT_RESAMPLES = 2000
DEFAULT_CONFIDENCE = 0.95


@dataclass
class MetricDelta:
    metric: str
    n_pairs: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    higher_is_better: bool

    @property
    def verdict(self) -> str:
        if self.n_pairs == 0:
            return "no paired cases"
        worse = self.ci_high < 0 if self.higher_is_better else self.ci_low > 0
        better = self.ci_low > 0 if self.higher_is_better else self.ci_high < 0
        return "REGRESSION" if worse else "improved" if better else "no significant change"


def final_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """The per-case scores a report shows: automatic and ensemble rows, not per-judge rows."""
    return scores[scores["judge"].isna()][["case_id", "metric", "value"]]


def compare_scores(
    a: pd.DataFrame,
    b: pd.DataFrame,
    lower_is_better: set[str] = frozenset(),  # type: ignore[assignment]
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> list[MetricDelta]:
    rng = np.random.default_rng(seed)  # fixed seed: the same two runs always compare the same way
    merged = final_scores(a).merge(final_scores(b), on=["case_id", "metric"], suffixes=("_a", "_b"))
    merged = merged.dropna(subset=["value_a", "value_b"])
    out = []
    for metric in sorted(set(final_scores(a)["metric"]) | set(final_scores(b)["metric"])):
        pairs = merged[merged["metric"] == metric]
        diffs = (pairs["value_b"] - pairs["value_a"]).to_numpy(dtype=float)
        if len(diffs) == 0:
            out.append(MetricDelta(metric, 0, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), metric not in lower_is_better))
            continue
        samples = rng.choice(diffs, size=(resamples, len(diffs)), replace=True).mean(axis=1)
        tail = (1 - confidence) / 2
        out.append(
            MetricDelta(
                metric=metric,
                n_pairs=len(diffs),
                mean_a=float(pairs["value_a"].mean()),
                mean_b=float(pairs["value_b"].mean()),
                delta=float(diffs.mean()),
                ci_low=float(np.quantile(samples, tail)),
                ci_high=float(np.quantile(samples, 1 - tail)),
                higher_is_better=metric not in lower_is_better,
            )
        )
    return out


def format_deltas(deltas: list[MetricDelta], name_a: str, name_b: str, confidence: float = DEFAULT_CONFIDENCE) -> str:
    lines = [f"A = {name_a}", f"B = {name_b}", ""]
    header = f"{'metric':20s} {'pairs':>5s} {'mean A':>8s} {'mean B':>8s} {'delta':>8s}  {int(confidence * 100)}% CI            verdict"
    lines.append(header)
    for d in deltas:
        if d.n_pairs == 0:
            lines.append(f"{d.metric:20s} {0:5d}  (no case scored in both runs)")
            continue
        ci = f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
        lines.append(f"{d.metric:20s} {d.n_pairs:5d} {d.mean_a:8.3f} {d.mean_b:8.3f} {d.delta:+8.3f}  {ci:20s} {d.verdict}")
    regressions = [d.metric for d in deltas if d.verdict == "REGRESSION"]
    lines.append("")
    lines.append(f"regressions: {', '.join(regressions)}" if regressions else "no significant regression")
    return "\n".join(lines)


def latest_completed_run(store: Any, suite: str, exclude: str | None = None) -> str | None:
    """The most recent completed run of ``suite`` in the store (the baseline for "latest")."""
    from assay.lineage.manifest import load_manifest

    candidates = []
    for run_id in store.list_runs():
        if run_id == exclude:
            continue
        manifest = load_manifest(store, run_id)
        if manifest.suite == suite and manifest.status == "completed":
            candidates.append((manifest.finished_at or manifest.created_at, run_id))
    return max(candidates)[1] if candidates else None


def compare_to_baseline(store: Any, baseline_run: str, scores_sha: str, summary_sha: str) -> dict[str, Any]:
    """Compare a run's scores (by content hash) with a stored baseline run's scores.parquet."""
    import io

    from assay.lineage.trace import RunReader

    baseline = RunReader(store, baseline_run)
    base_frame = pd.read_parquet(io.BytesIO(baseline.bytes(names.SCORES_PARQUET)))
    current = pd.DataFrame(store.get_jsonl(scores_sha))
    lower = set(store.get_json(summary_sha).get("lower_is_better", []))
    deltas = compare_scores(base_frame, current, lower)
    text = format_deltas(deltas, baseline_run, "this run")
    regressions = [d.metric for d in deltas if d.verdict == "REGRESSION"]
    record = {
        "baseline": baseline_run,
        "regressions": regressions,
        "deltas": [{**d.__dict__, "verdict": d.verdict} for d in deltas],
    }
    return {"comparison": store.put_json(record), "text": text, "regressions": regressions}


def format_deltas_record(record: dict[str, Any]) -> str:
    """format_deltas for a stored comparison.json."""
    deltas = [MetricDelta(**{k: v for k, v in d.items() if k != "verdict"}) for d in record["deltas"]]
    return format_deltas(deltas, record["baseline"], "this run")
