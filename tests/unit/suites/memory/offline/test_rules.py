"""The memory suite's offline rules (``assay/suites/memory/offline``), one section per module:
the cue table, reading the query (facets), conflicting values, targets, and the verdict's base
readings and adjustments on the rules' own scores (``fitted=False``). End-to-end cases whose
fitted verdicts hold too are golden rows (``tests/golden/memory_usefulness_cases.jsonl``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.metrics.quantities import quantities
from assay.suites.memory.offline import conflicts, cues, facets, targets

MEMORY = get_prompt("memory_usefulness")


@pytest.fixture(scope="module")
def rules_only():
    return offline_jury(fitted=False)


def verdicts(jury, query: str, memory: str, entities: list[str]) -> list[dict]:
    return [judge.verdict(MEMORY, {"query": query, "memory": memory, "entities": entities}) for judge in jury]


# -- cues.py ---------------------------------------------------------------------------------


def test_the_cue_table_loads_in_its_order():
    table = cues.cues()
    assert table.person_aliases[0][:2] == ("아버지", "아빠") and table.user_aliases[-1] == "우리 집"
    assert "my " in table.user_aliases and "새 " in table.change_query  # trailing spaces kept


def test_a_wrong_key_in_the_cue_table_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "cues.yaml"
    path.write_text(cues.CUES_PATH.read_text(encoding="utf-8") + "\nhead_stops: [지금]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cues\.yaml: key 'head_stops': Extra inputs"):
        cues.cues(path)
    path.write_text("titles: 씨\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"key 'amount_nouns': Field required"):
        cues.cues(path)


def test_the_named_patterns_are_the_ones_the_rules_read(tmp_path):
    package = Path(cues.__file__).parent
    read = {name for path in package.glob("*.py") for name in re.findall(r'RE\["(\w+)"\]', path.read_text("utf-8"))}
    assert read == set(cues.cues().regexes)
    path = tmp_path / "cues.yaml"
    path.write_text(cues.CUES_PATH.read_text(encoding="utf-8") + "  broken: (unclosed\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cues\.yaml: key 'regexes\.broken': .*regular expression"):
        cues.cues(path)


# -- facets.py: what the query asks ------------------------------------------------------------


def test_answer_type_from_the_interrogative():
    assert facets.answer_type("When is the next vet visit?") == "time"
    assert facets.answer_type("How much does the dog walker charge?") == "amount"
    assert facets.answer_type("How long is the warranty?") == "duration"
    assert facets.answer_type("How many minutes of piano practice a day?") == "duration"
    assert facets.answer_type("What brand of food does Coco eat?") == ""
    assert facets.answer_type("몇 대 몇으로 섞지?") == "ratio"
    assert facets.answer_type("몇 명 왔어?") == "명"
    assert facets.answer_type("몇 박이야?") == "박"
    assert facets.answer_type("몇 키로야?") == "kilo"
    assert facets.answer_type("전화번호 뭐였지?") == "identifier"
    assert facets.answer_type("어디까지 읽었지?") == "progress"
    assert facets.answer_type("발제 맡은 달이 언제야?") == "월"
    assert facets.answer_type("대여 기간 얼마야?") == "duration"
    assert facets.answer_type("이번 청구 금액 알려줘") == "amount"


def test_a_year_month_is_a_date():
    assert facets.year_month("정수기 필터 2026-02 교체") == "정수기 필터 2026년 2월 교체"


def test_query_parts_split_questions_and_keep_a_recalled_clause():
    assert facets.query_parts("식기세척기 언제 샀고 얼마 줬는지 알려줘.") == [
        "식기세척기 언제 샀고",
        "얼마 줬는지 알려줘.",
    ]
    assert facets.query_parts("식기세척기 언제 사고 싶다고 했지?") == ["식기세척기 언제 사고 싶다고 했지?"]
    assert len(facets.merge_reminders(["언제 바뀌었다고 했지", "지금 한 건에 얼마야"])) == 2
    assert facets.merge_reminders(["회비 올렸다며", "지금 얼마야"]) == ["회비 올렸다며, 지금 얼마야"]
    # a request after the question mark is no second question
    assert facets.RE["next_question"].split("모임비 얼마였지? 총액도 계산해줘") == ["모임비 얼마였지? 총액도 계산해줘"]


def test_the_attribute_is_the_word_the_interrogative_asks_about():
    assert facets.attribute("체크인 날짜가 언제야", "") == ("체크인",)
    assert facets.attribute("며칠 출발이야", "") == ("출발",)
    assert facets.attribute("보일러 필터 마지막으로 언제 청소했지", "") == ("필터",)  # not the order word
    assert facets.attribute("영어 단어 하루에 몇 개", "") == ("단어",)  # not the rate's period


def test_typed_values():
    assert facets.RE["ratio"].search("2 대 1로 섞기") and not facets.RE["ratio"].search("모임 10:30 출발")
    assert facets.RE["identifier"].search("카톡 아이디: baker_kim") and facets.RE["identifier"].search("LINE ID sato_mill77")
    assert not facets.RE["identifier"].search("ID 확인 필요")
    assert facets.RE["identifier"].search("Digital piano: Yamaha Clavinova 745 (bought 2025)")
    assert not facets.RE["identifier"].search("Lessons cost 45000 won")
    assert facets.is_identifier("010-4821-7730") and not facets.is_identifier("2027-03-08")
    assert facets.typed("박", "그린호텔 2박 예약", quantities("그린호텔 2박 예약"))
    assert facets.counted_list("권", "올해 읽은 책: 《총균쇠》, 《데미안》, 《파친코》.")
    assert not facets.counted_list("권", "올해 읽은 책: 《총균쇠》.")


def test_a_date_before_kkaji_names_a_deadline():
    assert facets.names("신청이 12월 15일까지라고 함", ("마감",))
    assert not facets.names("구청 생활체육 지원 신청은 12월 15일에 시작", ("마감",))
    assert facets.names("응시: 2027-05-22", ("시험",))  # a synonym names it


def test_a_figure_before_a_word_starting_with_a_unit_syllable_is_no_time():
    assert quantities("#3 시나몬 롤")[0].unit == ""
    assert quantities("7 시에 만나")[0].unit == "시" and quantities("3일 뒤")[0].unit == "일"


# -- conflicts.py ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "conflict"),
    [
        ("보험료: 월 48,000원. 보험료: 월 36,000원.", True),
        ("사용자 보험료: 월 48,000원. 아내 보험료: 월 36,000원.", False),  # two people's
        (
            "바게트 1개 판매가 4,500원(매장). 바게트 1개 판매 가격: 5,000원.",
            True,
        ),  # a later figure, two words
        ("바게트 1개 300g 판매가 4,500원.", False),  # a weight and a price
        ("피아노 레슨 등록비 200,000원 냄(영수증은 메일함). 피아노 레슨 등록비 십오만 원, 월 4회.", True),
        (
            "피아노 레슨 등록비 150,000원 냄. 피아노 레슨 등록비 십오만 원, 월 4회.",
            False,
        ),  # one value, two forms
        ("화분 점검 9/3: 1번 화분 잎 12장, 이상 없음. 2번 화분 잎 9장, 새순 남.", False),  # two items
        ("1번 화분 잎 12장. 1번 화분 잎 9장.", True),
        ("301호 관리비 12만 원. 재계산: 관리비 13만 원.", True),  # an unlabelled value joins the item
        (
            "자전거 대여: 1인 15,000원, 현장 결제. / 자전거 대여료 만 팔천 원, 미리 입금.",
            True,
        ),  # fee and stem
        ("자격시험 응시: 2027-04-10(토) 서울 고사장, 접수 완료(응시료 45,000원).", False),
    ],
)
def test_value_conflicts(memory, conflict):
    assert bool(conflicts.value_conflicts(memory)) is conflict


# -- targets.py --------------------------------------------------------------------------------


def test_other_person_files_the_users_thing_under_someone_else():
    assert targets.other_person("내 자동차세 냈나?", ["어머니 자동차세 납부 완료"]) == (
        "사용자의 자동차세",
        "어머니",
    )
    assert targets.other_person("내 자동차세 냈나?", ["자동차세 납부 완료"]) is None


def test_unnamed_person_asked_about_whom_the_memory_never_names():
    assert targets.unnamed_person("아빠 여권 만료일", "어머니 여권 2027-01", ["어머니 여권 2027-01"]) == (
        "아버지",
        "어머니",
    )
    assert targets.unnamed_person("공방 선배 지호 형 수강료", "하윤 씨 수강료 15만 원", ["하윤 씨 수강료 15만 원"])
    assert targets.unnamed_person("아빠 여권 만료일", "아버지 여권 2027-01", ["아버지 여권 2027-01"]) is None


def test_scripts_and_what_ties_them():
    assert targets.other_script("치과 예약 언제야?", "Dentist: Dr. Han at Mapo clinic.")
    assert targets.glossed("선생님", "instructor mira patel")
    assert targets.touches("엄마 생신 선물 뭐 사기로 했지?", "어머니는 꽃을 좋아하심.", [])
    assert targets.entities_elsewhere("치과 예약 언제야?", "Gym membership renews monthly.", ["헬스장"])


# -- rules.py: the verdict on the rules' own scores --------------------------------------------


def case(rule, name, query, memory, entities, expect, why):
    return pytest.param(query, memory, entities, expect, why, id=f"{rule}:{name}")


RULES_ONLY_CASES = [
    case(
        "all_answered",
        "end-from-start-and-span",
        "장기 렌트 약정 끝나는 게 언제지?",
        "카셰어링 장기 렌트: 2026-02-01 시작, 1년 약정. 월 39만 원.",
        ["장기 렌트"],
        {"completeness": [8, 8], "relevance": [8, 8]},
        "the end is counted from the start and the span",
    ),
    case(
        "answer_context",
        "update-right-after-answer",
        "반포익스프레스 이사 날짜 바뀌었다며, 언제로 됐어?",
        "2026-03-02: 이삿짐센터 반포익스프레스 이사 2026-04-18 오전 8시로 확정. 2026-03-20 업데이트: 기사님 사정으로 2026-04-19 오전 9시로 변경.",
        ["반포익스프레스", "이사"],
        {"accuracy": [8, 8], "relevance": [10, 10]},
        "the dated update continues the answering sentence",
    ),
    case(
        "conflicting_values",
        "dated-update-records-change",
        "헬스장 사물함 번호 바뀌었다며, 지금 몇 번이야?",
        "2026-01-05: 헬스장 사물함 31번 배정. 2026-06-10 업데이트: 리모델링으로 58번 사물함으로 옮김.",
        ["헬스장", "사물함"],
        {"accuracy": [8, 8], "relevance": [10, 10]},
        "the update is stored, the old number kept",
    ),
    case(
        "conflicting_values",
        "superseded-beside-update",
        "요가 선생님 바뀌었다고 했잖아. 지금 선생님 누구야?",
        "2026-02: 요가 강사 윤하늘 선생님. 2026-06-01 업데이트: 강사가 서도희 선생님으로 바뀜.",
        ["요가", "윤하늘", "서도희"],
        {"accuracy": [8, 8], "noise": [2, 10], "relevance": [10, 10]},
        "the old teacher kept beside the dated update",
    ),
    case(
        "entity_bridge",
        "entity-bridge",
        "Which implant brand did I choose at the dentist?",
        "치과 임플란트: 오스템 임플란트로 하기로 함, 상악 왼쪽 어금니.",
        ["오스템", "임플란트"],
        {"accuracy": [9, 9], "relevance": [8, 8]},
        "the entity is the only bridge across scripts",
    ),
    case(
        "facets.attribute",
        "order-word-not-attribute",
        "보일러 필터 마지막으로 언제 청소했지?",
        "보일러: 2026-09-03 필터 청소, 다음 점검은 겨울 전.",
        ["보일러", "필터"],
        {"relevance": [10, 10]},
        "마지막으로 says which occurrence, not what",
    ),
    case(
        "facets.attribute",
        "rate-period-not-attribute",
        "영어 단어 하루에 몇 개 외우기로 했지?",
        "영어 단어는 매일 40개씩 외우기로 함.",
        [],
        {"completeness": [9, 10]},
        "하루에 is the period of the rate, not what is asked",
    ),
    case(
        "facets.counted_list",
        "count-by-list",
        "올해 읽은 책 몇 권이야?",
        "올해 읽은 책: 《총균쇠》, 《데미안》, 《파친코》.",
        ["독서"],
        {"relevance": [10, 10]},
        "a list to count",
    ),
    case(
        "facets.merge_reminders",
        "recalled-change-per-item",
        "퀵 배송 단가 바뀌었다고 했지, 지금 한 건에 얼마야?",
        "2026-02-01: 퀵 배송 단가 건당 7,000원. 2026-10-01 업데이트: 계약 갱신으로 건당 6,000원으로 인하됨.",
        ["퀵 배송", "단가"],
        {"completeness": [9, 10], "relevance": [10, 10]},
        "the update is stored; 한 건에 is per item",
    ),
    case(
        "facets.names",
        "deadline-kkaji",
        "생활체육 지원 신청 마감 언제야?",
        "동호회 총무 말로는 구청 생활체육 지원 신청이 12월 15일까지라고 함.",
        ["생활체육 지원", "구청"],
        {"relevance": [10, 10]},
        "a date before 까지 is the deadline",
    ),
    case(
        "facets.split_joined_questions",
        "one-question-go",
        "식기세척기 언제 사고 싶다고 했지?",
        "식기세척기는 이사 후 2026-03에 사기로 함.",
        ["식기세척기"],
        {"completeness": [9, 10]},
        "a -고 with one interrogative is one question",
    ),
    case(
        "facets.split_joined_questions",
        "two-questions-apart",
        "2번 자전거 마지막으로 점검한 게 언제고 체인 교체했어?",
        "점검 기록 10/27(일): 1번 자전거 타이어 2개, 이상 없음. 2번 자전거 타이어 2개, 체인 교체함(시마노 링크).",
        ["2번 자전거", "체인", "점검"],
        {"completeness": [9, 10], "relevance": [10, 10]},
        "언제고 closes the first question",
    ),
    case(
        "facets.typed",
        "messenger-id-across-scripts",
        "밀가루 거래처 담당자 연락처 뭐였지?",
        "Flour supplier: Hokkaido Mill Co., contact Mr. Sato, LINE ID sato_mill77, minimum order 20 kg.",
        ["Hokkaido Mill Co.", "밀가루"],
        {"accuracy": [9, 10], "relevance": [10, 10]},
        "LINE ID answers 연락처",
    ),
    case(
        "facets.typed",
        "model-identifier",
        "디지털 피아노 모델명 뭐였지?",
        "Digital piano: Yamaha Clavinova 745, bought used in March 2025.",
        ["Yamaha Clavinova 745", "디지털 피아노"],
        {"relevance": [10, 10]},
        "a model's name and number",
    ),
    case(
        "facets.typed",
        "nights-with-bak",
        "제주 숙소 몇 박으로 잡았지?",
        "제주 그린호텔 2박 예약(2027-03-01부터).",
        ["제주", "그린호텔"],
        {"relevance": [10, 10]},
        "2박 answers 몇 박",
    ),
    case(
        "facets.typed",
        "progress-not-stored",
        "《총균쇠》 어디까지 읽었지?",
        "《총균쇠》가 재미있다고 함.",
        ["총균쇠"],
        {"relevance": [0, 5]},
        "no page",
    ),
    case(
        "facets.typed",
        "progress-page",
        "《총균쇠》 어디까지 읽었지?",
        "《총균쇠》 212쪽까지 읽음.",
        ["총균쇠"],
        {"relevance": [10, 10]},
        "212쪽 answers how far",
    ),
    case(
        "facets.year_month",
        "year-month-no-amount",
        "정수기 필터 교체 비용 얼마였지?",
        "정수기 필터 2026-02 교체. 다음 교체는 2026-08.",
        ["정수기"],
        {"completeness": [0, 3]},
        "a date is no cost",
    ),
    case(
        "glossary_bridge",
        "glossary-bridge",
        "온라인 요가 수업 선생님 이름 뭐였지?",
        "Online yoga class: instructor Mira Patel, Mon/Wed 06:30.",
        ["Mira Patel"],
        {"relevance": [10, 10]},
        "선생님 → instructor",
    ),
    case(
        "noise",
        "across-scripts-entity-not-noise",
        "Which flour did I order for the rye loaf?",
        "호밀빵 레시피: 밀가루 대신 독일산 호밀가루 T1150 사용.",
        ["호밀빵", "T1150"],
        {"noise": [0, 0]},
        "the entity's sentence is on the subject",
    ),
    case(
        "other_script",
        "glossary-off-topic",
        "텃밭 모임 당번 맡은 달이 언제였지?",
        "Online yoga class: instructor Mira Patel, Mon/Wed 06:30.",
        ["Mira Patel"],
        {"relevance": [0, 5]},
        "a time is no month, and the topic is another",
    ),
    case(
        "other_script",
        "no-entity-in-memory",
        "Which implant brand did I choose at the dentist?",
        "이사 업체: 반포익스프레스로 계약함.",
        ["오스템"],
        {"relevance": [5, 5]},
        "across scripts, nothing to compare",
    ),
    case(
        "other_script",
        "other-script-no-typed-value",
        "코코 산책 도우미 비용 얼마야?",
        "Coco's dog walker is Minji from the apartment next door.",
        ["Coco", "dog walker"],
        {"relevance": [0, 5]},
        "no amount across scripts: nothing to compare",
    ),
    case(
        "other_script",
        "other-script-value-off-entity",
        "치과 예약 언제야?",
        "Gym membership renews on 2026-05-01. Dentist: Dr. Han at Mapo clinic.",
        ["Dentist", "Dr. Han"],
        {"relevance": [0, 5]},
        "the date is the gym's, not beside the dentist",
    ),
    case(
        "other_script",
        "typed-not-bridged",
        "How much was the implant?",
        "치과 임플란트: 오스템 임플란트로 하기로 함, 상악 왼쪽 어금니.",
        ["오스템", "임플란트"],
        {"relevance": [0, 5]},
        "no figure beside the entity",
    ),
    case(
        "target_confusion",
        "filed-under-father",
        "내 건강검진 언제 예약했지?",
        "아버지 건강검진 11월 20일 예약(사용자가 대신 예약함). 사용자 헬스장 월 5만 원.",
        ["건강검진"],
        {"accuracy": [8, 10], "completeness": [0, 2], "relevance": [0, 5]},
        "the check-up is the father's; true of him",
    ),
    case(
        "target_confusion",
        "kinship-named",
        "남동생 수영 강습 몇 시였지?",
        "남동생 수영 강습 토 10:00.",
        ["수영 강습"],
        {"noise": [0, 2], "relevance": [10, 10]},
        "the brother asked and named",
    ),
    case(
        "target_confusion",
        "kinship-other-person",
        "조카 수영 강습 몇 시였지?",
        "사용자 요가 화·목 07:00. 남동생 수영 강습 토 10:00.",
        ["요가", "수영 강습"],
        {"noise": [4, 10], "relevance": [0, 5]},
        "the lesson is the brother's",
    ),
    case(
        "target_confusion",
        "named-person-never-named",
        "공방 선배 지호 형 12월 수강료 얼마였지?",
        "사용자 도자기 공방 12월 수강료: 180,000원. 공방 동기 하윤 씨 12월 수강료: 150,000원.",
        ["수강료", "하윤"],
        {"completeness": [0, 2], "noise": [4, 10], "relevance": [0, 5]},
        "지호 is never named",
    ),
    case(
        "target_confusion",
        "other-pets-value",
        "우리 콩이 간식 하루에 얼마나 주라고 했지?",
        "몽이(이웃 강아지) 간식 하루 10g. 콩이: 사료만 먹음.",
        ["콩이", "몽이"],
        {"completeness": [0, 2]},
        "the value is the neighbour's dog's",
    ),
    case(
        "target_confusion",
        "person-named",
        "남편 운전면허 갱신일 언제였지?",
        "남편 운전면허 갱신일 2029-01-10.",
        ["운전면허", "남편"],
        {"relevance": [10, 10]},
        "the husband's own date",
    ),
    case(
        "target_confusion",
        "person-never-named",
        "남편 운전면허 갱신일 언제였지?",
        "User's driving licence renewal is due 2028-05-02. 어머니 운전면허 2027-09 갱신 예정.",
        ["운전면허", "어머니"],
        {"accuracy": [8, 10], "completeness": [0, 2], "relevance": [0, 5]},
        "the husband is never named; the dates are others'",
    ),
    case(
        "target_confusion",
        "topic-of-other-people-only",
        "남편 자동차보험료 얼마 나와?",
        "사용자 자동차보험: 보장 내용 비교 중. 딸 자동차보험: 가입 검토 중.",
        ["자동차보험"],
        {"completeness": [0, 2], "relevance": [0, 5]},
        "only the user's and the daughter's insurance",
    ),
    case(
        "topic_only",
        "specific-topic-fact",
        "헬스장 PT 다음 예약 언제야?",
        "헬스장 PT: 트레이너 한도윤, 10회권 중 6회 사용.",
        ["헬스장", "PT"],
        {"accuracy": [9, 9], "relevance": [5, 5]},
        "a specific fact on the topic, no date",
    ),
    case(
        "topic_only",
        "start-without-span",
        "장기 렌트 약정 끝나는 게 언제지?",
        "카셰어링 장기 렌트: 2026-02-01 시작. 월 39만 원.",
        ["장기 렌트"],
        {"relevance": [0, 5]},
        "no span to count",
    ),
    case(
        "topic_only",
        "stay-without-nights",
        "제주 숙소 몇 박으로 잡았지?",
        "제주 그린호텔 예약(2027-03-01부터).",
        ["제주", "그린호텔"],
        {"relevance": [0, 5]},
        "the stay without its nights",
    ),
    case(
        "typed_across_scripts",
        "other-script-typed-value",
        "코코 산책 도우미 비용 얼마야?",
        "Coco's dog walker charges 15,000 won per walk, Tuesdays and Fridays.",
        ["Coco", "dog walker"],
        {"relevance": [10, 10]},
        "the amount sits beside the entity, across scripts",
    ),
    case(
        "unrelated",
        "nothing-of-query",
        "텃밭 퇴비 언제 줬지?",
        "사용자는 주말에 자전거를 탐. 고양이 이름은 모모.",
        [],
        {"noise": [10, 10], "relevance": [0, 0]},
        "about something else entirely",
    ),
    case(
        "only_undecided",
        "not-settled",
        "결혼식 장소 어디로 했지?",
        "결혼식 장소 아직 미정, 두 군데 고민 중.",
        ["결혼식"],
        {"relevance": [7, 7], "completeness": [5, 5], "accuracy": [6, 6]},
        "the place is not decided",
    ),
    case(
        "typed_across_scripts",
        "time-beside-entity",
        "What time is my yoga class?",
        "요가 수업 매주 화요일 오전 7시.",
        ["요가"],
        {"relevance": [10, 10], "completeness": [9, 9]},
        "a time beside the entity, across scripts",
    ),
    case(
        "entities_elsewhere",
        "entity-of-another-subject",
        "치과 예약 언제야?",
        "Gym membership renews monthly.",
        ["헬스장"],
        {"relevance": [0, 0], "noise": [10, 10]},
        "the entity names the gym, not the dentist",
    ),
    case(
        "stale_value",
        "current-value-unknown",
        "헬스장 최종 월회비 얼마야?",
        "헬스장 월회비: 월 66,000원.",
        ["헬스장"],
        {"accuracy": [6, 6], "completeness": [9, 9]},
        "whether the fee was updated is unknown",
    ),
    case(
        "noise",
        "notices-and-greetings",
        "우리 집 인터넷 요금 얼마야?",
        "공지: 관리비 납부 안내. 인터넷 요금 월 33,000원. 안녕하세요 무엇을 도와드릴까요.",
        [],
        {"relevance": [10, 10], "noise": [3, 3]},
        "two flagged sentences, 1.5 each",
    ),
    case(
        "some_answered",
        "one-of-two-facets",
        "자전거 체인 언제 갈았고 얼마 들었지?",
        "자전거 체인 교체: 2026-04-12, 동네 자전거포.",
        ["자전거"],
        {"relevance": [8, 8], "completeness": [6, 6], "accuracy": [9, 9]},
        "the date is there, the cost only its topic: (10 + 3) / 2",
    ),
    case(
        "some_query_word",
        "a-shared-word-not-the-subject",
        "최종 면접 날짜 언제야?",
        "최종 목표는 마라톤 완주.",
        [],
        {"relevance": [3, 3], "completeness": [1, 1], "accuracy": [6, 6]},
        "only 최종 is shared, which says when, not what",
    ),
]


@pytest.mark.parametrize(("query", "memory", "entities", "expect", "why"), RULES_ONLY_CASES)
def test_rules_verdict(rules_only, query, memory, entities, expect, why):
    for verdict in verdicts(rules_only, query, memory, entities):
        for field, (low, high) in expect.items():
            assert low <= verdict[field] <= high, f"{field}={verdict[field]} ({why}): {verdict['reasoning']}"


def test_stale_value_when_a_change_is_asked_and_none_recorded(rules_only):
    found = verdicts(
        rules_only,
        "헬스장 PT 시간 바꿨다고 했잖아. 지금은 몇 시야?",
        "PT 수업: 매주 화요일 저녁 7시 (2026-02 등록).",
        ["PT"],
    )
    assert min(v["accuracy"] for v in found) <= 3
    assert any("변경 기록이 없음" in v["reasoning"] for v in found)


def test_a_dated_update_after_the_answer_is_a_change_record(rules_only):
    memory = "2026-03-02: 이삿짐센터 반포익스프레스 이사 2026-04-18 오전 8시로 확정. 2026-03-20 업데이트: 기사님 사정으로 2026-04-19 오전 9시로 변경."
    found = verdicts(
        rules_only, "반포익스프레스 이사 날짜 바뀌었다며, 언제로 됐어?", memory, ["반포익스프레스", "이사"]
    )
    assert not any("변경 기록이 없음" in v["reasoning"] for v in found)


def test_target_confusion_is_said_in_the_feedback(rules_only):
    memory = "사용자 자동차보험: 보장 내용 비교 중. 딸 자동차보험: 가입 검토 중."
    assert any(
        "다른 대상" in v["reasoning"]
        for v in verdicts(rules_only, "남편 자동차보험료 얼마 나와?", memory, ["자동차보험"])
    )
    named = verdicts(rules_only, "남편 자동차보험료 얼마 나와?", "남편 자동차보험: 보장 내용 비교 중.", ["자동차보험"])
    assert not any("다른 대상" in v["reasoning"] for v in named)


def test_a_price_per_unit_and_a_synonym_name_the_attribute(rules_only):
    # two of the three judges: one n-gram judge may differ
    assert (
        sum(
            v["relevance"] == 10
            for v in verdicts(rules_only, "PT 한 번에 얼마 내지?", "PT 수업료: 회당 55,000원.", ["PT"])
        )
        >= 2
    )
    exam = verdicts(
        rules_only,
        "수영 자격 시험 날짜 언제였지?",
        "수영 자격 응시: 2027-03-13(토) 올림픽수영장.",
        ["수영 자격"],
    )
    assert sum(v["relevance"] == 10 for v in exam) >= 2
