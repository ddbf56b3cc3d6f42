"""General causes found reading the v7 rag rows by kind (the sentences here are new, from other
domains and wordings than the v7 rows, and each cause has a near miss the fix must not catch):
a negation that only places the case in a reason clause ("회원이 아니라서 …") read as the claim's
sign; "…뿐 아니라" read as a negation."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.metrics.figure_forms import canonical_figures


def _rules(answer: str, reference: str, question: str) -> set[str]:
    return {f.rule for f in cl.rag_findings(answer, reference, question)}


# -- a negation that places the case, inside a reason clause, is a premise ----------------------


def test_a_negated_category_in_a_reason_clause_is_a_premise():
    assert cl.polarity("회원이 아니라서 입장료 5,000원을 내셔야 해요") == 0
    assert cl.polarity("2만 원이 안 되니 포장비 500원이 추가돼요") == 0
    q = "학생 아니면 요금 더 내요?"
    ref = "학생 외 일반 관람객은 입장료 12,000원을 냅니다."
    assert "polarity" not in _rules("네, 학생이 아니시라서 입장료 12,000원을 내셔야 해요.", ref, q)


def test_a_negated_claim_in_a_reason_clause_still_denies():
    # near miss: the reason itself is the claim ("접수가 안 되니"), not a case it places
    assert cl.polarity("택배 반품은 접수가 안 되니 매장으로 가져오세요") == 1
    ref = "택배 반품은 수령 후 7일 이내에 접수할 수 있습니다."
    assert "polarity" in _rules("택배 반품은 접수가 안 되니 매장으로 가져오세요.", ref, "택배로 반품 접수 돼요?")


def test_not_only_is_no_negation():
    assert cl.polarity("현금뿐 아니라 카드로도 결제할 수 있습니다") == 0
    # near miss: "X이 아니라 Y" (not X but Y) still negates X
    assert cl.polarity("현금이 아니라 카드로 결제해야 합니다") == 1


# -- a closed list ("A와 B만") and an answer that grants a member outside it ---------------------


def test_a_member_outside_a_closed_list_is_caught():
    ref = "주차 등록은 입주민과 관리사무소 직원만 할 수 있습니다."
    found = [f for f in cl.rag_findings("네, 방문객도 주차 등록하실 수 있어요.", ref, "방문객도 주차 등록 돼요?") if f.rule == "closed-list"]
    assert found and "방문객도" in found[0].evidence and found[0].cap == 1
    # near miss: saying the list back, or denying the outsider, agrees with it
    q = "방문객도 주차 등록 돼요?"
    assert not _rules("아니요, 방문객은 주차 등록이 안 되고 입주민과 관리사무소 직원만 할 수 있어요.", ref, q)
    assert "closed-list" not in _rules("입주민이나 관리사무소 직원이시면 주차 등록하실 수 있어요.", ref, q)


def test_a_closed_channel_widened_is_caught():
    ref = "건강검진 예약 변경은 전화로만 받습니다."
    q = "예약 변경 어떻게 해요?"
    assert "closed-list" in _rules("전화뿐 아니라 홈페이지에서도 예약 변경이 가능합니다.", ref, q)
    assert "closed-list" in _rules("예약 변경은 홈페이지로 하시면 됩니다.", ref, q)
    # near miss: the listed channel itself
    assert "closed-list" not in _rules("예약 변경은 전화로 하시면 됩니다.", ref, q)


def test_everyone_against_a_closed_list_is_caught():
    ref = "야간 열람실은 재학생만 이용할 수 있습니다."
    q = "졸업생도 야간 열람실 써요?"
    assert "closed-list" in _rules("졸업생을 포함해 누구나 야간 열람실을 이용할 수 있어요.", ref, q)
    # near miss: another thing said with 도 beside the list is no new member
    assert "closed-list" not in _rules("야간 열람실은 재학생만 이용할 수 있고, 학생증도 챙기셔야 해요.", ref, q)
    # near miss: "3만 원만" is an amount, not a list
    assert not cl._closed_lists("월 3만 원만 내시면 됩니다")


# -- "even if X" against "if X" --------------------------------------------------------------------


def test_even_if_with_another_consequence_is_caught():
    ref = "예약 시간에 10분 이상 늦으면 다음 대기자에게 순서가 넘어갑니다."
    answer = "예약 시간에 10분 이상 늦어도 순서는 그대로 유지되니 천천히 오세요."
    found = [f for f in cl.rag_findings(answer, ref, "늦으면 어떻게 돼요?") if f.rule == "even-if"]
    assert found and found[0].cap == 2
    # near miss: the same consequence said after "even if" of another condition, or after "if"
    assert "even-if" not in _rules("예약 시간에 10분 이상 늦으시면 다음 분께 순서가 넘어가요.", ref, "늦으면 어떻게 돼요?")
    assert "even-if" not in _rules("비가 와도 예약은 그대로예요. 10분 이상 늦으면 순서가 넘어가요.", ref, "늦으면 어떻게 돼요?")


def test_even_if_charging_what_the_reference_waives_is_caught():
    ref = "입원 확인서를 내면 취소 수수료 없이 전액 환불됩니다."
    answer = "입원 확인서를 내셔도 취소 수수료 5,000원은 빠지고 나머지가 환불됩니다."
    assert "even-if" in _rules(answer, ref, "입원해서 못 가면 환불 돼요?")
    # near miss: "even if" that keeps the waiver agrees
    agree = "입원 확인서만 내셔도 수수료 없이 전액 환불돼요."
    assert "even-if" not in _rules(agree, ref, "입원해서 못 가면 환불 돼요?")


# -- who pays ------------------------------------------------------------------------------------


def test_another_payer_is_caught():
    ref = "출장 수리비 3만 원은 고객이 부담합니다."
    found = [f for f in cl.rag_findings("출장 수리비 3만 원은 서비스센터가 부담하니 따로 안 내셔도 돼요.", ref, "출장비 누가 내요?") if f.rule == "payer-swap"]
    assert found and "서비스센터" in found[0].evidence and found[0].cap == 1
    # near miss: the same payer with an honorific, or no payer named
    assert "payer-swap" not in _rules("출장 수리비 3만 원은 고객님께서 부담하셔야 해요.", ref, "출장비 누가 내요?")
    assert "payer-swap" not in _rules("출장 수리비는 3만 원이에요.", ref, "출장비 누가 내요?")
    assert cl._payers("설치비는 집주인 측에서 부담합니다") == ("집주인",)


# -- one subject given another subject's figure ---------------------------------------------------


def test_a_subject_given_the_neighbouring_subjects_figure_is_caught():
    ref = "성인은 입장료 12,000원, 청소년은 8,000원입니다."
    q = "성인이랑 청소년 입장료 얼마예요?"
    found = [f for f in cl.rag_findings("성인은 12,000원이고 청소년도 12,000원이에요.", ref, q) if f.rule == "misplaced-figure"]
    # one of two asked figures right: accuracy 2, with the subject's own figure in the evidence
    assert found and found[0].cap == 2 and "8,000원" in found[0].evidence
    # near miss: each subject with its own figure
    assert not _rules("성인 12,000원, 청소년은 8,000원이에요.", ref, q)


def test_a_parenthesis_with_its_own_topic_is_another_subject():
    ref = "택배 접수는 평일 18시까지입니다(토요일은 13시까지)."
    q = "토요일 택배 접수 몇 시까지예요?"
    found = [f for f in cl.rag_findings("토요일은 18시까지 접수돼요.", ref, q) if f.rule == "misplaced-figure"]
    assert found and found[0].cap == 1
    assert not _rules("토요일은 오후 1시까지 접수돼요.", ref, q)
    # near miss: a parenthesis without a topic breaks its figure down, it names no subject
    ref2 = "1박 요금은 90,000원(객실 70,000원+조식 20,000원)입니다."
    assert not _rules("객실 7만 원에 조식 2만 원 더해서 1박 9만 원이에요.", ref2, "1박 얼마예요?")


# -- a figure the reference concedes before its answer ---------------------------------------------


def test_a_conceded_figure_given_as_the_answer_is_a_substitution():
    ref = "정가로는 48,000원이지만 회원 할인 상한이 적용되어 결제액은 40,000원입니다."
    q = "회원이면 얼마 결제돼요?"
    found = [f for f in cl.rag_findings("회원이시면 48,000원 결제하시면 됩니다.", ref, q) if f.rule == "figure-substitution"]
    assert found and "40,000원" in found[0].evidence
    # near miss: the answer that says both, and the one that gives the reference's answer
    assert "figure-substitution" not in _rules("정가는 48,000원이지만 할인 상한 덕분에 40,000원만 내시면 돼요.", ref, q)
    assert "figure-substitution" not in _rules("회원이시면 4만 원 결제돼요.", ref, q)


# -- a quoted rule set aside; the documents said to be silent on the topic --------------------------


def test_a_quoted_rule_set_aside_is_a_debunk():
    ref = "주차는 2시간까지 무료입니다."
    assert cl.debunks('"주차는 2시간 무료"라고 적혀 있지만 실제로는 1시간만 무료예요.', ref)
    assert cl.debunks("'2시간 무료'라고 안내돼 있지만 실제로는 1시간만 돼요.", ref)
    # near miss: reporting the rule without setting it aside
    assert not cl.debunks("주차는 2시간 무료라고 안내돼 있어요.", ref)


def test_documents_silent_on_the_topic_is_a_refusal():
    ref = "주차장 이용 안내에는 발렛 요금이 나와 있지 않습니다."
    assert cl.refuses("자료에는 발렛 요금 내용이 안 나와 있어요.", ref, "발렛 얼마예요?")
    assert cl.refuses("안내문에 발렛 얘기는 없네요.", ref, "발렛 얼마예요?")
    # near miss: a fact the documents state ("there is none") is no refusal
    assert not cl.refuses("문서에 따르면 발렛 요금은 없어요.", ref, "발렛 얼마예요?")


# -- the main claim hedged -------------------------------------------------------------------------


def test_a_hedged_claim_is_capped_at_two():
    ref = "정기 점검일은 매월 셋째 주 화요일입니다."
    q = "정기 점검 언제 해요?"
    found = [f for f in cl.rag_findings("아마 셋째 주 화요일일 텐데, 확실하지는 않아요.", ref, q) if f.rule == "hedged"]
    assert found and found[0].cap == 2
    assert "hedged" in _rules("It might be the third Tuesday, but I'm not sure.", ref, q)
    # near miss: politeness ("것 같아요") and a stated possibility are no hedge
    assert "hedged" not in _rules("매월 셋째 주 화요일이에요. 점검이 길어질 수도 있으니 미리 확인하시는 게 좋을 것 같아요.", ref, q)


# -- Sino-Korean amounts with tens before 만 ---------------------------------------------------------


def test_sino_korean_amounts_with_tens_are_figures():
    assert canonical_figures("월세는 삼십이만 오천 원이에요") == "월세는 325000원이에요"
    assert canonical_figures("이십만 원") == "200000원"
    assert canonical_figures("팔천 오백 원") == "8500원"
    # near miss: a bare digit word before 원 with no unit stays a word ("이 원" is no 2원)
    assert canonical_figures("이 원룸은 넓어요") == "이 원룸은 넓어요"
    assert canonical_figures("사과 이 원") == "사과 이 원"


# -- a reference's conclusion after -므로 is a claim of its own ----------------------------------------


def test_the_conclusion_after_a_reason_is_compared_on_its_own():
    ref = "접종 후 30분 동안 이상 반응이 없어야 귀가할 수 있으므로 지금은 귀가할 수 없습니다."
    q = "주사 맞고 10분 지났는데 집에 가도 돼요?"
    assert "polarity" in _rules("별 반응 없으면 지금 귀가해도 괜찮아요.", ref, q)
    # near miss: the answer that gives the reason and the same conclusion
    agree = "접종 후 30분은 지켜봐야 해서 지금은 아직 귀가하기 어려워요."
    assert "polarity" not in _rules(agree, ref, q)


# -- a deduction ignored ------------------------------------------------------------------------------


def test_the_whole_paid_out_where_the_reference_deducts_is_caught():
    ref = "출발 7일 전까지 취소하면 예약금 3만 원을 뺀 나머지를 환불합니다."
    q = "출발 열흘 전에 취소하면 얼마 돌려받아요?"
    found = [f for f in cl.rag_findings("열흘 전이면 낸 돈 전부 환불돼요.", ref, q) if f.rule == "deduction-ignored"]
    assert found and found[0].cap == 1 and "예약금" in found[0].evidence
    # near miss: naming the deduction; and a reference that pays the whole in another case
    assert "deduction-ignored" not in _rules("예약금 3만 원만 빼고 전부 환불돼요.", ref, q)
    ref2 = "개강 전에는 전액 환불되고, 개강 후에는 수강료의 10%를 공제하고 환불됩니다."
    assert "deduction-ignored" not in _rules("아직 개강 전이면 전액 환불받으세요.", ref2, "개강 전 환불 얼마예요?")


# -- a figure about something no known figure is about -----------------------------------------------


def test_a_figure_on_another_topic_is_unverifiable_not_wrong():
    known = "재발급은 신분증을 지참해 구청 민원실에서 신청합니다. 분실 신고 후 14일 이내에 신청하세요."
    answer = "신분증을 들고 구청 민원실에서 재발급을 신청하세요. 새 카드 수령까지는 보통 3일 걸려요."
    # "수령 3일" is about delivery, which no day figure of the documents is about: not checked
    assert "3일" not in cl.checkable_figures(answer, known)
    # near miss: a wrong span on the documents' own topic stays checkable
    wrong = "분실 신고 후 30일 이내에 재발급을 신청하세요."
    assert cl.checkable_figures(wrong, known) == wrong
