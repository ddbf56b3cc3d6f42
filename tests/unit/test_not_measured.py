"""What a run could not measure is said, not hidden: metrics no case could have a score for
(offline, no LLM judge for the reference-free metrics) are named with their reason at the top of
the report, and a gate on such a metric fails naming the reason."""

from __future__ import annotations

from assay import pipeline
from assay.gates import first_unscored_reasons, missed_thresholds, parse_threshold
from assay.lineage.store import ArtifactStore
from assay.rendering.render import ReportHeader, render_markdown
from assay.rendering.sections import ReportSection
from assay.schemas import ScoreRow
from assay.spec import RunSpec

NEEDS_LLM = "needs an LLM judge"


def rows() -> list[dict]:
    out = []
    for case in ("c1", "c2"):
        out += [ScoreRow.not_applicable(case, m, "grounding", "0-1", NEEDS_LLM).model_dump(mode="json")
                for m in ("faithfulness", "context_relevance")]
        out.append(ScoreRow(case_id=case, metric="figure_support", family="grounding", value=1.0, scale="0-1")
                   .model_dump(mode="json"))
    out.append(ScoreRow.not_applicable("c1", "correctness", "answer", "1-5", "no reference").model_dump(mode="json"))
    out.append(ScoreRow.not_applicable("c2", "correctness", "answer", "1-5", "empty output").model_dump(mode="json"))
    out.append(ScoreRow.not_applicable("c1", "ndcg", "retrieval", "0-1", "no labels").model_dump(mode="json"))
    out.append(ScoreRow(case_id="c2", metric="ndcg", family="retrieval", value=0.5, scale="0-1").model_dump(mode="json"))
    return out


def test_metrics_not_applicable_to_any_case_are_grouped_by_reason_and_are_not_failures(tmp_path):
    store = ArtifactStore(str(tmp_path))
    scores = store.put_jsonl(rows())
    gaps = pipeline.score_gaps(store, RunSpec(suite="answers"), [], scores)
    assert gaps.incomplete == []  # not applicable is a property of the data, not a failure
    assert gaps.not_applicable == ["faithfulness, context_relevance — needs an LLM judge", "correctness — e.g. no reference"]
    assert pipeline.incomplete_reasons(store, RunSpec(suite="answers"), [], scores) == []


def test_the_report_names_what_was_not_measured_before_any_figure():
    header = ReportHeader(suite="answers", suite_title="Any table of answers", snapshot="s" * 64, n_cases=2,
                          replay="recorded", generations="g" * 64, validation="passed", config_hash="c" * 64,
                          judges="offline", not_applicable=["faithfulness, answer_relevancy: needs an LLM judge"])
    report = render_markdown(header, [ReportSection("Overall", "| metric | mean |")])
    top = report.split("\n## ")[0]
    assert "> **Not measured:** faithfulness, answer\\_relevancy: needs an LLM judge" in top.splitlines()
    two = header.model_copy(update={"not_applicable": ["a: one reason", "b: another"]})
    top = render_markdown(two, []).split("- Dataset snapshot")[0]
    assert "> - a: one reason" in top and "> - b: another" in top
    assert "Not measured" not in render_markdown(header.model_copy(update={"not_applicable": []}), [])


def test_a_gate_on_a_metric_no_case_has_a_score_for_names_why():
    reasons = first_unscored_reasons(rows(), {"faithfulness", "ndcg"})
    assert reasons == {"faithfulness": NEEDS_LLM, "ndcg": "no labels"}
    missed = missed_thresholds([parse_threshold("faithfulness>=0.8")], {"faithfulness": None}, None, reasons)
    assert missed == ["faithfulness>=0.8: faithfulness is unscored for every case (needs an LLM judge)"]
