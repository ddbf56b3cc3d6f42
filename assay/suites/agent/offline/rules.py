"""agent_intent: the offline jury's rules (seed 004).

agent_intent: empty or error message → FAILED; greeting or unrelated (label OTHER, target
coverage T < .2) → FAILED; clarifying question → PARTIAL if T ≥ .3, WEAK if T ≥ .1, else FAILED (a question about
nothing the request names); action class
of request vs message: same 1, related (MOVE/UPDATE, ADD/UPDATE) or unknown 0.5, different
0 → RELATED_BUT_WRONG (FAILED if T ≤ .2); the right action on another target (before a target word
both share, the request's qualifier is missing and the message has its own, not a generic
reference such as 요청하신/해당 or the honorific 님: "디자이너 공고" for "백엔드 개발자 공고", "이영희 지원자" for
"김민수 지원자"; on a posting named by its code, another stage of it: "최종 면접" for "2차 면접")
→ RELATED_BUT_WRONG; else s = 0.5·action + 0.4·T + 0.1·scope (share of
the request's figures repeated): s ≥ .9 PERFECT, ≥ .65 GOOD, ≥ .5 PARTIAL, ≥ .3 WEAK, else
RELATED_BUT_WRONG; a request with two or more actions of which the message performs only
some is at most PARTIAL. ``intent_label`` is the message's action class by cue words.

The request's action is the verb that closes it and the message's the verb closing its first
sentence, with English verbs and 연장/입력-style updates read too (``offline.actions``). Three
cases the scale above would misplace: the right action with a value other than the one asked
(a figure in the request's unit, none equal: "5월 30일" for "6월 30일", "1차" for "2차") →
RELATED_BUT_WRONG; the right action on one member where the request named the whole group
(전원, 모두, all) → PARTIAL, not another target; a look-up (VIEW) where a change was asked,
on the right target → WEAK (harmless, but nothing done).

After the v5 round: a message whose first sentence sends the user elsewhere (문의해 주세요, please
contact) → FAILED/OTHER; an unrelated statement's intent label is OTHER; a move to another
destination stage than the one asked ("2차 면접 단계로" for "최종 합격 단계로"; a destination of
the request's own words or 다음/next is none) or another status (rejected for on hold, 불합격 for
보류) → RELATED_BUT_WRONG; on a coded posting, another person before 지원자/님 is another target;
the right action whose message names nothing but the request's words and words that name
nothing ("The interview has been rescheduled as requested", "메모를 추가했어요") → GOOD (vague
target); one of two targets the request joins (A and B, A와 B) left out, or a list's filter
("X만", "only … with X") not in the message → at most PARTIAL. English function words are no
target words.

After the v6 round: 배정/assign, 늘려/줄여/push/postpone (updates), 남겨 (into a field) and 뽑아 (a
list) are read; an action the request rules out ("instead of rejecting him", "삭제하지 말고")
is neither its action nor one of its asked actions, its words are no target words, and a
message performing it → RELATED_BUT_WRONG; a first sentence saying it cannot act ("처리해 드릴
수 없어요") → FAILED/OTHER; one person named before 지원자/님 where the request asked for the
whole group and named no one → at most PARTIAL.

After the v7 round: "don't/do not/never X" rules X (and its status) out; a message closing by
asking leave ("계속할까요?", not an open "무엇을 도와드릴까요?") after a stated consequence is a
clarification; "to the … stage" with no verb cue asks a move; a predicate before a role word
(보유한/소지한 지원자) names no other target; a count of past times ("두 번 올라간") is no value to
repeat; a write on a Hangul-named person the request does not name, while the request's own
person is missing, → RELATED_BUT_WRONG.

After the v9 round: sending (보내/발송/send) is an UPDATE and saving (저장/save) an ADD (into a
field an UPDATE), but a send "to the … stage" is a move and 내보내 (export) no send; a
hyphenated compound ("no-show") holds no verb; a first sentence closing on a copula ("…은
5,800만 원입니다") describes a state (VIEW); a report of the asked write in words that name
nothing ("Done, I've updated their status.") is GOOD, not unrelated; a plural person noun
(합격자들, 회원들) names the whole group, and one named member of it done is WEAK (the labels
since v4); one word in two forms (이상/이상인) names no other target; a clause restricting the
people listed ("미제출인 사람", "경력 없는 지원자") is a filter like "X만"; in an English sentence a
Hangul word of two to four syllables is a person; a count of past times before a finite past
verb ("두 번 들어갔네") is no value.

After the v12 round: a message whose first sentence reports the act done and a later one that part
of it failed ("두 분께 보냈습니다. 한 분은 … 보내지 못했습니다") → PARTIAL; a deflection in a later
sentence of a message that reports nothing done ("…는 담당자만 쓸 수 있어요. 담당자에게 요청해
보세요"), or telling the user how to do it themselves ("…버튼으로 저장하실 수 있어요") → FAILED/OTHER;
the right write where the request names a person and the message, naming none of the request's
people, names a Latin full name outside parentheses ("sent to Marcus Lee (P-764)") →
RELATED_BUT_WRONG. Cue words (``offline.actions``): 지우/지워 closing a name (천지우) is no delete,
a negated relative clause ("who hasn't sent in …") is a filter and no action, mark/tag are
updates and "pull up" a view, and "지우지 마시고" rules deletion out like "지우지 말고". A message
that reports the asked write beside a related one (MOVE/UPDATE, ADD/UPDATE: "과제 전형으로
이동했고, 안내 메일을 발송했습니다", "등록했고, 추천인은 … 기록했습니다") performs the asked action
(its intent label is the request's); a change of a value asked (바꿔/변경/수정/change, naming
no memo) and a memo or note written instead → WEAK (``actions.memo_instead``); a message made
only of action words ("Tags added.") names its target vaguely (GOOD when the asked write); a
write on other coded targets only (P-619 for P-287) is on another target even when the request's
verb is no cue ("지원 연결해 줘"); "see" is a look-up and the frame of an indirect English request
(i'd, like, could, you, please, who, still, yet, been, hasn't …) names no target.
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import AgentIntentInput
from assay.schemas import JsonObject
from assay.suites.agent.offline import actions as acts

ORDINAL_UNITS = frozenset({"차", "위", "단계"})
# Words that refer to the request's target without naming another one.
GENERIC_QUALIFIERS = tuple(
    "요청하신 요청한 말씀하신 말씀한 선택하신 선택한 지정하신 지정한 해당 기존 전체 모든 현재 이번 새로운 신규 채용 모집 직무 관련 위의 대로 다른".split()
    # a predicate describing the target ("자격증을 보유한 지원자" for "자격증 있는 지원자") names no other one
    + "보유 소지 가진 갖춘 갖고 있는".split()
    + ["님"]  # the honorific after a name ("도하람 님을") names no other target
)


# Words that carry no target of their own in a message ("The interview has been rescheduled as
# requested", "요청하신 지원자 정보를 수정해 두었습니다", "다음 면접으로"): a message made only of
# these and the request's own words names its target vaguely (rubric: GOOD), not another one.
# Role words after a person's name: the word before them names the person.
PERSON_WORDS = frozenset({"지원자", "후보", "후보자", "candidate", "님"})
# a person's name as ``_target_words`` writes it, and the nouns that also stand before 지원자
_NAME_RE = re.compile(r"^(?:[가-힣]{2,4}|[a-z]{2,})$")
ROLE_NOUNS = frozenset("단계 목록 명단 전체 공고 서류 면접 합격 불합격 최종 심사 경력 신입 신규 합격자 중인 all".split())
VAGUE_WORDS = frozenset(
    "the a an as requested request has have been is was were it its this that your you to for of on in at with "
    "now next all done successfully candidate applicant posting 다음 정보 내용 건 두었 드렸 뒀 완료 처리 요청대로 말씀대로 "
    "지원자 공고".split()
    # pronouns and words for a record's state name no target of their own ("Done, I've
    # updated their status.", "말씀하신 대로 상태 바꿔 뒀어요")
    + "i i've ive ve ll we we've they them their theirs he him his she her it's its ok okay all set status record "
    "records details info entry 상태 기록 항목 그분 그분들 그 이 저 네 넵 됐습니다 끝났습니다 했습니다".split()
    # a bare acknowledgement ("Got it, note added.", "네, 기록해 두었습니다.")
    + "got sure noted 기록해".split()
)


# not a code's digits before a name ("P-847 차예서" is no 847th stage)
_EN_FUNCTION_RE = re.compile(
    r"(?i)\b(?:the|a|an|to|on|for|of|in|at|with|from|and|is|are|'s"
    # the frame of a polite or indirect English request ("I'd like to see who … hasn't been …")
    r"|i'd|i'm|i|like|could|would|you|please|who|which|still|yet|been|has|have|hasn't|haven't)\b"
)
_ORDINAL_RE = re.compile(r"(?<![-\d])(\d+)\s*차(?=\s|[가-힣])")


def _target_words(text: str) -> tuple[str, ...]:
    """The words naming a target, with stage ordinals kept as words ("1차 면접" vs "최종 면접":
    ``tx.stems`` drops words with digits, which are compared as figures elsewhere)."""
    return tx.stems(_ORDINAL_RE.sub(lambda m: f"제{m.group(1)}차 ".translate(_DIGIT_WORDS), tx.strip_action_words(text)))


def _person_word(word: str) -> bool:
    """A role word after a name, with its particle ("님에게", "지원자의", "candidate")."""
    return word in PERSON_WORDS or word.startswith(("님", "지원자", "후보"))


def _one_of_all(query: str, message: str) -> str:
    """A person the message names before a role word (선우진 지원자), where the request asked
    for a whole group (전원, 모두, all) and names no one itself."""
    if not acts.covers_all(query):
        return ""
    words = _target_words(message)
    asked = set(_target_words(query))
    people = [
        w for w, nxt in zip(words, words[1:], strict=False)
        if _person_word(nxt) and _NAME_RE.match(w) and w not in ROLE_NOUNS and w not in asked
    ]  # fmt: skip
    return people[0] if people and not any(_NAME_RE.match(w) and n in PERSON_WORDS for w, n in zip(_target_words(query), _target_words(query)[1:], strict=False)) else ""


# a count of times before a past-tense modifier ("두 번 올라간", "세 번 지원한")
# or before a past-tense verb ("두 번 들어갔네", "세 번 지원했어요", "twice")
_PAST_COUNT_RE = re.compile(
    r"(?:\d+|한|두|세|네)\s?(?:번|회)\s+[가-힣]*(?:(?:간|온|된|한|은|던)(?=\s)|[갔왔됐했였었았])"
)
# (accented letters are letters: "Tomás Silva", "José Núñez")
_LATIN_NAME_RE = re.compile(r"\b[A-Z][a-zà-öø-ÿ]+(?:\s[A-Z][a-zà-öø-ÿ]+)+\b")
PERSON_ANCHORS = PERSON_WORDS | {"지원서", "application"}


def _people(text: str, latin: bool = True) -> set[str]:
    """People a text names: a Hangul name before 지원자/님/지원서, and (``latin``) a Latin full
    name (Emily Carter; a message's Latin capitals are as often a job title)."""
    out = {m.group(0).lower() for m in _LATIN_NAME_RE.finditer(text)} if latin else set()
    # in an English sentence a Hangul word of two to four syllables is a name ("Send the link to
    # 유다온 on P-178", "sent to 탁지호")
    if len(re.findall(r"[A-Za-z]{2,}", text)) > 2 * len(re.findall(r"[가-힣]+", text)):
        out |= {w for w in re.findall(r"(?<![가-힣])[가-힣]{2,4}(?![가-힣])", text)}
    words = _target_words(text)
    out |= {
        w for w, nxt in zip(words, words[1:], strict=False)
        if nxt in PERSON_ANCHORS and re.match(r"^[가-힣]{2,4}$", w) and w not in ROLE_NOUNS
        and not w.startswith(GENERIC_QUALIFIERS)
    }  # fmt: skip
    return out


def _other_person(query: str, message: str) -> str:
    """The message names a person the request does not, and none of the people the request
    names ("설하윤 지원자의 지원서" for "Emily Carter 지원서"): the action on another person."""
    asked, said = _people(query), _people(message, latin=False)
    low_message, low_query = tx.lowered(message), tx.lowered(query)
    if not asked or any(p in low_message for p in asked):
        return ""
    # none of the asked people named: a Latin full name outside parentheses is a person too
    # ("sent to Marcus Lee (P-764)" for 천지우; a job title stands in parentheses)
    said |= {m.group(0).lower() for m in _LATIN_NAME_RE.finditer(re.sub(r"\([^()]*\)", " ", message))}
    if not said:
        return ""
    others = sorted(p for p in said if p not in low_query)
    return others[0] if others else ""


# Traits a hiring filter must not use, a refusal, and the reason it gives.
_PROTECTED_RE = re.compile(
    r"나이|연령|성별|남자|여자|여성|남성|미혼|기혼|결혼|혼인|임신|출산|종교|국적|고향|장애"
    r"|\b(?:age|gender|sex|married|marital|pregnan\w*|religio\w*|nationality|disabilit\w*)\b",
    re.I,
)
_DECLINE_RE = re.compile(
    r"(?:도와드리기|해\s?드리기|처리하기|추리기|걸러\s?드리기)\s?어렵|할\s?수\s?없|드릴\s?수\s?없|수\s?없게\s?되어"
    r"|\b(?:can't|cannot|won't be able|unable to)\b",
    re.I,
)
# An expected result that is not to act ("보내지 않고 … 안내", "거절", "decline", "without sending")
_NOT_TO_DO_RE = re.compile(r"지\s?않고|하지\s?않음|거절|\b(?:declin\w*|refus\w*|without \w+ing|not (?:send|share|export))\b", re.I)
_WHY_DECLINED_RE = re.compile(r"차별|개인정보|법적|불법|위법|discriminat\w*|privacy|unlawful|illegal", re.I)


def _extra_on_others(query: str, message: str) -> str:
    """A sentence after the first that reports a write the request did not ask for, on people
    the request does not name ("같은 단계의 Ananya Rao, 인하준 님께는 불합격 메일을 발송했습니다")."""
    low_query = tx.lowered(query)
    for sentence in (tx.sentences(message) or [message])[1:]:
        done = acts.actions_in(sentence) & acts.WRITE_ACTIONS
        others = sorted(p for p in _people(sentence) if p not in low_query)
        if done and others:
            return others[0]
    return ""


def _vague(request: str, message: str) -> bool:
    """Every word of the message is the request's own or a word that names nothing."""
    request, message = acts.drop_ids(request), acts.drop_ids(message)
    own = {w[:2] for w in (*tx.stems(request), *_target_words(request)) if len(w) >= 2}
    words = [w for w in _target_words(acts.strip_extra_cues(message)) if not w.isdigit()]
    if not words:  # nothing but action words ("Tags added.", "입력 완료"): the target unnamed
        return bool(acts.actions_in(message))
    return all(w in VAGUE_WORDS or w[:2] in own or len(w) < 2 or w.startswith("님") for w in words)


def _shares_a_word(request: str, message: str) -> bool:
    """Some word of the message starts like a word of the request (지원자들/지원자)."""
    heads = {w[:2] for w in tx.stems(request) if len(w) >= 2}
    return any(w[:2] in heads for w in tx.stems(message) if len(w) >= 2)


_DIGIT_WORDS = str.maketrans("0123456789", "영일이삼사오육칠팔구")
# A stage word as ``_target_words`` writes it: an ordinal (제일차) or 최종 (final).
_STAGE_WORD = re.compile(r"^(?:제[영일이삼사오육칠팔구]+차|최종)$")


class AgentRules(RuleSet):
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""


    def agent_intent(self, item: AgentIntentInput) -> JsonObject:
        tag = f"[{self.signal}]"
        message = tx.normalize(item.assistant_message)
        label = acts.message_action(message)
        if label == "ERROR":
            empty = not message.strip()  # no reply at all reports no error either (the labels: OTHER)
            return {
                "verdict": "FAILED",
                "intent_label": "OTHER" if empty else "ERROR",
                "reasoning": f"{tag} " + ("응답이 비어 있음." if empty else "응답이 없거나 오류/실패 메시지."),
            }
        request = item.query + ("\n" + item.expected_result if item.expected_result.strip() else "")
        ctx = self.prepare([request, message])
        # English function words (the, on, for) are no target words a message must repeat
        # (the words that rule an action out, "삭제하지 말고", name no target)
        target = self.units(_EN_FUNCTION_RE.sub(" ", tx.strip_action_words(acts.without_excluded(item.query))), ctx)
        t = self.coverage(target, self.units(message, ctx))
        t = 1.0 if t is None else t
        # (an order not to, closing the request — "초안만 보여줘. 아직 보내지 마" — is not what it asks)
        wanted = acts.request_action(acts.without_excluded(item.query)) or acts.request_action(item.query)
        if label != "CLARIFY" and acts.deflects(message):
            return {
                "verdict": "FAILED",
                "intent_label": "OTHER",
                "reasoning": f"{tag} 요청 의도 {wanted or '불명'}: 수행하지 않고 다른 곳으로 안내함(문의/연락 요청).",
            }
        figures = tx.quantities(item.query)
        scope = (
            (sum(any(tx.same_quantity(f, g) for g in tx.quantities(message)) for f in figures) / len(figures))
            if figures
            else 1.0
        )
        why = f"요청 의도 {wanted or '불명'}, 메시지 의도 {label}, 대상 포함률 {pct(t)}, 범위(수치) {pct(scope)}"
        # a reply that names nothing of the request's target is about something else (rubric:
        # FAILED), whatever verb it uses ("오늘 서울은 맑고 …입니다" for a count of applicants)
        # but a report of the asked action done, in words that name nothing ("Done, I've updated
        # their status.") names its target vaguely (rubric: GOOD), not another one
        confirmed = (
            (label == wanted or {label, wanted} == {"ADD", "UPDATE"})
            and label in acts.WRITE_ACTIONS
            and _vague(request, message)
        )
        if (label == "OTHER" and t < 0.2) or (
            label != "CLARIFY" and t < 0.1 and not _shares_a_word(request, message) and not confirmed
        ):
            return {
                "verdict": "FAILED",
                # a statement about something else reports no action on the request ("…현황입니다")
                "intent_label": "OTHER" if label == "VIEW" else label,
                "reasoning": f"{tag} {why}: 요청과 무관한 응답.",
            }
        # (as is any request whose expected result is not to do it: "외부 메일로 보내지 않고 대안 안내")
        refusal_expected = _PROTECTED_RE.search(item.query) or _NOT_TO_DO_RE.search(item.expected_result)
        if refusal_expected and _DECLINE_RE.search(message) and _WHY_DECLINED_RE.search(message):
            # a filter by age, sex, marriage … declined for its reason (discrimination, privacy):
            # the right answer to such a request (the labels: PERFECT, intent OTHER)
            return {"verdict": "PERFECT", "intent_label": "OTHER",
                    "reasoning": f"{tag} {why}: 차별·개인정보 소지가 있는 요청을 이유를 들어 거절함."}  # fmt: skip
        if label == "CLARIFY":
            # A question about the request's target clarifies it; one about nothing it names
            # ("오늘 날씨는 어떠세요?") is unrelated.
            verdict = "PARTIAL" if t >= 0.3 else "WEAK" if t >= 0.1 else "FAILED"
            return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}: 되묻기 응답."}
        if label in acts.excluded_actions(item.query) and label != wanted:
            # the action the request ruled out ("instead of rejecting him" → rejected)
            return {"verdict": "RELATED_BUT_WRONG", "intent_label": label,
                    "reasoning": f"{tag} {why}: 요청이 하지 말라고 한 동작을 수행."}  # fmt: skip
        if (
            wanted in acts.WRITE_ACTIONS
            and label in acts.WRITE_ACTIONS
            and frozenset({wanted, label}) in tx.NEAR_INTENTS
            and wanted in acts.actions_in(message)
        ):
            # the asked write reported beside a related one ("과제 전형으로 이동했고, 안내 메일을
            # 발송했습니다", "등록했고, 추천인은 … 기록했습니다"): the message performs the asked action
            label = wanted
        if wanted is None or label == "OTHER":
            action = 0.5
        elif wanted == label:
            action = 1.0
        elif frozenset({wanted, label}) in tx.NEAR_INTENTS:
            action = 0.5
        else:
            action = 0.0
        if action == 0.0:
            if label == "VIEW" and wanted in acts.WRITE_ACTIONS and t > 0.2:  # looked, changed nothing
                return {"verdict": "WEAK", "intent_label": label,
                        "reasoning": f"{tag} {why}: 변경 요청에 조회만 함(해는 없으나 요청은 수행 안 됨)."}  # fmt: skip
            verdict = "RELATED_BUT_WRONG" if t > 0.2 else "FAILED"
            return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}: 요청과 다른 동작."}
        if action == 1.0 and acts.partly_failed(message):
            # done for some, the rest reported failed ("두 분께 보냈습니다. 남유빈 님은 … 발송하지
            # 못했습니다"): part of the asked work, honestly reported
            return {"verdict": "PARTIAL", "intent_label": label,
                    "reasoning": f"{tag} {why}: 요청 일부만 수행하고 나머지는 실패했다고 알림."}  # fmt: skip
        if action == 1.0 and wanted == "UPDATE" and acts.memo_instead(item.query, message):
            # a memo written where a value was to change ("메모에 '최종 합격 예정'이라고 남겨 두었습니다"
            # for a status change): harmless, but the change is not made (rubric: WEAK)
            return {"verdict": "WEAK", "intent_label": label,
                    "reasoning": f"{tag} {why}: 값 변경 대신 메모만 남김."}  # fmt: skip
        if action == 1.0 and _some_of_asked(item.query, message):
            # "4명 중 3명에게 보냈습니다": the asked count, part of it done and said so
            return {"verdict": "PARTIAL", "intent_label": label,
                    "reasoning": f"{tag} {why}: 요청한 수 중 일부에만 수행했다고 알림."}  # fmt: skip
        excluded_item = _excluded_item(item.query, message) if action == 1.0 else ""
        if excluded_item:
            # "현재 연봉 말고 희망 연봉" answered "현재 연봉을 …로 수정했습니다": the item ruled out
            return {"verdict": "RELATED_BUT_WRONG", "intent_label": label,
                    "reasoning": f"{tag} {why}: 요청이 제외한 항목('{excluded_item}')에 수행."}  # fmt: skip
        other = acts.other_values(item.query, message) if action == 1.0 else []
        if other:
            return {
                "verdict": "RELATED_BUT_WRONG",
                "intent_label": label,
                "reasoning": f"{tag} {why}: 같은 동작을 요청과 다른 값으로 수행({', '.join(other[:3])}).",
            }
        if action == 1.0:
            wrong = acts.other_destination(item.query, message) or acts.other_status(item.query, message)
            if wrong:
                return {
                    "verdict": "RELATED_BUT_WRONG",
                    "intent_label": label,
                    "reasoning": f"{tag} {why}: 같은 동작을 요청과 다른 단계/상태로 수행({wrong}).",
                }
        # a request with no verb cue ("… P-287 공고에도 지원 연결해 줘") still names its target: a
        # write on other coded postings only is on another target
        asked_ids, said_ids = acts.ids(item.query), acts.ids(message)
        expected_ids = acts.ids(item.expected_result)
        if action == 1.0:
            swapped = self._other_target(item.query, message)
            # the expected result names the posting: a write on other codes only is on another
            # target, even one the request mentions ("P-672에도 추가해 줘. P-533엔 이미 있어요")
            if not swapped and expected_ids and said_ids and not expected_ids & said_ids:
                swapped = sorted(said_ids - expected_ids)
        elif wanted is None and label in acts.WRITE_ACTIONS and asked_ids and said_ids and not asked_ids & said_ids:
            swapped = sorted(said_ids - asked_ids)
        else:
            swapped = []
        if swapped and acts.covers_all(item.query):  # one member of the group asked for: part of it
            return {
                "verdict": "PARTIAL",
                "intent_label": label,
                "reasoning": f"{tag} {why}: 요청한 전체 중 일부({', '.join(swapped[:3])})에만 수행.",
            }
        person = (
            _other_person(item.query, message)
            # (a near action too: "moved to Friday" for a reschedule is the asked change, on someone)
            if action >= 0.5 and label in acts.WRITE_ACTIONS and not acts.covers_all(item.query)
            else ""
        )
        if person and not swapped:
            swapped = [person]
        if swapped:
            return {
                "verdict": "RELATED_BUT_WRONG",
                "intent_label": label,
                "reasoning": f"{tag} {why}: 같은 동작을 다른 대상({', '.join(swapped[:3])})에 수행.",
            }
        s = 0.5 * action + 0.4 * t + 0.1 * scope
        verdict = (
            "PERFECT"
            if s >= 0.9
            else "GOOD"
            if s >= 0.65
            else "PARTIAL"
            if s >= 0.5
            else "WEAK"
            if s >= 0.3
            else "RELATED_BUT_WRONG"
        )
        # an action the request rules out is not one of the actions it asks for
        # (nor is an action named in a reason: "평판 조회 끝났으니까 …로 넘겨 주세요" asks no 조회)
        asked, done = tx.intents_in(acts.without_reasons(acts.without_excluded(item.query))), tx.intents_in(message)
        note = ""
        # (a record written either way too: "남겨 줘" (ADD) answered "기록해 두었습니다" (UPDATE); a
        # move answered "정보를 업데이트했습니다" says nothing of where to)
        vague = (
            (action == 1.0 or {wanted, label} == {"ADD", "UPDATE"})
            and verdict in {"PARTIAL", "WEAK"}
            and _vague(request, message)
        )
        if vague:
            # the right action, the target only referred to ("메모를 추가했어요"): rubric GOOD
            verdict = "GOOD"
            note = ", 대상을 밝히지 않은 모호한 응답(다른 대상은 없음)"
        one = _one_of_all(item.query, message) if verdict in {"PERFECT", "GOOD"} else ""
        if one:
            # the whole group asked for (전원, 모두, 합격자들, all), one named person done: most of
            # the asked work left undone (the labels since v4 grade it WEAK)
            verdict = "WEAK"
            note = f", 요청한 전체 대신 {one}에게만 수행"
        extra = _extra_on_others(item.query, message) if verdict in {"PERFECT", "GOOD"} else ""
        if extra:
            # the asked action done, and another the request did not ask, on other people
            # ("… 님께는 불합격 안내 메일을 자동으로 발송했습니다"): beyond the asked scope
            verdict = "PARTIAL"
            note = f", 요청하지 않은 동작을 다른 사람({extra})에게 수행"
        left = acts.missing_member(item.query, message)
        if left and verdict in {"PERFECT", "GOOD"}:
            verdict = "PARTIAL"
            note = f", 요청한 대상 중 {left} 빠짐"
        unfiltered = acts.missing_filter(item.query, message) if label == "VIEW" else ""
        if unfiltered and verdict in {"PERFECT", "GOOD"}:
            verdict = "PARTIAL"
            note = f", 요청의 조건({unfiltered})이 메시지에 없음"
        values = [f for f in figures if f.unit not in ORDINAL_UNITS]  # "1차 면접" names a stage
        if _PAST_COUNT_RE.search(item.query):  # "두 번 올라간 지원서": how often it happened, no value
            values = [f for f in values if f.unit != "회"]
        if (
            values
            and not any(tx.same_quantity(f, g) for f in values for g in tx.quantities(message))
            and verdict in {"PERFECT", "GOOD"}
            and not (vague and not tx.quantities(message))  # a vague message states no value at all
        ):
            # none of the request's values (a filter, a date) is in the message: part of the scope
            verdict = "PARTIAL"
            note = ", 요청의 수치 조건이 메시지에 없음"
        if len(asked) >= 2 and not asked <= done and verdict in {"PERFECT", "GOOD"}:
            verdict = "PARTIAL"
            note = f", 요청한 동작 {'/'.join(sorted(asked))} 중 {'/'.join(sorted(asked & done)) or '없음'}만 수행"
        return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}, 종합 {s:.2f}{note}."}

    @classmethod
    def _other_target(cls, query: str, message: str) -> list[str]:
        """Codes first: a request that names its target by code (P-903) is done on another when
        the message names other codes and not it, and on the same one when the message names
        it (then the message's other words describe it: "P-859 UX 리서처 공고"), unless the
        request asked for a whole group (then a missing member still counts); else words."""
        asked, said = acts.ids(query), acts.ids(message)
        if asked and said and not asked & said:
            return sorted(said - asked)
        words = cls._swapped_target(query, message)
        if asked and asked <= said and not acts.covers_all(query):
            # the coded target itself, described in other words; but another stage of it
            # ("1차 면접" for "최종 면접" of the same posting) is another target, and so is another
            # person named before the same role word ("남궁현 지원자" for "음지율 지원자")
            people = [
                mine for mine, anchor in cls._swapped_pairs(query, message)
                if anchor in PERSON_WORDS and _NAME_RE.match(mine) and mine not in ROLE_NOUNS
            ]  # fmt: skip
            return [w for w in words if _STAGE_WORD.match(w)] + people
        return words

    @classmethod
    def _swapped_target(cls, query: str, message: str) -> list[str]:
        return [mine for mine, _ in cls._swapped_pairs(query, message)]

    @staticmethod
    def _swapped_pairs(query: str, message: str) -> list[tuple[str, str]]:
        """Words naming another target: before a target word both share, the request has a
        qualifier the message lacks and the message has one of its own ("디자이너 공고" for
        "백엔드 개발자 공고", "이영희 지원자" for "김민수 지원자"). Generic references (요청하신,
        해당, 채용…) are not qualifiers."""
        asked = _target_words(query)
        said = _target_words(message)
        asked_set, said_set = set(asked), set(said)
        out = []
        for i, word in enumerate(said):
            if i == 0 or word not in asked_set:
                continue
            mine = said[i - 1]
            theirs = asked[asked.index(word) - 1] if asked.index(word) > 0 else None
            if (
                theirs is not None
                and theirs not in said_set
                and mine not in asked_set
                and not mine.startswith(GENERIC_QUALIFIERS)
                and not theirs.startswith(GENERIC_QUALIFIERS)
                and not acts.request_action(mine)
                and mine[:2] != theirs[:2]  # one word in two forms (이상/이상인, 지원자/지원자들)
                and mine not in VAGUE_WORDS  # "the interview", "다음 면접": no other target named
            ):
                out.append((mine, word))
        return out


# "4명 중 3명", "3 of 4": part of an asked count done
_SOME_OF_RE = re.compile(r"(\d+)\s*(명|건|곳|개)\s*중\s*(\d+)\s*\2|\b(\d+)\s+of\s+(?:the\s+)?(\d+)\b")


def _some_of_asked(query: str, message: str) -> bool:
    """The message reports part of the count the request asked ("네 명한테" answered "4명 중
    3명에게 보냈습니다")."""
    m = _SOME_OF_RE.search(message)
    if not m:
        return False
    total, done = (int(m.group(1)), int(m.group(3))) if m.group(1) else (int(m.group(5)), int(m.group(4)))
    # (the figure reader reads "네 명한테" as 4명)
    asked = {int(q.value) for q in tx.quantities(query)}
    return done < total and total in asked


# "현재 연봉 말고 희망 연봉": the item before 말고 is ruled out
_EXCLUDED_ITEM_RE = re.compile(r"(?:^|\s)(\S+\s)?(\S+?)\s*말고\s+(\S+)")


def _excluded_item(query: str, message: str) -> str:
    """An item the request rules out with 말고 (not an action: "삭제하지 말고" is read apart) that
    the message names while it names none of the item asked instead."""
    m = _EXCLUDED_ITEM_RE.search(tx.normalize(query))
    if not m or re.search(r"(?:하지|지)$", m.group(2)):
        return ""
    ruled = " ".join(w for w in ((m.group(1) or "").strip(), m.group(2)) if w)
    instead = tx.strip_suffix(m.group(3))
    words = [tx.strip_suffix(w) for w in ruled.split()]
    if acts.actions_in(ruled) or len(instead) < 2:
        return ""
    said = all(w in message for w in words if len(w) >= 2) and instead not in message
    return ruled if said else ""
