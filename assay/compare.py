"""``assay compare``: per-metric deltas between two runs with paired bootstrap confidence
intervals, the cases that changed, and what else differs between the runs.

Cases are paired by id (only cases scored in both runs count). For each metric the delta is
mean(B) − mean(A); its confidence interval comes from resampling the paired per-case
differences. A metric *regressed* when the whole interval lies on the worse side of zero
(below for higher-is-better metrics, above for lower-is-better ones such as CSP).

A comparison is only as good as its pairing: runs of different suites are refused, and a
difference in dataset, jury, prompts or code is said first (``strict`` refuses it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field, computed_field

from assay import artifacts as names
from assay.hashing import sha256_json

DEFAULT_RESAMPLES = 2000
DEFAULT_CONFIDENCE = 0.95


class MetricDelta(BaseModel):
    """One metric of run B against baseline A: paired means, the delta and its bootstrap CI."""

    metric: str
    n_pairs: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    higher_is_better: bool

    @computed_field  # type: ignore[prop-decorator]
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
    lower_is_better: AbstractSet[str] = frozenset(),
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
            nan = float("nan")
            out.append(MetricDelta(metric=metric, n_pairs=0, mean_a=nan, mean_b=nan, delta=nan, ci_low=nan, ci_high=nan,
                                   higher_is_better=metric not in lower_is_better))
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


# -- what a run was: the facts a fair comparison needs ------------------------------------------
class RunFacts(BaseModel):
    """What must match for two runs' scores to be comparable, read from a run's manifest."""

    run_id: str
    suite: str
    status: str = ""
    dataset: str = Field(default="", description="sha256 of the dataset snapshot")
    jury: str = Field(default="", description="the panel: judge names, models and weights")
    prompts: dict[str, str] = Field(default_factory=dict, description="prompt id -> sha256")
    code: str = Field(default="", description="assay's code version")
    git_commit: str | None = None

    @classmethod
    def of(cls, manifest: Any, dataset: str | None = None) -> RunFacts:
        """From a manifest; ``dataset`` is the run's dataset fingerprint (default: the snapshot's sha)."""
        jury = (manifest.run_spec or {}).get("jury") or {}
        panel = [f"{j.get('name')}={j.get('model')}@{j.get('weight', 1.0):g}" for j in jury.get("panel") or jury.get("judges") or []]
        snapshot = manifest.artifacts.get(names.DATASET_SNAPSHOT)
        return cls(
            run_id=manifest.run_id, suite=manifest.suite, status=manifest.status,
            dataset=dataset if dataset is not None else snapshot.sha256 if snapshot is not None else "",
            jury=("offline: " if jury.get("offline") else "") + ", ".join(panel),
            prompts=dict(manifest.prompts), code=manifest.code.code_version, git_commit=manifest.code.git_commit,
        )

    @classmethod
    def read(cls, run: Any, recorded_outputs: Iterable[str]) -> RunFacts:
        """From a finished run (a ``RunReader``): its manifest and the dataset snapshot in its own
        directory (fingerprinted without the recorded outputs), hash-checked as it is read."""
        if names.DATASET_SNAPSHOT not in run.manifest.artifacts:
            return cls.of(run.manifest, "")
        return cls.of(run.manifest, dataset_fingerprint(run.json(names.DATASET_SNAPSHOT), recorded_outputs))


def dataset_fingerprint(snapshot: Mapping[str, Any], recorded_outputs: Iterable[str]) -> str:
    """What a dataset *asks*: every snapshot file but the recorded outputs of the system under
    test (``generations``, ``memories``, ``responses``), which are what a comparison measures."""
    skip = set(recorded_outputs)
    return sha256_json({k: v for k, v in (snapshot.get("files") or {}).items() if k not in skip})


class CompareRefused(ValueError):
    """Two runs whose scores cannot be compared (different suites, or a difference under strict)."""


def differences(a: RunFacts, b: RunFacts) -> list[str]:
    """What differs between two runs besides the system under test, one line each."""
    out = []
    if a.dataset != b.dataset:
        out.append(f"datasets differ: {a.dataset[:12]} vs {b.dataset[:12]} (cases are paired by id)")
    if a.jury != b.jury:
        out.append(f"juries differ: [{a.jury}] vs [{b.jury}]")
    changed = sorted(p for p in set(a.prompts) | set(b.prompts) if a.prompts.get(p) != b.prompts.get(p))
    if changed:
        out.append(f"judge prompts differ: {', '.join(changed)}")
    if a.code != b.code:
        out.append(f"code differs: assay {a.code[:12] or '?'} vs {b.code[:12] or '?'}")
    return out


def require_shared_cases(a: RunFacts, b: RunFacts, frame_a: pd.DataFrame, frame_b: pd.DataFrame) -> None:
    """Refuse two runs that score no case id in common: every delta would be empty. Runs of
    different suites are refused as such first (``check_comparable``): that is the reason."""
    check_comparable(a, b)
    ids_a, ids_b = set(final_scores(frame_a)["case_id"]), set(final_scores(frame_b)["case_id"])
    if ids_a & ids_b:
        return
    raise CompareRefused(
        f"runs {a.run_id} and {b.run_id} share no case id ({len(ids_a)} cases, e.g. {_examples(ids_a)}, "
        f"vs {len(ids_b)}, e.g. {_examples(ids_b)}): nothing to compare"
    )


def _examples(ids: set[Any]) -> str:
    return ", ".join(str(i) for i in sorted(ids, key=str)[:3]) or "none"


def check_comparable(a: RunFacts, b: RunFacts, strict: bool = False) -> list[str]:
    """The differences to state; refuses runs of different suites, and any difference when strict."""
    if a.suite != b.suite:
        raise CompareRefused(f"refusing to compare runs of different suites: {a.run_id} is {a.suite}, {b.run_id} is {b.suite}")
    found = differences(a, b)
    if strict and found:
        raise CompareRefused("refusing to compare (--strict): " + "; ".join(found))
    return found


# -- which cases changed ----------------------------------------------------------------------
class CaseChange(BaseModel):
    case_id: str
    metric: str
    before: float | None
    after: float | None
    change: str = Field(description="worse, better, now unscored, now scored")

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before


def case_changes(
    a: pd.DataFrame, b: pd.DataFrame, lower_is_better: AbstractSet[str] = frozenset(), tolerance: float = 1e-9
) -> list[CaseChange]:
    """Every (case, metric) whose final score differs between the runs, worst change first."""
    merged = final_scores(a).merge(final_scores(b), on=["case_id", "metric"], suffixes=("_a", "_b"))
    out = []
    for row in merged.itertuples(index=False):
        before = None if pd.isna(row.value_a) else float(row.value_a)
        after = None if pd.isna(row.value_b) else float(row.value_b)
        if before is None and after is None:
            continue
        if before is None or after is None:
            out.append(CaseChange(case_id=str(row.case_id), metric=str(row.metric), before=before, after=after,
                                  change="now unscored" if after is None else "now scored"))
            continue
        diff = after - before
        if abs(diff) <= tolerance:
            continue
        worse = diff < 0 if row.metric not in lower_is_better else diff > 0
        out.append(CaseChange(case_id=str(row.case_id), metric=str(row.metric), before=before, after=after,
                              change="worse" if worse else "better"))
    return sorted(out, key=_change_order)


def _change_order(c: CaseChange) -> tuple[int, float, str, str]:
    rank = {"worse": 0, "now unscored": 1, "better": 2, "now scored": 3}[c.change]
    size = -abs(c.delta) if c.delta is not None else 0.0
    return rank, size, c.case_id, c.metric


def format_case_changes(changes: list[CaseChange], inputs: dict[str, str] | None = None, limit: int = 50) -> str:
    """The changed cases as text: worse first, by how much, with each case's input."""
    if not changes:
        return "no case changed"
    inputs = inputs or {}
    counts = {kind: sum(1 for c in changes if c.change == kind) for kind in ("worse", "better", "now unscored", "now scored")}
    lines = ["cases changed: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)]
    for c in changes[:limit]:
        before, after = fmt_value(c.before), fmt_value(c.after)
        delta = f"{c.delta:+.3f}" if c.delta is not None else ""
        text = " ".join(inputs.get(c.case_id, "").split())[:80]
        lines.append(f"  {c.change:12s} {c.case_id:14s} {c.metric:20s} {before:>7s} -> {after:>7s} {delta:>8s}  {text}")
    if len(changes) > limit:
        lines.append(f"  and {len(changes) - limit} more")
    return "\n".join(lines)


def fmt_value(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


# -- a stored comparison -----------------------------------------------------------------------
class Comparison(BaseModel):
    """comparison.json: a run against its baseline."""

    baseline: str
    regressions: list[str]
    deltas: list[MetricDelta]
    differences: list[str] = Field(default_factory=list)
    case_changes: list[CaseChange] = Field(default_factory=list)
    inputs: dict[str, str] = Field(default_factory=dict, description="case id -> its input on one line, for changed cases")

    def metric_deltas(self) -> list[MetricDelta]:
        return list(self.deltas)

    def text(self, name_b: str = "this run") -> str:
        out = [f"note: {d}" for d in self.differences]
        out += [format_deltas(self.metric_deltas(), self.baseline, name_b), "", format_case_changes(self.case_changes, self.inputs)]
        return "\n".join(out)


def compare_frames(
    facts_a: RunFacts, facts_b: RunFacts, a: pd.DataFrame, b: pd.DataFrame, lower: set[str],
    inputs: dict[str, str] | None = None, strict: bool = False, resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Comparison:
    """The whole comparison of run B against baseline A (raises ``CompareRefused``)."""
    found = check_comparable(facts_a, facts_b, strict)
    deltas = compare_scores(a, b, lower, resamples=resamples, confidence=confidence)
    changes = case_changes(a, b, lower)
    changed = {c.case_id for c in changes}
    return Comparison(
        baseline=facts_a.run_id,
        regressions=[d.metric for d in deltas if d.verdict == "REGRESSION"],
        deltas=deltas,
        differences=found,
        case_changes=changes,
        inputs={k: v for k, v in (inputs or {}).items() if k in changed},
    )


def latest_completed_run(store: Any, facts: RunFacts, recorded_outputs: Iterable[str], exclude: str | None = None) -> str | None:
    """The newest completed run with the same suite, dataset fingerprint and jury as ``facts``
    (the baseline for ``compare_with: latest``); a run of another dataset or jury never is, nor
    one whose manifest fails its anchor check."""
    from assay.lineage.audit import anchor_check
    from assay.lineage.trace import RunIntegrityError, RunReader

    outputs = list(recorded_outputs)
    candidates = []
    for run_id in store.list_runs():
        if run_id == exclude:
            continue
        try:
            run = RunReader(store, run_id)
            manifest = run.manifest
            if (manifest.status, manifest.suite) != ("completed", facts.suite):
                continue
            other = RunFacts.read(run, outputs)
        except (FileNotFoundError, ValueError, RunIntegrityError):
            continue
        if (other.dataset, other.jury) == (facts.dataset, facts.jury) and anchor_check(store, run_id).ok:
            candidates.append((manifest.finished_at or manifest.created_at, run_id))
    return max(candidates)[1] if candidates else None


def compare_to_baseline(
    store: Any, baseline_run: str, facts: RunFacts, recorded_outputs: Iterable[str], scores_sha: str, summary_sha: str,
    inputs: dict[str, str],
) -> tuple[str, Comparison]:
    """Compare a run's scores (by content hash) with a stored baseline run's scores.parquet;
    the stored comparison's sha and the comparison."""
    import io

    from assay.lineage.trace import RunReader

    baseline = RunReader.anchored(store, baseline_run)  # a verdict's yardstick: never an edited run
    base_frame = pd.read_parquet(io.BytesIO(baseline.bytes(names.SCORES_PARQUET)))
    current = pd.DataFrame(store.get_jsonl(scores_sha))
    lower = set(store.get_json(summary_sha).get("lower_is_better", []))
    base_facts = RunFacts.read(baseline, recorded_outputs)
    comparison = compare_frames(base_facts, facts, base_frame, current, lower, inputs)
    return store.put_json(comparison.model_dump(mode="json")), comparison


def comparison_markdown(comparison: Comparison) -> str:
    """The report's comparison section."""
    from assay.rendering.tables import markdown_table, md_markup, md_text

    out = [f"Compared with baseline run `{md_text(comparison.baseline)}` (paired by case id; 95% bootstrap intervals)."]
    if comparison.differences:
        out += ["", "**Not like for like:**", ""] + [f"- {md_text(d)}" for d in comparison.differences]
    rows = [
        [md_text(d.metric), d.n_pairs, fmt_value(d.mean_a) if d.n_pairs else "—",
         fmt_value(d.mean_b) if d.n_pairs else "—", f"{d.delta:+.3f}" if d.n_pairs else "—",
         md_markup(f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]") if d.n_pairs else "—", d.verdict]
        for d in comparison.deltas
    ]
    out += ["", markdown_table(["metric", "pairs", "baseline", "this run", "delta", "95% CI", "verdict"], rows)]
    changes = comparison.case_changes
    out += ["", f"**Cases that changed: {len(changes)}**" + (" (worst first)" if changes else "")]
    if changes:
        shown = changes[:100]
        out += ["", markdown_table(
            ["case", "metric", "change", "baseline", "this run", "delta", "input"],
            [[md_text(c.case_id), md_text(c.metric), c.change, fmt_value(c.before), fmt_value(c.after),
              f"{c.delta:+.3f}" if c.delta is not None else "", md_text(comparison.inputs.get(c.case_id, "")[:120])]
             for c in shown],
        )]
        if len(changes) > len(shown):
            out.append(f"\n… and {len(changes) - len(shown)} more in `comparison.json`.")
    return "\n".join(out)
