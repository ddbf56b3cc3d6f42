"""Which action a request asks for and a message reports, beyond the shared cue list.

``text.INTENT_CUES`` holds the Korean verbs of the bundled agent data; requests also say
연장/단축 (an update of a date or figure), 입력/기록 (an update of a field), and English requests
use English verbs. A request's action is the verb that closes it ("지난주에 추가한 지원자들 다
보여줘" asks to *show*; 추가한 only says which applicants), so the last cue wins there, and a
message's action is likewise the verb closing its first sentence.

Since the v12 round: 지우/지워 glued after another syllable (a name such as 천지우) and the verb of
a negated relative clause ("who hasn't sent in …", "not yet contacted") are no cue; "mark … as",
"tag" are updates and "pull up" a view; a later sentence can deflect (``deflects``) and a first
sentence reporting the act done beside a later one reporting a part failed is a partial
(``partly_failed``).
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx

EXTRA_CUES: dict[str, tuple[str, ...]] = {
    "DELETE": ("delete", "remove", "deleted", "removed"),
    # 올려/내려: up or down a stage; "X is now at the final stage" reports a move
    "MOVE": (
        "move",
        "moved",
        "transfer",
        "올려",
        "올렸",
        "올린",
        "옮긴",  # "옮긴 뒤", "옮긴 다음에": the past form the shared list lacks
        "내려",
        "내렸",
        "advance",
        "promote",
        "is now at ",
        "is now in ",
    ),
    # 남겨 (leave a comment or note: an ADD into a field, so an UPDATE)
    "ADD": ("잡아", "잡았", "넣어", "넣었", "남겨", "남겼", "add", "added", "create", "created", "register", "schedule"),
    # 고쳐 (correct a field); a status set on a record (보류, 불합격, on hold, reject) changes it
    "UPDATE": (
        "연장",
        "단축",
        # assigning a person to a field, raising or lowering a figure, pushing a date back
        "배정",
        "늘려",
        "늘렸",
        "줄여",
        "줄였",
        "postpone",
        "push",
        "assign",
        "입력",
        "기록",
        "적어",
        "고쳐",
        "고쳤",
        "고친",
        "보류",
        "불합격",
        "update",
        "change",
        "rename",
        "edit",
        "extend",
        "set ",
        "reschedule",
        "on hold",
        "reject",
        # marking a step done, tagging a record ("mark … as done", "tag them as 'JP-speaking'")
        "mark ",
        "marked",
        "tag ",
        "tags",
        "tagged",
    ),  # fmt: skip
    # 추려/골라: pick out a filtered list
    "VIEW": ("show", "list", "look up", "find", "view", "pull up", "see ", "추려", "추린", "골라", "뽑아",
             # asked indirectly ("Anyone on P-597 who's worked with SAP? Names are enough.")
             "anyone", "who has", "who's", "names are enough", "names only"),
}
# Sending something to a person (a mail, a link, a notice) writes to their application: the
# labels read it as an UPDATE. 내보내 (export) is no sending.
SEND_CUES = ("보내", "보냈", "보낸", "발송", "전송", "send", "sent", "mail", "emailed", "notify", "notified")
EXTRA_CUES["UPDATE"] = (*EXTRA_CUES["UPDATE"], *SEND_CUES)
# Saving into a record (저장, save): an ADD, or an UPDATE where it goes into a field (메모 저장).
EXTRA_CUES["ADD"] = (*EXTRA_CUES["ADD"], "저장", "save", "saved")
# English failure reports the shared Korean cue list does not hold ("Something went wrong …
# Please try again later (ERR_TIMEOUT)").
ERROR_CUES = ("went wrong", "try again", "err_", "timed out")
# A message whose first sentence sends the user elsewhere ("…은 담당 부서에 문의해 주세요",
# "please contact HR") performs nothing, whatever noun it names ("변경은").
_DEFLECT_RE = re.compile(
    r"(?:문의|연락|요청|접수)(?:해|하여|하시기|를?\s*해)?\s*(?:주세요|주시기\s*바랍니다|바랍니다|하세요|보세요)|please\s+(?:contact|reach out|ask)"
    # the user told how to do it themselves ("'인쇄' 버튼으로 저장하실 수 있어요", "you can do this from …")
    r"|(?:하실|으실|실)\s*수\s*있(?:어요|습니다)|\byou can (?:do|export|download|print|change|update|add) (?:this|that|it)\b"
)
# A state described, not an action reported ("…은 현재 2월 2일로 등록되어 있습니다"): a look-up.
_STATE_RE = re.compile(r"(?:되어|돼|된\s*상태로?)\s*있(?:습니다|어요|네요|음)")
# A sentence closing on a copula ("…은 5,800만 원입니다", "…는 4명이에요"): a description.
_COPULA_END_RE = re.compile(
    r"(?:입니다|이에요|예요|이에요|이야|is|are)\s*[.!]?\s*$"
    # an English state: "X's current expected salary is 48 million won", "is currently listed as"
    r"|\bcurrent(?:ly)?\b[^.!?]*\b(?:is|are)\b|\b(?:is|are)\s+currently\b"
    # "X currently has an interview on Friday": what stands, reported
    r"|\b(?:currently|still)\s+(?:has|have|holds?)\b",
    re.I,
)
# The request covers every member of a group ("전원", "모두"): doing one of them is part of it.
ALL_CUES = ("전원", "모두", "전부", "모든", "다 ", "every", "all ")
WRITE_ACTIONS = frozenset({"ADD", "UPDATE", "MOVE", "DELETE"})


def _cues() -> dict[str, tuple[str, ...]]:
    return {label: (*tx.INTENT_CUES.get(label, ()), *EXTRA_CUES.get(label, ())) for label in EXTRA_CUES}


def _cue_pattern(cue: str) -> str:
    """English verbs only at a word start, and not after a hyphen ("add" is not in "address",
    "show" is not in "no-show": a compound noun names a target); 보내 not in 내보내 (export)."""
    if cue.isascii():
        return rf"(?<![\w-]){re.escape(cue)}"
    return rf"(?<!내){re.escape(cue)}" if cue.startswith("보") else re.escape(cue)


CUE_RES = {label: re.compile("|".join(_cue_pattern(c) for c in cues)) for label, cues in _cues().items()}


_SEND_RE = re.compile("|".join(_cue_pattern(c) for c in SEND_CUES))


# 지우/지워 (delete) closing a name ("천지우", "오지우") is no verb: a verb form follows a space or
# a particle, not another syllable of the same word.
_GLUED_DELETE_RE = re.compile(r"(?<=[가-힣])지(?=[우워웠])")
# "who hasn't sent in their reference check", "not yet contacted": a filter on the people, not
# the action asked.
_NEGATED_CLAUSE_RE = re.compile(
    r"\b(?:has|have|had|did|does|do|is|are|was|were)(?:n't|\s+not)\s+(?:yet\s+|been\s+|ever\s+)*\w+|\bnot\s+yet\s+\w+", re.I
)


def unglued(text: str) -> str:
    """The text with 지우/지워 inside a name (천지우) and negated relative clauses ("who hasn't
    sent …") made no cue."""
    return _NEGATED_CLAUSE_RE.sub(" ", _GLUED_DELETE_RE.sub("ㅈ", text))


def _positions(text: str) -> list[tuple[int, str]]:
    low = unglued(tx.normalize(text)).lower()
    return sorted((m.start(), label) for label, cue_re in CUE_RES.items() for m in cue_re.finditer(low))


# A field of an existing record (a memo, a note, tags): adding to it changes the record.
_FIELD_RE = re.compile(r"메모|노트|코멘트|태그|\b(?:memo|note|comment|tag)s?\b")


def _field_add(label: str, text: str) -> str:
    """ADD into a record's field ("면접 메모에 '…' 추가", "메모를 추가했어요") is an UPDATE."""
    return "UPDATE" if label == "ADD" and _FIELD_RE.search(tx.lowered(text)) else label


def request_action(query: str) -> str | None:
    """The action of the verb closing the request, or None; an action the request rules out
    ("instead of rejecting him") is not the one it asks for."""
    found = _positions(without_excluded(query))
    if _destination(query) and (not found or _SEND_RE.search(tx.lowered(query))):
        return "MOVE"  # "Send X to the reference-check stage": a move, not a mail
    return _field_add(found[-1][1], query) if found else None


def message_action(message: str) -> str:
    return _field_add(_message_action(message), (tx.sentences(message) or [message])[0])


def _message_action(message: str) -> str:
    """``text.message_intent``; where it reads an action, the action of the verb closing the
    first sentence ("어제 등록한 회원 목록을 보여드립니다" reports showing), and the extra verbs
    where it finds no cue of its own."""
    label = tx.message_intent(unglued(message))
    if label in {"ERROR", "CLARIFY"}:
        return label
    if tx.has_any(message, ERROR_CUES):
        return "ERROR"
    first = (tx.sentences(message) or [message])[0]
    if first.rstrip().endswith("?"):  # asks before acting ("…보낼까요? 확인해 주시면 발송하겠습니다")
        return "CLARIFY"
    # states what acting would do, then asks to go ahead ("…삭제하면 복구할 수 없습니다. 그래도
    # 진행할까요?"): a confirmation question, not a refusal
    last = (tx.sentences(message) or [message])[-1]
    if (
        _CONFIRM_RE.search(tx.lowered(message).rstrip())
        and not _OPEN_QUESTION_RE.search(tx.lowered(last))
        and not _DONE_RE.search(tx.normalize(message))
    ):
        return "CLARIFY"
    if is_deflection(first):
        return "OTHER"
    if (_STATE_RE.search(tx.normalize(first)) or _COPULA_END_RE.search(tx.normalize(first))) and not _DONE_RE.search(
        tx.normalize(first)
    ):
        # a state described ("…은 현재 2월 2일로 등록되어 있습니다", "현재 기록된 희망 연봉은
        # 5,800만 원입니다"): a verb before a noun (기록된, 등록한) reports no action
        return "VIEW"
    in_first = _positions(first)
    if in_first and in_first[-1][1] in WRITE_ACTIONS:
        # the verb closing the sentence, not a cue in a clause before it ("…확인되어 …삭제했습니다")
        return in_first[-1][1]
    found = in_first or _positions(message)
    if found and (label not in {"OTHER", "VIEW"} or not tx.intent_of(unglued(message))):
        return found[-1][1] if in_first else found[0][1]
    return label


# A closing question asking leave to act ("그래도 진행할까요?", "shall I go ahead?").
_CONFIRM_RE = re.compile(
    r"(?:할까요|될까요|하시겠습니까|하시겠어요|진행할까요|shall i[^?]*|should i[^?]*|do you want me to[^?]*|"
    r"would you like me to[^?]*)\?$"
)
# an open question ("무엇을 도와드릴까요?", "which posting?") asks what to do, not leave to do it
_OPEN_QUESTION_RE = re.compile(r"무엇|뭘|뭐|어떤|어느|언제|누구|\b(?:what|which|who|when)\b")
# a past action reported (했습니다, 완료, has been …): not a state description
_DONE_RE = re.compile(r"(?:했|였|됐|었)(?:습니다|어요|다)|완료|has been|have been")


# The message says it cannot act ("제가 처리해 드릴 수 없어요", "I'm not able to change that").
_CANNOT_RE = re.compile(
    r"(?:드릴|해 드릴|할|처리할|변경할)\s*수(?:가)?\s*없|권한이\s*없|\b(?:unable to|not able to|can't|cannot|not allowed to)\b"
)


def is_deflection(sentence: str) -> bool:
    """The sentence sends the user to someone else, or says it cannot act, instead of acting
    (문의해 주세요, please contact, 처리해 드릴 수 없어요)."""
    low = tx.lowered(sentence)
    return bool(_DEFLECT_RE.search(low) or _CANNOT_RE.search(low)) and not _DONE_RE.search(low)


# The action a request rules out: "instead of rejecting him", "rather than deleting",
# "불합격 처리 말고", "삭제하지 말고", "삭제 대신".
_EXCLUDED_RE = re.compile(
    r"\b(?:instead of|rather than|don't|do not|never)\s+(\S+)|(\S+?)(?:하지|지)?\s*(?:말고|마시고|대신)(?=[\s,]|$)"
    # "아직 보내지 마", "발송하지 마세요": an order not to
    r"|(\S+?)(?:하지|지)\s?마(?:세요|요|라)?(?=[\s,.!]|$)",
    re.I,
)


def excluded_actions(query: str) -> set[str]:
    """Actions the request names only to rule them out (their verbs follow "instead of", or
    precede 말고/대신)."""
    out: set[str] = set()
    for m in _EXCLUDED_RE.finditer(tx.lowered(query)):
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        # "deleting", "moving": the gerund of a verb ending in e
        forms = [word, word[:-3] + "e"] if word.endswith("ing") else [word]
        out |= {label for form in forms for _, label in _positions(form)}
    return out


def without_reasons(query: str) -> str:
    """The request without a reason clause that opens it or follows a comma ("…, 평판 조회
    끝났으니까 최종 면접으로 넘겨 주세요"): what has been done, not what is asked."""
    return _LEADING_REASON_RE.sub(" ", query)


_LEADING_REASON_RE = re.compile(r"(?:^|(?<=,))[^,.]*?(?:니까|으니|므로|라서)(?=[\s,.]|$)", re.M)


def without_excluded(query: str) -> str:
    """The request without the phrases that rule an action out."""
    return _EXCLUDED_RE.sub(" ", tx.normalize(query))


def other_values(query: str, message: str) -> list[str]:
    """Figures the message reports in a unit the request gave, none equal to the request's
    ("5월 30일" for "6월 30일", "1차면접" for "2차면접"): the action done with another value."""
    asked = tx.quantities(query)
    out = []
    for fig in tx.quantities(message):
        same_unit = [a for a in asked if a.unit == fig.unit]
        if same_unit and not any(tx.same_quantity(a, fig) for a in same_unit):
            out.append(f"{fig.text} (요청: {', '.join(a.text for a in same_unit)})")
    return out


_ID_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,4}-\d+(?!\d)")


def ids(text: str) -> set[str]:
    """Identifiers such as posting numbers (P-903, JOB-12): a target named by code."""
    return {m.upper() for m in _ID_RE.findall(tx.normalize(text))}


def drop_ids(text: str) -> str:
    """The text without its codes (compared by ``ids``)."""
    return _ID_RE.sub(" ", tx.normalize(text))


# A plural person noun names a group ("최종 합격자들한테", "불합격자들에게", "회원들"): 자/원/님 + 들.
_PLURAL_PEOPLE_RE = re.compile(r"[가-힣](?:자|원|님)들(?:한테|에게|께|을|를|은|는|이|의|도|만)?(?=\s|$|[.,?!])")


def covers_all(query: str) -> bool:
    return tx.has_any(query + " ", ALL_CUES) or bool(_PLURAL_PEOPLE_RE.search(tx.normalize(query)))


def strip_extra_cues(text: str) -> str:
    """The text without words holding an action cue of either list ("rescheduled", "올렸습니다")."""
    low = tx.normalize(text)
    return " ".join(w for w in low.split() if not any(r.search(w.lower()) for r in CUE_RES.values()))


# The stage a move goes to: "…최종 합격 단계로 옮겨줘", "…2차로 올려줘", "to the final interview stage".
_KO_DEST_RE = re.compile(r"(\S+?)(?:으로|로)\s+(?:이동|옮|올|내려|넘)")
_EN_DEST_RE = re.compile(r"\b(?:to|at|in)\s+(?:the\s+)?((?:[a-z0-9-]+\s+){0,3}?)stage\b")
_DEST_GENERIC = frozenset("다음 이전 해당 요청하신 next previous requested same 단계".split())
# a word that ends the noun phrase before the destination (an object, a name, the posting)
_DEST_STOP = re.compile(r"(?:을|를|에서|에게|님|지원자|공고|[a-z]+-\d+|서|고|며)$|^\S{2,}(?:은|는|이|가|의)$")


def _destination(text: str) -> set[str] | None:
    """The words naming the stage a move goes to (at most three, back from "…로 옮겨")."""
    low = re.sub(r"['\"‘’“”]", "", tx.lowered(text))  # "'과제 전형' 단계로" names 과제 전형
    m = _EN_DEST_RE.search(low)
    if m:
        return {w for w in m.group(1).split() if w not in _DEST_GENERIC}
    m = _KO_DEST_RE.search(low)
    if not m:
        return None
    before = low[: m.start()].split()
    words = [m.group(1)]
    for w in reversed(before[-3:]):
        if _DEST_STOP.search(w) or len(words) >= 3:
            break
        words.append(w)
    return {re.sub(r"^(\d+)차$", r"\1차", w) for w in words if w not in _DEST_GENERIC}


def other_destination(query: str, message: str) -> str:
    """A move to another stage than the one asked: the message's destination names a word the
    request nowhere says, and the request's destination shares no word with the message's
    ("2차 면접 단계로 옮겼습니다" for "최종 합격 단계로"). A destination made only of words the
    request says elsewhere ("다음 면접으로" for "1차 면접 합격시켜서 2차로") is not another one."""
    asked, said = _destination(query), _destination(message)
    if not asked or not said:
        return ""
    # two stages of one kind share their head noun ("실무 면접" and "간호부장 면접", "야간 근무 조"
    # and "주간 근무 조"): when each names a word the other lacks, those words decide
    if asked - said and said - asked:
        asked, said = asked - said, said - asked
    if asked & said:
        return ""
    request_words = set(tx.lowered(query).replace("차 ", "차 ").split())
    new = {w for w in said if not any(w in r or r in w for r in request_words if len(r) >= 2)}
    return " ".join(sorted(said)) if new else ""


# Statuses a request sets on an application; 불합격 before 합격 (it holds it).
_STATUSES = (
    ("REJECT", ("불합격", "탈락", "reject", "declin")),
    ("HOLD", ("보류", "on hold", "hold")),
    ("PASS", ("합격", "통과", "pass", "accept", "hire")),
)


def _statuses(text: str) -> set[str]:
    low = tx.lowered(text)
    found = set()
    for name, cues in _STATUSES:
        for cue in cues:
            if cue in low:
                found.add(name)
                low = low.replace(cue, " ")
    return found


def other_status(query: str, message: str) -> str:
    """A status set other than the one asked ("rejected" for "put … on hold", "불합격" for
    "보류"): the request names one status, the message names another and not it. The request's
    stage words (1차 면접 합격시켜서 …) count only when the request asks for a status alone."""
    # a status the request rules out ("don't reject her yet") is not one it asks for
    asked, said = _statuses(without_excluded(query)), _statuses(message)
    if len(asked) != 1 or not said or asked & said:
        return ""
    return "/".join(sorted(said))


# Two targets joined by and/와/과/랑/하고/comma: "Add Aiko Tanaka and 음지율", "정다온이랑 문지호".
_PAIR_RE = re.compile(
    r"([A-Z][A-Za-z]+|[가-힣]{2,4}?)(?:\s+and\s+|\s*&\s*|(?:이랑|랑|하고|와|과)\s+|,\s*)([A-Z][A-Za-z]+|[가-힣]{2,4})(?=[\s,.]|$|[을를은는이가])"
)


_REASON_CLAUSE_RE = re.compile(r"[^,.]*?(?:니까|으니|므로|라서|어서|해서)(?=[\s,.]|$)")


def missing_member(query: str, message: str) -> str:
    """One of two targets the request joins, left out of a message that names the other by its
    own word ("음지율 has been added" for "Add Aiko Tanaka and 음지율"). Verbs joined by "and"
    are actions, not targets."""
    low, said = tx.normalize(query), tx.normalize(message)
    for m in _PAIR_RE.finditer(low):
        left, right = m.group(1), m.group(2)
        if request_action(left) or request_action(right) or left.lower() in {"the", "a", "to"}:
            continue
        # a comma before a reason ("설윤재 지원자, 평판 조회 끝났으니까 …") joins no second target,
        # nor does a verb joined by -고 ("2차 면접으로 올리고, 면접 일정 …")
        if _REASON_CLAUSE_RE.match(low, m.start(2)) or re.fullmatch(r"[가-힣]{2,}고", left):
            continue
        has_left, has_right = left in said, right in said
        if has_left != has_right:
            return right if has_left else left
    return ""


# A filter the request puts on a list: "CFA 자격 있는 지원자만", "only candidates with a CFA".
_KO_ONLY_RE = re.compile(r"((?:\S+\s+){1,3})\S+만(?=\s|$)")
# or a clause restricting the people listed ("포트폴리오 미제출인 사람", "경력 없는 지원자",
# "면접 안 본 후보자"): the words of the clause before the person noun
_KO_WHO_RE = re.compile(
    r"((?:\S+\s+){0,2}\S+(?:인|없는|있는|않은|못한|안\s\S+[ㄴ-힣]?))\s+(?:사람|지원자|후보자?|분|인원)(?:\S*)(?=\s|$)"
)
_EN_ONLY_RE = re.compile(r"\bonly\s+(?:\S+\s+)?(?:with|who|whose|that)\s+((?:\S+\s*){1,3})")
_FILTER_FILLER = re.compile(
    r"^(?:있는|없는|인|중인|된|한|중|중에|중에서|가운데|p-\d+.*|[a-z]+-\d+.*|\S+에서|\S+의|a|an|the|have|has|hold)$"
)


def missing_filter(query: str, message: str) -> str:
    """The words of a list's filter ("X만", "only … with X") when the message names none of them
    (the whole list shown instead of the filtered one)."""
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


def deflects(message: str) -> bool:
    """The first sentence deflects, or a later one does ("…는 담당 리크루터만 쓸 수 있어요.
    담당자에게 요청해 보세요.") in a message that reports nothing done."""
    sentences = tx.sentences(message) or [message]
    if is_deflection(sentences[0]):
        return True
    return not _DONE_RE.search(tx.normalize(message)) and any(is_deflection(s) for s in sentences[1:])


# A sentence reporting the act done ("…링크를 보냈습니다", "I've added …") and one reporting a
# part of it failed ("…는 이메일 주소가 없어 발송하지 못했습니다", "could not be scheduled").
_PAST_DONE_RE = re.compile(
    r"[았었였했됐냈웠갔렸왔켰섰쳤뒀놨]\S*(?:습니다|어요|다)[.!]?\s*$|완료\S*[.!]?\s*$"
    r"|\b(?:i've|i have|has been|have been|was|were)\s+\w+ed\b|\b(?:sent|added|moved|updated|scheduled)\b",
    re.I,
)
_PART_FAILED_RE = re.compile(
    r"못\s?했|하지\s?못|못\s?하였|실패|오류로|\b(?:could not|couldn't|failed|unable to|was not|wasn't|were not)\b", re.I
)


def partly_failed(message: str) -> bool:
    """The first sentence reports the act done and a later one that part of it failed: some of
    the asked work done, the rest reported undone (rubric: PARTIAL)."""
    sentences = tx.sentences(message) or [message]
    first = tx.normalize(sentences[0])
    return (
        bool(_PAST_DONE_RE.search(first))
        and not _PART_FAILED_RE.search(first)
        and any(_PART_FAILED_RE.search(s) for s in sentences[1:])
    )


def actions_in(text: str) -> set[str]:
    """Every action a text's cue words name (the request's ruled-out ones aside)."""
    return {label for _, label in _positions(without_excluded(text))}


# A change of a record's value asked ("상태 … 바꿔 줘", "연락처 … 수정", "change … to").
_CHANGE_RE = re.compile(
    r"바꿔|바꾸|변경|수정|고쳐|(?:탈락|합격|불합격|보류|거절)\s?처리|\b(?:change|switch|update|set|reject|mark)\b"
)


def memo_instead(query: str, message: str) -> bool:
    """A change of a value asked (naming no memo, note or tag) and the message's first sentence
    writing into a memo or note instead ("메모에 '최종 합격 예정'이라고 남겨 두었습니다"): a
    harmless other action, the asked change not made."""
    first = (tx.sentences(message) or [message])[0]
    return (
        bool(_CHANGE_RE.search(tx.lowered(query)))
        and not _FIELD_RE.search(tx.lowered(query))
        and bool(_FIELD_RE.search(tx.lowered(first)))
    )
