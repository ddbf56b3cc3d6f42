"""Memory rules from reading the v3 memory rows by kind (new queries and memories): the
interrogative's own sentence, a rate's period, and a change asked about that only the old value
on the topic answers."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

MEMORY = get_prompt("memory_usefulness")


def scores(query: str, memory: str, field: str) -> list[float]:
    item = {"query": query, "memory": memory, "entities": []}
    return [judge.verdict(MEMORY, item)[field] for judge in offline_jury(fitted=False)]


def test_attribute_is_read_in_the_interrogatives_own_sentence():
    query = "피아노 레슨 요일 옮겼지? 언제로 옮겼어?"
    memory = "피아노 레슨은 매주 월요일 오후 5시. (3월 4일 변경) 레슨을 금요일 오후 6시로 옮김."
    assert min(scores(query, memory, "relevance")) >= 8


def test_the_period_of_a_rate_is_not_what_is_asked_about():
    query = "영어 단어 하루에 몇 개 외우기로 했지?"
    memory = "영어 단어는 매일 40개씩 외우기로 함."
    assert min(scores(query, memory, "completeness")) >= 9


def test_change_asked_about_with_only_the_old_habit_on_the_topic_is_stale():
    query = "저탄수화물 식단으로 바꾼다고 했잖아, 바뀐 기준으로 장보기 목록 짜줘"
    memory = "사용자는 아침마다 토스트와 잼을 먹고 점심은 주로 국수를 먹음."
    stale = "사용자 식단은 밥과 빵 위주. 식단을 바꾼 기록 없음."
    assert max(scores(query, stale, "accuracy")) <= 3
    assert max(scores(query, memory, "accuracy")) <= 6
