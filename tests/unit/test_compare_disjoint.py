"""Two runs that score no case id in common: the comparison step of a run (`--compare-with`)
reports every metric as having no paired case instead of crashing, and `assay compare` is
refused with one line naming both runs and example ids."""

import pandas as pd
import pytest

from assay.compare import CompareRefused, RunFacts, compare_frames, format_deltas


def scores(prefix: str, n: int) -> pd.DataFrame:
    return pd.DataFrame([{"case_id": f"{prefix}{i:03d}", "metric": "accuracy", "value": 4.0, "judge": None}
                         for i in range(n)])


def test_a_comparison_with_no_shared_case_has_no_pairs_and_does_not_crash():
    a, b = RunFacts(run_id="run-a", suite="rag_qa"), RunFacts(run_id="run-b", suite="rag_qa")
    comparison = compare_frames(a, b, scores("q", 48), scores("x", 6), set())  # was: TypeError from MetricDelta(...)
    (delta,) = comparison.deltas
    assert delta.n_pairs == 0 and delta.verdict == "no paired cases" and comparison.regressions == []
    assert "(no case scored in both runs)" in format_deltas(comparison.deltas, "run-a", "run-b")


def test_assay_compare_refuses_runs_that_share_no_case_id():
    from assay.compare import require_shared_cases

    a, b = RunFacts(run_id="run-a", suite="rag_qa"), RunFacts(run_id="run-b", suite="rag_qa")
    with pytest.raises(CompareRefused) as refused:
        require_shared_cases(a, b, scores("q", 48), scores("x", 6))
    assert str(refused.value) == ("runs run-a and run-b share no case id (48 cases, e.g. q000, q001, q002, "
                                  "vs 6, e.g. x000, x001, x002): nothing to compare")
    require_shared_cases(a, b, scores("q", 48), scores("q", 6))  # one shared case is enough
