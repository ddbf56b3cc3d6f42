"""Paired bootstrap comparison: a real regression is flagged, identical runs pass."""

import numpy as np
import pandas as pd

from assay.compare import compare_scores, format_deltas


def frame(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = []
    for metric, vals in values.items():
        rows += [{"case_id": f"q{i}", "metric": metric, "value": v, "judge": None} for i, v in enumerate(vals)]
    rows.append({"case_id": "q0", "metric": "accuracy", "value": 1.0, "judge": "judge-a"})  # per-judge rows ignored
    return pd.DataFrame(rows)


def test_identical_runs_show_no_change():
    rng = np.random.default_rng(1)
    a = frame({"reciprocal_rank": list(rng.uniform(0, 1, 40)), "accuracy": list(rng.integers(1, 6, 40).astype(float))})
    deltas = compare_scores(a, a.copy())
    assert {d.verdict for d in deltas} == {"no significant change"}
    assert all(d.delta == 0 for d in deltas)


def test_a_consistent_drop_is_a_regression_and_a_rise_is_not():
    rng = np.random.default_rng(2)
    base = rng.uniform(0.5, 1.0, 40)
    a = frame({"reciprocal_rank": list(base), "keyword_coverage": list(base)})
    b = frame({"reciprocal_rank": list(base - 0.2), "keyword_coverage": list(np.minimum(base + 0.1, 1.0))})
    by_metric = {d.metric: d for d in compare_scores(a, b)}
    assert by_metric["reciprocal_rank"].verdict == "REGRESSION"
    assert by_metric["reciprocal_rank"].ci_high < 0
    assert by_metric["keyword_coverage"].verdict == "improved"
    assert "regressions: reciprocal_rank" in format_deltas(list(by_metric.values()), "A", "B")


def test_lower_is_better_flips_the_verdict():
    a = frame({"csp": [0.1] * 20})
    b = frame({"csp": [0.4] * 20})
    (delta,) = compare_scores(a, b, lower_is_better={"csp"})
    assert delta.verdict == "REGRESSION"


def test_only_cases_scored_in_both_runs_are_paired():
    a = frame({"m": [1.0, 1.0, None]})
    b = frame({"m": [1.0, None, 0.0]})
    (delta,) = compare_scores(a, b)
    assert delta.n_pairs == 1
