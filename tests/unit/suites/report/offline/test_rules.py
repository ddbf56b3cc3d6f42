"""The report suite's offline rules (``assay/suites/report/offline/rules.py``), one rule at a
time. End-to-end cases are golden rows: ``tests/golden/report_*.jsonl``."""

from __future__ import annotations

import pytest

from assay.judges.offline import LexicalJudge, offline_jury
from assay.judges.offline.messages import render
from assay.judges.prompts import ReportInput, get_prompt
from assay.suites.report.offline import rules
from assay.suites.report.offline.rules import ReportRules

HALLUCINATION = get_prompt("report_hallucination")
SOURCES = [{"number": 1, "title": "물류 동향", "content": "2025년 택배 물동량은 전년보다 4% 늘었다."}]
FINDING = "현재 주요 거점은 세 곳 이상의 운송사와 계약하고 있다."
ADVICE = "셋째, 주요 거점은 세 곳 이상의 운송사와 계약하여 지연 위험을 분산한다."


def _report(title: str, section: str, sentence: str) -> dict:
    text = (
        f"# {title}\n\n## 1. 현황\n2025년 택배 물동량은 전년보다 4% 늘었다 [SOURCE:1].\n\n"
        f"## 2. {section}\n{sentence}\n"
    )
    return {"query": "택배 물류 현황과 대응 방향을 정리해 줘", "report": text, "sources": SOURCES}


def _unfounded(item: dict) -> list[list[str]]:
    return [
        [c["description"] for c in judge.verdict(HALLUCINATION, item)["hallucinations"] if "출처에 없는 수치" in c["description"]]
        for judge in offline_jury()
    ]


@pytest.fixture(scope="module")
def report_rules() -> ReportRules:
    return ReportRules(LexicalJudge())


# -- which sentences claim -----------------------------------------------------------------------


def test_a_count_in_a_recommendations_section_is_a_proposal():
    for heading in ("권고 사항", "구매 추천", "5. 제언", "Recommendations"):
        assert _unfounded(_report("택배 물류 보고서", heading, ADVICE)) == [[], [], []], heading


def test_the_same_count_stated_as_a_finding_is_still_unfounded():
    for descriptions in _unfounded(_report("택배 물류 보고서", "공급망 분석", FINDING)):
        assert descriptions and all("3" in d for d in descriptions)


def test_a_strategy_title_does_not_excuse_the_whole_report():
    for descriptions in _unfounded(_report("택배 물류 대응 전략 보고서", "공급망 분석", FINDING)):
        assert descriptions


def test_in_a_recommendations_section_a_predicted_effect_still_claims():
    effect = "공동 계약을 도입하면 배송비를 추가로 15% 줄일 수 있다."
    for descriptions in _unfounded(_report("택배 물류 보고서", "권고 사항", effect)):
        assert descriptions and all("15" in d for d in descriptions)


def test_an_english_recommendation_proposes():
    advice = "We should contract at least three carriers for each hub."
    assert _unfounded(_report("Parcel logistics", "Recommendations", advice)) == [[], [], []]


def test_directive_endings_come_from_the_cue_table():
    assert rules._directs("리스크를 분산해야 한다.") and rules._directs("We recommend two carriers.")
    assert not rules._directs("배송비를 15% 줄일 수 있다.")


def test_body_sentences_mark_the_recommendations_section_but_not_the_title():
    sents, advising = rules._body_sentences("# 구매 추천 보고서\n첫 문장이다.\n## 제언\n둘째 문장이다.\n")
    assert sents == ["첫 문장이다.", "둘째 문장이다."] and advising == {2}


# -- the cue table -------------------------------------------------------------------------------


def test_a_cue_table_without_a_key_is_refused_naming_it(tmp_path, monkeypatch):
    bad = tmp_path / "cues.yaml"
    bad.write_text("recommendation_headings: [추천]\ndirective_endings: []\n", encoding="utf-8")
    monkeypatch.setattr(rules, "CUES_PATH", bad)
    rules.cues.cache_clear()
    try:
        with pytest.raises(ValueError, match="directive_endings"):
            rules.cues()
    finally:
        rules.cues.cache_clear()


def test_request_words_are_left_out_of_the_topic():
    assert rules._query_topic("택배 물류 동향 보고서를 작성해주세요") == "택배 물류"
    assert rules._query_topic("보고서 작성") == "보고서 작성"  # nothing left: the query itself


# -- claims and their verdicts ---------------------------------------------------------------------


def test_a_tag_that_names_no_source_is_an_invalid_citation(report_rules):
    item = ReportInput.model_validate({**_report("택배 물류 보고서", "분석", "물동량은 4% 늘었다 [SOURCE:9]."), "query": "택배"})
    claims = report_rules._report_claims(item)["claims"]
    assert claims[-1]["invalid"] == [9] and not claims[-1]["supported"]
    assert render(rules._claim_issue(claims[-1]), "ko").endswith("[SOURCE:9]")
    assert rules._hallucination(claims[-1])["type"] == "citation_inaccuracy"


def test_a_cited_figure_the_source_lacks_is_a_conflict(report_rules):
    item = ReportInput.model_validate(_report("택배 물류 보고서", "분석", "물동량은 전년보다 9% 늘었다 [SOURCE:1]."))
    claim = report_rules._report_claims(item)["claims"][-1]
    assert claim["level"] >= 1 and not claim["supported"]
    assert "출처와 다른 수치" in render(rules._claim_issue(claim), "ko")


def test_a_supported_claim_has_no_issue_and_no_case(report_rules):
    item = ReportInput.model_validate(_report("택배 물류 보고서", "분석", "추가 문장은 없다."))
    claim = report_rules._report_claims(item)["claims"][0]
    assert claim["supported"] and rules._claim_issue(claim) is None and rules._hallucination(claim) is None


def test_an_exaggeration_word_the_sources_do_not_use_is_counted_once_per_sentence():
    found = rules._exaggerations(["물동량이 폭발적으로 늘었다.", "물동량이 늘었다."], "물동량은 4% 늘었다.")
    assert [(e["index"], e["cue"]) for e in found] == [(1, "폭발적")]


# -- coherence and relevance ---------------------------------------------------------------------


def test_a_conclusion_against_the_body_direction_is_ungrounded(report_rules):
    text = "# 보고서\n## 현황\n매출이 크게 증가했다.\n## 결론\n매출이 감소했다.\n"
    m = report_rules._coherence_measures(text)
    assert m["has_conclusion"] == 1.0 and m["opposite"] and m["grounded"] == 0.0
    assert "결론의 방향(성장/감소)이 본문과 상반됩니다" in [render(w, "ko") for w in rules._coherence_findings(m)[1]]


def test_split_conclusion_returns_body_and_conclusion():
    body, conclusion = rules._split_conclusion("# 제목\n본문이다.\n## 결론\n끝이다.\n## 부록\n표.")
    assert conclusion == "끝이다." and "부록" in body and "끝이다." not in body


def test_relevance_parts_read_format_recommendations_and_specifics():
    report = "# 보고서\n## 현황\n예를 들어 4% 늘었다.\n## 결론\n운송사를 늘리는 방안을 검토할 필요가 있다.\n"
    fmt, recommendations, specifics = rules._relevance_parts("물류 보고서", report, ["보고서", "현황", "결론"])
    assert (fmt, recommendations, specifics) == (1.0, 1.0, 1.0)
    # a report asked for with too few sections and no conclusion, advice or example
    assert rules._relevance_parts("물류 보고서", "# 보고서\n물동량이 늘었다.", ["보고서"]) == (0.0, 0.0, 0.0)
