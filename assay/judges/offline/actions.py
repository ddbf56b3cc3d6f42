"""Which action a request asks for and a message reports, beyond the shared cue list.

``text.INTENT_CUES`` holds the Korean verbs of the bundled agent data; requests also say
연장/단축 (an update of a date or figure), 입력/기록 (an update of a field), and English requests
use English verbs. A request's action is the verb that closes it ("지난주에 추가한 지원자들 다
보여줘" asks to *show*; 추가한 only says which applicants), so the last cue wins there, and a
message's action is likewise the verb closing its first sentence.
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx

EXTRA_CUES: dict[str, tuple[str, ...]] = {
    "DELETE": ("delete", "remove", "deleted", "removed"),
    "MOVE": ("move", "moved", "transfer"),
    "ADD": ("잡아", "잡았", "넣어", "넣었", "add", "added", "create", "created", "register", "schedule"),
    "UPDATE": ("연장", "단축", "입력", "기록", "적어", "update", "change", "rename", "edit", "extend", "set "),
    "VIEW": ("show", "list", "look up", "find", "view"),
}
# The request covers every member of a group ("전원", "모두"): doing one of them is part of it.
ALL_CUES = ("전원", "모두", "전부", "모든", "다 ", "every", "all ")
WRITE_ACTIONS = frozenset({"ADD", "UPDATE", "MOVE", "DELETE"})


def _cues() -> dict[str, tuple[str, ...]]:
    return {label: (*tx.INTENT_CUES.get(label, ()), *EXTRA_CUES.get(label, ())) for label in EXTRA_CUES}


# one pattern per action (English verbs only at a word start: "add" is not in "address")
CUE_RES = {
    label: re.compile("|".join(rf"\b{re.escape(c)}" if c.isascii() else re.escape(c) for c in cues))
    for label, cues in _cues().items()
}


def _positions(text: str) -> list[tuple[int, str]]:
    low = tx.normalize(text).lower()
    return sorted((m.start(), label) for label, cue_re in CUE_RES.items() for m in cue_re.finditer(low))


def request_action(query: str) -> str | None:
    """The action of the verb closing the request, or None."""
    found = _positions(query)
    return found[-1][1] if found else None


def message_action(message: str) -> str:
    """``text.message_intent``; where it reads an action, the action of the verb closing the
    first sentence ("어제 등록한 회원 목록을 보여드립니다" reports showing), and the extra verbs
    where it finds no cue of its own."""
    label = tx.message_intent(message)
    if label in {"ERROR", "CLARIFY"}:
        return label
    first = (tx.sentences(message) or [message])[0]
    if first.rstrip().endswith("?"):  # asks before acting ("…보낼까요? 확인해 주시면 발송하겠습니다")
        return "CLARIFY"
    found = _positions(first) or _positions(message)
    if found and (label not in {"OTHER", "VIEW"} or not tx.intent_of(message)):
        return found[-1][1] if _positions(first) else found[0][1]
    return label


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


def covers_all(query: str) -> bool:
    return tx.has_any(query + " ", ALL_CUES)
