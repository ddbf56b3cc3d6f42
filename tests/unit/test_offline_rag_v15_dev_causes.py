"""Rag causes from reading the v15 rag rows by kind, pinned on new text (a ceramics studio's
FAQ, not v15's domains): a span in weeks replaced by one in days; weekdays replaced by others;
a long run of terms with no sentence, figures among them; a refusal that says the documents
have no talk of it. Each beside a near miss. The rules alone: ``offline_jury(fitted=False)``."""

from __future__ import annotations

from assay.judges.offline import claims
from tests.support.offline_families import rag_accuracies as accuracies


def test_a_span_in_weeks_replaced_by_days():
    reference = "가마 소성은 작품 제출 3주 후에 찾아갈 수 있습니다."
    question = "작품 맡기면 언제 찾아가요?"
    assert max(accuracies("작품 제출하고 열흘 후에 찾아가시면 돼요.", reference, question)) <= 2
    # near miss: the same span in days
    assert min(accuracies("작품 제출하고 21일 후에 찾아가시면 돼요.", reference, question)) >= 4


def test_weekdays_replaced_by_others():
    reference = "물레 초급반은 매주 수·금 저녁 7시이며 한 달(8회) 120,000원입니다."
    question = "물레 초급반 무슨 요일 몇 시에 해요?"
    assert claims.weekday_findings("물레 초급반은 화·목 저녁 7시, 한 달 120,000원이에요.", reference, question)
    assert max(accuracies("물레 초급반은 화·목 저녁 7시, 한 달 120,000원이에요.", reference, question)) <= 2
    # near miss: the same days, one written with 요일
    assert claims.weekday_findings("수요일과 금요일 저녁 7시예요.", reference, question) == []
    # a month is no weekday
    assert claims._weekdays("5월·6월 개강") == set()


def test_a_long_run_of_terms_is_a_keyword_list():
    reference = "만 14세 이상이면 가입할 수 있고(연회비 30,000원), 한 번에 2점까지 구울 수 있습니다."
    question = "가입 조건이랑 한 번에 몇 점까지 구울 수 있어요?"
    terms = "도예 공방 회원 가입 조건 만 14세 연회비 30,000원 소성 2점 3주"
    assert max(accuracies(terms, reference, question)) <= 1
    # near miss: a terse timetable of figures is an answer
    assert not claims._run_of_terms("평일 10시, 오후 6시, 토요일 10시, 오후 1시")


def test_a_refusal_that_says_the_documents_have_no_talk_of_it():
    reference = "제공된 문서에는 유약 판매에 대한 안내가 없습니다."
    question = "유약도 따로 살 수 있어요?"
    answer = "올려 주신 공방 안내에는 수강료와 소성 일정만 있고 유약 판매 이야기는 없어요."
    assert min(accuracies(answer, reference, question)) >= 4
