"""Which action a request asks for and a message reports, and the parts of a request (a
destination, a status, a filter, joined targets) a message can leave out or replace.

A request's action is the verb that closes it ("지난주에 추가한 지원자들 다 보여줘" asks to show);
a message's is the verb closing its first sentence. Cue words: ``rules/cues.yaml``.
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, say
from assay.suites.agent.offline.cues import AgentCues, cues

WRITE_ACTIONS = frozenset({"ADD", "UPDATE", "MOVE", "DELETE"})
RE = cues().regexes  # the named patterns of ``rules/cues.yaml``


def _cue_pattern(cue: str) -> str:
    """English verbs only at a word start and not after a hyphen ("add" in "address", "show" in
    "no-show"); 보내 not in 내보내 (export)."""
    if cue.isascii():
        return rf"(?<![\w-]){re.escape(cue)}"
    return rf"(?<!내){re.escape(cue)}" if cue.startswith("보") else re.escape(cue)


def _alternation(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(_cue_pattern(c) for c in words))


def _cue_res(table: AgentCues) -> dict[str, re.Pattern[str]]:
    """action -> the regex of its cue words: the shared list's, this suite's, sending (an UPDATE)
    and saving (an ADD)."""
    extra = dict(table.action_cues)
    extra["UPDATE"] = (*extra["UPDATE"], *table.send_cues)
    extra["ADD"] = (*extra["ADD"], *table.save_cues)
    return {label: _alternation((*tx.INTENT_CUES.get(label, ()), *words)) for label, words in extra.items()}


CUE_RES = _cue_res(cues())
SEND_RE = _alternation(cues().send_cues)


def unglued(text: str) -> str:
    """The text with 지우 inside a name and negated relative clauses made no cue."""
    return RE["negated_clause"].sub(" ", RE["glued_delete"].sub("ㅈ", text))


def _positions(text: str) -> list[tuple[int, str]]:
    low = unglued(tx.normalize(text)).lower()
    return sorted((m.start(), label) for label, cue_re in CUE_RES.items() for m in cue_re.finditer(low))


def _field_add(label: str, text: str) -> str:
    """ADD into a record's field ("메모를 추가했어요") is an UPDATE."""
    return "UPDATE" if label == "ADD" and RE["field"].search(tx.lowered(text)) else label


def request_action(query: str) -> str | None:
    """The action of the verb closing the request (one it rules out aside), or None."""
    found = _positions(without_excluded(query))
    if _destination(query) and (not found or SEND_RE.search(tx.lowered(query))):
        return "MOVE"  # "Send X to the reference-check stage": a move, not a mail
    return _field_add(found[-1][1], query) if found else None


def _first(message: str) -> str:
    return (tx.sentences(message) or [message])[0]


def message_action(message: str) -> str:
    return _field_add(_message_action(message), _first(message))


def _asks_leave(message: str) -> bool:
    """States what acting would do, then asks to go ahead ("…복구할 수 없습니다. 진행할까요?")."""
    last = (tx.sentences(message) or [message])[-1]
    return (
        bool(RE["confirm"].search(tx.lowered(message).rstrip()))
        and not RE["open_question"].search(tx.lowered(last))
        and not RE["done"].search(tx.normalize(message))
    )


def _describes_state(sentence: str) -> bool:
    text = tx.normalize(sentence)
    return bool(RE["state"].search(text) or RE["copula_end"].search(text)) and not RE["done"].search(text)


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


def is_deflection(sentence: str) -> bool:
    """The sentence sends the user elsewhere or says it cannot act, and reports nothing done."""
    low = tx.lowered(sentence)
    return bool(RE["deflect"].search(low) or RE["cannot"].search(low)) and not RE["done"].search(low)


def deflects(message: str) -> bool:
    """The first sentence deflects, or a later one in a message that reports nothing done."""
    sentences = tx.sentences(message) or [message]
    if is_deflection(sentences[0]):
        return True
    return not RE["done"].search(tx.normalize(message)) and any(is_deflection(s) for s in sentences[1:])


def excluded_actions(query: str) -> set[str]:
    """Actions the request names only to rule them out."""
    out: set[str] = set()
    for m in RE["excluded"].finditer(tx.lowered(query)):
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        forms = [word, word[:-3] + "e"] if word.endswith("ing") else [word]  # "deleting" → "delete"
        out |= {label for form in forms for _, label in _positions(form)}
    return out


def without_excluded(query: str) -> str:
    return RE["excluded"].sub(" ", tx.normalize(query))


def without_reasons(query: str) -> str:
    """The request without a reason clause ("평판 조회 끝났으니까"): done, not asked."""
    return RE["leading_reason"].sub(" ", query)


def actions_in(text: str) -> set[str]:
    """Every action a text's cue words name (the ruled-out ones aside)."""
    return {label for _, label in _positions(without_excluded(text))}


def strip_extra_cues(text: str) -> str:
    """The text without words holding an action cue ("rescheduled", "올렸습니다")."""
    return " ".join(w for w in tx.normalize(text).split() if not any(r.search(w.lower()) for r in CUE_RES.values()))


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


def ids(text: str) -> set[str]:
    """Codes such as posting numbers (P-903, JOB-12): a target named by code."""
    return {m.upper() for m in RE["id"].findall(tx.normalize(text))}


def drop_ids(text: str) -> str:
    return RE["id"].sub(" ", tx.normalize(text))


def covers_all(query: str) -> bool:
    """The request covers every member of a group (전원, 모두, all, 합격자들)."""
    return tx.has_any(query + " ", cues().all_cues) or bool(RE["plural_people"].search(tx.normalize(query)))


def _destination(text: str) -> set[str] | None:
    """The words naming the stage a move goes to (at most three, back from "…로 옮겨")."""
    generic = set(cues().destination_generic)
    low = re.sub(r"['\"‘’“”]", "", tx.lowered(text))  # "'과제 전형' 단계로" names 과제 전형
    m = RE["en_dest"].search(low)
    if m:
        return {w for w in m.group(1).split() if w not in generic}
    m = RE["ko_dest"].search(low)
    if not m:
        return None
    words = [m.group(1)]
    for w in reversed(low[: m.start()].split()[-3:]):
        if RE["dest_stop"].search(w) or len(words) >= 3:
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


def _joins_targets(low: str, m: re.Match[str]) -> bool:
    """Two targets, not two verbs ("Move … and notify"), a comma before a reason, or a verb
    joined by -고 ("2차 면접으로 올리고, …")."""
    left, right = m.group(1), m.group(2)
    if request_action(left) or request_action(right) or left.lower() in {"the", "a", "to"}:
        return False
    return not (RE["reason_clause"].match(low, m.start(2)) or re.fullmatch(r"[가-힣]{2,}고", left))


def missing_member(query: str, message: str) -> str:
    """One of two targets the request joins, left out of a message that names the other."""
    low, said = tx.normalize(query), tx.normalize(message)
    for m in RE["pair"].finditer(low):
        if not _joins_targets(low, m):
            continue
        has_left, has_right = m.group(1) in said, m.group(2) in said
        if has_left != has_right:
            return m.group(2) if has_left else m.group(1)
    return ""


def missing_filter(query: str, message: str) -> str:
    """The words of a list's filter when the message names none of them."""
    low = tx.lowered(query)
    m = RE["en_only"].search(low) or RE["ko_only"].search(low) or RE["ko_who"].search(low)
    if not m:
        return ""
    words = [w.strip(".,?!") for w in m.group(1).split()]
    words = [w for w in words if w and not RE["filter_filler"].match(w)]
    said = tx.lowered(message)
    if not words or any(w[:2] in said for w in words):
        return ""
    return " ".join(words)


def partly_failed(message: str) -> bool:
    """The first sentence reports the act done and a later one that part of it failed."""
    sentences = tx.sentences(message) or [message]
    first = tx.normalize(sentences[0])
    return (
        bool(RE["past_done"].search(first))
        and not RE["part_failed"].search(first)
        and any(RE["part_failed"].search(s) for s in sentences[1:])
    )


def memo_instead(query: str, message: str) -> bool:
    """A value change asked (naming no memo) and a memo or note written instead."""
    return (
        bool(RE["change"].search(tx.lowered(query)))
        and not RE["field"].search(tx.lowered(query))
        and bool(RE["field"].search(tx.lowered(_first(message))))
    )
