"""Checks of the Korean claim rules (``assay/judges/offline/claims.py``) and the figure
reading they use, moved out of the rag rounds' test files unchanged."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.judges.offline.messages import render
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import quantities, same_quantity


def _one(text: str):
    found = quantities(text)
    assert len(found) == 1, found
    return found[0]


def _texts(text: str) -> list[str]:
    return [q.text for q in quantities(text)]


def _rules(answer: str, reference: str, question: str) -> set[str]:
    return {f.rule for f in cl.rag_findings(answer, reference, question)}


def _same(a: str, b: str) -> bool:
    qa, qb = quantities(canonical_figures(a)), quantities(canonical_figures(b))
    return len(qa) == len(qb) == 1 and same_quantity(qa[0], qb[0])


def test_emphasis_and_one_period_rates_are_no_figures():
    assert quantities("하루라도 늦게 내면 가산금이 붙습니다") == ()
    assert quantities("1분이라도 지나면 입장할 수 없어요") == ()
    assert quantities("한 해에 한 번 신청할 수 있어요") == ()
    assert [q.text for q in quantities("1년에 두 번까지")] == ["2회"]
    # a date stays a date
    assert _one("매월 1일에 자동이체됩니다").value == 1


def test_months_compare_with_days():
    assert same_quantity(_one("한 달"), _one("30일"))
    assert same_quantity(_one("두 달"), _one("60일"))
    assert same_quantity(_one("1년"), _one("365일"))
    assert not same_quantity(_one("한 달"), _one("10일"))


def test_last_day_of_the_month_is_a_date_that_differs_from_a_numbered_one():
    assert _one("월말까지").text == "말일"


def test_free_is_no_sign_against_a_clause_not_about_price():
    q = "자전거 보관소는 어떻게 이용하고 요금은 얼마예요?"
    ref = "자전거 보관소는 관리실에서 스티커를 받아 붙이면 입주민은 무료로 이용할 수 있습니다."
    partial = "관리실에서 스티커를 받아 자전거에 붙이시면 됩니다."
    assert not [f for f in cl.rag_findings(partial, ref, q) if f.rule == "polarity"]
    # a clause about price still carries the sign of 무료
    assert [f.rule for f in cl.rag_findings("입주민도 보관소 이용 요금을 내야 합니다.", ref, q)] != []


def test_two_subjects_figures_swapped_is_wrong():
    q = "성인 수영 강습과 어린이 수영 강습 한 달 수강료가 얼마예요?"
    ref = "성인반 수강료는 월 8만 원이고, 어린이반 수강료는 월 6만 원입니다."
    swapped = "성인반은 월 6만 원, 어린이반은 월 8만 원이에요."
    right = "어린이반이 월 6만 원이고, 성인반은 월 8만 원입니다."
    assert [f.rule for f in cl.rag_findings(swapped, ref, q)] == ["figure-swap"]
    assert not cl.swap_findings(right, ref)


def test_yes_no_question_answered_by_a_reference_clause_without_ne_or_aniyo():
    ref = "반려견 동반 입장은 가능하며, 단 대형견은 입장할 수 없습니다."
    q = "대형견도 데리고 입장할 수 있나요?"
    assert cl.implied_answer(q, ref)[0] == "no"
    # a clause that allows only part ("1장만") implies no yes/no answer
    assert cl.implied_answer("쿠폰 두 장을 같이 쓸 수 있어요?", "쿠폰은 한 주문에 1장만 쓸 수 있습니다.") is None
    closed = "평일은 10시부터 19시까지 열고, 공휴일은 휴관합니다."
    assert cl.implied_answer("공휴일에도 문 여나요?", closed)[0] == "no"
    # a content question is not a yes/no question
    assert cl.implied_answer("공휴일에는 몇 시에 문 여나요?", closed) is None


def test_english_counts_once_twice_and_counted_nouns():
    assert [q.text for q in quantities("You can renew it once for 10 days.")] == ["1회", "10일"]
    assert [q.text for q in quantities("Once you register, the card is mailed.")] == []
    assert [q.text for q in quantities("Each guest may bring two suitcases.")] == ["2"]
    assert [q.text for q in quantities("No one may enter after 9 p.m.")] == ["21시"]


def test_opening_no_is_the_yes_no_answer_not_a_negation_of_the_clause():
    q = "할인 쿠폰 두 장을 한 주문에 같이 쓸 수 있어요?"
    ref = "할인 쿠폰은 한 주문에 1장만 쓸 수 있습니다."
    answer = "No — only one coupon can be used per order."
    assert not [f for f in cl.rag_findings(answer, ref, q) if f.rule == "polarity"]


def test_a_figure_of_a_kind_the_reference_never_states_is_unverifiable_not_wrong():
    ref = "민원실은 평일 오전 9시부터 오후 6시까지 운영합니다."
    answer = "평일 9시부터 18시까지 열어요. 민원실은 건물 2층에 있어요."
    assert cl.checkable_figures(answer, ref) == "9시; 18시"  # kept apart: "4시간 5분" side by side would fuse
    # a clock time of the same kind that differs is still a contradiction


def test_counter_words_make_figures_of_different_kinds():
    floor, credits = _one("본관 3층"), _one("졸업 학점은 120학점")
    assert (floor.kind, credits.kind) == ("층", "학점")
    assert not same_quantity(_one("3층"), _one("3권"))
    assert same_quantity(_one("만 19살"), _one("19세"))  # one age, two counters
    q = "졸업하려면 몇 학점 필요해요?"
    ref = "졸업 학점은 120학점이며, 전공 50학점 이상이 필요합니다."
    # a floor number beside the credits is no substitute for the 50 credits
    assert not cl.figure_findings("120학점이면 돼요. 학사지원팀은 본관 3층에 있어요.", ref, q)
    assert cl.figure_findings("110학점이면 돼요.", ref, q)


def test_all_day_is_no_one_day_figure():
    assert quantities("하루 종일 접수합니다") == ()
    assert quantities("한 번도 연체하지 않았다면") == ()


def test_quoted_label_denies_nothing():
    assert cl.polarity("'교환 불가' 표시가 붙은 상품도 포장만 뜯지 않았다면") == cl.polarity("표시가 붙은 상품도")
    assert cl.polarity("교환 불가 상품입니다") == 1


def test_english_negation_in_the_main_clause_beside_a_when_clause_counts():
    assert cl.polarity("No fee is charged when you cancel within a day.") == 1
    assert cl.polarity("If you do not cancel, you pay the full price.") == 0


def test_right_answer_with_an_unverifiable_side_remark_gets_four():
    q = "여권 재발급 수수료가 얼마예요?"
    ref = "10년 복수여권 재발급 수수료는 5만 원입니다."
    answer = "10년짜리 복수여권 재발급하면 수수료는 5만 원이에요. 참고로 구청 민원실은 점심시간에 특히 붐비니 오전에 가시는 게 편해요."
    core, aside = cl.split_digression(answer, ref, q)
    assert aside.startswith("참고로")
    # a wrong figure in the part about the reference is still wrong


def test_prohibitive_mal_da_is_a_negation_but_not_after_a_verb_of_forgetting():
    assert cl.polarity("전시실에서는 사진을 찍지 마세요") == 1
    assert cl.polarity("젖은 손으로 콘센트를 만지지 말고 기다리세요") == 1
    # "오늘 말고 내일" names the other day; "잊지 마세요" is a reminder to do it
    assert cl.polarity("오늘 말고 내일 오세요") == 0
    assert cl.polarity("신분증 챙기는 것 잊지 마세요") == 0


def test_avoid_verbs_and_fasting_words_deny():
    assert cl.polarity("수영 직후에는 사우나 이용을 피해야 합니다") == 1
    assert cl.polarity("검사 전날 밤에는 음주를 삼가 주세요") == 1
    assert cl.polarity("운동 당일에는 카페인 섭취를 자제하세요") == 1
    assert cl.polarity("검사 12시간 전부터 금식합니다") == 1
    # avoiding it only in a condition states the condition, not the claim
    assert cl.polarity("붐비는 시간을 피하면 대기 없이 들어갈 수 있습니다") == 0


def test_a_prohibition_agrees_with_a_reference_that_says_no_in_other_words():
    q = "분리수거는 언제 내놓아요?"
    ref = "월요일부터 목요일 밤 9시 이후에 배출하며, 금요일과 공휴일에는 수거하지 않습니다."
    answer = "월~목 21:00 이후에 내놓으시고, 금요일이랑 공휴일엔 내놓지 마세요."
    assert not any(f.rule == "polarity" for f in cl.rag_findings(answer, ref, q))


def test_clauses_joined_by_go_and_myeo_keep_their_own_sign():
    ref = "여권 사본은 본인이 직접 제출해야 하며 대리 제출은 받지 않습니다."
    signs = [c.sign for c in cl._clauses(ref)]
    assert signs == [0, 1]
    # an auxiliary verb after -고 is one predicate, not two clauses
    assert len(cl._clauses("서류를 검토하고 있습니다")) == 1


def test_an_answer_that_keeps_the_affirmative_half_of_a_joined_reference_is_not_a_denial():
    q = "세탁 맡긴 옷에 넣어둔 물건 잃어버리면 보상돼요?"
    ref = "주머니 속 소지품은 고객이 직접 확인해야 하며 분실 시 보상하지 않습니다."
    answer = "주머니 속 소지품은 고객님이 직접 확인하셔야 하며, 분실 시 보상하지 않습니다."
    assert not any(f.rule == "polarity" for f in cl.rag_findings(answer, ref, q))


def test_a_step_sequence_split_at_go_is_still_one_condition_scope():
    # "끄고 … 켭니다": the answer's "끈 뒤" must not read as a swap of the later "켭니다"
    q = "공유기가 멈추면 어떻게 해요?"
    ref = "공유기 전원을 끄고 30초 기다린 다음 전원을 다시 켭니다."
    answer = "전원을 끈 뒤 30초 정도 기다렸다가, 다시 전원을 켜면 됩니다."
    assert not any(f.rule == "reversed-condition" for f in cl.rag_findings(answer, ref, q))


def test_figures_swapped_between_two_branches_named_by_the_answer():
    q = "밤늦게 문 여는 약국이 어디예요?"
    ref = "중앙점은 밤 11시까지 운영합니다. 역전점은 오후 8시에 문을 닫습니다."
    swapped = "역전점이 밤 11시까지 하고, 중앙점은 오후 8시에 닫아요."
    right = "중앙점이 밤 11시까지 하고, 역전점은 오후 8시에 닫아요."
    found = [f for f in cl.rag_findings(swapped, ref, q) if f.rule == "figure-swap"]
    assert found and "역전점" in render(found[0].evidence, "ko")
    assert not any(f.rule == "figure-swap" for f in cl.rag_findings(right, ref, q))


def test_figures_swapped_between_subjects_named_by_a_figure_of_another_kind():
    q = "수하물 보관료가 크기별로 어떻게 돼요?"
    ref = "20인치 이하 캐리어는 하루 3,000원, 28인치 이하 캐리어는 하루 5,000원입니다."
    swapped = "20인치 이하는 하루 5,000원, 28인치 이하는 하루 3,000원이에요."
    right = "28인치 이하는 하루 5,000원, 20인치 이하는 하루 3,000원이에요."
    assert any(f.rule == "figure-swap" for f in cl.rag_findings(swapped, ref, q))
    assert not any(f.rule == "figure-swap" for f in cl.rag_findings(right, ref, q))


def test_a_span_before_the_event_told_as_after_it_is_a_reversed_condition():
    q = "정기 점검 신청은 언제까지 해요?"
    ref = "점검 희망일 5일 전까지 홈페이지로 신청하면 점검 후 결과를 문자로 보내 드립니다."
    wrong = "점검 희망일이 지난 뒤 5일 이내에 홈페이지로 신청하시면 점검 후 결과를 문자로 받아요."
    right = "점검 희망일보다 5일 앞서 홈페이지로 신청하시면 돼요."
    found = [f for f in cl.rag_findings(wrong, ref, q) if f.rule == "reversed-condition"]
    assert found and "5일 후" in render(found[0].evidence, "ko") and "5일 전" in render(found[0].evidence, "ko")
    assert not any(f.rule == "reversed-condition" for f in cl.rag_findings(right, ref, q))


def test_spans_read_their_side_and_leave_dates_and_other_words_alone():
    sides = lambda text: [(q.text, side) for q, side, _ in cl._spans(text)]  # noqa: E731
    assert sides("발급일로부터 7일이 지난 후") == [("7일", "after")]
    assert sides("출발 2시간 전부터") == [("2시간", "before")]
    assert sides("2 weeks before the trip") == [("2주", "before")]
    assert sides("4월 5일 전까지") == []  # a date, not a span
    assert sides("3일 후회 없이") == []
    assert sides("3일 전부 환불") == []


def test_next_day_and_day_before_are_a_one_day_span_unless_they_date_a_clock_time():
    assert same_quantity(quantities("신청 이튿날 처리됩니다")[0], quantities("신청 하루 뒤 처리")[0])
    assert same_quantity(quantities("익일 발송")[0], quantities("다음 날 발송")[0])
    assert _texts("행사 전날 마감") == ["1일"]
    # "다음 날 6시" dates the clock time: no extra span
    assert _texts("밤 10시부터 다음 날 6시까지") == ["22시", "6시"]


def test_a_next_day_answer_for_a_three_day_wait_is_a_wrong_figure():
    q = "필기시험 떨어지면 언제 다시 볼 수 있어요?"
    ref = "불합격일로부터 7일이 지난 후 다시 응시할 수 있습니다."
    found = cl.rag_findings("떨어진 다음 날 바로 다시 보실 수 있어요.", ref, q)
    assert any(f.rule == "figure-substitution" for f in found)


def test_fractions_compare_as_percentages_in_korean_english_and_slashes():
    assert same_quantity(quantities("요금의 4분의 1")[0], quantities("요금의 25%")[0])
    assert same_quantity(quantities("보증금의 1/5을 공제")[0], quantities("one fifth of the deposit")[0])
    assert same_quantity(quantities("기간의 2/3가 지나면")[0], quantities("two-thirds of the term")[0])
    # a progress count is no fraction
    assert all(q.unit != "%" for q in quantities("3/5 완료"))


def test_sino_korean_amounts_before_won():
    assert _texts("입장료는 만 이천 원이에요") == ["12000원"]
    assert _texts("주차는 30분마다 오백 원씩") == ["30분", "500원"]
    assert _texts("인천 원정 경기") == []
    # 만 before an age is "full", not ten thousand
    assert [q.value for q in quantities("만 7세 이상")] == [7]


def test_counted_people_are_not_a_percentage_and_hangul_units_are_units():
    assert not same_quantity(quantities("15인 이상")[0], quantities("15% 할인")[0])
    assert same_quantity(quantities("15인 이상")[0], quantities("15명 이상")[0])
    assert same_quantity(quantities("a party of 15 or more")[0], quantities("15인 이상")[0])
    assert _texts("3킬로짜리 상자") == ["3kg"]
    assert same_quantity(quantities("2킬로미터")[0], quantities("2km")[0])


def test_an_english_answer_with_the_wrong_group_size_is_a_wrong_figure():
    q = "Do tour groups get a discount?"
    ref = "15인 이상 단체는 입장료의 10%를 할인받습니다."
    wrong = "Yes, groups of 8 or more get 10% off the admission fee."
    assert any(f.rule == "figure-substitution" for f in cl.rag_findings(wrong, ref, q))


def test_no_to_must_i_pay_agrees_with_a_reference_that_says_free():
    q = "방문객 주차장도 돈 내야 해요?"
    ref = "방문객 주차장은 무료입니다."
    assert cl.implied_answer(q, ref)[0] == "no"
    assert not any(f.rule == "yes-no" for f in cl.rag_findings("아니요, 방문객 주차장은 무료예요.", ref, q))
    assert any(f.rule == "yes-no" for f in cl.rag_findings("네, 주차비를 내셔야 해요.", ref, q))


def test_recycling_steps_compare_across_languages():
    q = "How do I recycle glass jars?"
    ref = "내용물을 비우고 물로 헹군 뒤 뚜껑과 라벨을 떼어 유리병 수거함에 배출합니다."
    answer = "Empty the jar, rinse it with water, take off the lid and the label, and put it out in the glass bin."
    share, size = cl.meaning_coverage(answer, ref, q, cross_language=True)
    assert size and share >= 0.6  # empty, rinse, lid, label, take off, put out


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
    assert "polarity" not in _rules(right, ref, q)


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


def test_a_sibling_clause_with_its_own_topic_is_no_condition_of_its_neighbour():
    q = "도서관 공휴일에도 열어요?"
    ref = "공휴일은 10:00~17:00 운영하며 매주 월요일은 휴관입니다."
    answer = "네, 공휴일에는 오전 10시부터 오후 5시까지 열어요. 월요일은 문을 닫아요."
    rules = _rules(answer, ref, q)
    assert "reversed-condition" not in rules
    assert "yes-no" not in rules


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


def test_allowed_against_prohibited_is_a_polarity_reversal():
    # one shared word (흡연) and the modality: 가능 and 금지 must be one concept to align
    q = "캠핑장에서 담배 피워도 돼요?"
    ref = "흡연은 금지되며 적발 시 퇴장 조치됩니다."
    wrong = "흡연은 가능합니다. 다만 적발되면 퇴장될 수 있어요."
    right = "흡연은 금지예요. 걸리면 퇴장당합니다."
    assert "polarity" in _rules(wrong, ref, q)
    assert "polarity" not in _rules(right, ref, q)


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


def test_a_charge_per_week_for_a_charge_per_day_is_caught():
    q = "사물함 기간 넘기면 어떻게 돼요?"
    ref = "계약 기간이 끝나면 하루 1,000원의 추가 요금이 붙습니다."
    wrong = "계약 기간이 끝나면 일주일마다 1,000원씩 추가 요금이 붙어요."
    assert "rate-period" in _rules(wrong, ref, q)


def test_the_same_charge_per_the_same_period_in_other_words_is_no_finding():
    ref = "계약 기간이 끝나면 하루 1,000원의 추가 요금이 붙습니다."
    assert cl.rate_period_findings("기간이 끝나면 매일 1,000원씩 더 내셔야 해요.", ref) == []
    assert cl.rate_period_findings("After the term ends it costs 1,000 won per day.", ref) == []
    # a date is no period: "3월 1일 1,000원" names a day
    assert cl.rate_period_findings("3월 1일 1,000원 할인이 있어요.", ref) == []


def test_warranty_words_are_compared_across_languages():
    assert {"warranty", "receipt", "purchase"} <= cl.claim_tokens("Bring the receipt; the warranty runs from the purchase date.")
    assert {"warranty", "receipt", "purchase"} <= cl.claim_tokens("보증 기간은 구매일부터이며 영수증이 필요합니다")


def test_inside_a_place_is_no_time_limit():
    assert "within" not in cl.claim_tokens("주차장 안에 차를 세운 뒤 매표소에서 정산하세요")
    assert "within" not in cl.claim_tokens("도서관 내에서는 음식을 먹을 수 없습니다")
    # near miss: after a span of time they still say within
    assert "within" in cl.claim_tokens("구매 후 14일 안에 반품하세요")
    assert "within" in cl.claim_tokens("한 달 내에 신청해야 합니다")


def test_parking_inside_a_lot_is_no_reversed_condition():
    q = "매표소가 닫혀 있으면 어떻게 해요?"
    ref = "매표소가 닫혔으면 주차장 안 정산기 옆에 차를 댄 뒤 앱에서 '무인 정산'을 누르면 됩니다."
    answer = "주차장 안에 정산기 옆에 차를 대고 앱에서 '무인 정산'을 고르시면 돼요."
    assert "reversed-condition" not in _rules(answer, ref, q)


def test_a_limit_turned_into_a_wait_is_a_reversed_condition():
    ref = "수령 후 14일 이내에 영수증과 함께 교환을 신청해야 합니다."
    answer = "물건을 받고 14일이 지난 뒤부터 영수증을 가지고 교환 신청하시면 됩니다."
    found = [f for f in cl.rag_findings(answer, ref, "교환은 언제까지 돼요?") if f.rule == "reversed-condition"]
    assert found and "14일이 지난" in render(found[0].evidence, "ko")
    assert "reversed-condition" in _rules("You can apply for the exchange after 14 days.", ref, "교환은 언제까지 돼요?")
    # near miss: the same limit in other words is no reversal
    assert "reversed-condition" not in _rules("받으신 뒤 2주 안에 영수증 들고 교환 신청하세요.", ref, "교환은 언제까지 돼요?")


def test_a_wait_said_as_a_wait_is_no_reversal():
    ref = "가입 후 30일이 지나야 보장이 시작됩니다."
    assert "reversed-condition" not in _rules("가입하고 30일 경과 후부터 보장돼요.", ref, "보장은 언제부터예요?")
    assert "reversed-condition" in _rules("가입하고 30일 이내에 보장이 시작돼요.", ref, "보장은 언제부터예요?")


def test_a_daily_rate_is_no_span_of_one_day():
    q = "자전거 대여 4일 하면 얼마예요?"
    ref = "대여료는 하루 8,000원이라 4일이면 32,000원입니다."
    answer = "하루 8,000원이라 4일이면 32,000원이에요. 최소 대여 기간은 2일이에요."
    assert "figure-substitution" not in _rules(answer, ref, q)


def test_a_real_one_day_beside_a_rate_still_counts():
    # near miss: "1일까지 무료" is a claim of its own, and another span for it is substituted
    ref = "주차는 1일까지 무료이며 이후 하루 5,000원입니다."
    answer = "주차는 3일까지 무료이고 그 뒤로 하루 5,000원이에요."
    assert "figure-substitution" in _rules(answer, ref, "주차 요금이 어떻게 돼요?")


def test_a_list_of_hours_after_one_afternoon_marker_is_in_the_afternoon():
    assert canonical_figures("셔틀은 오후 1시, 2시 반, 4시에 출발해요") == "셔틀은 13시, 14시 30분, 16시에 출발해요"
    # near miss: a list that falls back past midnight keeps its own hours; a span is no hour
    assert canonical_figures("밤 11시, 1시에 운행") == "23시, 1시에 운행"
    assert canonical_figures("오후 2시, 3시간 동안") == "14시, 3시간 동안"


def test_shuttle_times_in_twelve_hour_form_are_no_substitution():
    q = "오후 3시 셔틀 있어요?"
    ref = "셔틀은 13:00, 14:30, 16:00에 출발하여 15시 셔틀은 없습니다."
    answer = "셔틀은 오후 1시, 2시 반, 4시에 출발해서 3시 차는 없어요."
    assert "figure-substitution" not in _rules(answer, ref, q)
    assert "figure-substitution" in _rules("셔틀은 오후 1시, 2시 반, 5시에 출발해요.", ref, q)


def test_yes_to_going_in_against_no_entry_is_a_yes_no_reversal():
    q = "반려견 데리고 들어가도 돼요?"
    ref = "반려견은 입장할 수 없습니다."
    assert "yes-no" in _rules("네, 목줄만 하면 데리고 들어가실 수 있어요.", ref, q)
    # near miss: no, said in other words
    assert "yes-no" not in _rules("아니요, 반려견은 들어갈 수 없어요.", ref, q)


def test_a_bare_hour_takes_the_afternoon_the_question_states():
    known = "저녁 7시 공연도 있나요?\n공연은 18:00과 20:30에 시작하며 19시 공연은 없습니다."
    text, read = cl.clock_in_context("6시랑 8시 반에만 있고 7시 공연은 없어요.", known)
    assert "19시 공연" in text and "18시" in text and read
    # near miss: a morning hour the answer marks, and a span of hours, stay as written
    assert cl.clock_in_context("오전 7시 공연", known) == ("오전 7시 공연", ())
    assert cl.clock_in_context("공연은 2시간 해요", known)[1] == ()


def test_a_bare_hour_the_context_states_in_the_morning_stays():
    known = "몇 시에 열어요?\n평일 9시와 21시에 엽니다."
    assert cl.clock_in_context("9시에 열어요", known) == ("9시에 열어요", ())


def test_the_same_day_for_the_next_day_is_a_reversed_condition_after_a_cutoff():
    q = "밤 10시에 주문하면 언제 와요?"
    ref = "21시 이후 주문은 다음 날 발송됩니다."
    answer = "주문은 21시에 모아서 보내니까, 10시에 하셔도 그날 바로 출발해요."
    assert "reversed-condition" in _rules(answer, ref, q)
    # near miss: the answer names both days, or the question itself names the other day
    assert "reversed-condition" not in _rules("그날은 안 되고 다음 날 발송돼요.", ref, q)
    assert "reversed-condition" not in _rules(
        "당일 발송은 안 되고 다음 날 나가요.", ref, "밤 10시에 주문하면 당일 발송돼요?"
    )


def test_a_negation_joined_to_a_condition_is_a_condition():
    signs = [c.sign for c in cl._clauses("사물함에 짐을 빼지 않고 3일을 넘기면 관리실에서 처분합니다.")]
    assert signs[0] == 0
    # near miss: a clause with a topic of its own still denies
    signs = [c.sign for c in cl._clauses("수표는 받지 않고 현금으로 내면 할인됩니다.")]
    assert signs[0] == 1


def test_an_answer_about_another_case_is_no_reversal_of_a_negated_condition():
    q = "사물함 짐을 오래 두면 어떻게 돼요?"
    ref = "사물함에 짐을 빼지 않고 3일을 넘기면 관리실에서 처분합니다."
    answer = "3일을 넘기면 관리실에서 처분해요. 망가진 사물함은 같은 층 사물함에 짐을 옮겨 두고 관리실에 알리면 돼요."
    assert "polarity" not in _rules(answer, ref, q)


def test_figures_of_checkable_kinds_do_not_fuse_into_one_span():
    known = "기본 2시간이며 10분마다 300원이 붙습니다."
    text = cl.checkable_figures("2시간 넘으면 10분마다 300원, 3층 주차장은 무료예요.", known)
    assert "2시간 10분" not in text and "2시간" in text and "10분" in text


def test_the_case_past_a_bound_is_no_polarity_reversal():
    q = "아이 셋 데리고 가도 입장료 안 내요?"
    ref = "보호자 1명당 어린이 2명까지 무료로 입장할 수 있습니다."
    answer = "보호자 한 분당 아이 두 명까지는 무료예요. 세 번째 아이부터는 5,000원씩 내시면 돼요."
    assert "polarity" not in _rules(answer, ref, q)
    # near miss: the bounded case itself charged is still a reversal
    assert "polarity" in _rules("아이 두 명까지는 돈을 내야 입장할 수 있어요.", ref, q)


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


def test_a_member_outside_a_closed_list_is_caught():
    ref = "주차 등록은 입주민과 관리사무소 직원만 할 수 있습니다."
    found = [f for f in cl.rag_findings("네, 방문객도 주차 등록하실 수 있어요.", ref, "방문객도 주차 등록 돼요?") if f.rule == "closed-list"]
    assert found and "방문객도" in render(found[0].evidence, "ko") and found[0].cap == 1
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


def test_another_payer_is_caught():
    ref = "출장 수리비 3만 원은 고객이 부담합니다."
    found = [f for f in cl.rag_findings("출장 수리비 3만 원은 서비스센터가 부담하니 따로 안 내셔도 돼요.", ref, "출장비 누가 내요?") if f.rule == "payer-swap"]
    assert found and "서비스센터" in render(found[0].evidence, "ko") and found[0].cap == 1
    # near miss: the same payer with an honorific, or no payer named
    assert "payer-swap" not in _rules("출장 수리비 3만 원은 고객님께서 부담하셔야 해요.", ref, "출장비 누가 내요?")
    assert "payer-swap" not in _rules("출장 수리비는 3만 원이에요.", ref, "출장비 누가 내요?")
    assert cl._payers("설치비는 집주인 측에서 부담합니다") == ("집주인",)


def test_a_subject_given_the_neighbouring_subjects_figure_is_caught():
    ref = "성인은 입장료 12,000원, 청소년은 8,000원입니다."
    q = "성인이랑 청소년 입장료 얼마예요?"
    found = [f for f in cl.rag_findings("성인은 12,000원이고 청소년도 12,000원이에요.", ref, q) if f.rule == "misplaced-figure"]
    # one of two asked figures right: accuracy 2, with the subject's own figure in the evidence
    assert found and found[0].cap == 2 and "8,000원" in render(found[0].evidence, "ko")
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


def test_a_conceded_figure_given_as_the_answer_is_a_substitution():
    ref = "정가로는 48,000원이지만 회원 할인 상한이 적용되어 결제액은 40,000원입니다."
    q = "회원이면 얼마 결제돼요?"
    found = [f for f in cl.rag_findings("회원이시면 48,000원 결제하시면 됩니다.", ref, q) if f.rule == "figure-substitution"]
    assert found and "40,000원" in render(found[0].evidence, "ko")
    # near miss: the answer that says both, and the one that gives the reference's answer
    assert "figure-substitution" not in _rules("정가는 48,000원이지만 할인 상한 덕분에 40,000원만 내시면 돼요.", ref, q)
    assert "figure-substitution" not in _rules("회원이시면 4만 원 결제돼요.", ref, q)


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


def test_a_hedged_claim_is_capped_at_two():
    ref = "정기 점검일은 매월 셋째 주 화요일입니다."
    q = "정기 점검 언제 해요?"
    found = [f for f in cl.rag_findings("아마 셋째 주 화요일일 텐데, 확실하지는 않아요.", ref, q) if f.rule == "hedged"]
    assert found and found[0].cap == 2
    assert "hedged" in _rules("It might be the third Tuesday, but I'm not sure.", ref, q)
    # near miss: politeness ("것 같아요") and a stated possibility are no hedge
    assert "hedged" not in _rules("매월 셋째 주 화요일이에요. 점검이 길어질 수도 있으니 미리 확인하시는 게 좋을 것 같아요.", ref, q)


def test_sino_korean_amounts_with_tens_are_figures():
    assert canonical_figures("월세는 삼십이만 오천 원이에요") == "월세는 325000원이에요"
    assert canonical_figures("이십만 원") == "200000원"
    assert canonical_figures("팔천 오백 원") == "8500원"
    # near miss: a bare digit word before 원 with no unit stays a word ("이 원" is no 2원)
    assert canonical_figures("이 원룸은 넓어요") == "이 원룸은 넓어요"
    assert canonical_figures("사과 이 원") == "사과 이 원"


def test_the_conclusion_after_a_reason_is_compared_on_its_own():
    ref = "접종 후 30분 동안 이상 반응이 없어야 귀가할 수 있으므로 지금은 귀가할 수 없습니다."
    q = "주사 맞고 10분 지났는데 집에 가도 돼요?"
    assert "polarity" in _rules("별 반응 없으면 지금 귀가해도 괜찮아요.", ref, q)
    # near miss: the answer that gives the reason and the same conclusion
    agree = "접종 후 30분은 지켜봐야 해서 지금은 아직 귀가하기 어려워요."
    assert "polarity" not in _rules(agree, ref, q)


def test_the_whole_paid_out_where_the_reference_deducts_is_caught():
    ref = "출발 7일 전까지 취소하면 예약금 3만 원을 뺀 나머지를 환불합니다."
    q = "출발 열흘 전에 취소하면 얼마 돌려받아요?"
    found = [f for f in cl.rag_findings("열흘 전이면 낸 돈 전부 환불돼요.", ref, q) if f.rule == "deduction-ignored"]
    assert found and found[0].cap == 1 and "예약금" in render(found[0].evidence, "ko")
    # near miss: naming the deduction; and a reference that pays the whole in another case
    assert "deduction-ignored" not in _rules("예약금 3만 원만 빼고 전부 환불돼요.", ref, q)
    ref2 = "개강 전에는 전액 환불되고, 개강 후에는 수강료의 10%를 공제하고 환불됩니다."
    assert "deduction-ignored" not in _rules("아직 개강 전이면 전액 환불받으세요.", ref2, "개강 전 환불 얼마예요?")


def test_a_figure_on_another_topic_is_unverifiable_not_wrong():
    known = "재발급은 신분증을 지참해 구청 민원실에서 신청합니다. 분실 신고 후 14일 이내에 신청하세요."
    answer = "신분증을 들고 구청 민원실에서 재발급을 신청하세요. 새 카드 수령까지는 보통 3일 걸려요."
    # "수령 3일" is about delivery, which no day figure of the documents is about: not checked
    assert "3일" not in cl.checkable_figures(answer, known)
    # near miss: a wrong span on the documents' own topic stays checkable
    wrong = "분실 신고 후 30일 이내에 재발급을 신청하세요."
    assert cl.checkable_figures(wrong, known) == wrong


def test_the_case_below_a_threshold_denied_is_the_contrapositive():
    ref = "쿠폰은 주문 금액 30,000원부터 쓸 수 있습니다."
    q = "쿠폰 언제부터 써요?"
    assert "polarity" not in _rules("주문 금액이 3만 원이 안 되면 쿠폰을 쓸 수 없어요.", ref, q)
    ref2 = "매월 10일까지 변경을 신청해야 합니다. 그 이후에 신청하면 다음 달 요금제가 바뀌지 않습니다."
    q2 = "요금제 변경은 언제까지 신청해요?"
    assert "polarity" not in _rules("10일까지 변경 신청하시면 다음 달 요금제가 바뀌어요.", ref2, q2)


def test_the_same_side_of_the_threshold_denied_is_still_a_reversal():
    # near misses: the same side of the bound with the other sign, and a swapped comparison
    ref = "쿠폰은 주문 금액 30,000원부터 쓸 수 있습니다."
    assert "polarity" in _rules("주문 금액 30,000원부터는 쿠폰을 쓸 수 없어요.", ref, "쿠폰 언제부터 써요?")
    ref2 = "키 120cm 이상인 어린이만 보호자 없이 탑승하면 됩니다."
    found = _rules("키 120cm 이하인 어린이만 보호자 없이 탑승할 수 있어요.", ref2, "아이 혼자 타도 돼요?")
    assert found & {"polarity", "reversed-condition"}
    # "이내" counts back from the event: 24시간 이내 is past a 24시간 전까지 deadline
    ref3 = "수업은 24시간 전까지 취소해야 하며 그 이후 취소는 1회 차감됩니다."
    assert "polarity" in _rules("수업 24시간 이내에 취소하면 차감되지 않아요.", ref3, "수업 취소하면 차감돼요?")


def test_a_refusal_matching_a_reference_refusal_with_an_aside_is_right():
    ref = "제공된 문서에는 반려견 동반 요금 정보가 없습니다(소형견 동반은 2마리까지 가능)."
    assert cl.reference_refuses_beside(ref) and not cl.reference_refuses(ref)


def test_a_refusal_where_the_reference_answers_in_the_same_sentence_is_wrong():
    # near miss: the figure is in the refusing sentence itself (the reference answers the question)
    ref = "수수료 정보는 문서에 없지만 예약 취소는 3일 전까지 할 수 있습니다."
    assert not cl.reference_refuses_beside(ref)


def test_a_stopped_subject_is_a_denial():
    assert cl.polarity("해지하면 다음 달부터 자동이체가 멈춥니다") == 1
    assert cl.polarity("미납이 두 달 넘으면 인터넷 접속이 차단됩니다") == 1
    assert cl.polarity("점검 시간에는 예약 접수가 막히는 셈입니다") == 1
    ref = "해지하면 다음 달부터 자동이체가 되지 않습니다."
    q = "해지하면 자동이체는 어떻게 돼요?"
    assert "polarity" not in _rules("해지하시면 다음 달부터 자동이체가 멈춰요.", ref, q)


def test_stopping_as_an_action_one_may_take_denies_nothing():
    # near misses: the active verb is an option, not a denial; a noun modified by a negation
    assert cl.polarity("연간 회원권은 최대 30일 정지할 수 있습니다") == 0
    assert cl.polarity("자동이체를 멈추려면 앱에서 신청하세요") == 0
    assert cl.polarity("환불이 안 되는 상품은 따로 표시됩니다") == 0
    ref = "해지하면 다음 달부터 자동이체가 되지 않습니다."
    assert "polarity" in _rules("해지해도 다음 달 자동이체가 멈추지 않아요.", ref, "해지하면 자동이체는 어떻게 돼요?")


def test_a_figure_computed_from_the_question_is_applied():
    ref = "자전거 대여는 2시간까지 기본요금이며 2시간을 넘는 시간은 추가 요금이 붙습니다."
    q = "5시간 빌리면 추가 요금 붙어요?"
    answer = "5시간이면 기본 2시간을 넘긴 3시간에 추가 요금이 붙어요."
    (three,) = [x for x in cl.tx.quantities(answer) if x.value == 3]
    assert cl.applied_figure(three, ref, q)
    assert cl.figures_all_supported(answer, ref, q)
    # a rate times the asker's count
    ref2 = "짐 보관은 가방 1개당 하루 4,000원입니다."
    q2 = "가방 하나 3일 맡기면 얼마예요?"
    assert cl.figures_all_supported("하루 4,000원이니 3일이면 12,000원이에요.", ref2, q2)


def test_a_miscomputed_or_unasked_figure_is_not_applied():
    # near misses: a wrong result, and two known figures combined without the asker's case
    ref = "자전거 대여는 2시간까지 기본요금이며 2시간을 넘는 시간은 추가 요금이 붙습니다."
    q = "5시간 빌리면 추가 요금 붙어요?"
    assert not cl.figures_all_supported("5시간이면 2시간을 넘긴 4시간에 추가 요금이 붙어요.", ref, q)
    (four,) = [x for x in cl.tx.quantities("5시간이면 2시간을 넘긴 4시간") if x.value == 4]
    assert not cl.applied_figure(four, ref, q)
    ref2 = "짐 보관은 가방 1개당 하루 4,000원이고 대형 가방은 6,000원입니다."
    assert not cl.figures_all_supported("대형 가방은 10,000원이에요.", ref2, "대형 가방은 얼마예요?")


def test_midnight_at_the_end_of_a_range_is_not_noon():
    assert canonical_figures("운영 시간은 06:00~24:00입니다") == "운영 시간은 6시~0시입니다"
    assert canonical_figures("아침 6시부터 밤 12시까지 열어요").endswith("0시까지 열어요")
    # near miss: an end hour below the start hour is still in the afternoon
    assert canonical_figures("10시부터 4시까지") == "10시부터 16시까지"


def test_times_in_beon_and_hoe_are_one_figure():
    (a,) = cl.tx.quantities("한 달에 무료 세탁 4번까지")
    (b,) = cl.tx.quantities("월 4회까지 무료 세탁")
    assert cl.tx.same_quantity(a, b)
    # near miss: another count
    (c,) = cl.tx.quantities("월 5회까지 무료 세탁")
    assert not cl.tx.same_quantity(a, c)


def test_weekdays_replaced_by_others():
    reference = "물레 초급반은 매주 수·금 저녁 7시이며 한 달(8회) 120,000원입니다."
    question = "물레 초급반 무슨 요일 몇 시에 해요?"
    assert cl.weekday_findings("물레 초급반은 화·목 저녁 7시, 한 달 120,000원이에요.", reference, question)
    # near miss: the same days, one written with 요일
    assert cl.weekday_findings("수요일과 금요일 저녁 7시예요.", reference, question) == []
    # a month is no weekday
    assert cl._weekdays("5월·6월 개강") == set()


def test_a_long_run_of_terms_is_a_keyword_list():
    # near miss: a terse timetable of figures is an answer
    assert not cl._run_of_terms("평일 10시, 오후 6시, 토요일 10시, 오후 1시")


def test_midnight_is_one_hour_in_every_notation():
    for form in ("자정", "24:00", "0시", "새벽 12시", "오전 12시"):
        assert _same("밤 12시", form), form
    assert not _same("밤 12시", "12시")  # midnight is not noon
    assert not _same("오후 12시", "0시")
    assert canonical_figures("24시간 운영") == "24시간 운영"  # a duration, not a clock time


def test_per_use_charge_in_other_words_is_the_same_figure():
    assert canonical_figures("건당 2,000원") == canonical_figures("한 번에 2,000원")
    assert canonical_figures("회당 2,000원") == canonical_figures("한 번에 2,000원")
    assert canonical_figures("협회당 가입비") == "협회당 가입비"  # inside a word it is no figure


def test_clock_hours_in_native_numerals_are_figures():
    # from reading v13 by kind: "일곱 시 반", "한 시간 반" are the 7시 30분 and 90분 they say
    assert _same("한 시간 반", "90분") and _same("열두 시에", "12시") and _same("아홉 시", "9시")
    half = quantities(canonical_figures("일곱 시 반"))
    assert [(q.value, q.unit) for q in half] == [(7.0, "시"), (30.0, "분")]
    # near misses: words that begin with 시 after a numeral, and 시간 as a duration
    assert quantities(canonical_figures("한 시작")) == () and _same("두 시간", "2시간")


def test_counts_of_things_in_native_numerals_are_figures():
    # from reading v14 by kind: "세 곡", "두 잔", "한 켤레" are counts; "한 잔도" (not even one) and
    # "네 장점" are not
    assert canonical_figures("천 원이면 세 곡이요.") == "1000원이면 3곡이요."
    assert canonical_figures("두 잔까지") == "2잔까지" and canonical_figures("한 켤레에") == "1켤레에"
    assert (
        canonical_figures("한 잔도 안 돼요") == "한 잔도 안 돼요"
        and canonical_figures("네 장점은") == "네 장점은"
    )


def test_a_dash_parts_two_clauses():
    from assay.judges.offline import text as tx

    assert tx.segments("no table charge for him — kids under five get in free") == [
        "no table charge for him",
        "kids under five get in free",
    ]
