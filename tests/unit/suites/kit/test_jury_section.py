"""The report's jury section names a dropped judge with its reason and shows it with weight 0."""

from __future__ import annotations

from assay.schemas import ScoreRow
from assay.spec import JurySpec, PanelJudge, RunSpec
from assay.suites.kit import jury_section, jury_summary
from assay.suites.kit.summary import scores_frame


def _rows() -> list[ScoreRow]:
    rows = []
    for case, (a, b) in {"q1": (5, 4), "q2": (2, 1)}.items():
        rows.append(ScoreRow(case_id=case, metric="accuracy", family="answer", value=(a + b) / 2, scale="1-5"))
        rows.append(ScoreRow(case_id=case, metric="accuracy", family="answer", value=a, scale="1-5", judge="a"))
        rows.append(ScoreRow(case_id=case, metric="accuracy", family="answer", value=b, scale="1-5", judge="b"))
        rows.append(ScoreRow.unscored(case, "accuracy", "answer", "1-5", "permanent: AuthenticationError (401)", judge="c"))
    rows.append(ScoreRow.unscored("q2", "accuracy", "answer", "1-5", "transient: timeout", judge="b"))
    return rows


def test_dropped_judge_is_named_with_reason_and_weight_zero():
    panel = [PanelJudge(name=n, model=f"openai/{n}", weight=w) for n, w in (("a", 0.34), ("b", 0.33), ("c", 0.33))]
    rows = _rows()
    jury = jury_summary(rows, RunSpec(suite="rag_qa", jury=JurySpec(panel=panel)))
    assert jury.dropped == {"c": "permanent: AuthenticationError (401)"}  # b missed one score: not dropped
    text = jury_section(scores_frame(rows), jury, "Answers")
    assert "c (weight 0, dropped)" in text and "a (weight 0.34)" in text and "b (weight 0.33)" in text
    assert "- c: permanent: AuthenticationError (401)" in text


def test_a_summary_without_a_jury_gets_one_line_saying_so():
    """A summary's ``jury`` is None when the run had no jury: the section says so, it does not fail."""
    text = jury_section(scores_frame(_rows()), None, "Answers")
    assert text == "Answers were not judged: the run had no jury."
