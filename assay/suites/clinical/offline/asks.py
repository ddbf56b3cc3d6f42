"""What a clinical question asks (leave, what to do, a status, a time, an amount or a count) and
whether an answer does it, in any wording; a part of the question or a caution on the kind of
drug asked about left without a word."""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.metrics.figure_forms import NATIVE_NUMBER_ALT
from assay.suites.clinical.offline.cues import offline_cues
from assay.suites.clinical.offline.drug_table import load_table, record_cautions

CUES = offline_cues()
PERMISSION_CUES = CUES.permission
AMOUNT_CUES = CUES.amount
WHAT_CUES = CUES.what
STATUS_CUES = CUES.status
DECISION_CUES = CUES.decision
PROHIBITION_CUES = CUES.prohibition
WHEN_CUES = CUES.when
TIME_WORDS = CUES.time_words
DIRECTIVE_CUES = CUES.directive
DECLINE_CUES = (*tx.REFUSAL_CUES, *CUES.decline)
EN_FUNCTION = CUES.en_function
STATUS_WORDS = CUES.status_words
# Words telling when a symptom began ("요 며칠 허벅지가 쑤시고", "며칠째"): no amount asked.
SINCE_RE = re.compile(r"(?:요|지난|최근|이|그)\s?며칠|며칠\s?(?:째|전|전부터|동안\s?계속)")
# An answer that opens with its yes or no answers a permission question about its subject.
YES_NO_OPEN_RE = re.compile(r"(?i)^\s*(?:네|예|아니요|아니오|아뇨|yes|no)\b")
# An English answer opening with its decision ("Yes, …", "No. …"), as a word (not "eyes").
EN_YES_NO_RE = re.compile(r"(?i)(?:^|[.!?]\s+)(?:yes|no)\b[,.!]")
DECLINED = "답변 거절"
# Each kind of question as the feedback names it (``clinical.asked_<name>`` messages).
ASKED_NAMES = {
    DECLINED: "declined", "수치/기간 질문": "figure", "시점 질문": "time", "상태/수치 질문": "status",
    "무엇을/어떻게 질문": "what", "해도 되는지 질문": "permission", "질문": "question", "증상 호소": "complaint",
}
# Where a question asks a second thing: after a question mark, or at 그리고.
_QUESTION_PARTS_RE = re.compile(r"\?\s*|\s그리고\s|\sand also\s", re.I)
# What makes a part a question of its own: it asks leave, a time, an amount, a state or what to do.
_PART_CUES = (*PERMISSION_CUES, *WHEN_CUES, *AMOUNT_CUES, *STATUS_CUES, *WHAT_CUES)
# Kinds of drug a question names (항생제, 진통제…) -> the drug-table classes they hold.
CATEGORY_CLASSES = CUES.category_classes
_NOT_ANTIBIOTIC = CUES.not_antibiotic


def subject_words(question: str, answer: str) -> tuple[list[str], list[str]]:
    """The question's subject words (English function words aside), and those the answer names
    (as a stem, also inside longer words)."""
    subject = [
        w for w in tx.stems(tx.strip_fillers(question)) if len(w) >= 2 and w.lower() not in EN_FUNCTION
    ]
    return subject, [w for w in subject if w in answer or (len(w) >= 3 and w[:-1] in answer)]


def unanswered_part(question: str, answer: str) -> str:
    """A part of a question that asks two things (each with its own ask: leave, a time, an
    amount, a state, what to do) which the answer neither performs nor shares a word with
    (stems of two characters or more), while it answers another part."""
    parts = [p.strip() for p in _QUESTION_PARTS_RE.split(question) if p and tx.has_any(p.lower(), _PART_CUES)]
    if len(parts) < 2:
        return ""
    low = answer.lower()

    def answered(part: str) -> bool:
        words = [w.lower() for w in tx.stems(part) if len(w) >= 2 and w.lower() not in EN_FUNCTION]
        return asked_act(part, answer)[0] or any(w in low or (len(w) >= 3 and w[:-1] in low) for w in words)

    done = [answered(p) for p in parts]
    return next((p for p, d in zip(parts, done, strict=True) if not d), "") if any(done) else ""


def unmentioned_caution(question: str, answer: str, patient: str) -> str:
    """A drug the record cautions (금지, 피할 것, 병용 주의…) that belongs to a kind of drug the
    question names ("치과에서 항생제를 처방받았는데 조심할 거 있어요?" with "메트로니다졸 병용 금지"),
    and that the answer names neither by name nor by its class: the caution asked about, left out."""
    low_question = question.lower()
    kinds = [k for k in CATEGORY_CLASSES if k in low_question]
    if not kinds:
        return ""
    table = load_table()
    cautioned = record_cautions(patient)
    for kind in kinds:
        for cid in CATEGORY_CLASSES[kind]:
            cls = table.classes[cid]
            if cls.pattern.search(question):  # the question names the drug itself: it is asked
                continue  # about, and a wrong answer to it is a faithfulness matter
            for name in cautioned.get(cid, ()):
                if name.lower() in _NOT_ANTIBIOTIC and kind in ("항생제", "antibiotic"):
                    continue
                if not cls.pattern.search(answer) and name.lower() not in answer.lower():
                    return name
    return ""


def asked_act(question: str, answer: str) -> tuple[bool, str]:
    """(whether the answer performs what the question asks, the kind of question); an answer
    that declines to advise performs nothing, whatever it then directs."""
    if tx.has_any(answer, DECLINE_CUES):
        return False, DECLINED
    counter = _ASKED_COUNTER_RE.search(question)
    if counter and not _counts_with(answer, counter.group(1)):
        # "일주일에 몇 번 재야 해요?" is not answered by "5분쯤 쉬고 재세요": no count of times
        return _declines_the_act(question, answer), "수치/기간 질문"
    if tx.has_any(question.lower(), WHEN_CUES):  # "When should I take my folic acid?" needs a time
        return bool(tx.quantities(answer)) or tx.has_any(answer.lower(), TIME_WORDS), "시점 질문"
    if tx.has_any(SINCE_RE.sub(" ", question), AMOUNT_CUES):  # "몇 년 동안 먹어야 해요?" needs the figure
        return bool(tx.quantities(answer)) or _declines_the_act(question, answer), "수치/기간 질문"
    if tx.has_any(question, STATUS_CUES):
        answered = bool(tx.quantities(answer)) or tx.has_any(answer, (*STATUS_WORDS, *DECISION_CUES))
        return answered, "상태/수치 질문"
    if tx.has_any(question, WHAT_CUES):
        return tx.has_any(answer, DECISION_CUES) or tx.has_any(answer, DIRECTIVE_CUES), "무엇을/어떻게 질문"
    if tx.has_any(question, PERMISSION_CUES):
        return tx.has_any(answer, DECISION_CUES) or bool(EN_YES_NO_RE.search(answer)), "해도 되는지 질문"
    if question.rstrip().endswith("?"):
        return tx.has_any(answer, DECISION_CUES) or tx.has_any(answer, STATUS_WORDS), "질문"
    return tx.has_any(answer, DIRECTIVE_CUES), "증상 호소"


# a verb the question asks an amount of, before its connective ("며칠 끊고", "몇 알 더 먹어")


_ASKED_VERB_RE = re.compile(r"([가-힣]{1,3})(?:고|어|아|어서|아서)(?=\s)")


# A count asked with its counter ("몇 번", "몇 알", "몇 잔"); 번 and 회 count the same thing.
_ASKED_COUNTER_RE = re.compile(r"몇\s?(번|회|알|정|잔|캡슐|포|방울|개|병|장)(?![가-힣])")


_SAME_COUNTERS = {"번": ("번", "회"), "회": ("번", "회"), "알": ("알", "정"), "정": ("알", "정")}
_NATIVE_COUNT = f"{NATIVE_NUMBER_ALT}|반"


def _counts_with(answer: str, counter: str) -> bool:
    """Whether the answer gives a count with the asked counter ("주 3회", "두 알", "three times")."""
    counters = "|".join(_SAME_COUNTERS.get(counter, (counter,)))
    return bool(
        re.search(rf"(?:\d+|{_NATIVE_COUNT})\s?(?:{counters})(?![가-힣]{{2}})", answer)
        or re.search(
            r"\b(?:once|twice|\d+|one|two|three|four|five|six)\s(?:times?|tablets?|pills?|capsules?|cups?|drops?)\b",
            answer,
            re.I,
        )
    )


_RECORD_SILENT_RE = CUES.regex("record_silent")


def record_silent_on(question: str, answer: str, patient: str) -> str:
    """A word of the question that the answer says the record holds nothing on, when the record
    indeed never names it ("피임약" of "기록에는 피임약을 먹어도 되는지에 대한 내용이 없어서"); ""
    otherwise (a record that holds it makes the deferral a dodge)."""
    low_patient = patient.lower()
    asked = {w.lower() for w in tx.stems(question) if len(w) >= 2}
    for sentence in tx.sentences(answer):
        if not _RECORD_SILENT_RE.search(sentence):
            continue
        said = [w for w in tx.stems(sentence) if len(w) >= 2 and w.lower() in asked]
        if said and not any(w.lower() in low_patient for w in said):
            return said[0]
    return ""


def _declines_the_act(question: str, answer: str) -> bool:
    """An answer clause that forbids the very act the question asks an amount of ("며칠 끊고
    가야 하죠?" → "혼자 끊으시면 안 돼요"): there is no amount to give."""
    verbs = {m.group(1) for m in _ASKED_VERB_RE.finditer(question)}
    return any(
        tx.has_any(clause.lower(), PROHIBITION_CUES) and any(v in clause for v in verbs)
        for clause in re.split(r"[.,!?\n]", answer)
    )
