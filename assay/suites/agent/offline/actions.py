"""Which action a request asks for and a message reports, and the parts of a request (a
destination, a status, a filter, joined targets) a message can leave out or replace.

A request's action is the verb that closes it ("지난주에 추가한 지원자들 다 보여줘" asks to show);
a message's is the verb closing its first sentence. Cue words: ``rules/cues.yaml``.
"""

from __future__ import annotations

import re
from functools import cache

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, say
from assay.suites.agent.offline.cues import cues

WRITE_ACTIONS = frozenset({"ADD", "UPDATE", "MOVE", "DELETE"})


def _cue_pattern(cue: str) -> str:
    """English verbs only at a word start and not after a hyphen ("add" in "address", "show" in
    "no-show"); 보내 not in 내보내 (export)."""
    if cue.isascii():
        return rf"(?<![\w-]){re.escape(cue)}"
    return rf"(?<!내){re.escape(cue)}" if cue.startswith("보") else re.escape(cue)


def _alternation(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(_cue_pattern(c) for c in words))


@cache
def cue_res() -> dict[str, re.Pattern[str]]:
    """action -> the regex of its cue words: the shared list's, this suite's, sending (an UPDATE)
    and saving (an ADD)."""
    table = cues()
    extra = dict(table.action_cues)
    extra["UPDATE"] = (*extra["UPDATE"], *table.send_cues)
    extra["ADD"] = (*extra["ADD"], *table.save_cues)
    return {label: _alternation((*tx.INTENT_CUES.get(label, ()), *words)) for label, words in extra.items()}


@cache
def _send_re() -> re.Pattern[str]:
    return _alternation(cues().send_cues)


# 지우/지워 closing a name ("천지우") is no verb: a verb form follows a space or a particle.
_GLUED_DELETE_RE = re.compile(r"(?<=[가-힣])지(?=[우워웠])")
# "who hasn't sent in …", "not yet contacted": a filter on the people, not the action asked.
_NEGATED_CLAUSE_RE = re.compile(
    r"\b(?:has|have|had|did|does|do|is|are|was|were)(?:n't|\s+not)\s+(?:yet\s+|been\s+|ever\s+)*\w+|\bnot\s+yet\s+\w+", re.I
)


def unglued(text: str) -> str:
    """The text with 지우 inside a name and negated relative clauses made no cue."""
    return _NEGATED_CLAUSE_RE.sub(" ", _GLUED_DELETE_RE.sub("ㅈ", text))


def _positions(text: str) -> list[tuple[int, str]]:
    low = unglued(tx.normalize(text)).lower()
    return sorted((m.start(), label) for label, cue_re in cue_res().items() for m in cue_re.finditer(low))


# A field of an existing record (a memo, a note, tags): adding to it changes the record.
_FIELD_RE = re.compile(r"메모|노트|코멘트|태그|\b(?:memo|note|comment|tag)s?\b")


def _field_add(label: str, text: str) -> str:
    """ADD into a record's field ("메모를 추가했어요") is an UPDATE."""
    return "UPDATE" if label == "ADD" and _FIELD_RE.search(tx.lowered(text)) else label


def request_action(query: str) -> str | None:
    """The action of the verb closing the request (one it rules out aside), or None."""
    found = _positions(without_excluded(query))
    if _destination(query) and (not found or _send_re().search(tx.lowered(query))):
        return "MOVE"  # "Send X to the reference-check stage": a move, not a mail
    return _field_add(found[-1][1], query) if found else None


def _first(message: str) -> str:
    return (tx.sentences(message) or [message])[0]


def message_action(message: str) -> str:
    return _field_add(_message_action(message), _first(message))


# A closing question asking leave to act ("그래도 진행할까요?", "shall I go ahead?").
_CONFIRM_RE = re.compile(
    r"(?:할까요|될까요|하시겠습니까|하시겠어요|진행할까요|shall i[^?]*|should i[^?]*|do you want me to[^?]*|"
    r"would you like me to[^?]*)\?$"
)
# an open question ("무엇을 도와드릴까요?", "which posting?") asks what to do, not leave to do it
_OPEN_QUESTION_RE = re.compile(r"무엇|뭘|뭐|어떤|어느|언제|누구|\b(?:what|which|who|when)\b")
# a past action reported (했습니다, 완료, has been …): not a state description
_DONE_RE = re.compile(r"(?:했|였|됐|었)(?:습니다|어요|다)|완료|has been|have been")
# A state described ("…은 현재 2월 2일로 등록되어 있습니다") or a sentence closing on a copula
# ("…은 5,800만 원입니다", "X currently has an interview on Friday"): a look-up.
_STATE_RE = re.compile(r"(?:되어|돼|된\s*상태로?)\s*있(?:습니다|어요|네요|음)")
_COPULA_END_RE = re.compile(
    r"(?:입니다|이에요|예요|이에요|이야|is|are)\s*[.!]?\s*$"
    r"|\bcurrent(?:ly)?\b[^.!?]*\b(?:is|are)\b|\b(?:is|are)\s+currently\b"
    r"|\b(?:currently|still)\s+(?:has|have|holds?)\b",
    re.I,
)


def _asks_leave(message: str) -> bool:
    """States what acting would do, then asks to go ahead ("…복구할 수 없습니다. 진행할까요?")."""
    last = (tx.sentences(message) or [message])[-1]
    return (
        bool(_CONFIRM_RE.search(tx.lowered(message).rstrip()))
        and not _OPEN_QUESTION_RE.search(tx.lowered(last))
        and not _DONE_RE.search(tx.normalize(message))
    )


def _describes_state(sentence: str) -> bool:
    text = tx.normalize(sentence)
    return bool(_STATE_RE.search(text) or _COPULA_END_RE.search(text)) and not _DONE_RE.search(text)


def _message_action(message: str) -> str:
    """``text.message_intent``; where it reads an action, the action of the verb closing the
    first sentence, and this suite's verbs where it finds no cue of its own."""
    label = tx.message_intent(unglued(message))
    if label in {"ERROR", "CLARIFY"}:
        return label
    if tx.has_any(message, cues().error_cues):
        return "ERROR"
    first = _first(message)
    if first.rstrip().endswith("?") or _asks_leave(message):  # asks before acting
        return "CLARIFY"
    if is_deflection(first):
        return "OTHER"
    if _describes_state(first):  # a verb before a noun (기록된, 등록한) reports no action
        return "VIEW"
    in_first = _positions(first)
    if in_first and in_first[-1][1] in WRITE_ACTIONS:
        return in_first[-1][1]  # the verb closing the sentence, not one in a clause before it
    found = in_first or _positions(message)
    if found and (label not in {"OTHER", "VIEW"} or not tx.intent_of(unglued(message))):
        return found[-1][1] if in_first else found[0][1]
    return label


# Sent elsewhere ("인사팀에 문의해 주세요", "please contact HR") or told to do it oneself
# ("'인쇄' 버튼으로 저장하실 수 있어요"), or told it cannot be done ("처리해 드릴 수 없어요").
_DEFLECT_RE = re.compile(
    r"(?:문의|연락|요청|접수)(?:해|하여|하시기|를?\s*해)?\s*(?:주세요|주시기\s*바랍니다|바랍니다|하세요|보세요)|please\s+(?:contact|reach out|ask)"
    r"|(?:하실|으실|실)\s*수\s*있(?:어요|습니다)|\byou can (?:do|export|download|print|change|update|add) (?:this|that|it)\b"
)
_CANNOT_RE = re.compile(
    r"(?:드릴|해 드릴|할|처리할|변경할)\s*수(?:가)?\s*없|권한이\s*없|\b(?:unable to|not able to|can't|cannot|not allowed to)\b"
)


def is_deflection(sentence: str) -> bool:
    """The sentence sends the user elsewhere or says it cannot act, and reports nothing done."""
    low = tx.lowered(sentence)
    return bool(_DEFLECT_RE.search(low) or _CANNOT_RE.search(low)) and not _DONE_RE.search(low)


def deflects(message: str) -> bool:
    """The first sentence deflects, or a later one in a message that reports nothing done."""
    sentences = tx.sentences(message) or [message]
    if is_deflection(sentences[0]):
        return True
    return not _DONE_RE.search(tx.normalize(message)) and any(is_deflection(s) for s in sentences[1:])


# The action a request rules out: "instead of rejecting him", "don't reject", "불합격 처리 말고",
# "삭제하지 말고", "삭제 대신", "아직 보내지 마".
_EXCLUDED_RE = re.compile(
    r"\b(?:instead of|rather than|don't|do not|never)\s+(\S+)|(\S+?)(?:하지|지)?\s*(?:말고|마시고|대신)(?=[\s,]|$)"
    r"|(\S+?)(?:하지|지)\s?마(?:세요|요|라)?(?=[\s,.!]|$)",
    re.I,
)


def excluded_actions(query: str) -> set[str]:
    """Actions the request names only to rule them out."""
    out: set[str] = set()
    for m in _EXCLUDED_RE.finditer(tx.lowered(query)):
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        forms = [word, word[:-3] + "e"] if word.endswith("ing") else [word]  # "deleting" → "delete"
        out |= {label for form in forms for _, label in _positions(form)}
    return out


def without_excluded(query: str) -> str:
    return _EXCLUDED_RE.sub(" ", tx.normalize(query))


_LEADING_REASON_RE = re.compile(r"(?:^|(?<=,))[^,.]*?(?:니까|으니|므로|라서)(?=[\s,.]|$)", re.M)


def without_reasons(query: str) -> str:
    """The request without a reason clause ("평판 조회 끝났으니까"): done, not asked."""
    return _LEADING_REASON_RE.sub(" ", query)


def actions_in(text: str) -> set[str]:
    """Every action a text's cue words name (the ruled-out ones aside)."""
    return {label for _, label in _positions(without_excluded(text))}


def strip_extra_cues(text: str) -> str:
    """The text without words holding an action cue ("rescheduled", "올렸습니다")."""
    return " ".join(w for w in tx.normalize(text).split() if not any(r.search(w.lower()) for r in cue_res().values()))


def other_values(query: str, message: str) -> list[Msg]:
    """Figures the message reports in a unit the request gave, none equal to the request's
    ("5월 30일" for "6월 30일", "1차면접" for "2차면접")."""
    asked = tx.quantities(query)
    out = []
    for fig in tx.quantities(message):
        same_unit = [a for a in asked if a.unit == fig.unit]
        if same_unit and not any(tx.same_quantity(a, fig) for a in same_unit):
            out.append(say("agent.value_against", value=fig.text, asked=", ".join(a.text for a in same_unit)))
    return out


_ID_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,4}-\d+(?!\d)")


def ids(text: str) -> set[str]:
    """Codes such as posting numbers (P-903, JOB-12): a target named by code."""
    return {m.upper() for m in _ID_RE.findall(tx.normalize(text))}


def drop_ids(text: str) -> str:
    return _ID_RE.sub(" ", tx.normalize(text))


# A plural person noun names a group ("합격자들한테", "회원들"): 자/원/님 + 들.
_PLURAL_PEOPLE_RE = re.compile(r"[가-힣](?:자|원|님)들(?:한테|에게|께|을|를|은|는|이|의|도|만)?(?=\s|$|[.,?!])")


def covers_all(query: str) -> bool:
    """The request covers every member of a group (전원, 모두, all, 합격자들)."""
    return tx.has_any(query + " ", cues().all_cues) or bool(_PLURAL_PEOPLE_RE.search(tx.normalize(query)))


# The stage a move goes to: "…최종 합격 단계로 옮겨줘", "…2차로 올려줘", "to the final interview stage".
_KO_DEST_RE = re.compile(r"(\S+?)(?:으로|로)\s+(?:이동|옮|올|내려|넘)")
_EN_DEST_RE = re.compile(r"\b(?:to|at|in)\s+(?:the\s+)?((?:[a-z0-9-]+\s+){0,3}?)stage\b")
# a word that ends the noun phrase before the destination (an object, a name, the posting)
_DEST_STOP = re.compile(r"(?:을|를|에서|에게|님|지원자|공고|[a-z]+-\d+|서|고|며)$|^\S{2,}(?:은|는|이|가|의)$")


def _destination(text: str) -> set[str] | None:
    """The words naming the stage a move goes to (at most three, back from "…로 옮겨")."""
    generic = set(cues().destination_generic)
    low = re.sub(r"['\"‘’“”]", "", tx.lowered(text))  # "'과제 전형' 단계로" names 과제 전형
    m = _EN_DEST_RE.search(low)
    if m:
        return {w for w in m.group(1).split() if w not in generic}
    m = _KO_DEST_RE.search(low)
    if not m:
        return None
    words = [m.group(1)]
    for w in reversed(low[: m.start()].split()[-3:]):
        if _DEST_STOP.search(w) or len(words) >= 3:
            break
        words.append(w)
    return {w for w in words if w not in generic}


def other_destination(query: str, message: str) -> str:
    """A move to another stage: the message's destination names a word the request nowhere says,
    and shares none with the request's ("2차 면접 단계로" for "최종 합격 단계로")."""
    asked, said = _destination(query), _destination(message)
    if not asked or not said:
        return ""
    # two stages of one kind share their head noun ("야간 근무 조", "주간 근무 조"): the other words decide
    if asked - said and said - asked:
        asked, said = asked - said, said - asked
    if asked & said:
        return ""
    request_words = set(tx.lowered(query).split())
    new = {w for w in said if not any(w in r or r in w for r in request_words if len(r) >= 2)}
    return " ".join(sorted(said)) if new else ""


def _statuses(text: str) -> set[str]:
    low = tx.lowered(text)
    found = set()
    for name, words in cues().statuses.items():
        for cue in words:
            if cue in low:
                found.add(name)
                low = low.replace(cue, " ")
    return found


def other_status(query: str, message: str) -> str:
    """A status set other than the one asked ("rejected" for "on hold"); a status the request
    rules out ("don't reject her yet") is not one it asks for."""
    asked, said = _statuses(without_excluded(query)), _statuses(message)
    if len(asked) != 1 or not said or asked & said:
        return ""
    return "/".join(sorted(said))


# Two targets joined by and/와/과/랑/하고/comma: "Add Aiko Tanaka and 음지율", "정다온이랑 문지호".
_PAIR_RE = re.compile(
    r"([A-Z][A-Za-z]+|[가-힣]{2,4}?)(?:\s+and\s+|\s*&\s*|(?:이랑|랑|하고|와|과)\s+|,\s*)([A-Z][A-Za-z]+|[가-힣]{2,4})(?=[\s,.]|$|[을를은는이가])"
)
_REASON_CLAUSE_RE = re.compile(r"[^,.]*?(?:니까|으니|므로|라서|어서|해서)(?=[\s,.]|$)")


def _joins_targets(low: str, m: re.Match[str]) -> bool:
    """Two targets, not two verbs ("Move … and notify"), a comma before a reason, or a verb
    joined by -고 ("2차 면접으로 올리고, …")."""
    left, right = m.group(1), m.group(2)
    if request_action(left) or request_action(right) or left.lower() in {"the", "a", "to"}:
        return False
    return not (_REASON_CLAUSE_RE.match(low, m.start(2)) or re.fullmatch(r"[가-힣]{2,}고", left))


def missing_member(query: str, message: str) -> str:
    """One of two targets the request joins, left out of a message that names the other."""
    low, said = tx.normalize(query), tx.normalize(message)
    for m in _PAIR_RE.finditer(low):
        if not _joins_targets(low, m):
            continue
        has_left, has_right = m.group(1) in said, m.group(2) in said
        if has_left != has_right:
            return m.group(2) if has_left else m.group(1)
    return ""


# A filter the request puts on a list: "CFA 자격 있는 지원자만", "only candidates with a CFA", or a
# clause restricting the people listed ("미제출인 사람", "경력 없는 지원자", "면접 안 본 후보자").
_KO_ONLY_RE = re.compile(r"((?:\S+\s+){1,3})\S+만(?=\s|$)")
_KO_WHO_RE = re.compile(
    r"((?:\S+\s+){0,2}\S+(?:인|없는|있는|않은|못한|안\s\S+[ㄴ-힣]?))\s+(?:사람|지원자|후보자?|분|인원)(?:\S*)(?=\s|$)"
)
_EN_ONLY_RE = re.compile(r"\bonly\s+(?:\S+\s+)?(?:with|who|whose|that)\s+((?:\S+\s*){1,3})")
_FILTER_FILLER = re.compile(
    r"^(?:있는|없는|인|중인|된|한|중|중에|중에서|가운데|p-\d+.*|[a-z]+-\d+.*|\S+에서|\S+의|a|an|the|have|has|hold)$"
)


def missing_filter(query: str, message: str) -> str:
    """The words of a list's filter when the message names none of them."""
    low = tx.lowered(query)
    m = _EN_ONLY_RE.search(low) or _KO_ONLY_RE.search(low) or _KO_WHO_RE.search(low)
    if not m:
        return ""
    words = [w.strip(".,?!") for w in m.group(1).split()]
    words = [w for w in words if w and not _FILTER_FILLER.match(w)]
    said = tx.lowered(message)
    if not words or any(w[:2] in said for w in words):
        return ""
    return " ".join(words)


# The act reported done ("…링크를 보냈습니다", "I've added …") and, later, a part failed.
_PAST_DONE_RE = re.compile(
    r"[았었였했됐냈웠갔렸왔켰섰쳤뒀놨]\S*(?:습니다|어요|다)[.!]?\s*$|완료\S*[.!]?\s*$"
    r"|\b(?:i've|i have|has been|have been|was|were)\s+\w+ed\b|\b(?:sent|added|moved|updated|scheduled)\b",
    re.I,
)
_PART_FAILED_RE = re.compile(
    r"못\s?했|하지\s?못|못\s?하였|실패|오류로|\b(?:could not|couldn't|failed|unable to|was not|wasn't|were not)\b", re.I
)


def partly_failed(message: str) -> bool:
    """The first sentence reports the act done and a later one that part of it failed."""
    sentences = tx.sentences(message) or [message]
    first = tx.normalize(sentences[0])
    return (
        bool(_PAST_DONE_RE.search(first))
        and not _PART_FAILED_RE.search(first)
        and any(_PART_FAILED_RE.search(s) for s in sentences[1:])
    )


# A change of a record's value asked ("상태 … 바꿔 줘", "연락처 … 수정", "change … to").
_CHANGE_RE = re.compile(
    r"바꿔|바꾸|변경|수정|고쳐|(?:탈락|합격|불합격|보류|거절)\s?처리|\b(?:change|switch|update|set|reject|mark)\b"
)


def memo_instead(query: str, message: str) -> bool:
    """A value change asked (naming no memo) and a memo or note written instead."""
    return (
        bool(_CHANGE_RE.search(tx.lowered(query)))
        and not _FIELD_RE.search(tx.lowered(query))
        and bool(_FIELD_RE.search(tx.lowered(_first(message))))
    )
