"""General causes of correct rag answers scored low: midnight written several ways, refusals
worded in English or as "not stated", and paraphrases that share few of the reference's words."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import quantities, same_quantity
from tests.support.offline_families import RAG
from tests.support.offline_families import rag_accuracies as accuracies


def _same(a: str, b: str) -> bool:
    qa, qb = quantities(canonical_figures(a)), quantities(canonical_figures(b))
    return len(qa) == len(qb) == 1 and same_quantity(qa[0], qb[0])


def test_midnight_is_one_hour_in_every_notation():
    for form in ("자정", "24:00", "0시", "새벽 12시", "오전 12시"):
        assert _same("밤 12시", form), form
    assert not _same("밤 12시", "12시")  # midnight is not noon
    assert not _same("오후 12시", "0시")
    assert canonical_figures("24시간 운영") == "24시간 운영"  # a duration, not a clock time


def test_last_train_at_midnight_in_another_notation_is_not_a_substitution():
    q = "그 역의 막차는 몇 시인가요?"
    ref = "막차는 평일 밤 12시, 주말에는 밤 11시 30분입니다."
    assert min(accuracies("평일 24:00, 주말 23:30에 막차가 있습니다.", ref, q)) >= 4
    assert max(accuracies("평일 22:00, 주말 23:30에 막차가 있습니다.", ref, q)) <= 2


def test_refusal_in_contracted_english_or_colloquial_korean_is_a_refusal():
    q = "그 요금제의 해지 위약금은 얼마인가요?"
    none = "제공된 문서에는 해지 위약금에 대한 정보가 없습니다."
    has = "해지 위약금은 남은 약정 개월 수에 월 5,000원을 곱한 금액입니다."
    for refusal in (
        "I couldn't find the penalty in these documents, so I can't tell you the amount.",
        "문서에는 위약금 금액이 안 나와 있어서 고객센터에 확인해 보셔야 합니다.",
    ):
        assert accuracies(refusal, none, q) == [5, 5, 5], refusal
        assert max(accuracies(refusal, has, q)) <= 1, refusal


def test_answer_that_leaves_a_figure_out_but_changes_none_is_not_wrong():
    q = "졸업하려면 몇 학점을 들어야 하나요?"
    ref = "2020학번 이후 입학생은 졸업 학점이 140학점이며, 그중 전공 60학점 이상을 채워야 합니다."
    # says two of the reference's figures in its own words, leaves the cohort year out
    assert (
        min(
            accuracies("140학점을 들어야 졸업할 수 있고, 그 안에 전공이 적어도 60학점은 있어야 해요.", ref, q)
        )
        >= 4
    )
    # the same answer with a changed figure is still wrong
    assert (
        max(
            accuracies("150학점을 들어야 졸업할 수 있고, 그 안에 전공이 적어도 60학점은 있어야 해요.", ref, q)
        )
        <= 2
    )


def test_keyword_list_of_the_question_is_scored_irrelevant():
    q = "택배 반품 신청은 어디서 하나요?"
    ref = "반품 신청은 주문 내역 화면의 '반품 요청' 버튼으로 할 수 있습니다."
    item = {
        "question": q,
        "generated_answer": "택배 반품 신청 반품 신청 방법 택배 반품 장소 안내",
        "reference_answer": ref,
    }
    for judge in offline_jury(fitted=False):
        v = judge.verdict(RAG, item)
        assert (v["accuracy"], v["completeness"]) == (1, 1) and v["relevance"] <= 2, v


def test_per_use_charge_in_other_words_is_the_same_figure():
    assert canonical_figures("건당 2,000원") == canonical_figures("한 번에 2,000원")
    assert canonical_figures("회당 2,000원") == canonical_figures("한 번에 2,000원")
    assert canonical_figures("협회당 가입비") == "협회당 가입비"  # inside a word it is no figure


def test_upper_bound_turned_into_a_lower_bound_is_a_reversed_condition():
    q = "전기요금 감면은 누가 받을 수 있나요?"
    ref = "월 사용량 200kWh 이하 가구는 요금의 10%를 감면받을 수 있고, 신청은 한전 홈페이지에서 합니다."
    assert max(accuracies("월 사용량 200kWh 이상인 가구만 감면받을 수 있습니다.", ref, q)) <= 2
    assert min(accuracies("월 사용량 200kWh 이하인 가구는 10% 감면받을 수 있습니다.", ref, q)) >= 4


def test_clock_hours_in_native_numerals_are_figures():
    # from reading v13 by kind: "일곱 시 반", "한 시간 반" are the 7시 30분 and 90분 they say
    assert _same("한 시간 반", "90분") and _same("열두 시에", "12시") and _same("아홉 시", "9시")
    half = quantities(canonical_figures("일곱 시 반"))
    assert [(q.value, q.unit) for q in half] == [(7.0, "시"), (30.0, "분")]
    # near misses: words that begin with 시 after a numeral, and 시간 as a duration
    assert quantities(canonical_figures("한 시작")) == () and _same("두 시간", "2시간")
    # a bare native hour is read as the reference's afternoon hour
    found = accuracies(
        "네 시 전에만 맡기시면 그날 바로 나가요.",
        "오후 4시까지 접수하면 당일 발송됩니다.",
        "오늘 보내면 언제 나가요?",
    )
    assert min(found) >= 4.0


def test_a_hedge_in_its_conjugated_form_is_a_hedge():
    answer = "노쇼가 잦으면 예약금을 받을 수도 있는데, 몇 번부터인지는 정확히 말씀드리기 어려워요."
    reference = "노쇼가 2회 있으면 이후 예약 때 예약금 10,000원을 받습니다."
    assert max(accuracies(answer, reference, "노쇼하면 불이익 있어요?")) <= 2.0


def test_counts_of_things_in_native_numerals_are_figures():
    # from reading v14 by kind: "세 곡", "두 잔", "한 켤레" are counts; "한 잔도" (not even one) and
    # "네 장점" are not
    assert canonical_figures("천 원이면 세 곡이요.") == "1000원이면 3곡이요."
    assert canonical_figures("두 잔까지") == "2잔까지" and canonical_figures("한 켤레에") == "1켤레에"
    assert (
        canonical_figures("한 잔도 안 돼요") == "한 잔도 안 돼요"
        and canonical_figures("네 장점은") == "네 장점은"
    )


def test_a_rule_quoted_then_set_aside_and_a_hedge_with_kin_are_caught():
    reference = "구성품을 잃어버리면 해당 게임 정가의 50%를 배상해야 합니다."
    quoted = "안내문에는 정가의 50%를 배상한다고 적혀 있긴 한데, 실제로 그렇게 받지는 않아요. 몇 장 값만 내시면 돼요."
    assert max(accuracies(quoted, reference, "카드 잃어버리면 어떻게 돼요?")) <= 1.0
    hedged = "간단한 건 괜찮을 수도 있는데, 확실하게 말씀드리긴 어렵네요."
    assert max(accuracies(hedged, "외부 음식은 반입할 수 없습니다.", "음식 가져가도 돼요?")) <= 2.0
    # near miss: the rule quoted and kept
    kept = "안내문에 적힌 대로 정가의 50%를 배상하셔야 해요."
    assert min(accuracies(kept, reference, "카드 잃어버리면 어떻게 돼요?")) >= 4.0


def test_a_dash_parts_two_clauses():
    from assay.judges.offline import text as tx

    assert tx.segments("no table charge for him — kids under five get in free") == [
        "no table charge for him",
        "kids under five get in free",
    ]
