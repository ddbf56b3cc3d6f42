"""What a clinical question asks (leave, what to do, a status, a time, an amount or a count) and
whether an answer does it, in any wording; a part of the question or a caution on the kind of
drug asked about left without a word."""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.metrics.figure_forms import NATIVE_NUMBER_ALT
from assay.suites.clinical.offline.cues import CUES
from assay.suites.clinical.offline.drug_table import load_table, record_cautions

DECLINE_CUES = (*tx.REFUSAL_CUES, *CUES.decline)
# The kind of question an answer that declines to advise is judged by (kinds are named as the
# feedback's ``clinical.asked_<kind>`` messages are: figure, time, status, what, permission, …).
DECLINED = "declined"
# What makes a part a question of its own: it asks leave, a time, an amount, a state or what to do.
_PART_CUES = (*CUES.permission, *CUES.when, *CUES.amount, *CUES.status, *CUES.what)


def subject_words(question: str, answer: str) -> tuple[list[str], list[str]]:
    """The question's subject words (English function words aside), and those the answer names
    (as a stem, also inside longer words)."""
    subject = [
        w for w in tx.stems(tx.strip_fillers(question)) if len(w) >= 2 and w.lower() not in CUES.en_function
    ]
    return subject, [w for w in subject if w in answer or (len(w) >= 3 and w[:-1] in answer)]


def unanswered_part(question: str, answer: str) -> str:
    """A part of a question that asks two things (each with its own ask: leave, a time, an
    amount, a state, what to do) which the answer neither performs nor shares a word with
    (stems of two characters or more), while it answers another part."""
    parts = [p.strip() for p in CUES.regex("question_parts").split(question) if p and tx.has_any(p.lower(), _PART_CUES)]
    if len(parts) < 2:
        return ""
    low = answer.lower()

    def answered(part: str) -> bool:
        words = [w.lower() for w in tx.stems(part) if len(w) >= 2 and w.lower() not in CUES.en_function]
        return asked_act(part, answer)[0] or any(w in low or (len(w) >= 3 and w[:-1] in low) for w in words)

    done = [answered(p) for p in parts]
    return next((p for p, d in zip(parts, done, strict=True) if not d), "") if any(done) else ""


def unmentioned_caution(question: str, answer: str, patient: str) -> str:
    """A drug the record cautions (금지, 피할 것, 병용 주의…) that belongs to a kind of drug the
    question names ("치과에서 항생제를 처방받았는데 조심할 거 있어요?" with "메트로니다졸 병용 금지"),
    and that the answer names neither by name nor by its class: the caution asked about, left out."""
    low_question = question.lower()
    kinds = [k for k in CUES.category_classes if k in low_question]
    if not kinds:
        return ""
    table = load_table()
    cautioned = record_cautions(patient)
    for kind in kinds:
        for cid in CUES.category_classes[kind]:
            cls = table.classes[cid]
            if cls.pattern.search(question):  # the question names the drug itself: it is asked
                continue  # about, and a wrong answer to it is a faithfulness matter
            for name in cautioned.get(cid, ()):
                if name.lower() in CUES.not_antibiotic and kind in ("항생제", "antibiotic"):
                    continue
                if not cls.pattern.search(answer) and name.lower() not in answer.lower():
                    return name
    return ""


def asked_act(question: str, answer: str) -> tuple[bool, str]:
    """(whether the answer performs what the question asks, the kind of question); an answer
    that declines to advise performs nothing, whatever it then directs."""
    if tx.has_any(answer, DECLINE_CUES):
        return False, DECLINED
    counter = CUES.regex("asked_counter").search(question)
    if counter and not _counts_with(answer, counter.group(1)):
        # "일주일에 몇 번 재야 해요?" is not answered by "5분쯤 쉬고 재세요": no count of times
        return _declines_the_act(question, answer), "figure"
    if tx.has_any(question.lower(), CUES.when):  # "When should I take my folic acid?" needs a time
        return bool(tx.quantities(answer)) or tx.has_any(answer.lower(), CUES.time_words), "time"
    if tx.has_any(CUES.regex("since").sub(" ", question), CUES.amount):  # "몇 년 동안 먹어야 해요?" needs the figure
        return bool(tx.quantities(answer)) or _declines_the_act(question, answer), "figure"
    if tx.has_any(question, CUES.status):
        answered = bool(tx.quantities(answer)) or tx.has_any(answer, (*CUES.status_words, *CUES.decision))
        return answered, "status"
    if tx.has_any(question, CUES.what):
        return tx.has_any(answer, CUES.decision) or tx.has_any(answer, CUES.directive), "what"
    if tx.has_any(question, CUES.permission):
        return tx.has_any(answer, CUES.decision) or bool(CUES.regex("en_yes_no").search(answer)), "permission"
    if question.rstrip().endswith("?"):
        return tx.has_any(answer, CUES.decision) or tx.has_any(answer, CUES.status_words), "question"
    return tx.has_any(answer, CUES.directive), "complaint"


_NATIVE_COUNT = f"{NATIVE_NUMBER_ALT}|반"


def _counts_with(answer: str, counter: str) -> bool:
    """Whether the answer gives a count with the asked counter ("주 3회", "두 알", "three times")."""
    counters = "|".join(CUES.same_counters.get(counter, (counter,)))
    return bool(
        re.search(rf"(?:\d+|{_NATIVE_COUNT})\s?(?:{counters})(?![가-힣]{{2}})", answer)
        or CUES.regex("en_count").search(answer)
    )


def record_silent_on(question: str, answer: str, patient: str) -> str:
    """A word of the question that the answer says the record holds nothing on, when the record
    indeed never names it ("피임약" of "기록에는 피임약을 먹어도 되는지에 대한 내용이 없어서"); ""
    otherwise (a record that holds it makes the deferral a dodge)."""
    low_patient = patient.lower()
    asked = {w.lower() for w in tx.stems(question) if len(w) >= 2}
    for sentence in tx.sentences(answer):
        if not CUES.regex("record_silent").search(sentence):
            continue
        said = [w for w in tx.stems(sentence) if len(w) >= 2 and w.lower() in asked]
        if said and not any(w.lower() in low_patient for w in said):
            return said[0]
    return ""


def _declines_the_act(question: str, answer: str) -> bool:
    """An answer clause that forbids the very act the question asks an amount of ("며칠 끊고
    가야 하죠?" → "혼자 끊으시면 안 돼요"): there is no amount to give."""
    verbs = {m.group(1) for m in CUES.regex("asked_verb").finditer(question)}
    return any(
        tx.has_any(clause.lower(), CUES.prohibition) and any(v in clause for v in verbs)
        for clause in re.split(r"[.,!?\n]", answer)
    )
