"""An uncited figure in a report's recommendations section proposes; elsewhere it claims."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

HALLUCINATION = get_prompt("report_hallucination")
SOURCES = [
    {"number": 1, "title": "물류 동향", "content": "2025년 택배 물동량은 전년보다 4% 늘었다."},
]


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


SENTENCE = "셋째, 주요 거점은 세 곳 이상의 운송사와 계약하여 지연 위험을 분산한다."


def test_a_count_in_a_recommendations_section_is_a_proposal():
    for heading in ("권고 사항", "구매 추천", "5. 제언", "Recommendations"):
        assert _unfounded(_report("택배 물류 보고서", heading, SENTENCE)) == [[], [], []], heading


def test_the_same_count_stated_as_a_finding_is_still_unfounded():
    finding = "현재 주요 거점은 세 곳 이상의 운송사와 계약하고 있다."
    for descriptions in _unfounded(_report("택배 물류 보고서", "공급망 분석", finding)):
        assert descriptions and all("3" in d for d in descriptions)


def test_a_strategy_title_does_not_excuse_the_whole_report():
    finding = "현재 주요 거점은 세 곳 이상의 운송사와 계약하고 있다."
    for descriptions in _unfounded(_report("택배 물류 대응 전략 보고서", "공급망 분석", finding)):
        assert descriptions


def test_in_a_recommendations_section_a_predicted_effect_still_claims():
    effect = "공동 계약을 도입하면 배송비를 추가로 15% 줄일 수 있다."
    for descriptions in _unfounded(_report("택배 물류 보고서", "권고 사항", effect)):
        assert descriptions and all("15" in d for d in descriptions)


def test_an_english_recommendation_proposes():
    advice = "We should contract at least three carriers for each hub."
    assert _unfounded(_report("Parcel logistics", "Recommendations", advice)) == [[], [], []]
