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


# -- per-case changes and fair comparison ---------------------------------------------------------
from types import SimpleNamespace  # noqa: E402

import pytest  # noqa: E402

from assay.compare import (  # noqa: E402
    CompareRefused,
    RunFacts,
    case_changes,
    check_comparable,
    compare_frames,
    comparison_markdown,
    dataset_fingerprint,
    format_case_changes,
)


def test_case_changes_list_exactly_the_changed_cases_worst_first():
    a = frame({"accuracy": [5.0, 4.0, 3.0, 2.0, 1.0], "csp": [0.1] * 5})
    b = frame({"accuracy": [5.0, 2.0, 3.0, 3.0, None], "csp": [0.1, 0.1, 0.1, 0.1, 0.6]})
    changes = case_changes(a, b, lower_is_better={"csp"})
    got = [(c.case_id, c.metric, c.change) for c in changes]
    assert got == [("q1", "accuracy", "worse"), ("q4", "csp", "worse"), ("q4", "accuracy", "now unscored"),
                   ("q3", "accuracy", "better")]  # worse by the most first; csp is lower-is-better
    assert changes[0].delta == -2.0
    text = format_case_changes(changes, {"q1": "누가 대표인가요?"})
    assert "2 worse, 1 better, 1 now unscored" in text and "누가 대표인가요?" in text


def facts(**kw):
    base = {"run_id": "r", "suite": "rag_qa", "dataset": "d", "jury": "offline: x", "prompts": {"p": "1"}, "code": "c"}
    return RunFacts(**{**base, **kw})


def test_runs_of_different_suites_are_refused_and_other_differences_named():
    with pytest.raises(CompareRefused, match="different suites"):
        check_comparable(facts(), facts(suite="memory"))
    found = check_comparable(facts(), facts(jury="LLM: a", prompts={"p": "2"}, dataset="e", code="k"))
    assert [line.split(":")[0] for line in found] == ["datasets differ", "juries differ", "judge prompts differ", "code differs"]
    with pytest.raises(CompareRefused, match="--strict.*juries differ"):
        check_comparable(facts(), facts(jury="LLM: a"), strict=True)
    assert check_comparable(facts(), facts(run_id="s"), strict=True) == []


def test_a_comparison_record_names_differences_and_changed_cases_in_the_report():
    a = frame({"accuracy": [5.0] * 10})
    b = frame({"accuracy": [5.0] * 9 + [1.0]})
    comparison = compare_frames(facts(), facts(jury="LLM: a"), a, b, set(), {"q9": "질문 아홉", "q0": "질문 영"})
    assert [c.case_id for c in comparison.case_changes] == ["q9"] and comparison.inputs == {"q9": "질문 아홉"}
    md = comparison_markdown(comparison)
    assert "juries differ" in md and "| q9 | accuracy | worse | 5.000 | 1.000 | -4.000 | 질문 아홉 |" in md


def test_the_dataset_fingerprint_leaves_out_recorded_outputs():
    snap = {"files": {"cases": "1", "generations": "2", "kb/a.md": "3"}}
    other_outputs = {"files": {"cases": "1", "generations": "9", "kb/a.md": "3"}}
    other_cases = {"files": {"cases": "8", "generations": "2", "kb/a.md": "3"}}
    fp = dataset_fingerprint(snap, ["generations"])
    assert fp == dataset_fingerprint(other_outputs, ["generations"])
    assert fp != dataset_fingerprint(other_cases, ["generations"])


def test_run_facts_read_the_panel_from_the_manifest():
    manifest = SimpleNamespace(
        run_id="r", suite="rag_qa", status="completed", artifacts={}, prompts={"p": "h"},
        code=SimpleNamespace(code_version="v", git_commit=None),
        run_spec={"jury": {"offline": False, "panel": [{"name": "a", "model": "openai/a", "weight": 0.5}]}},
    )
    assert RunFacts.of(manifest).jury == "a=openai/a@0.5"
