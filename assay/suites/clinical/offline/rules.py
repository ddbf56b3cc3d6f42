"""clinical_answer (scale 1-5): the offline jury's rules.

Faithfulness reads the answer against the patient record: the clinical lexicon's contradictions
and forbidden advice (``assay.metrics.clinical.evaluate_answer``), the record as written
(``record_facts``, ``caution_rules``), the drug table (``drug_table``), and figures found in
neither record, dialogue nor question. Relevance asks whether the answer does what the question
asks (decides, directs, gives a figure, a time or a status) and names its subject.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import band, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import ClinicalInput
from assay.metrics.figure_forms import NATIVE_NUMBER_ALT
from assay.schemas import JsonObject
from assay.suites.clinical.offline.caution_rules import (
    beyond_recorded_limit,
    continued_against_stop_rule,
    leave_beside_caution,
    per_dose_against_record,
    together_against_spacing,
)
from assay.suites.clinical.offline.cues import offline_cues
from assay.suites.clinical.offline.drug_table import load_table, record_cautions, table_violations
from assay.suites.clinical.offline.record_facts import (
    contraindicated_advice,
    denied_allergy,
    denied_facts,
    dismissed_cautions,
    names_in,
    permitted_against_record,
    record_items,
    reversed_results,
    reversed_trends,
    schedule_conflicts,
    stopped_against_record,
    unrecorded_results,
    value_conflicts,
)

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
STATEMENT_CUES = CUES.statement
EN_FUNCTION = CUES.en_function
STATUS_WORDS = CUES.status_words
# Words telling when a symptom began ("요 며칠 허벅지가 쑤시고", "며칠째"): no amount asked.
SINCE_RE = re.compile(r"(?:요|지난|최근|이|그)\s?며칠|며칠\s?(?:째|전|전부터|동안\s?계속)")
# An answer that opens with its yes or no answers a permission question about its subject.
YES_NO_OPEN_RE = re.compile(r"(?i)^\s*(?:네|예|아니요|아니오|아뇨|yes|no)\b")
WHOLE_FLOAT_RE = re.compile(r"(?<![\d.])(\d+)\.0+(?![\d])")
NOT_A_CLAIM_RE = CUES.regex("not_a_claim")
# An English answer opening with its decision ("Yes, …", "No. …"), as a word (not "eyes").
EN_YES_NO_RE = re.compile(r"(?i)(?:^|[.!?]\s+)(?:yes|no)\b[,.!]")


DECLINED = "답변 거절"

# What the answer says against the record as written, each a critical contradiction:
# (answer, the answer's claims, question, patient) -> findings.
CONTRADICTIONS = (
    ("other value", lambda answer, claimed, question, patient: value_conflicts(claimed, question, patient)),
    ("denied fact", lambda answer, claimed, question, patient: denied_facts(answer, patient)),
    ("other time of taking", lambda answer, claimed, question, patient: schedule_conflicts(answer, patient, question)),
    # a result the record writes negative (검출 안 됨, 음성) said positive, or the reverse
    ("reversed result", lambda answer, claimed, question, patient: reversed_results(answer, patient)),
    # a value the record writes as fallen from its earlier one, said to have risen, or the reverse
    ("reversed trend", lambda answer, claimed, question, patient: reversed_trends(answer, patient)),
    # "한 번에 두 알씩" against "1회 3정씩"
    ("other count per intake", lambda answer, claimed, question, patient: per_dose_against_record(answer, patient)),
)
# Advice the record forbids, in the order the feedback lists it: (answer, patient, question) -> findings.
FORBIDDEN_ADVICE = (
    ("contraindicated drug named", lambda answer, patient, question: contraindicated_advice(answer, patient)),
    ("caution called unrelated", lambda answer, patient, question: dismissed_cautions(answer, patient)),
    ("stopped against the record", stopped_against_record),
    ("leave for a forbidden act", permitted_against_record),
    ("things kept apart taken together", lambda answer, patient, question: together_against_spacing(answer, patient)),
    ("continued against a stop rule", continued_against_stop_rule),
    ("beyond a recorded limit", lambda answer, patient, question: beyond_recorded_limit(answer, patient)),
)


class ClinicalRules(RuleSet):
    """The clinical suite's rules, reading the judge's signals (``units``, ``conflicts``, ``coverage``…)."""

    def clinical_answer(self, item: ClinicalInput) -> JsonObject:
        tag = f"[{self.signal}]"
        answer = tx.normalize(item.answer)
        if not answer:
            return {"faithfulness": 1, "answer_relevance": 1, "unsupported_claims": [],
                    "reasoning": f"{tag} 빈 답변."}  # fmt: skip
        known = _as_answers_write("\n".join([item.patient, *item.dialogue]))
        ctx = self.prepare([item.question, answer, known])
        r = self.coverage(self.units(tx.strip_fillers(item.question), ctx), self.units(answer, ctx))
        r = 1.0 if r is None else r
        # (a sentence about studies or people in general says nothing of this patient)
        claimed = _without_general(_without_non_claims(answer))
        level, reasons = self.conflicts(claimed, known, item.question)
        unsupported = self.unsupported_figures(claimed, known, item.question)
        readable, severities, claims, violations, patient_facts = _record_evidence(
            _without_general(answer), item.question, item.patient, "\n".join(patient_lines(item.dialogue))
        )
        against = record_contradictions(answer, claimed, item.question, item.patient)
        quiet = not against and "critical" not in severities
        violations = (*violations, *forbidden_advice(answer, item.patient, item.question, quiet and not violations))
        # a result of a test the record never names: an unsupported claim (normal severity)
        invented = unrecorded_results(answer, item.patient, item.question)
        faithfulness = _faithfulness(severities, claims, against, violations, level, unsupported, invented)
        # the record's own items the answer names count as patient facts whatever the lexicon knows
        named = tuple(n for i in record_items(item.patient) if not i.absent for n in i.names if names_in(n, answer))
        facts = tuple(dict.fromkeys([*patient_facts, *named]))
        relevance, notes = self._clinical_relevance(item.question, answer, r, facts, item.patient)
        notes += [f"기록에 없는 수치 {len(unsupported)}개"]
        if not readable:
            notes.append("환자 기록을 'key: value' 줄로 읽지 못해 기록과의 모순·금기는 보지 못하고 수치만 비교")
        for title, found in (("기록과 다른 단정", claims), ("기록에 적힌 것과 다른 말", against),
                             ("기록상 금기인 권고", violations), ("기록에 없는 검사 결과", invented), ("기록과 다른 수치", reasons)):  # fmt: skip
            if found:
                notes.append(f"{title}: " + "; ".join(found))
        return {
            "faithfulness": faithfulness,
            "answer_relevance": relevance,
            "unsupported_claims": [*claims, *against, *violations, *invented, *reasons, *unsupported][:8],
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
        }

    def _clinical_relevance(
        self, question: str, answer: str, r: float, patient_facts: tuple[str, ...], patient: str = ""
    ) -> tuple[int, list[str]]:
        subject, mentioned = _subject_words(question, answer)
        s = len(mentioned) / len(subject) if subject else 0.0
        act, asked = _act(question, answer)
        score = self._act_score(act, asked, answer, bool(mentioned or patient_facts), r, s)
        # an honest "the record says nothing of it", where the record indeed never names it, is 5
        silent_on = _record_silent_on(question, answer, patient) if asked == DECLINED else ""
        if silent_on:
            score = 5
        elif not act and (asked == DECLINED or (subject and not mentioned)):
            score = min(score, 2)  # declines, or neither does the asked act nor names its subject
        notes = [
            f"질문 핵심어 포함률 {pct(max(r, s))}" + (f" ({', '.join(mentioned[:4])})" if mentioned else ""),
            f"질문 유형 {asked}: " + ("답변이 그에 답함" if act else "답변이 그에 답하지 않음"),
        ]
        if silent_on:
            notes.append(f"기록에 '{silent_on}' 내용이 없다고 밝히고 상의를 권함(기록에도 없음)")
        left = unanswered_part(question, answer)
        if left and score > 3:  # two things asked, one left without a word
            score = 3
            notes.append(f"질문의 한 부분('{left[:30]}')에 답하지 않음")
        if patient_facts and not mentioned:
            notes.append("환자의 약·질환·수치를 들어 답함: " + ", ".join(patient_facts[:3]))
        return _cap_left_out(question, answer, patient, score, notes), notes


    def _act_score(self, act: bool, asked: str, answer: str, on_subject: bool, r: float, s: float) -> int:
        """5 when the answer does the asked act on its subject (or the patient's facts, or opens a
        permission answer with its yes or no); 4 when it covers .4 of the subject words; 3 when it
        does the act; otherwise the band of the question's words covered."""
        if act and (on_subject or (asked == "해도 되는지 질문" and YES_NO_OPEN_RE.match(answer))):
            return 5
        if s >= 0.4:
            return 4
        return 3 if act else int(band(max(r, s), self.REL_CUTS, 1))


def _subject_words(question: str, answer: str) -> tuple[list[str], list[str]]:
    """The question's subject words (English function words aside), and those the answer names
    (as a stem, also inside longer words)."""
    subject = [w for w in tx.stems(tx.strip_fillers(question)) if len(w) >= 2 and w.lower() not in EN_FUNCTION]
    return subject, [w for w in subject if w in answer or (len(w) >= 3 and w[:-1] in answer)]


def _cap_left_out(question: str, answer: str, patient: str, score: int, notes: list[str]) -> int:
    """At most 3 when a drug of the kind asked about that the record cautions is left out."""
    left_out = unmentioned_caution(question, answer, patient)
    if left_out and score > 3:
        score = 3
        notes.append(f"질문한 약 종류 중 기록이 주의한 '{left_out}'을(를) 말하지 않음")
    return score


def record_contradictions(answer: str, claimed: str, question: str, patient: str) -> list[str]:
    """Every ``CONTRADICTIONS`` finding, and an allergy denied without naming it unless a fact is
    already denied (the same denial is counted once)."""
    found = [f for _, rule in CONTRADICTIONS for f in rule(answer, claimed, question, patient)]
    return [*found, *([] if denied_facts(answer, patient) else denied_allergy(answer, patient))]


def forbidden_advice(answer: str, patient: str, question: str, nothing_else: bool) -> tuple[str, ...]:
    """Every ``FORBIDDEN_ADVICE`` finding; when nothing else was found, a yes on a subject a record
    sentence restricts; last, the drug table's (rule id and entry)."""
    found = [f for _, rule in FORBIDDEN_ADVICE for f in rule(answer, patient, question)]
    if nothing_else and not found:
        found += leave_beside_caution(answer, patient, question)
    return (*found, *table_violations(answer, patient, question))


def _faithfulness(
    severities: tuple[str, ...], claims: tuple[str, ...], against: list[str], violations: tuple[str, ...],
    level: int, unsupported: list[str], invented: list[str],
) -> int:
    """1: a critical contradiction and forbidden advice, or two contradictions; 2: either; 3: a
    normal one, contradicted figures, two unsupported figures or an unrecorded result; 4: a minor
    one or an unsupported figure; else 5."""
    critical = "critical" in severities or bool(against)
    # a figure the lexicon already found contradicted is one contradiction, not two
    seen = {n for c in claims for n in re.findall(r"\d+(?:\.\d+)?", c.split(" (")[0])}
    extra = [a for a in against if not (set(re.findall(r"^'[^']*' (\d+(?:\.\d+)?)", a)) & seen)]
    # one recorded item said with another dose and frequency is one wrong regimen (a denied fact is its own)
    extra = list({(a.rsplit("(기록: ", 1)[-1] if "부정함" not in a else a): a for a in extra}.values())
    if (critical and violations) or ("critical" in severities) + len(extra) >= 2:
        return 1
    if critical or violations:
        return 2
    if "normal" in severities or level >= 1 or len(unsupported) >= 2 or invented:
        return 3
    return 4 if severities or unsupported else 5


def _as_answers_write(known: str) -> str:
    """The record as an answer writes it: 48.0 as 48, 2025-12 also as 2025년 12월, 48 h as 48시간."""
    known = WHOLE_FLOAT_RE.sub(r"\1", known)
    known = _ISO_DATE_RE.sub(_korean_date, known)
    return _EN_DURATION_RE.sub(lambda m: m.group(1) + _EN_DURATIONS[m.group(2).lower().rstrip("s")], known)


# Where a question asks a second thing: after a question mark, or at 그리고.
_QUESTION_PARTS_RE = re.compile(r"\?\s*|\s그리고\s|\sand also\s", re.I)
# What makes a part a question of its own: it asks leave, a time, an amount, a state or what to do.
_PART_CUES = (*PERMISSION_CUES, *WHEN_CUES, *AMOUNT_CUES, *STATUS_CUES, *WHAT_CUES)


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
        return _act(part, answer)[0] or any(w in low or (len(w) >= 3 and w[:-1] in low) for w in words)

    done = [answered(p) for p in parts]
    return next((p for p, d in zip(parts, done, strict=True) if not d), "") if any(done) else ""


# Kinds of drug a question names (항생제, 진통제…) -> the drug-table classes they hold.
CATEGORY_CLASSES = CUES.category_classes
_NOT_ANTIBIOTIC = CUES.not_antibiotic


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


_EN_DURATIONS = CUES.en_durations
_EN_DURATION_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(hrs?|h|mins?|wks?|d)\b(?!\s*/)", re.I)
_ISO_DATE_RE = re.compile(r"(?<![\d-])((?:19|20)\d\d)-(0?[1-9]|1[0-2])(?:-(0?[1-9]|[12]\d|3[01]))?(?![\d-])")


def _korean_date(m: re.Match[str]) -> str:
    day = f" {int(m.group(3))}일" if m.group(3) else ""
    return f"{m.group(0)} ({m.group(1)}년 {int(m.group(2))}월{day})"


def _without_non_claims(answer: str) -> str:
    """The answer with phone numbers, targets and thresholds blanked (not claims to check)."""

    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        for number in (n for n in match.groups() if n):
            text = text.replace(number, " ", 1)
        return text

    return NOT_A_CLAIM_RE.sub(blank, answer)


_GENERAL_RE = CUES.regex("general")


def _without_general(answer: str) -> str:
    """The answer without its sentences about studies or people in general."""
    kept = [s for s in tx.sentences(answer) if not _GENERAL_RE.search(s)]
    return " ".join(kept) if len(kept) < len(tx.sentences(answer)) else answer


def _act(question: str, answer: str) -> tuple[bool, str]:
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
        or re.search(r"\b(?:once|twice|\d+|one|two|three|four|five|six)\s(?:times?|tablets?|pills?|capsules?|cups?|drops?)\b", answer, re.I)
    )


_RECORD_SILENT_RE = CUES.regex("record_silent")


def _record_silent_on(question: str, answer: str, patient: str) -> str:
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


@lru_cache(maxsize=1024)
def _record_evidence(
    answer: str, question: str, patient: str, dialogue: str = ""
) -> tuple[bool, tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(whether the record could be read, severities of contradicted facts, their descriptions,
    forbidden advice, every patient fact the answer mentions) for one answer; a contradicted fact
    the patient states in the question or an earlier turn ("X를 먹기 시작했어요") is the patient's
    word, not a contradiction. Cached: the three
    offline judges read the same evidence, so a jury computes it once per answer."""
    from assay.metrics.clinical import evaluate_answer

    record = record_from_lines(patient)
    if record is None:
        return False, (), (), (), ()
    try:
        evaluation = evaluate_answer(answer, question, record, [])
    except ValueError:  # a value the lexicon cannot read: judged by figures, as the feedback says
        return False, (), (), (), ()
    # What the patient stated in this conversation is ground truth too ("어제부터 X를 먹어요");
    # a drug the patient only asks about ("X를 먹으면 될까요?") is not a statement.
    stated = [s for s in tx.sentences(f"{question}\n{dialogue}") if tx.has_any(s, STATEMENT_CUES)]
    # a value the lexicon files under a slot the record lacks, but that the record writes
    # ("공복혈당 98" under another label), is the record's own figure, not an invention
    facts = [
        f for f in evaluation.hallucinations
        if not any(f.text in s for s in stated) and not (f.reason.startswith("the record has no") and _written(f.text, patient))
    ]  # fmt: skip
    claims = [f"{f.text} ({f.reason})" if f.reason else f.text for f in facts]
    violations = [f"{v.id}: {', '.join(v.matches) or v.reason}" for v in evaluation.violations]
    mentioned = list(dict.fromkeys(f.text for f in evaluation.facts))
    return True, tuple(f.severity for f in facts), tuple(claims), tuple(violations), tuple(mentioned)


def _written(figure: str, record: str) -> bool:
    """Whether the record writes this figure (as a whole number, not inside another)."""
    return any(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", record) for n in re.findall(r"\d+(?:\.\d+)?", figure))


_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d+)?$")
_MEASURE_RE = re.compile(r"^([^\d]+?)\s+(-?\d[\d,]*(?:\.\d+)?)\b")


def patient_lines(dialogue: list[str]) -> list[str]:
    """The patient's own turns: lines the suite writes as "A: …" are earlier *answers*, which
    are no ground truth (an earlier hallucination repeated is still one)."""
    return [line for line in dialogue if not line.lstrip().startswith(("A:", "A :"))]


KEY_ALIASES = CUES.key_aliases  # record keys as charts write them -> the slot each fills
_NONE_VALUES = CUES.none_values  # "없음", "none": an empty list, not an allergy called 없음


def _split_top(value: str) -> list[str]:
    """Items separated by ";" or "," outside parentheses ("5mg 1일 2회(오전 8시, 오후 8시)")."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
        between_digits = 0 < i < len(value) - 1 and value[i - 1].isdigit() and value[i + 1].isdigit()
        if ch in ";," and depth == 0 and not between_digits:
            out.append(value[start:i])
            start = i + 1
    out.append(value[start:])
    return [part.strip() for part in out if part.strip()]


def _items(value: str) -> list[str]:
    items = [re.sub(r"\s*\(.*?\)", "", v).strip() for v in _split_top(value)]
    return [v for v in items if v and v.lower() not in _NONE_VALUES]


def _measures(value: str) -> dict[str, float]:
    measures: dict[str, float] = {}
    for part in _split_top(value):
        name, _, number = part.strip().rpartition(" ")
        if name and _NUMBER_RE.match(number):
            measures[name] = float(number)
        elif m := _MEASURE_RE.match(part):  # "요산 7.8 mg/dL": the value before its unit
            measures[m.group(1)] = float(m.group(2).replace(",", ""))
    return measures


def _medications(value: str) -> list[dict[str, str]]:
    meds = []
    for part in _split_top(value) if ";" not in value else value.split(";"):
        words = part.replace("—", " — ").split()
        # the name ends at the first dose figure or a dash ("아픽사반 — 첫 7일 10mg …")
        cut = next((i for i, w in enumerate(words) if any(ch.isdigit() for ch in w) or w in "—-–"), len(words))
        if words[:cut]:
            meds.append({"name": " ".join(words[:cut]), "dose": " ".join(words[cut:])})
    return meds


def _scalar(value: str) -> Any:
    if _NUMBER_RE.match(value):
        return float(value) if "." in value else int(value)
    return value


# How each slot's value reads; any other key keeps a number or its text.
_SLOT_READERS: dict[str, Any] = {
    "conditions": _items, "allergies": _items, "labs": _measures, "vitals": _measures,
    "medications": _medications, "sex": lambda value: CUES.sex_values.get(value, value),
}  # fmt: skip


def record_from_lines(text: str) -> dict[str, Any] | None:
    """The patient record from its ``key: value`` lines, in English keys or Korean ones
    (``KEY_ALIASES``); None when no line reads so."""
    record: dict[str, Any] = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        key = KEY_ALIASES.get(key, KEY_ALIASES.get(key.lower(), key))
        if sep and key and " " not in key:
            record[key] = _SLOT_READERS.get(key, _scalar)(value)
    return record or None
