"""Memory rules from reading the v14 memory rows by kind (a car-sharing and a piano-lesson memory,
not v14's landlord and aquarium ones): a renewed contract (재계약, 인상) is an update, not a
conflict; a value written in Korean numerals (오백만 원) conflicts with its figure; a model's name
and number is an identifier; an end date asked of a start and a span is answered indirectly. Each
kind stands beside a near miss."""

from __future__ import annotations

from assay.suites.memory.offline import rules as rules
from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_a_renewed_contract_is_an_update():
    memory = "카셰어링 월 구독료 39,000원(2025.6 가입). 26.6.1 재계약: 구독료 42,000원으로 인상."
    found = verdicts("카셰어링 구독료 지금 얼마 내고 있지?", memory, ["카셰어링", "구독료"])
    assert min(field(found, "accuracy")) >= 8.0
    # near miss: two values with no update are a conflict
    both = verdicts(
        "카셰어링 구독료 얼마지?", "카셰어링 구독료 39,000원. 카셰어링 구독료 42,000원.", ["구독료"]
    )
    assert max(field(both, "accuracy")) <= 5.0


def test_a_value_in_korean_numerals_conflicts_with_its_figure():
    memory = "피아노 레슨 등록비 200,000원 냄(영수증은 메일함). 피아노 레슨 등록비 십오만 원, 월 4회."
    assert rules._value_conflicts(memory)
    # near miss: the same value in both forms agrees
    assert (
        rules._value_conflicts("피아노 레슨 등록비 150,000원 냄. 피아노 레슨 등록비 십오만 원, 월 4회.") == []
    )


def test_a_model_name_and_number_is_an_identifier():
    assert rules.IDENTIFIER_RE.search("Digital piano: Yamaha Clavinova 745 (bought 2025)")
    found = verdicts(
        "디지털 피아노 모델명 뭐였지?",
        "Digital piano: Yamaha Clavinova 745, bought used in March 2025.",
        ["Yamaha Clavinova 745", "디지털 피아노"],
    )
    assert field(found, "relevance") == {10.0}
    # near miss: a price is no identifier
    assert not rules.IDENTIFIER_RE.search("Lessons cost 45000 won")


def test_an_end_date_of_a_start_and_a_span_is_answered_indirectly():
    memory = "카셰어링 장기 렌트: 2026-02-01 시작, 1년 약정. 월 39만 원."
    found = verdicts("장기 렌트 약정 끝나는 게 언제지?", memory, ["장기 렌트"])
    assert field(found, "relevance") == {8.0} and field(found, "completeness") == {8.0}
    # near miss: a start with no span answers nothing
    start_only = verdicts(
        "장기 렌트 약정 끝나는 게 언제지?", "카셰어링 장기 렌트: 2026-02-01 시작. 월 39만 원.", ["장기 렌트"]
    )
    assert max(field(start_only, "relevance")) <= 5.0
