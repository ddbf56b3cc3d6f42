"""memory_usefulness: the offline jury's rules (seed 001, scale 0-10).

The judge sees the query, the stored memory and its entities, nothing of the session; the rules
read what those three can show.

**Facets.** The query is split into the things it asks for (on 이랑/랑/하고/및/뭐고/commas:
"노트북 예산이랑 무게 조건" asks two). A facet's *head* is its content words (interrogatives and
request verbs removed; a facet with none borrows the previous facet's head: "요금제가 뭐고 월
얼마" → 요금제 … 얼마). Its *answer type* comes from the interrogative: ``몇 <counter>`` wants a
figure with that counter (몇 명 → 명, 몇 시간 → 시간, 몇 퍼센트 → %), 얼마 wants an amount (a
duration when the facet names a 기간/시간), 언제/며칠/요일 a date, time or weekday; 뭐/어디/누구
want no figure.

Words that name the kind of answer (이름, 상황, 조건…) or when (지금, 현재, 이번…) are not part
of the head, nor are the query's own figures (1박, 1인당); nouns such as 금액/비용/예산/인원 want an
amount without 얼마. A facet is *answered* when a memory clause shares its head (the judge's own
overlap, or a head word inside a longer word: 인테리어 in 한결인테리어) and, if a type is wanted,
the clause's sentence holds a figure of that type (ordinals, plan labels and frequencies — 2단계,
3위, 주 2회 — are not amounts); without a type, the clause must hold at least half the head. A
figure with the exact counter asked for (52명 for 몇 명) answers wherever it stands. A typed facet
whose head is nowhere in the memory takes the previous facet's head ("약 이름이랑 용량": the dose
of that drug). A facet whose head is in the memory but whose value is not is *topic only*. A typed facet also has an
*attribute*: the content word right before its interrogative (passing over words that only name
the type: "체크인 날짜가 언제" → 체크인) and a noun with the copula right after it ("며칠
출발이야" → 출발); a figure answers only in a sentence naming one of them (a date beside 체크인
does not answer 체크아웃). A query figure the memory writes the same way ("1일권")
is a word of the head. An untyped facet answered only by sentences that say it is not settled
(미정, 아직, 생각 중…), with no sentence about it that settles it, is *undecided*: relevance 7, completeness 5, accuracy 6. A query and
memory in different scripts (Hangul against Latin) cannot be compared word for word: with
nothing matched, relevance 5, completeness 4, accuracy 6 and the feedback says why — unless every
facet wants a typed value and the memory holds one of that type, in a sentence naming one of the
prompt's entities the memory writes (relevance 10, completeness 9, accuracy 9; its other
sentences are not counted off the query, which words cannot tell across scripts). English interrogatives type a facet too (when/what day → a date, how long / how
many minutes → a duration, how much/many → an amount); two questions joined by a verb's -고
("언제 갈았고 얼마 들었는지") are two facets; order words (마지막으로, 처음, 최근) are not the
attribute; a year-month written "2026-02" is a date, not two bare figures.

    ==========================================  =========  ============  ========
    facets (A = share answered)                 relevance  completeness  accuracy
    ==========================================  =========  ============  ========
    memory empty / "(메모리 없음)"                   0          0             5
    every facet answered                        10         10 (9: Q<.5)   9
    some answered                               8          mean of facets 9
    none answered, a head in the memory         5          3             9 (6: a mention)
    none answered, some query word in memory    3          1             6
    nothing of the query in the memory          0          0             5 (noise 10)
    facet scores for completeness: answered 10, topic only 3, missing 0
    ==========================================  =========  ============  ========

Accuracy 9, not 10, when everything asked is there: the judge sees no session, so "accurate as
far as the memory shows"; 5-6 when nothing answers the query (nothing to judge).

Adjustments, each stated in the feedback:

- *stale value* — the query asks what something changed to (바뀌/바꿨/변경/연기/늘었…) and the
  answering clause (or, with none, the clauses on its topic) records no change (→, 에서…로, 변경, 기존, 최근…): accuracy ≤ 3,
  completeness ≤ 3 (seed: 시점 오류, 갱신되지 않은 정보). It asks for the final/current value
  (최종/현재/최신) without a change record: accuracy ≤ 6, completeness − 1 (the judge
  cannot tell whether the value was ever updated).
- *target confusion* — the query names an entity whose clauses hold no value of the asked type
  while such a value sits in a clause naming another entity (60만 원 beside 영어 학원 when asked
  for 수학 과외비), or in a clause naming the asked attribute in a sentence without the entity
  (사용자 여권 만료일 when asked for 남편's), or the query asks about the user's own thing ("내
  자동차세") and every answering clause files it under another person named right before it
  ("어머니 자동차세"): relevance ≤ 5, completeness ≤ 2 (seed: 대상 오류). Accuracy is not
  lowered: the stored fact is true of the other one (the held-out labels give it 8-9). An entity
  that holds a query word ("건사료" when asked about 사료) is the thing asked about, not another
  target, and a value beside it answers.
- *conflicting values* — one subject with two different figures and no update cue: relevance
  − 1, completeness − 3, accuracy ≤ 4; with an update cue: completeness − 1, accuracy ≤ 8.

After the v6 round: a person the query asks about ("아빠 여권") whom the memory never names,
while every answering sentence names another (User's, 어머니), is a target error; quoted or
reminding verbs ("바뀌었다고 했잖아") are no head words; "몇 박" wants a figure with 박; the stale
check reads the answering clauses with the other clauses on the same topic, so a dated update
sentence there ("업데이트: …로 바뀜") dates the answer, and the old value kept before such an
update is superseded (accuracy ≤ 8, noise + 2); a stale value is also relevance ≤ 7.

**Noise** (lower is better): 1.5 per sentence that is a notice, greeting, small talk or a
resolved / completed / expired item (unless the query asks about a status), plus 3 × the share
of the other sentences that answer no facet and share no word with the query; rounded, capped at
10; + 2 when one subject carries conflicting values.

After the v7 round: values filed under another person (딸, 아내… before the subject) are no
conflict of one subject; a dated update sentence (업데이트, 옮김) records the change the query asks
about; a person the query asks about whom the memory never names is a target error also when
only topic sentences of other people hold the subject.

After the v8 round: a dated update sentence right after an answering one ("2026-11-24 업데이트:
…로 변경") continues it though it names none of the query's words (the change is recorded; the
old value is superseded); lowering, raising, shortening or moving a value forward (낮춰, 줄여,
늘려, 앞당겨, 미뤘) is a change the query asks about, and "…다며" reminds; a "what/which"
question across scripts, where the memory writes one of the prompt's entities and every typed
facet finds its type in the entity's sentences, is relevance 8, completeness 8, accuracy 9 (the
entity is the only bridge, the value cannot be read; noise is read as before).

After the v9 round: nothing stored is accuracy 5 (nothing to judge, as the labels have it), and
entities with no memory text are relevance 3, completeness 1, accuracy 5 (1/0/5 when they touch
nothing of the query); a topic-only memory whose sentences hold a specific fact (a figure, a
quoted or titled name, "label: value") is accuracy 9, a mere mention ("…에 대해 이야기함") 6; a
memory with nothing of the query is relevance 0 and noise 10. Kinship and social words (여동생,
조카, 친구, 동료…) name other people; a value raised or lowered (올렸다며, 내렸대) is a change the
query asks about, a part replaced (교체) is an event; a clause that recalls something before the
question ("회비 올렸다며,") is context joined to it, not a facet; the unit a price is per (한 달에,
한 번에, 회당) names no attribute; an attribute is named by any word of its synonym group
(``SYNONYM_GROUPS``, Korean and English: 시험/응시/exam, 선생님/tutor), which also lets a memory in
the other script answer when every facet's words are found through it; a month asked ("달이
언제") wants a month, "how far" (어디까지, 몇 쪽) a page, chapter or share, and a count of things
(몇 권/명/개) is answered by a list of them on the topic; one price under two words of a group
(수업료/요금), with the count it is per (1회, 회당) set aside, is one subject, so two prices
conflict; three or more small-talk sentences off the query (no figure, name or "label: value"),
half or more of the memory, make it noisy (8.5 × their share); a memory whose asked-for value
is another target's (a target error) is noise 4 at least.

After the v12 round: an *identifier* asked for ("전화번호 뭐였지", "어느 메일로", "모델명이 뭐야",
"수험번호 알려 줘", "what is the phone number") is a typed facet answered by its written form —
an e-mail address, a lettered code (X500, INV-031), digits with hyphens that are no date and hold
four digits or more (010-4821-7730, 85112-3) — in a sentence sharing the facet's head, which need
not say 번호 again; a person named with 씨/님 ("지우 씨") and a household (처가, 시댁; 우리 집 is
the user's) are other people for a target error; across scripts, entities written in the
query's script that touch nothing of the query name another subject: the memory is unrelated
(0/0/5, noise 10).

These are the rules' scores. Unless the judge runs on rules alone (``fitted=False``), its fitted
stage (``offline/fitted.py``) then reads them with the signals behind them (``MemorySignals``)
and gives the final relevance, completeness and noise; accuracy and the shortcuts' scores (an
empty memory, entities alone) stay the rules', and the rules' notes stay in the reasoning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from assay.judges.offline import fitted
from assay.judges.offline import text as tx
from assay.judges.offline.claims import hangul_share
from assay.judges.offline.scoring import Units, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import MemoryInput
from assay.metrics.figure_forms import canonical_figures
from assay.schemas import JsonObject

TIME_UNITS = frozenset({"년", "월", "일", "시", "분", "주"})
DURATION_UNITS = frozenset({"년", "개월", "월", "주", "일", "시간", "분", "초"})
# Ordinals, plan labels and frequencies (2단계, 3위, 주 2회) are not amounts.
ORDINAL_UNITS = frozenset({"단계", "위", "차", "회"})
# A counter after 몇 names the unit the answer must carry.
COUNTER_ALIASES = {"퍼센트": "%", "프로": "%", "%": "%"}
# Counters the shared figure reader does not carry as units (3박 is read as a bare 3): matched
# in the sentence as written.
LOCAL_COUNTERS = ("박",)
# A quoted or reminding verb ("바뀌었다고 했잖아", "…라고 했지") says what was said, not what is
# asked: no head word.
QUOTE_RE = re.compile(r"\S+(?:다고|라고|냐고|다며|라며|다면서|라면서)$|\S*잖아\S*$")
FACET_SPLIT_RE = re.compile(r"(?:이랑|랑|하고|그리고|및|뭐고|,)\s+")
# A question mark before another question ("외워야 돼? 악보 들고 올라가도 되나"), not before a
# request or a reason ("… 뭐였지? 여과재 새로 사려고", "… 반영됐어? 새 출발일 알려줘")
NEXT_QUESTION_RE = re.compile(r"\?\s+(?=[^?]*(?:\?|[나까냐니지야어돼]|되나|해)\s*$)(?![^?]*(?:줘|주세요|려고|라서|니까)\s*\??\s*$)")
# Two questions joined by a verb's -고 ("언제 갈았고 얼마 들었는지"): split where an
# interrogative stands on both sides.
INTERROGATIVE_RE = re.compile(r"몇|언제|얼마|며칠|어디|누구|뭐|무엇")
VERB_JOIN_RE = re.compile(r"(?<=[가-힣]고)\s+")
ASKED_AND_RE = re.compile(r"(?:^|\s)(?:언제|어디|얼마|누구|뭐|무엇|며칠)(?:이|였|이었)?고$")
COUNTER_RE = re.compile(r"몇\s*([가-힣A-Za-z%]+)")
WEEKDAY_RE = re.compile(r"[월화수목금토일]요일|[월화수목금토일]·|오전|오후|새벽|저녁|아침")
DURATION_NOUNS = ("기간", "시간", "동안", "며칠간")
# Nouns that ask for an amount without 얼마 ("이번 청구 금액이랑 …").
AMOUNT_NOUNS = ("금액", "비용", "가격", "예산", "요금", "견적", "인원", "액수", "용량")
# Words that name the kind of answer, not its subject (removed from a facet's head).
SLOT_WORDS = ("이름", "종류", "내용", "상황", "조건", "상태", "정보", "사항")
# Time deixis and modal words that say when or how, not what ("지금 남아있는 요청", "어디로 해야 해").
# (and the frame of a recalled remark: "바뀌었다고 했던 거 같은데 지금 어디서 해")
HEAD_STOP = (*SLOT_WORDS, "지금", "현재", "최종", "이번", "요즘", "해야", "하면", "다시", "했던", "했었", "했지", "같은데", "같던데")
NUMBER_WORD_RE = re.compile(r"\S*\d\S*")
COPULA_RE = re.compile(r"([가-힣A-Za-z]+?)(?:이야|이지|이었지|였지|이에요|예요|인가요|이었어|였어)")
# Words that name the value's type, not what it belongs to: the attribute is the word before them.
RATE_WORDS = frozenset(
    {"하루", "매일", "매주", "매월", "매달", "일주일", "주당", "일당", "한달", "하루당"}
    # "한 달에 얼마", "한 번에 얼마", "회당/인당 얼마": the unit a price is per, not what it is of
    | {"달에", "번에", "회에", "주에", "해에", "년에", "시간에", "회당", "인당", "명당", "건당", "개당", "시간당", "권당", "장당"}
    # "한 건에 얼마", "한 병에 얼마": per item
    | {"건에", "개에", "명에", "병에", "장에", "잔에", "권에", "마리에", "인분에", "박에", "병당", "잔당", "마리당"}
)
TYPE_WORDS = ("날짜", "시간", "시각", "일정", "금액", "가격", "비용", "요금", "수치", "기간", "요일", "시점")
# The memory says the value is not settled yet: the topic is there, the answer is not.
UNDECIDED_CUES = ("미정", "안 정", "아직", "정하지", "고민 중", "생각 중", "검토 중", "할 예정", "해야 한다")
TIME_QUESTION = ("언제", "며칠", "날짜", "요일", "시점", "몇 시")
# An identifier asked for (a phone number, an e-mail address, an account or product code): the
# value is a written form (010-4821-7730, accounts@…, 85112-3), not a figure with a unit, and the
# sentence holding it need not repeat the word "번호" ("'빛담조명'(010-4821-7730)").
# Asked, not mentioned: the identifier word is what the interrogative asks ("번호 뭐였지", "모델명이
# 뭐야", "어느 메일로", "수험번호 알려 줘"); "메일 왔었잖아, 지금 얼마야" asks an amount and "계좌 어느
# 은행" a bank's name.
_ID_WORDS = r"(?:전화\s*번호|폰\s*번호|휴대폰|핸드폰|연락처|번호|이메일|메일(?:\s*주소)?|계좌|품번|코드|모델명)"
IDENTIFIER_QUESTION_RE = re.compile(
    rf"(?:어느|어떤|무슨)\s*{_ID_WORDS}|{_ID_WORDS}\S{{0,3}}\s*(?:뭐|뭔|무엇|알려)"
    r"|(?i:\b(?:what|which)\b(?:\s+\S+){0,4}?\s+(?:phone|number|e-?mail|code|account)\b)"
)
# A written identifier: an e-mail address, a phone or account number, a code ("85112-3",
# "INV-031"), a messenger or account ID ("WeChat ID lina_yl88", "카톡 아이디: mj_lee"); a date
# written with hyphens (2027-03-08, 11-24) is none.
IDENTIFIER_RE = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|\b[A-Z]{1,5}-?\d{3,}\b|\d+(?:-\d+)+|(?:\bID|아이디)\s*[:：]?\s*[A-Za-z][\w.-]{2,}"
    # a model: a capitalised name and its number ("Eheim Classic 2213")
    r"|\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*\s\d{3,5}\b"
)
DATE_FORM_RE = re.compile(r"\d{4}-\d{1,2}(?:-\d{1,2})?|\d{1,2}-\d{1,2}")
# Words that say which occurrence ("마지막으로 언제 갈았지"), not what is asked about.
ORDER_WORDS = ("마지막", "처음", "최근", "가장", "제일", "지난번", "맨 처음")
# English interrogatives and the answer type they want.
EN_TIME_RE = re.compile(r"(?i)\b(?:when|what (?:day|date|time|month)|which (?:day|date|month))\b")
EN_DURATION_RE = re.compile(r"(?i)\bhow long\b|\bhow many (?:minutes|hours|days|weeks|months|years)\b")
EN_AMOUNT_RE = re.compile(r"(?i)\bhow (?:much|many)\b")
# People other than the user a memory may file facts under ("어머니 자동차세", "아내 차").
OTHER_PEOPLE = (
    "어머니", "아버지", "엄마", "아빠", "부모님", "남편", "아내", "배우자", "와이프", "딸", "아들", "동생", "언니",
    "누나", "오빠", "형", "친구", "동료", "시어머니", "장모", "할머니", "할아버지", "mother", "father", "wife",
    "husband", "son", "daughter", "friend",
    "여동생", "남동생", "조카", "시아버지", "장인", "이모", "고모", "삼촌", "외삼촌", "사촌", "손자", "손녀", "룸메이트",
)  # fmt: skip
# Whose a value is, when a memory files values under other people ("딸 휴대폰" beside "사용자
# 휴대폰"); the user's own values stay unowned, so two of them still conflict.
OWNERS = frozenset(OTHER_PEOPLE)
_OWNER_RE = re.compile(
    r"(?<![가-힣A-Za-z])(" + "|".join(sorted(map(re.escape, OWNERS), key=len, reverse=True)) + r")(?:의|은|는|이|가|'s)?(?![가-힣A-Za-z])"
)
# The query asks what a value changed to / for the latest value.
CHANGE_QUERY_CUES = (
    "바뀌", "바뀐", "바꿨", "바꾼", "바꾸었", "변경", "연기", "늘었", "줄었", "조정", "옮겼", "미뤄", "올랐", "오른", "내렸",
    "내린", "인상", "인하", "새로 정한", "새 ",
    # a value lowered, raised, shortened or moved forward ("희망 연봉 낮춰 쓰기로 했잖아")
    "낮춰", "낮췄", "낮춘", "줄여", "줄였", "줄인", "늘려", "늘렸", "늘린", "앞당", "당겼", "미뤘", "미룬",
    # a value raised or lowered by someone ("회비 올렸다며", "값 내렸대"), a place moved; not an
    # event that happened (교체, 갱신: "와이퍼 언제 교체했지" asks when, not what it became)
    "올렸", "올린", "올려", "내렸", "내려", "인상됐", "인하됐", "옮긴", "옮겨",
    "raised", "lowered", "increased", "decreased",
)  # fmt: skip
# A sentence that supersedes an earlier one: an explicit update or change of plan.
SUPERSEDE_CUES = ("업데이트", "변경", "바뀜", "바꿈", "옮김", "→", "->", "updated", "changed to")
CURRENT_QUERY_CUES = ("최종", "현재", "최신")
# The memory records a change (so the value it gives is the new one).
CHANGE_RECORD_CUES = (
    "→", "->", "변경", "바뀜", "바뀌", "늘어", "늘었", "줄어", "줄었", "연기", "조정", "상향",
    "하향", "갱신", "최근", "기존", "확대", "축소", "현재 아님", "이후",
)  # fmt: skip
# Sentences that carry no user fact: notices, greetings, small talk.
BOILERPLATE_CUES = (
    *tx.GREETING_CUES, "안내", "[시스템]", "시스템:", "공지", "잡담", "기록될 수", "저장됩니다",
    "이벤트", "광고",
)  # fmt: skip
# Items that are over: resolved, completed, expired, superseded.
RESOLVED_CUES = (*tx.STALE_CUES, "완료", "만료", "종료", "지난달", "지난 주문", "취소됨")
STATUS_QUERY_CUES = ("상태", "됐", "처리", "완료", "해결", "진행")
OFF_TOPIC_WEIGHT = 3.0
# three or more sentences off the query, at least half of those that are not notices: chatty
CHATTY_MIN = 3
CHATTY_WEIGHT = 8.5
# noise of a memory whose asked-for value is another target's (대상 오류)
TARGET_ERROR_NOISE = 4
FLAGGED_WEIGHT = 1.5


@dataclass(frozen=True)
class Facet:
    """One thing the query asks for: its head words and the kind of value it wants."""

    text: str
    head: Units
    words: tuple[str, ...]  # the head as word stems, for substring matching
    want: str  # "" (no figure), "amount", "duration", "time", or a counter unit such as "명"
    attribute: tuple[str, ...] = ()  # the words the interrogative asks about (before, after it)


class MemoryRules(RuleSet):
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""

    signal: ClassVar[str]
    fitted: bool  # set by ``OfflineJudge``: run the fitted stage after the rules

    def memory_usefulness(self, item: MemoryInput) -> JsonObject:
        """The rules' verdict, then (unless the judge runs on rules only) the fitted stage's."""
        verdict, signals = self.memory_rule_verdict(item)
        if not self.fitted or signals is None:  # the shortcuts' scores are the rubric's own
            return verdict
        refined = fitted.refine(self.signal, verdict, signals, "memory_usefulness")
        return {**refined, "summary": _summary(float(refined["relevance"]))}

    def memory_rule_verdict(self, item: MemoryInput) -> tuple[JsonObject, MemorySignals | None]:
        """The rules' verdict and the signals it was read from (None for the shortcuts: an empty
        memory, entities alone)."""
        tag = f"[{self.signal}]"
        if tx.is_empty_memory(item.memory) and not item.entities:
            # nothing stored: nothing to judge true or false (accuracy 5, the rubric's midpoint)
            return {
                "relevance": 0, "completeness": 0, "accuracy": 5, "noise": 0,
                "reasoning": f"{tag} 저장된 메모리가 없음(정확성은 판단할 내용이 없어 중간값).", "helpful_info": [],
                "missing_info": [f"'{item.query}'에 답할 정보"], "summary": "메모리 없음: 쿼리에 쓸 수 없음",
            }, None  # fmt: skip
        if tx.is_empty_memory(item.memory):
            # entities alone name a topic but store no fact: a little relevant if they touch the
            # query, nothing to answer with, nothing to judge true or false
            touches = any(
                w in item.query for e in item.entities for w in tx.stems(e) if len(w) >= 2
            )
            return {
                "relevance": 3 if touches else 1, "completeness": 1 if touches else 0, "accuracy": 5, "noise": 0,
                "reasoning": f"{tag} 메모리 본문 없이 엔티티만 있음"
                + ("(쿼리의 주제를 가리키지만 저장된 사실은 없음)." if touches else "(쿼리와도 무관)."),
                "helpful_info": [], "missing_info": [f"'{item.query}'에 답할 정보"],
                "summary": "엔티티만 있는 메모리: 쿼리에 쓸 내용 없음",
            }, None  # fmt: skip
        memory = item.memory if not tx.is_empty_memory(item.memory) else ""
        sentences = tx.sentences(memory) or ([memory] if memory.strip() else [])
        clauses = [(i, seg) for i, sent in enumerate(sentences) for seg in tx.segments(sent)]
        ctx = self.prepare([item.query, *sentences, *item.entities])
        clause_units = [self.units(seg, ctx) for _, seg in clauses]
        figures = [tx.quantities(_year_month(sent)) for sent in sentences]
        by_sentence: dict[int, list[int]] = {}
        for c, (s_idx, _) in enumerate(clauses):
            by_sentence.setdefault(s_idx, []).append(c)
        whole = self.units("\n".join([memory, *item.entities]), ctx)
        core = tx.strip_fillers(item.query)
        q = self.coverage(self.units(core, ctx), whole) or 0.0
        facets = self._facets(item.query, ctx, memory)

        # -- facets: answered / topic only / missing ----------------------------------------
        answered_by: dict[int, list[int]] = {}  # facet -> clause indexes that answer it
        topic_only: list[int] = []
        undecided: list[int] = []  # answered, but only with "not decided yet"
        shared_by: dict[int, list[int]] = {}  # facet -> clause indexes about it
        counted: list[str] = []  # counters answered by a list to count, not a figure
        counted_end: list[int] = []  # end dates answered by counting from a start and a span
        for f_idx, facet in enumerate(facets):
            if f_idx and facet.want and not (self.coverage(facet.head, whole) or 0.0) and not any(
                w in memory for w in facet.words
            ):  # "약 이름이랑 용량": the dose of the drug just asked about
                prev = facets[f_idx - 1]
                facet = Facet(facet.text, prev.head, prev.words, facet.want, facet.attribute or prev.attribute)
            shared = [c for c, units in enumerate(clause_units) if self._shares(facet, units, clauses[c][1])]
            if facet.want:
                hits = [
                    c for c in shared
                    if (
                        _typed(facet.want, sentences[clauses[c][0]], figures[clauses[c][0]])
                        # "몇 권" answered by a list on the topic ("완독 목록: 《A》, 《B》, …"): count it
                        or _counted_list(facet.want, sentences[clauses[c][0]])
                    )
                    # (an identifier or a ratio is its own name: "2:1" needs no 비율 beside it)
                    and (facet.want in ("identifier", "ratio") or _names(sentences[clauses[c][0]], facet.attribute))
                    # "계약 끝나는 게 언제" of "2025-03-01 입주, 2년 계약": the end, counted from its start
                    or _end_from_start(facet, sentences[clauses[c][0]], figures[clauses[c][0]])
                ]  # fmt: skip
            else:  # no value type: most of the head must be there
                hits = [c for c in shared if self._head_share(facet, clause_units[c], clauses[c][1]) >= 0.5]
            if hits and all(
                _end_from_start(facet, sentences[clauses[c][0]], figures[clauses[c][0]])
                and not _names(sentences[clauses[c][0]], facet.attribute)
                for c in hits
            ):
                counted_end.append(f_idx)  # answered only by counting from a start and a span
            if facet.want and facet.want not in {"amount", "duration", "time", "identifier"}:
                hits += [c for c, (i, _) in enumerate(clauses) if c not in hits and _typed(facet.want, sentences[i], figures[i])]
            shared_by[f_idx] = shared
            if facet.want in LIST_COUNTERS and hits and not any(
                _typed(facet.want, sentences[clauses[c][0]], figures[clauses[c][0]]) for c in hits
            ):
                counted.append(facet.want)
            if hits:
                answered_by[f_idx] = hits
            elif shared or (self.coverage(facet.head, whole) or 0.0) >= 0.5:
                topic_only.append(f_idx)
        # -- undecided: every answering sentence says the value is not settled yet ------------
        for f_idx, hits in list(answered_by.items()):
            about = {*hits, *shared_by.get(f_idx, [])}  # a later "완료" beside an earlier "예정" settles it
            if not facets[f_idx].want and all(tx.has_any(sentences[clauses[c][0]], UNDECIDED_CUES) for c in about):
                del answered_by[f_idx]
                undecided.append(f_idx)
        n = max(len(facets), 1)
        share = len(answered_by) / n
        other_script = _other_script(item.query, memory)
        bridged = False  # answered across scripts by the asked type of value
        unrelated = False  # nothing of the query anywhere in the memory
        entity_bridge = False  # answered across scripts by the prompt's entity alone
        untyped: list[int] = []  # the sentences that name it
        notes = [
            f"쿼리 핵심어 포함률 {pct(q)}",
            f"묻는 항목 {len(facets)}개 중 답 있음 {len(answered_by)}개"
            + (f", 주제만 있음 {len(topic_only)}개" if topic_only else ""),
        ]
        if undecided:
            notes.append("묻는 값이 아직 정해지지 않았다고만 기록됨")
        if counted:
            notes.append(f"묻는 수(몇 {counted[0]})는 숫자 대신 목록으로 저장됨(세어서 답할 수 있음)")
        if counted_end:
            notes.append("묻는 끝나는 날은 시작일과 기간으로 저장됨(계산해서 답할 수 있음)")
        gloss = [_gloss_share(f.words, memory) for f in facets] if other_script and facets else []
        vague = False  # the topic is only mentioned ("예산 관련 논의 있었음")
        if facets and share == 1.0:
            rel, comp, acc = 10, (10 if q >= 0.5 else 9), 9
            if counted_end:  # an indirect answer, to be worked out (the labels: 8/8)
                rel, comp = 8, 8
        elif gloss and all(g >= 0.5 for g in gloss) and all(
            not f.want or any(_typed(f.want, sent, figs) for sent, figs in zip(sentences, figures, strict=True))
            for f in facets
        ):  # across scripts, the glossary finds the query's words in the memory ("선생님" → tutor)
            rel, comp, acc = 10, (10 if min(gloss) == 1.0 else 8), 9
            bridged = True
            answered_by = {f_idx: list(range(len(clauses))) for f_idx in range(len(facets))}
            notes.append("쿼리와 메모리의 언어가 다르나, 쿼리의 단어가 대응어로 메모리에 있음(대응어 사전)")
        # (before the topic-only reading: across scripts a Korean entity written in the query
        # makes the topic look shared while the value sits in the other script)
        elif other_script and facets and all(
            f.want
            and any(
                _typed(f.want, sent, figs) and _about_entity(sent, item.entities, memory)
                for sent, figs in zip(sentences, figures, strict=True)
            )
            for f in facets
        ):  # words cannot be compared across languages, but every value of the asked type is there
            rel, comp, acc = 10, 9, 9
            bridged = True
            typed_hits = [
                c
                for c, (i, _) in enumerate(clauses)
                if any(_typed(f.want, sentences[i], figures[i]) for f in facets)
                and _about_entity(sentences[i], item.entities, memory)
            ]
            answered_by = {f_idx: typed_hits for f_idx in range(len(facets))}
            notes.append("쿼리와 메모리의 언어가 달라 단어로는 비교할 수 없으나, 묻는 유형의 값이 메모리에 있음")
        elif answered_by:
            rel, acc = 8, 9
            comp = round((10 * len(answered_by) + 5 * len(undecided) + 3 * len(topic_only)) / n)
        elif undecided:  # the topic and its status, not the value: the status may be outdated
            rel, comp, acc = 7, 5, 6
        elif topic_only:  # the topic without the asked value: a specific fact nothing contradicts
            # is accurate as far as it goes (the labels give it 9; a stale or self-contradicting
            # value is lowered below), a mere mention ("PT 수업에 대해 이야기함", "예산 관련 논의
            # 있었음") states nothing to judge (6)
            topic_sentences = [sentences[clauses[c][0]] for f in topic_only for c in shared_by.get(f, [])]
            vague = all(_mention_only(sent) for sent in topic_sentences)
            rel, comp, acc = 5, 3, 6 if vague else 9
            notes.append(
                "주제가 언급만 되어 있어 정확성은 판단할 내용이 없음"
                if vague
                else "묻는 값은 없으나 저장된 사실은 구체적이고 모순이 없음"
            )
        elif other_script and facets and (
            untyped := _entity_sentences(item.entities, memory, sentences)
        ) and all(
            not f.want or any(_typed(f.want, sentences[i], figures[i]) for i in untyped) for f in facets
        ):  # a "what/which" asked across scripts: the prompt's entity, written in the memory, is the
            # only bridge; the value cannot be seen, so not 10
            rel, comp, acc = 8, 8, 9
            entity_bridge = True  # noise is read as before: which sentences are off the query is unseen
            answered_by = {f_idx: [c for c, (i, _) in enumerate(clauses) if i in untyped] for f_idx in range(len(facets))}
            notes.append("쿼리와 메모리의 언어가 달라 단어로는 비교할 수 없으나, 프롬프트의 엔티티를 적은 문장이 있음(값은 확인 못 함)")
        elif other_script and _entities_elsewhere(item.query, memory, item.entities):
            # the prompt's entities, written in the query's own script, name another subject and
            # nothing ties the memory to the query: unrelated, as within one script
            rel, comp, acc = 0, 0, 5
            unrelated = True
            notes.append("쿼리와 메모리의 언어가 다르나, 메모리의 엔티티는 쿼리와 같은 언어로 다른 주제를 가리킴(무관한 메모리)")
        elif other_script:  # words cannot be compared across languages: no evidence either way
            rel, comp, acc = 5, 4, 6
            notes.append("쿼리와 메모리의 언어가 달라 단어로 비교할 수 없음(관련성 판단 보류)")
        elif q > 0:
            rel, comp, acc = 3, 1, 6
        elif _touches(item.query, memory, item.entities):
            # no word in common, but an entity, a person (엄마/어머니) or a synonym ties them: a
            # paraphrase may answer it, so not unrelated
            rel, comp, acc = 2, 0, 5
        else:  # nothing of the query in the memory, its entities or their synonyms: about
            # something else entirely, every stored sentence is noise for this query (the
            # labels: relevance 0, noise 10)
            rel, comp, acc = 0, 0, 5
            unrelated = True
            notes.append("메모리가 쿼리와 전혀 무관함(모든 문장이 이 쿼리에는 잡음)")

        # -- stale values: the query asks for a change the memory does not record -------------
        # (with nothing answered, the clauses on the topic are what the memory has on it)
        # (a later sentence on the same topic that records the change — "2026-09-01 업데이트:
        # …로 바뀜" — dates the answering one: the update is stored)
        about = (
            [[*hits, *shared_by.get(f, [])] for f, hits in answered_by.items()]
            if answered_by
            else [shared_by.get(f, []) for f in topic_only]
        )
        # an update sentence right after one on the topic continues it even when it names none
        # of the query's words ("… 2차 면접 12-02 통보받음. 11-24 업데이트: 12-03으로 변경.")
        about_sentences = sorted({clauses[c][0] for hits in about for c in hits})
        follow_ups = [
            i + 1 for i in about_sentences
            if i + 1 < len(sentences) and i + 1 not in about_sentences and _dated_update(sentences[i + 1])
        ]  # fmt: skip
        answer_text = " ".join(
            [*(sentences[clauses[c][0]] for hits in about for c in hits), *(sentences[i] for i in follow_ups)]
        )
        # (a dated update — "업데이트: … 22번 구획으로 옮김" — records the change too)
        stale = unknown_update = False
        if answer_text and not tx.has_any(answer_text, (*CHANGE_RECORD_CUES, *SUPERSEDE_CUES)):
            stale = tx.has_any(item.query, CHANGE_QUERY_CUES)
            # (with the asked value missing, there is no stored value to be outdated: "최종
            # 비중(FG)" asked of a memory that only mentions the beer)
            unknown_update = not stale and bool(answered_by) and tx.has_any(item.query, CURRENT_QUERY_CUES)
            if stale:
                # only the old value: on the topic, but not what was asked (relevance ≤ 7)
                rel, acc, comp = min(rel, 7), min(acc, 3), min(comp, 3)
                notes.append("쿼리는 변경된 값을 묻는데 메모리에 변경 기록이 없음(옛 값일 수 있음)")
            elif unknown_update:
                acc, comp = min(acc, 6), max(comp - 1, 0)
                notes.append("쿼리는 최종/현재 값을 묻는데 갱신 여부를 알 수 없음")

        # -- target confusion: the asked value sits beside another entity ---------------------
        answering = [sentences[clauses[c][0]] for hits in answered_by.values() for c in hits]
        confused = (
            self._confused_target(item, facets, clauses, sentences)
            or _other_person(item.query, [clauses[c][1] for hits in answered_by.values() for c in hits])
            or _unnamed_person(item.query, memory, answering)
            # nothing answers, but every sentence on the topic is another person's ("사용자
            # 휴대폰 …, 딸 휴대폰 …" asked about 남편's): the same target error
            or (
                _unnamed_person(item.query, memory, [sentences[clauses[c][0]] for f in topic_only for c in shared_by.get(f, [])])
                if not answered_by
                else None
            )
        )
        if confused:
            # the stored fact is true of the other one (accuracy stands); it answers nothing asked
            rel, comp = min(rel, 5), min(comp, 2)
            notes.append(f"'{confused[0]}'의 값이 없고 같은 유형의 값이 다른 대상 '{confused[1]}'에 붙어 있음")

        # -- conflicting values ---------------------------------------------------------------
        conflicts = _value_conflicts(memory)
        # the old value kept beside a sentence that records its update ("3박 예약. … 업데이트: 4박으로
        #변경"), figures the value reader cannot pair: superseded, kept (accuracy ≤ 8, noise + 2)
        on_topic = sorted({*about_sentences, *follow_ups}) if answered_by else []
        updates = [i for i in on_topic if tx.has_any(sentences[i], SUPERSEDE_CUES)]
        superseded = not conflicts and bool(updates) and any(
            i < updates[-1] and not tx.has_any(sentences[i], CHANGE_RECORD_CUES) for i in on_topic
        )
        if superseded:
            acc = min(acc, 8)
            notes.append("옛 값이 날짜가 붙은 갱신 기록과 함께 남아 있음")
        updated = bool(conflicts) and tx.has_any(memory, tx.UPDATE_CUES)
        if updated:
            comp, acc = max(comp - 1, 0), min(acc, 8)
            notes.append("같은 항목의 값이 갱신됨: " + ", ".join(conflicts))
        elif conflicts:
            rel, comp, acc = max(rel - 1, 0), max(comp - 3, 0), min(acc, 4)
            notes.append("같은 항목에 상충하는 값: " + ", ".join(conflicts))

        # -- noise: notices, resolved items and sentences off the query -----------------------
        helpful_clauses = set() if entity_bridge else {c for hits in answered_by.values() for c in hits}
        if answered_by:  # the update that continues an answering sentence is part of the answer
            helpful_clauses |= {c for i in follow_ups for c in by_sentence.get(i, [])}
        query_units = self.units(item.query, ctx)
        status_query = tx.has_any(item.query, STATUS_QUERY_CUES)
        flagged, off_topic, helpful = [], [], []
        for s_idx, sent in enumerate(sentences):
            own = by_sentence.get(s_idx, [])
            if tx.has_any(sent, BOILERPLATE_CUES) or (not status_query and tx.has_any(sent, RESOLVED_CUES)):
                flagged.append(sent)
            elif any(c in helpful_clauses for c in own):
                helpful.append(sent)
            elif entity_bridge and s_idx in untyped:
                pass  # across scripts, a sentence naming the query's entity is on its subject
            elif not bridged and not any(
                (self.coverage(query_units, clause_units[c]) or 0.0) >= self.SEGMENT_OVERLAP for c in own
            ):  # (a memory in another script that answers shares no word with the query: its other
                # sentences are not off the query by words)
                off_topic.append(sent)
        others = len(sentences) - len(flagged)
        raw = FLAGGED_WEIGHT * len(flagged) + (OFF_TOPIC_WEIGHT * len(off_topic) / others if others else 0.0)
        chatter = [sent for sent in off_topic if not _SPECIFIC_RE.search(sent)]
        if len(chatter) >= CHATTY_MIN and others and len(chatter) / others >= 0.5:
            # a chatty memory: most of what it stores is small talk off the query, sentences with
            # no figure, name or "label: value" ("야근이 많다고 함. … 주말에 등산 다녀옴. 커피를 줄이는
            # 중."): the labels put it at 6-7 whatever the one sentence that answers (a profile of
            # facts on other topics — "RI 커버리지 60%" — is no chatter)
            raw = max(raw, CHATTY_WEIGHT * len(chatter) / others)
            notes.append(f"쿼리와 무관한 잡담 문장 {len(chatter)}개가 메모리 대부분을 차지함")
        noise = 10 if unrelated else min(round(raw) + (2 if conflicts or superseded else 0), 10)
        if confused:
            # the value stored is another target's: for this query it is content about something
            # else, however on-topic its words (the labels give such memories noise 4-5)
            noise = max(noise, TARGET_ERROR_NOISE)
            notes.append("다른 대상의 값은 이 쿼리에는 잡음")
        notes.append(
            f"안내·인사·해결된 항목 문장 {len(flagged)}개, 쿼리와 무관한 문장 {len(off_topic)}/{len(sentences)}"
        )
        missing = [f"'{facets[i].text}'" + _want_label(facets[i].want) for i in range(len(facets)) if i not in answered_by]
        signals = MemorySignals(
            q=q, facets=len(facets), answered=len(answered_by), topic_only=len(topic_only), undecided=len(undecided),
            other_script=other_script, bridged=bridged or entity_bridge, unrelated=unrelated, vague=vague,
            stale=stale, unknown_update=unknown_update, confused=bool(confused), conflicts=len(conflicts),
            updated=updated, superseded=superseded,
            sentences=len(sentences), flagged=len(flagged), off_topic=len(off_topic), chatter=len(chatter),
        )  # fmt: skip
        return {
            "relevance": rel,
            "completeness": comp,
            "accuracy": acc,
            "noise": noise,
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
            "helpful_info": helpful[:5],
            "missing_info": missing[:5],
            "summary": _summary(rel),
        }, signals

    # -- helpers -----------------------------------------------------------------------------

    def _shares(self, facet: Facet, units: Units, clause: str) -> bool:
        """Whether a clause is about the facet: the judge's own overlap threshold, or one of the
        facet's words written inside a longer word (인테리어 in 한결인테리어)."""
        if not facet.head:
            return False
        if (self.coverage(facet.head, units) or 0.0) >= max(self.SEGMENT_OVERLAP, 0.01):
            return True
        return any(word in clause for word in facet.words)

    def _head_share(self, facet: Facet, units: Units, clause: str) -> float:
        by_words = sum(word in clause for word in facet.words) / len(facet.words) if facet.words else 0.0
        return max(self.coverage(facet.head, units) or 0.0, by_words)

    def _facets(self, query: str, ctx: object, memory: str = "") -> list[Facet]:
        out: list[Facet] = []
        parts = [p for q in NEXT_QUESTION_RE.split(tx.normalize(query)) for p in FACET_SPLIT_RE.split(q) if p.strip()] or [query]
        parts = [q for p in parts for q in _split_joined_questions(p)]
        parts = _merge_reminders(parts)
        for part in parts:
            # a figure of the query that the memory writes the same way ("1일권") is a word like any
            words = [
                w for w in tx.strip_fillers(part).split()
                if (not NUMBER_WORD_RE.fullmatch(w) or w in memory) and not QUOTE_RE.fullmatch(w.rstrip(".?!,"))
            ]  # fmt: skip
            head = self.units(" ".join(w for w in words if not w.startswith(HEAD_STOP)), ctx)
            stems = tuple(
                w for w in (*tx.stems(" ".join(words)), *(w for w in words if NUMBER_WORD_RE.fullmatch(w)))
                if len(w) >= 2 and not w.startswith(HEAD_STOP)
            )  # fmt: skip
            if not head and out:  # "월 얼마" after "요금제가 뭐고": the plan's price
                head, stems = out[-1].head, out[-1].words
            if not head and not out:
                head, stems = self.units(query, ctx), tx.stems(query)
            text = tx.strip_fillers(part) or part.strip()
            out.append(Facet(text=text, head=head, words=stems, want=_answer_type(part), attribute=_attribute(part, memory)))
        return out

    def _confused_target(
        self, item: MemoryInput, facets: list[Facet], clauses: list[tuple[int, str]], sentences: list[str]
    ) -> tuple[str, str] | None:
        """(asked entity, other entity) when the asked-for value is tied to another entity."""
        asked = [e for e in item.entities if e and e in item.query]
        wants = [f.want for f in facets if f.want]
        if not asked or not wants:
            return None
        # an entity holding a query word is the thing asked about ("건사료" for 사료), not
        # another target, and a value beside it is the asked value
        query_words = [w for w in tx.stems(item.query) if len(w) >= 2]
        asked_things = [o for o in item.entities if o not in asked and any(w in o for w in query_words)]
        for entity in asked:
            # (of several questions, only the ones about this entity: "내검한 게 언제고 여왕벌 봤어"
            # asks no date of 여왕벌)
            mine = [f for f in facets if len(facets) == 1 or entity in f.text]
            wants = [f.want for f in mine if f.want]
            own = [seg for _, seg in clauses if entity in seg]
            if not wants or not own or any(_typed(w, seg, tx.quantities(seg)) for w in wants for seg in own):
                continue
            for other in item.entities:
                if other == entity or other in item.query or other in asked_things:
                    continue
                if any(other in seg and _typed(w, seg, tx.quantities(seg)) for w in wants for _, seg in clauses):
                    return entity, other
            # the value of the asked attribute sits in a sentence about someone or something else
            # ("남편 여권 만료일" asked; "사용자 여권 만료일 2027년 …" stored, 남편 only without it)
            for s_idx, seg in clauses:
                sentence = sentences[s_idx]
                for f in mine:
                    if any(t in seg for t in asked_things):
                        continue
                    # (a header's date, "점검 기록 10/27(일): 1번 …, 2번 …", dates every item after it)
                    head, colon, _ = seg.partition(":")
                    if colon and f.want == "time" and _typed("time", head, tx.quantities(head)):
                        continue
                    if f.want and f.attribute and entity not in sentence and _typed(f.want, seg, tx.quantities(seg)):
                        if _names(seg, f.attribute):
                            return entity, seg.split()[0]
        return None


# A sentence that only says a topic came up ("…에 대해 이야기함", "예산 관련 논의 있었음", "관심이
# 많음"), with no figure, no quoted or titled name, no "label: value": no fact to judge.
_MENTION_RE = re.compile(r"이야기|얘기|논의|언급|관심|대화|상의|말함|말했|talked|discussed|mentioned|interested")
_SPECIFIC_RE = re.compile(r"\d|[《〈'\"‘“「]|:\s*\S")


def _summary(relevance: float) -> str:
    return "쿼리에 " + ("유용한" if relevance >= 7 else "부분적으로 관련된" if relevance >= 4 else "거의 무관한") + " 메모리"


def _mention_only(sentence: str) -> bool:
    return bool(_MENTION_RE.search(sentence)) and not _SPECIFIC_RE.search(sentence)


_MINE_RE = re.compile(r"(?:^|\s)(?:내|제|나의|my)\s+([가-힣A-Za-z]{2,})", re.I)


def _other_person(query: str, answering: list[str]) -> tuple[str, str] | None:
    """The query asks about the user's own thing ("내 자동차세") and every answering clause
    files that thing under another person named right before it ("어머니 자동차세 … 완료"):
    (asked, other). A clause naming the thing without another person before it is the user's."""
    mine = _MINE_RE.search(tx.normalize(query))
    if not answering or not mine:
        return None
    thing = tx.strip_suffix(mine.group(1))
    people = "|".join(map(re.escape, OTHER_PEOPLE))
    found: list[str] = []
    for clause in answering:
        for m in re.finditer(re.escape(thing), clause):
            before = re.search(rf"({people})\S{{0,3}}\s*$", clause[: m.start()])
            if not before:
                return None
            found.append(before.group(1))
    return (f"사용자의 {thing}", found[0]) if found else None


# One person, several words ("아빠 여권" asks about 아버지 too).
PERSON_ALIASES = (
    ("아버지", "아빠", "부친", "father", "dad"), ("어머니", "엄마", "모친", "mother", "mom"),
    ("남편", "husband"), ("아내", "와이프", "wife"), ("딸", "daughter"), ("아들", "son"),
    # the wider family and the people around the user, each its own person
    ("여동생", "younger sister"), ("남동생", "younger brother"), ("언니", "누나", "older sister"),
    ("오빠", "older brother"), ("할머니", "grandmother", "grandma"), ("할아버지", "grandfather", "grandpa"),
    ("조카", "nephew", "niece"), ("시어머니", "장모", "mother-in-law"), ("시아버지", "장인", "father-in-law"),
    ("이모", "고모", "aunt"), ("삼촌", "외삼촌", "uncle"), ("사촌", "cousin"), ("손자", "손녀", "grandchild"),
    ("친구", "friend"), ("동료", "colleague", "coworker"), ("룸메이트", "roommate"),
    # a household asked about as a whole ("처가 보일러"): the in-laws' home
    ("처가", "처갓집", "시댁", "시가", "in-laws"),
    ("사용자", "본인", "user", "my ", "우리 집"),
)  # fmt: skip
# Another person named with an honorific ("지우 씨", "박 대리님"): not the user, whoever it is.
_NAMED_OTHER_RE = re.compile(r"[가-힣]{1,3}\s?(?:씨|님)(?![가-힣])")


_ASKED_PERSON_RE = re.compile(
    r"(?:^|\s)(" + "|".join(re.escape(a) for g in PERSON_ALIASES[:-1] for a in sorted(g, key=len, reverse=True)) + ")(?![a-z])"
)


def _person_of(word: str) -> tuple[str, ...] | None:
    return next((group for group in PERSON_ALIASES if word in group), None)


# A person the query names by a given name and a title ("준호 형이", "수아 씨", "민지 선배"): the
# name, which the memory would write if it held anything of theirs.
_TITLES = ("씨", "님", "형", "누나", "언니", "오빠", "선배", "후배", "쌤")
_NAMED_ASKED_RE = re.compile(
    r"(?<![가-힣])([가-힣]{2,3})\s?(?:" + "|".join(_TITLES) + r")(?:이|가|은|는|의|한테|네|께서)?(?![가-힣])"
)


def _unnamed_person(query: str, memory: str, answering: list[str]) -> tuple[str, str] | None:
    """The query asks about a person ("아빠 여권 만료일", "준호 형이 만든 에일") whom the memory never
    names, while every sentence that answers it names another person ("User's passport",
    "어머니 여권", "민재 씨 윗비어"): the value is someone else's. (asked, other)."""
    low_query = tx.normalize(query).lower()
    found = _ASKED_PERSON_RE.search(low_query)
    asked = _person_of(found.group(1)) if found else None
    # the name right before the last title ("공방 선배 지호 형": 지호, not 공방)
    names = [m.group(1) for m in _NAMED_ASKED_RE.finditer(tx.normalize(query)) if m.group(1) not in _TITLES]
    if asked is None and names:
        asked = (names[-1],)
    if asked is None or not answering:
        return None
    low_memory = memory.lower()
    if any(a in low_memory for a in asked):
        return None
    others = []
    for sentence in answering:
        low = sentence.lower()
        other = next((a for g in PERSON_ALIASES if g is not asked for a in g if a.strip() in low), None)
        named = _NAMED_OTHER_RE.search(sentence)
        if other is None and named is None:
            return None
        others.append(other.strip() if other is not None else named.group())
    return asked[0], others[0]


# A dated update ("2026-11-24 업데이트: …로 변경", "Updated 3 May: …"), not any sentence with 변경
# ("사내 카페 메뉴 변경 안내를 받음").
_DATED_UPDATE_RE = re.compile(
    r"(?i)^\s*(?:\(?(?:19|20)\d\d[-./]\d{1,2}(?:[-./]\d{1,2})?\)?|\d{1,2}월\s*\d{1,2}일)\S*\s*(?:업데이트|update|변경|수정)"
    r"|^\s*(?:업데이트|update[sd]?)\b|업데이트\s*[:：]"
)


def _dated_update(sentence: str) -> bool:
    return bool(_DATED_UPDATE_RE.search(sentence)) and not tx.has_any(sentence, BOILERPLATE_CUES)


_YEAR_MONTH_RE = re.compile(r"(?<![\d-])((?:19|20)\d\d)-(0?[1-9]|1[0-2])(?![\d-])")


def _about_entity(sentence: str, entities: list[str], memory: str) -> bool:
    """Whether the sentence names one of the prompt's entities that the memory writes (any
    sentence does when the memory writes none of them): the subject the caller extracted."""
    low = memory.lower()
    present = [e.lower() for e in entities if e and e.lower() in low]
    return not present or any(e in sentence.lower() for e in present)


def _glossed(word: str, memory: str) -> bool:
    """A query word whose synonym group has a member the memory writes in the other script
    ("선생님" for "tutor", "회화" for "conversation"): English members as words."""
    low = memory.lower()
    # the group holding the word itself first, else one whose Hangul member it starts with (수업을)
    group = next((g for g in SYNONYM_GROUPS if word.lower() in g), None) or next(
        (g for g in SYNONYM_GROUPS if any(word.startswith(m) for m in g if not m.isascii() and len(m) >= 2)), None
    )
    if group is None:
        return False
    return any(re.search(rf"(?<![a-z]){re.escape(m)}", low) if m.isascii() else m in memory for m in group)


def _gloss_share(words: tuple[str, ...], memory: str) -> float:
    """The share of a facet's words the glossary finds in a memory written in the other script."""
    words = tuple(w for w in words if not w.isascii())
    return sum(_glossed(w, memory) for w in words) / len(words) if words else 0.0


def _touches(query: str, memory: str, entities: list[str]) -> bool:
    """Something ties a memory that shares no word with the query to it: a word of an entity in
    the query, one person under two words ("엄마" and "어머니"), or a synonym group."""
    low_query = query.lower()
    if any(w.lower() in low_query for e in entities for w in tx.stems(e) if len(w) >= 2):
        return True
    text = f"{memory} {' '.join(entities)}".lower()
    if any(any(a.strip() in low_query for a in g) and any(a.strip() in text for a in g) for g in PERSON_ALIASES[:-1]):
        return True
    return any(_glossed(w, text) for w in tx.stems(query) if len(w) >= 2)


def _entities_elsewhere(query: str, memory: str, entities: list[str]) -> bool:
    """Entities in the query's script, none of which (nor anything else) ties the memory to it."""
    query_hangul = hangul_share(query) >= 0.5
    same_script = [e for e in entities if (hangul_share(e) >= 0.5) == query_hangul]
    return bool(same_script) and len(same_script) == len(entities) and not _touches(query, memory, entities)


def _entity_sentences(entities: list[str], memory: str, sentences: list[str]) -> list[int]:
    """Indexes of the sentences naming one of the prompt's entities that the memory writes
    (none when the memory writes none of them)."""
    low = memory.lower()
    present = [e.lower() for e in entities if e and len(e) >= 2 and e.lower() in low]
    return [i for i, sent in enumerate(sentences) if any(e in sent.lower() for e in present)]


# A clause that recalls what was said before the question ("회비 올렸다며,", "장소 옮겼잖아,",
# "시험 끝났다던데,"): context for the question after it, not a thing asked.
REMINDER_END_RE = re.compile(
    r"(?:다며|라며|다면서|라면서|잖아|잖아요|다던데|라던데|던데|는데|대|했지만|(?:다고|라고)\s?했지|(?:다고|라고)\s?했잖아)[.,!]?\s*$"
)


def _merge_reminders(parts: list[str]) -> list[str]:
    """A part with no interrogative that ends by recalling something ("독서모임 회비 올렸다며") is
    joined to the question after it: one facet, whose head holds both."""
    out: list[str] = []
    carry = ""
    for i, part in enumerate(parts):
        if i + 1 < len(parts) and REMINDER_END_RE.search(part) and not INTERROGATIVE_RE.search(part):
            carry = f"{carry}, {part}" if carry else part
            continue
        out.append(f"{carry}, {part}" if carry else part)  # the comma keeps the clauses apart
        carry = ""
    return out or parts


def _split_joined_questions(part: str) -> list[str]:
    """"브레이크 패드 언제 갈았고 얼마 들었는지" → two questions; a -고 with an interrogative on
    one side only ("언제 가고 싶다고 했지") joins no two questions."""
    for m in VERB_JOIN_RE.finditer(part):
        left, right = part[: m.start()], part[m.end() :]
        # "… 언제고 여왕벌 봤어": an interrogative ending in -고 closes its question, whatever follows
        if ASKED_AND_RE.search(left) or (INTERROGATIVE_RE.search(left) and INTERROGATIVE_RE.search(right)):
            return [left, *_split_joined_questions(right)]
    return [part]


def _year_month(sentence: str) -> str:
    """A year and month written "2026-02" read as the date it is (2026년 2월), not as two
    bare figures (an amount); a full "2026-02-14" is read as a date already."""
    return _YEAR_MONTH_RE.sub(lambda m: f"{m.group(1)}년 {int(m.group(2))}월", sentence)


def _other_script(query: str, memory: str) -> bool:
    """The query and the memory are written in different scripts (Hangul against Latin)."""
    q, m = hangul_share(query), hangul_share(memory)
    return (q < 0.3 and m >= 0.5) or (m < 0.3 and q >= 0.5)


def _attribute(part: str, memory: str) -> tuple[str, ...]:
    """The words the interrogative asks about: of the two words right before 몇/언제/얼마/며칠
    the nearest content word, passing over words that only name the value's type ("체크인 날짜가
    언제" → 체크인) and figures the memory does not write the same way; and the content word
    right after it and its counter ("며칠 출발이야" → 출발)."""
    at = re.search(r"몇|언제|얼마|며칠", part)
    if not at:
        return ()
    out: list[str] = []
    # only words of the interrogative's own sentence ("… 바뀌었지? 언제로" asks about no 바뀌었지)
    own = re.split(r"[?.!,]", part[: at.start()])[-1]  # nor of a recalled clause before a comma
    for word in reversed(own.split()[-2:]):
        stem = tx.strip_suffix(word)
        if stem in RATE_WORDS:  # "하루에 얼마나": the period of a rate, not what is asked about
            continue
        if NUMBER_WORD_RE.fullmatch(stem):
            if stem in memory:
                out.append(stem)
                break
            continue
        # a one-syllable noun the glossary knows ("책 몇 권") is a word like any
        if (len(stem) < 2 and _synonyms(stem) == {stem}) or stem.startswith((*TYPE_WORDS, *HEAD_STOP, *ORDER_WORDS)):
            continue
        out.append(stem)
        break
    rest = part[at.end() :].split(maxsplit=1)
    glued = bool(rest) and not part[at.end() : at.end() + 1].isspace()
    after = rest[1:] if glued else rest  # "언제야 …": skip the interrogative's own ending
    if at.group(0) == "몇" and not glued:
        after = after[1:]  # "몇 시 …": skip the counter
    words = after[0].split() if after else []
    # only a noun with the copula ("출발이야", "마감이지"): a verb after it says nothing of what
    noun = COPULA_RE.fullmatch(re.sub(r"[?!.,]", "", words[0])) if words else None
    if noun and len(noun.group(1)) >= 2 and not noun.group(1).startswith((*TYPE_WORDS, *HEAD_STOP)):
        out.append(noun.group(1))
    return tuple(out)


# Words one thing is written by, in Korean and English: an attribute asked by one of them is
# named by any ("시험 날짜" answered by "응시: 2027-05-22", "선생님 이름" by "tutor: …").
SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(g.split())
    for g in (
        "시험 응시 시험일 exam test",
        "수업 레슨 강의 과외 class lesson session",
        "선생님 선생 강사 튜터 교사 코치 tutor teacher instructor coach",
        "회비 수업료 요금 가격 판매가 단가 비용 금액 값 fee fees price cost",
        "장소 위치 venue place location",
        "이름 명칭 name",
        "예약 booking reservation",
        "마감 기한 마감일 deadline due",
        "생일 생신 birthday",
        "모임 독서모임 클럽 club meeting",
        "책 도서 book books 《",  # 《…》 writes a book's title
        "화상 온라인 online video",
        "회화 conversation speaking",
        "단어 어휘 word words vocabulary",
        "목표 goal target",
        "대출 반납 loan",
        "발표 결과 result results",
        "여권 passport",
        "호텔 숙소 hotel",
        "항공편 항공권 비행기 flight",
        "좌석 seat",
        "체크인 check-in checkin",
        "체크아웃 check-out checkout",
    )
)


def _synonyms(word: str) -> frozenset[str]:
    return frozenset().union(*(g for g in SYNONYM_GROUPS if word.lower() in g)) or frozenset({word.lower()})


def _canonical(word: str) -> str:
    """One name for the words of a synonym group (수업료, 요금, fee → one)."""
    group = next((g for g in SYNONYM_GROUPS if word.lower() in g), None)
    return min(group) if group else word


DEADLINE_WORDS = ("마감", "기한", "데드라인", "deadline", "due")
DEADLINE_RE = re.compile(r"\d\s*(?:일|월|시|/\d+|\.\d+)?\)?\s*까지")


def _names(sentence: str, attributes: tuple[str, ...]) -> bool:
    """Whether a sentence names one of the attributes or a word of its synonym group (a
    three-syllable-or-longer word may lose its last syllable: 출국일 → 출국 날짜)."""
    if not attributes:
        return True
    low = sentence.lower()
    if any(a.startswith(DEADLINE_WORDS) for a in attributes) and DEADLINE_RE.search(sentence):
        return True  # "마감 언제" of "신청이 12월 15일까지": the date 까지 is the deadline
    return any(
        s in low or (len(s) >= 3 and not s.isascii() and s[:-1] in low) for a in attributes for s in _synonyms(a)
    )


PROGRESS_QUESTION_RE = re.compile(r"어디까지|몇\s*(?:쪽|페이지|챕터)|(?i:\bhow far\b|\bwhich (?:page|chapter)\b)")
# How far a reading, a course or a task got: a page, a chapter, a share, or "finished/half".
PROGRESS_RE = re.compile(
    r"\d+\s*(?:쪽|페이지|장|챕터|과|강|단원|%|퍼센트)|\bp\.?\s?\d+|(?i:\b(?:page|chapter|lesson|unit)\s?\d+)"
    r"|절반|반쯤|반 정도|끝까지|다 읽|완독|완주|마쳤|끝냈|(?i:\bhalfway\b|\bfinished\b)"
)
RATIO_QUESTION_RE = re.compile(r"몇\s*(?:대|:)\s*몇")
# "2:1", "3 대 1": one digit either side of a colon (10:30 is a clock time), any figures around 대
RATIO_RE = re.compile(r"(?<![\d:])\d\s*:\s*\d(?![\d:])|\d+\s*대\s*\d+")
MONTH_QUESTION_RE = re.compile(r"(?<![가-힣])달(?:이|은|는)?\s*언제|(?:무슨|어느|몇)\s*달|(?i:\b(?:what|which) month\b)")


def _answer_type(part: str) -> str:
    if EN_TIME_RE.search(part):
        return "time"
    if EN_DURATION_RE.search(part):
        return "duration"
    if EN_AMOUNT_RE.search(part):
        return "amount"
    if RATIO_QUESTION_RE.search(part):  # "몇 대 몇으로": a ratio, not a count of vehicles (대)
        return "ratio"
    counter = COUNTER_RE.search(part)
    if counter and counter.group(1).startswith(("키로", "킬로")):  # "몇 키로": kilograms or kilometres
        return "kilo"
    if counter:
        word = counter.group(1)
        for unit in sorted(tx.UNITS, key=len, reverse=True):
            if word.startswith(unit):
                return COUNTER_ALIASES.get(unit, unit) if unit != "시" else "time"
        for alias, unit in COUNTER_ALIASES.items():
            if word.startswith(alias):
                return unit
        local = next((c for c in (*LOCAL_COUNTERS, *sorted(LIST_COUNTERS, key=len, reverse=True)) if word.startswith(c)), None)
        return local or "amount"
    if IDENTIFIER_QUESTION_RE.search(part) and not tx.has_any(part, ("얼마", "몇")):
        return "identifier"
    if PROGRESS_QUESTION_RE.search(part):  # "어디까지 읽었지": how far, a page/chapter/share
        return "progress"
    if MONTH_QUESTION_RE.search(part):  # "발제 맡은 달이 언제": a month, not a weekday or a clock time
        return "월"
    if tx.has_any(part, TIME_QUESTION):
        return "time"
    if "얼마" in part:
        return "duration" if tx.has_any(part, DURATION_NOUNS) else "amount"
    return "amount" if tx.has_any(part, AMOUNT_NOUNS) else ""


def _typed(want: str, sentence: str, found: list[tx.Quantity]) -> bool:
    """Whether a sentence (with its figures ``found``) holds the value wanted: an amount, a
    duration, a date/time/weekday, or a figure with the counter asked for."""
    if not want:
        return True
    if want in LIST_COUNTERS and not _has_unit(found, want):  # "5권", "3명이"
        return bool(re.search(rf"\d\s*{want}(?![가-힣])|\d\s*{want}(?:으로|이|을|에|의|은|도|씩)", sentence))
    if want in LOCAL_COUNTERS:  # "몇 박": a figure with that counter ("4박으로")
        return bool(re.search(rf"\d\s*{want}(?![가-힣])|\d\s*{want}(?:으로|이|을|에|의|은|도)", sentence))
    if want == "kilo":
        return any(q.unit in ("kg", "km") for q in found) or bool(re.search(r"\d\s*(?:키로|킬로)", sentence))
    if want == "ratio":
        return bool(RATIO_RE.search(sentence))
    if want == "progress":
        return bool(PROGRESS_RE.search(sentence))
    if want == "identifier":
        return any(_identifier(m.group()) for m in IDENTIFIER_RE.finditer(sentence))
    if want == "time":
        return any(q.unit in TIME_UNITS for q in found) or bool(WEEKDAY_RE.search(sentence))
    if want == "duration":
        return any(q.unit in DURATION_UNITS for q in found)
    if want == "amount":
        return any(q.unit not in TIME_UNITS and q.unit not in ORDINAL_UNITS for q in found)
    return _has_unit(found, want)


_END_WORDS = ("끝나", "끝날", "만료", "종료", "만기", "끝이")
_SPAN_RE = re.compile(r"\d+\s*(?:년|개월|달|주)\s*(?:계약|약정|동안|간)")


def _end_from_start(facet: Facet, sentence: str, found: list[tx.Quantity]) -> bool:
    """An end date asked ("계약 끝나는 게 언제") of a sentence with a start date and a span
    ("2025-03-01 입주, 2년 계약"): answered by counting, as the labels count an indirect answer."""
    return (
        facet.want == "time"
        and any(w.startswith(_END_WORDS) for w in (*facet.attribute, *facet.words))
        and any(q.unit in TIME_UNITS for q in found)
        and bool(_SPAN_RE.search(sentence))
    )


def _identifier(found: str) -> bool:
    """An address, a lettered code (X500, INV-031), or digits with hyphens that are no date and
    hold four digits or more (010-4821-7730, 85112-3)."""
    if "@" in found or found[0].isalpha():
        return True
    return not DATE_FORM_RE.fullmatch(found) and len(re.sub(r"\D", "", found)) >= 4


# Counters of things a list can be counted for ("몇 권" → a list of titles, "몇 명" → of names).
LIST_COUNTERS = frozenset("권 명 개 곳 편 마리 가지 건 종 팀 군데 과목 벌 켤레 대".split())
_LIST_RE = re.compile(r"[:：]\s*[^,，:]+(?:[,，]\s*[^,，:]+){2,}")


def _counted_list(want: str, sentence: str) -> bool:
    """A count asked for things (몇 권/명/개) and a sentence listing them (two or more titled
    items 《…》, or three or more after a colon): the count is there to be read by counting."""
    return want in LIST_COUNTERS and (sentence.count("《") >= 2 or bool(_LIST_RE.search(sentence)))


def _has_unit(found: list[tx.Quantity], unit: str) -> bool:
    return any(COUNTER_ALIASES.get(q.unit, q.unit) == unit for q in found)


def _want_label(want: str) -> str:
    return {
        "": "",
        "amount": "의 금액/수치",
        "duration": "의 기간",
        "time": "의 날짜/시점",
        "progress": "의 진행 위치(쪽/장/비율)",
        "identifier": "의 번호/주소/코드",
        "ratio": "의 비율",
        "kilo": "의 수치(kg/km)",
    }.get(want, f"의 수치({want})")


# A numbered item's label ("1번 통", "3호", "#2"), not a frequency ("주 2번"): what a value is of.
ITEM_LABEL_RE = re.compile(
    r"(?<![주월일년달회\d]\s)(?<![주월일년달회\d])(#\s?\d+|\d+\s*(?:번|호)(?=\s*[가-힣A-Za-z])(?!\s*(?:씩|에|째|만|정도|이상|이하|더)))"
)


FEE_SUFFIXES = ("료", "비")


def _value_conflicts(memory: str) -> list[str]:
    """Subjects (the word right before a figure) that carry two different values: a segment's
    first value under any unit, a later one ("세작 50g 파우치 판매가 16,000원": 16,000원 of 판매가)
    only against another value in its own unit. Values of two numbered items ("1번 통 봉판 6장.
    2번 통 봉판 5장") never conflict; a fee word and its stem (대여료, 대여) are one subject for
    values in one unit."""
    seen: dict[str, list[tuple[str, tx.Quantity]]] = {}  # subject -> (item label, value)
    later: dict[str, list[tuple[str, tx.Quantity]]] = {}
    for seg in tx.segments(memory):
        figures = tx.quantities(seg)
        if not figures:
            continue
        # a count before the value ("1회 요금 28,000원") says what the value is per, it is not it
        # (nor is a one before another figure: "1인 30,000원", "1병 75,000원")
        values = [
            f for n, f in enumerate(figures)
            if f.unit not in ORDINAL_UNITS and not (f.value == 1 and f.counter and n + 1 < len(figures))
        ] or figures[:1]  # fmt: skip
        # figures are read from the segment in one written form ("오백만 원" as 5000000원), and
        # found there: "16,000원" is the 16000원 it is read as
        plain = canonical_figures(seg).replace(",", "")
        start, owner = 0, ""
        for n, value in enumerate(values):
            written = value.text.replace(",", "")
            at = plain.find(written, start)
            if n and at < 0:  # written another way than the segment (a date put in one form)
                continue
            before = plain[start:at] if at >= 0 else plain
            start = at + len(written) if at >= 0 else start
            # the unit a price is per ("회당", "1회", "월") is not its subject
            words = [w for w in tx.stems(before) if w not in RATE_WORDS and not re.match(r"^\d", w)]
            if not n:
                # "사용자 휴대폰: 월 55,000원" and "딸 휴대폰: 월 22,000원" are two people's, not one conflict
                found = _OWNER_RE.search(before)
                owner = found.group(1) if found else ""
            if not words:
                continue
            # one thing under two words ("수업료" and "요금"): one subject; a word of a synonym
            # group as written ("판매가", which the stemmer would read as 판매 + 가) first
            raw = re.sub(r"[^\w]", "", before.split()[-1]) if before.split() else ""
            word = raw if any(raw.lower() in g for g in SYNONYM_GROUPS) else words[-1]
            item = ITEM_LABEL_RE.findall(plain[: at if at >= 0 else len(plain)])
            subject = f"{owner} {_canonical(word)}".strip()
            (later if n else seen).setdefault(subject, []).append((item[-1].replace(" ", "") if item else "", value))
    # a fee word's values join its stem's in their unit ("대여: 30,000원" and "대여료 35,000원")
    for subjects in (seen, later):
        for subject in list(subjects):
            stem = subject[:-1]
            if len(subject) >= 3 and subject.endswith(FEE_SUFFIXES) and stem in {*seen, *later}:
                units = {v.unit for _, v in subjects[subject]}
                for pool in (seen, later):
                    subjects[subject] += [(k, v) for k, v in pool.get(stem, []) if v.unit in units]
    out = []
    for subject in dict.fromkeys([*seen, *later]):
        first, rest = seen.get(subject, []), later.get(subject, [])
        candidates = [first] if not rest else [first, *([[e for e in (*first, *rest) if e[1].unit == u] for u in {v.unit for _, v in rest}])]
        found = next((d for entries in candidates for d in _distinct_per_item(entries) if len(d) > 1), None)
        if found:
            out.append(f"{subject}: " + " / ".join(v.text for v in found))
    return out


def _distinct_per_item(entries: list[tuple[str, tx.Quantity]]) -> list[list[tx.Quantity]]:
    """The distinct values of each numbered item (unlabelled values join every item): two
    values can conflict only within one item."""
    labels = {k for k, _ in entries if k} or {""}
    out = []
    for label in labels:
        distinct: list[tx.Quantity] = []
        for k, v in entries:
            if k in (label, "") and not any(tx.same_quantity(v, d) for d in distinct):
                distinct.append(v)
        out.append(distinct)
    return out


@dataclass(frozen=True)
class MemorySignals:
    """What one judge reads off a memory before scoring it (``MemoryRules.memory_rule_verdict``).

    q: the share of the query's core words in the memory; facets and how many of them are
    answered, on the topic only or undecided; other_script: query and memory in different
    scripts, bridged: matched across them anyway; unrelated: nothing of the query in it; vague:
    the topic only mentioned; stale / unknown_update: a change or current value asked and none
    recorded; confused: the value is another target's; conflicts (and whether an update explains
    them), superseded: an old value kept beside its update; sentences, of which flagged
    (notices, resolved items), off the query, and small talk.
    """

    q: float
    facets: int
    answered: int
    topic_only: int
    undecided: int
    other_script: bool
    bridged: bool
    unrelated: bool
    vague: bool
    stale: bool
    unknown_update: bool
    confused: bool
    conflicts: int
    updated: bool
    superseded: bool
    sentences: int
    flagged: int
    off_topic: int
    chatter: int
