"""General causes found reading the v5 rows by kind (the sentences here are new, from other
domains and wordings than the v5 rows): negations inside a condition behind honorific and tense
markers, 안 as the noun inside, predicates that deny without a negation (제한되다, 어렵다), a
bound read as an approximation, a sibling clause about another subject read as a condition, a
yes/no question answered from a clause about another subject, figures swapped between a noun
and its negated form (회원/비회원), 금지 beside 가능, an answer setting the documented rule aside,
the same day against the next day, a charge per one period against another, months counted as
"3달", English answers that leave part out, and completeness under a reversed claim. Each cause
has a near miss the fix must not catch."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import quantities, same_quantity
from tests.support.offline_rag import accuracies, verdicts


def _rules(answer: str, reference: str, question: str) -> set[str]:
    return {f.rule for f in cl.rag_findings(answer, reference, question)}


# -- polarity: conditions behind honorific/tense markers, 안 as "inside", denying predicates --


def test_a_negation_in_a_condition_behind_honorific_and_tense_markers_is_a_condition():
    assert cl.polarity("쿠폰을 아직 사용하지 않으셨다면 전액 돌려드립니다") == 0
    assert cl.polarity("서류를 제출하지 않았다면 다시 접수해 주세요") == 0
    # near miss: the same markers in a main clause still deny
    assert cl.polarity("쿠폰을 아직 사용하지 않으셨습니다") == 1


def test_an_unused_ticket_paraphrase_is_not_a_polarity_reversal():
    q = "공연 티켓 아직 안 썼는데 돌려받을 수 있나요?"
    ref = "입장 전이면 공연 전날까지 전액 환불됩니다."
    answer = "아직 입장하지 않으셨다면 공연 전날까지는 전액 돌려받으실 수 있어요."
    assert "polarity" not in _rules(answer, ref, q)


def test_an_as_the_noun_inside_denies_nothing():
    # Kiwi reads "기간 안이어도" here as the adverb 안 and 잇다
    assert cl.polarity("주차 기간 안이어도 견인됩니다") == 0
    assert cl.polarity("할인 기간 안이어도 쿠폰은 중복 적용됩니다") == 0
    assert cl.polarity("신청하신 지 3일 안이면 취소됩니다") == 0
    # near miss: 안 before a verb is the negation, with or without a particle before it
    assert cl.polarity("주말에는 배송 안 돼요") == 1
    assert cl.polarity("현금 결제는 안 됩니다") == 1
    assert cl.polarity("재고가 1개 안 남았어요") == 1


def test_predicates_that_deny_without_a_negation_carry_the_negative_sign():
    assert cl.polarity("미납 시 도서 대출이 제한됩니다") == 1
    assert cl.polarity("당일 환불은 어렵습니다") == 1
    assert cl.polarity("점검 중에는 서비스가 중단됩니다") == 1
    # near misses: the noun names a thing, a modifier or a negated denial is no denial
    assert cl.polarity("이용 제한 시간은 2시간입니다") == 0
    assert cl.polarity("대출이 제한되지 않습니다") == 0
    assert cl.polarity("어려운 경우 상담원이 도와드립니다") == 0


def test_cannot_said_as_a_restriction_agrees_with_cannot_said_with_mot():
    q = "연체하면 어떻게 돼요?"
    ref = "반납이 늦으면 연체 일수만큼 대출이 제한됩니다."
    right = "반납이 늦으면 늦은 날수만큼 대출을 못 하게 돼요."
    wrong = "반납이 늦어도 대출은 계속 가능합니다."
    assert "polarity" not in _rules(right, ref, q)
    assert min(accuracies(right, ref, q)) >= 3
    assert max(accuracies(wrong, ref, q)) <= 2


# -- figures: a bound is exact; 3달 is three months -----------------------------------------


def test_a_bound_is_exact_not_approximate():
    (bound,) = quantities("키 140cm 이상")  # no unit: a bare figure
    (other,) = quantities("키 137cm")
    assert not bound.approx
    assert not same_quantity(quantities("45kg 이상")[0], quantities("47kg")[0])
    # near miss: 약/정도 still make a figure approximate
    assert same_quantity(quantities("약 45kg")[0], quantities("46kg")[0])
    assert not same_quantity(bound, other)


def test_a_wrong_threshold_beside_the_questions_figure_is_a_substitution():
    q = "짐이 21kg인데 추가 요금 없이 부칠 수 있어요?"
    ref = "무료 위탁 수하물은 20kg 이하이므로 21kg이면 추가 요금이 붙습니다."
    wrong = "무료 위탁은 23kg 이하라서 21kg이면 추가 요금 없이 부칠 수 있어요."
    right = "무료로 부칠 수 있는 건 20kg 이하라 21kg이면 추가 요금이 붙어요."
    assert "figure-substitution" in _rules(wrong, ref, q)
    assert "figure-substitution" not in _rules(right, ref, q)


def test_months_counted_with_digits_and_dal():
    assert canonical_figures("가입한 지 3달 됐어요") == "가입한 지 3개월 됐어요"
    assert canonical_figures("6달간 유지") == "6개월간 유지"
    # near misses: dollars and 달성 are no months
    assert canonical_figures("10달러") == "10달러"
    assert canonical_figures("목표 3달성") == "목표 3달성"


# -- clauses about another subject --------------------------------------------------------


def test_a_sibling_clause_with_its_own_topic_is_no_condition_of_its_neighbour():
    q = "도서관 공휴일에도 열어요?"
    ref = "공휴일은 10:00~17:00 운영하며 매주 월요일은 휴관입니다."
    answer = "네, 공휴일에는 오전 10시부터 오후 5시까지 열어요. 월요일은 문을 닫아요."
    rules = _rules(answer, ref, q)
    assert "reversed-condition" not in rules
    assert "yes-no" not in rules
    assert min(accuracies(answer, ref, q)) >= 4


def test_a_condition_without_a_topic_of_its_own_still_scopes_over_the_segment():
    ref = "출국 전에 신청하고 여권 사본을 제출해야 합니다."
    clauses = cl._clauses(ref)
    assert len(clauses) == 2 and "before" in clauses[1].wide


def test_a_yes_no_question_is_answered_by_the_clause_about_its_own_words():
    q = "수영장 토요일에도 열어요?"
    ref = "토요일은 오전만 운영하며 일요일은 휴관입니다."
    assert cl.implied_answer(q, ref) is None
    # near miss: a reference whose only matching clause is about the question's day still
    # implies the answer
    implied = cl.implied_answer("수영장 일요일에도 열어요?", "일요일은 휴관입니다.")
    assert implied is not None and implied[0] == "no"


# -- figures swapped between a noun and its negated form ----------------------------------


def test_a_negating_prefix_makes_another_subject():
    assert "비회원" in cl.claim_tokens("비회원은 1,000원입니다")
    assert "member" not in cl.claim_tokens("비회원은 1,000원입니다")
    assert "member" in cl.claim_tokens("회원은 500원, 비회원은 1,000원입니다")


def test_figures_swapped_between_members_and_non_members_are_caught():
    q = "주차 요금 회원이랑 비회원 얼마예요?"
    ref = "주차장은 회원 시간당 1,000원, 비회원 2,500원으로 1,500원 차이입니다."
    wrong = "주차장은 비회원이 시간당 1,000원, 회원이 2,500원이라 1,500원 차이입니다."
    right = "회원은 시간당 1,000원이고 비회원은 2,500원이에요. 차이는 1,500원입니다."
    assert "figure-swap" in _rules(wrong, ref, q)
    assert "figure-swap" not in _rules(right, ref, q)


# -- 금지 against 가능 ------------------------------------------------------------------------


def test_allowed_against_prohibited_is_a_polarity_reversal():
    # one shared word (흡연) and the modality: 가능 and 금지 must be one concept to align
    q = "캠핑장에서 담배 피워도 돼요?"
    ref = "흡연은 금지되며 적발 시 퇴장 조치됩니다."
    wrong = "흡연은 가능합니다. 다만 적발되면 퇴장될 수 있어요."
    right = "흡연은 금지예요. 걸리면 퇴장당합니다."
    assert "polarity" in _rules(wrong, ref, q)
    assert "polarity" not in _rules(right, ref, q)


# -- an answer that sets the documented rule aside ------------------------------------------


def test_an_answer_calling_the_documented_rule_outdated_is_a_debunk():
    ref = "분실 시 재발급 수수료는 5,000원입니다."
    wrong = "재발급 수수료가 5,000원이라고 나와 있지만, 실제로는 무료로 해 드려요."
    outdated = "재발급 수수료 5,000원은 예전 기준이고 지금은 받지 않습니다."
    assert cl.debunks(wrong, ref)
    assert cl.debunks(outdated, ref)
    assert cl.debunks("The guide says the fee is 5,000 won, but in practice it is waived.", ref)
    # near misses: reporting the documents, or "실제로" on its own, sets nothing aside
    assert not cl.debunks("안내문에 따르면 재발급 수수료는 5,000원으로 나와 있습니다.", ref)
    assert not cl.debunks("실제로 재발급에는 5,000원이 듭니다.", ref)


# -- same day / next day --------------------------------------------------------------------


def test_the_same_day_for_the_next_day_is_a_reversed_condition():
    q = "예방접종 맞고 언제부터 목욕해도 돼요?"
    ref = "예방접종을 맞은 다음 날부터 목욕할 수 있습니다."
    wrong = "예방접종을 맞은 당일부터 바로 목욕하셔도 됩니다."
    right = "접종한 다음 날부터 목욕하시면 됩니다."
    assert "reversed-condition" in _rules(wrong, ref, q)
    assert not _rules(right, ref, q) & {"reversed-condition", "polarity"}


def test_the_end_of_an_overnight_span_is_no_next_day_condition():
    assert "next_day" not in cl.claim_tokens("심야 요금은 22시~다음 날 6시에 적용됩니다")
    assert "next_day" in cl.claim_tokens("신청한 다음 날 처리됩니다")


# -- a charge per one period against another --------------------------------------------------


def test_a_charge_per_week_for_a_charge_per_day_is_caught():
    q = "사물함 기간 넘기면 어떻게 돼요?"
    ref = "계약 기간이 끝나면 하루 1,000원의 추가 요금이 붙습니다."
    wrong = "계약 기간이 끝나면 일주일마다 1,000원씩 추가 요금이 붙어요."
    assert "rate-period" in _rules(wrong, ref, q)
    assert max(accuracies(wrong, ref, q)) <= 1


def test_the_same_charge_per_the_same_period_in_other_words_is_no_finding():
    ref = "계약 기간이 끝나면 하루 1,000원의 추가 요금이 붙습니다."
    assert cl.rate_period_findings("기간이 끝나면 매일 1,000원씩 더 내셔야 해요.", ref) == []
    assert cl.rate_period_findings("After the term ends it costs 1,000 won per day.", ref) == []
    # a date is no period: "3월 1일 1,000원" names a day
    assert cl.rate_period_findings("3월 1일 1,000원 할인이 있어요.", ref) == []


# -- English answers ------------------------------------------------------------------------


def test_an_english_answer_that_leaves_part_out_is_incomplete_not_wrong():
    q = "When can we check in, and when do we have to leave?"
    ref = "입실은 15:00부터이고 퇴실은 다음 날 11:00까지입니다."
    partial = "Check-in starts at 3 p.m."
    wrong = "Check-in starts at 2 p.m."
    for v in verdicts(partial, ref, q):
        assert v["accuracy"] >= 4 and v["completeness"] <= 3
    assert max(accuracies(wrong, ref, q)) <= 2


def test_warranty_words_are_compared_across_languages():
    assert {"warranty", "receipt", "purchase"} <= cl.claim_tokens("Bring the receipt; the warranty runs from the purchase date.")
    assert {"warranty", "receipt", "purchase"} <= cl.claim_tokens("보증 기간은 구매일부터이며 영수증이 필요합니다")


# -- completeness under a reversed claim -------------------------------------------------------


def test_a_reversed_claim_does_not_cover_the_reference():
    q = "택배 보관함은 언제까지 무료예요?"
    ref = "택배 보관함은 도착 후 48시간까지 보관료가 없습니다."
    wrong = "택배 보관함은 도착 후 48시간 이내에는 보관료가 부과되니 바로 찾아가세요."
    for v in verdicts(wrong, ref, q):
        assert v["accuracy"] <= 2 and v["completeness"] <= 2
