"""clinical_answer: the offline jury's rules (seed 002, scale 1-5).

**Faithfulness** reads the answer against the patient record with the clinical lexicon and
contraindication table the suite bundles (``assay.metrics.clinical.evaluate_answer``): a fact the
answer asserts about the patient that the record contradicts (a drug they do not take, a wrong
eGFR / INR / potassium / blood pressure / age, a condition they do not have) and advice the
record forbids (a drug of an allergy's class, an NSAID with a low eGFR, a drug that interacts
with one they take, a decongestant with uncontrolled blood pressure). Figures beside it are
compared as figures (U = the answer's figures found in neither record, dialogue nor question).
The record is the prompt's ``key: value`` lines (``labs: egfr 48, potassium 5.4``); a record
that cannot be read that way is judged by figures alone and the feedback says so. Whatever the
layout, the record as written is also read without the lexicon (``record_facts``): a figure the
answer gives for a recorded item in the item's unit with another value, a recorded fact the
answer negates (an allergy too, when the answer says there is none without naming it), and
another time of taking each count as a critical contradiction (two or more → 1; a figure the
lexicon already found contradicted counts once); a drug from the record's contraindication line
recommended is forbidden advice; a result of a test the record never names is an unsupported
claim (faithfulness 3). Dates a record writes as 2025-12 are compared as "2025년 12월", and a
reference limit the answer cites ("정상 상한(150)") is no value of the patient. A value the lexicon
files under a slot the record lacks but that the record writes is the record's own, not an
invention. Record items the answer names count as patient facts for relevance, and an answer
that declines to advise does not perform the asked act.

    ================================================  ============
    signal                                            faithfulness
    ================================================  ============
    empty answer                                      1
    a critical contradiction and forbidden advice      1
    a critical contradiction, or forbidden advice     2
    a normal-severity contradiction, or figures       3
    contradicted (level ≥ 1), or U ≥ 2
    a minor contradiction, or U = 1                   4
    otherwise                                         5
    ================================================  ============

Unlike SFS and CSP, which score the share of facts and rules, the judge gives a 1-5 reading of
the same evidence; it is therefore *not* an independent opinion on faithfulness (an LLM judge
is).

**Answer relevance**: does the answer do what the question asks, in any wording?
S = the question's subject (its drug, symptom, lab or named thing, as word stems, also inside
longer words) mentioned in the answer; A = the answer performs the act the question asks for:

    ==================================================  ===============================
    question asks                                       the answer performs it when it
    ==================================================  ===============================
    may I take / use X ("먹어도 되나요", "괜찮을까요")   decides: take / avoid / continue /
                                                        yes / no ("드세요", "피하세요")
    what to take or do ("뭘 먹으면", "어떻게 써야")       recommends or directs
    how a result or state is ("어떻게 나왔어요")          gives a value or a status word
    a symptom told ("숨이 차요")                          directs to care or advises
    an amount or duration ("몇 년", "how long")          gives a figure
    ==================================================  ===============================

English permission questions (can I, is it okay to) and decisions (better not, you can, must
not) are read, and English function words are no subject words.

    relevance = 5 if A and (S, or the answer names one of the patient's drugs, conditions or
    values); 4 if S covers ≥ .4 of the question's subject words; 3 if A alone; otherwise band(R)
    over the coverage R of the question's words (≥ .6 → 5, ≥ .4 → 4, ≥ .25 → 3, ≥ .1 → 2, else 1);
    at most 2 when the answer declines, or does not perform A and names none of S.

After the v6 round: a dose or target asked for (얼마씩, 어느 정도로 유지) is answered only by a
figure; "keep", "have", "long"… are no subject words; "48 h" / "2 wk" in an English record are
read as 48시간 / 2주; a clause that calls two things of one caution line unrelated
(``record_facts.dismissed_cautions``) is forbidden advice.

After the v7 round: the drug-class and contraindication table (``drug_table``,
``assay/suites/clinical/rules/drug_interactions.yaml``) turns the record's conditions, drugs,
allergies and labs into classes to avoid; a clause recommending one, or a first sentence
permitting the one the question names, is forbidden advice (``drug_table:<entry>``). One
recorded item said with another dose and another frequency is one contradiction. Relevance: a
when-question is answered by a time or day, "하루에 얼마나 마셔도" asks an amount, and a
permission answer opening with its yes or no answers the question's subject.

After the v8 round: a caution line's comma part that permits ("불활성화 백신은 가능") names
nothing forbidden; 식사와 함께 / 식사 중 are 식후 and 빈속 is 공복; a drug the record says not to
stop ("임의 중단 금지"), let go by an answer clause with no warning, is forbidden advice
(``record_facts.stopped_against_record``); the drug table covers dialysis, integrase inhibitors,
beta-blockers and more. Relevance: any verb's imperative and 금지/금기 decide, 언제 asks a time,
and a recorded value asked for ("얼마 나왔어요", "what was my") needs a figure.

After the v9 round: a record result written negative (검출 안 됨, 음성) said positive, or the
reverse, contradicts it (``record_facts.reversed_results``); a lab value reported without a
test word ("혈소판 수도 정상") that the record never names is an unrecorded result; a negation
before another noun ("항히스타민이 없는 약") denies nothing; the drug table reads a pregnancy
written by its week. Relevance: a question about a kind of drug (항생제, 진통제, 감기약…,
``CATEGORY_CLASSES``) whose member the record cautions, answered without naming it or its
class, is at most 3 (the caution asked about, left out); not when the question names the drug.

After the v12 round: leave given in the answer's first sentence, with no warning, for an act a
record sentence forbids (a drink, one more tablet, a skipped dose, a drug it names) is forbidden
advice (``record_facts.permitted_against_record``); a word the record itself writes negated is
not denied by an answer repeating the negation; in a note written in sentences (SOAP) each
sentence is an item, so a score (MMSE 22점) or a count (림프구 0.42 ×10³/µL) said with another
value contradicts it, while the earlier value it writes in parentheses may be quoted. Relevance: "어떻게 해야 (할까요)" asks what to do (answered by directions); "요 며칠",
"며칠째", "며칠 전" tell when a symptom began and ask no amount; a prohibition told or quoted
("쪼개면 안 된다고", "자르지 마시고") decides; an amount asked of an act ("며칠 끊고 가야") is
answered by a clause forbidding that act ("혼자 끊으시면 안 돼요"); "괜찮았어요?" asks how a past
result was (a status question, not leave), and 안정 is a status word.
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

PERMISSION_CUES = ("되나요", "될까요", "돼요", "되죠", "괜찮을까요", "괜찮나요", "괜찮아요", "괜찮죠", "해도", "먹어도", "써도", "드셔도",
                   "can i ", "may i ", "is it ok", "is it safe", "is it fine", "should i ", "okay to", "ok to", "safe to")  # fmt: skip
# A question that asks for an amount, a count or a duration is answered by a figure.
AMOUNT_CUES = ("몇 년", "몇 개월", "몇 달", "몇 주", "몇 일", "며칠", "몇 번", "몇 알", "몇 mg", "how long", "how many", "how much",
               # a dose or a target range asked for ("얼마씩 먹고", "어느 정도로 유지해야") is a figure too
               "얼마씩", "몇으로", "어느 정도로 유지", "what dose", "what range", "what level",
               # how much of something to take in a day ("물은 하루에 얼마나 마셔도")
               "하루에 얼마나", "얼마나 마셔", "얼마나 먹어", "얼마나 드셔",
               # a recorded value asked for ("QTc 얼마 나왔어요", "수치 몇이었어요", "what was my INR")
               "얼마 나왔", "얼마였", "몇 나왔", "몇이었", "몇이 나왔", "몇이에요", "몇이야", "what was my", "what's my",
               "what is my")  # fmt: skip
WHAT_CUES = ("뭘", "뭐가", "무엇", "어떤", "어떻게 써야", "어떻게 먹", "얼마나", "어느 정도 하면", "추가해야", "바꿔야", "주의할",
             # what to do about a symptom told ("어떻게 해야 할까요?") is answered by directions
             "어떻게 해야", "어떻게 하면")
STATUS_CUES = ("어떻게 나왔", "괜찮은 편", "어느 정도", "어때요", "어떤가요", "잘 듣고", "잘 맞는", "수치는", "결과", "상태", "정리해",
               # a past result asked about ("지난번 잰 혈압 괜찮았어요?"), not leave for an act
               "괜찮았")
DECISION_CUES = (
    "드세요", "드셔도", "드시면", "드시고", "드시지", "피하", "마세요", "안 됩니다", "안 돼", "괜찮습니다", "괜찮아요",
    "계속", "중단", "쓰지", "쓰시", "권합니다", "권장", "좋습니다", "낫습니다", "네,", "아니요", "필요합니다", "하세요",
    # any verb of taking or using, decided ("넣으시면 됩니다", "바르셔도 돼요"), and English decisions
    "시면 됩니다", "시면 돼요", "셔도 됩니다", "셔도 돼요", "better not", "you can ", "you may ",
    "it's fine", "it is fine", "it's safe", "it is safe", "avoid", "don't", "do not", "should not", "shouldn't", "stop ",
    "keep taking", "continue", "must not", "mustn't", "cannot", "can't", "should ",
    # an English decision to leave a dose out ("skip tonight's dose", "hold it")
    "skip ", "hold ",
    "좋은 생각",
    # any verb's imperative ("맞으세요", "받으십시오") decides, and so does calling it forbidden
    "으세요", "십시오", "금지", "금기", "contraindicated",
    # a prohibition told or quoted ("쪼개면 안 된다고", "자르지 마시고") decides too
    "안 된다", "안 되", "지 마시", "지 마십",
)  # fmt: skip
# Words telling when a symptom began ("요 며칠 허벅지가 쑤시고", "며칠째"): no amount asked.
SINCE_RE = re.compile(r"(?:요|지난|최근|이|그)\s?며칠|며칠\s?(?:째|전|전부터|동안\s?계속)")
# "며칠 끊고 가야 하죠?" answered "혼자 끊으시면 안 돼요": declining the act the amount is of
# answers it (there is no amount to give).
PROHIBITION_CUES = ("안 돼", "안 됩", "안 된", "안 되", "마세요", "지 마시", "금지", "must not", "do not", "don't", "should not")
# A question for when ("When should I take …", "몇 시에 먹어요") is answered by a time or a day.
WHEN_CUES = ("when should", "when do", "when can", "what time", "which day", "몇 시", "무슨 요일", "어느 요일", "언제")
TIME_WORDS = (
    "아침", "점심", "저녁", "취침", "자기 전", "식전", "식후", "공복", "요일", "morning", "evening", "night", "bedtime",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "before", "after", "once a",
    # meals and days ("식사와 함께", "투석 날", "주사 전날")
    "식사", "빈속", "with meals", "with food", "날",
)  # fmt: skip
# An answer that opens with its yes or no answers a permission question about its subject.
YES_NO_OPEN_RE = re.compile(r"(?i)^\s*(?:네|예|아니요|아니오|아뇨|yes|no)\b")
DIRECTIVE_CUES = ("병원", "진료", "119", "응급", "주치의", "상의", "세요", "권합니다", "걱정")
# The answer declines to advise ("제가 말씀드릴 수 없습니다").
DECLINE_CUES = (
    *tx.REFUSAL_CUES, "말씀드릴 수 없", "말씀드리기 어렵", "답변드릴 수 없", "조언할 수 없", "조언드릴 수 없",
    "판단할 수 없", "can't advise", "cannot advise", "can't tell you", "cannot tell you",
    "해 드릴 수 없", "해드릴 수 없", "해석할 수 없", "can't interpret", "cannot interpret",
)  # fmt: skip
WHOLE_FLOAT_RE = re.compile(r"(?<![\d.])(\d+)\.0+(?![\d])")
# Figures that are not claims about the patient: a phone number to call, a target or threshold.
NOT_A_CLAIM_RE = re.compile(
    r"(\d[\d,.]*)\s*(?:%|mg|g)?\s*(?:에|로|번)?\s*(?:연락|전화)"
    r"|목표(?:인|는|치|값)?\s*(\d[\d,.]*)"
    # a reference limit the answer cites ("정상 상한(150)보다", "upper limit of normal, 40")
    r"|(?:정상|기준|참고)\s*(?:상한|하한|범위|치|값|수치)?\s*(?:인|은|는)?\s*\(?\s*(\d[\d,.]*)"
    r"|(?:upper|lower)\s+limit(?:\s+of\s+normal)?\s*\(?\s*(\d[\d,.]*)"
    r"|(\d[\d,.]*)\s*(?:%|mg/dL|mmHg|kg)?\s*(?:미만|이하|이상|이내|초과)"
)
# A patient's sentence that states a fact about themselves (taking, started, diagnosed).
STATEMENT_CUES = ("먹고 있", "먹기 시작", "복용 중", "복용하고", "복용해요", "먹어요", "먹습니다", "맞고 있",
                  "진단", "처방받", "있어요", "있습니다", "했어요", "했습니다", "받았")
# An English answer opening with its decision ("Yes, …", "No. …"), as a word (not "eyes").
EN_YES_NO_RE = re.compile(r"(?i)(?:^|[.!?]\s+)(?:yes|no)\b[,.!]")
EN_FUNCTION = frozenset(
    "is it to on in at of for the a an and or my me i i'm im can may should do does did be are was with while "
    "what how when okay ok take taking use using safe fine keep have has need still long much many".split()
)
STATUS_WORDS = ("정상", "높", "낮", "조절", "떨어", "목표", "범위", "양호", "부족", "초과", "안정")


class ClinicalRules(RuleSet):
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""


    def clinical_answer(self, item: ClinicalInput) -> JsonObject:
        tag = f"[{self.signal}]"
        answer = tx.normalize(item.answer)
        if not answer:
            return {"faithfulness": 1, "answer_relevance": 1, "unsupported_claims": [],
                    "reasoning": f"{tag} 빈 답변."}
        # "egfr 48.0" as a record renders a float: compared as 48, as the answer writes it.
        known = WHOLE_FLOAT_RE.sub(r"\1", "\n".join([item.patient, *item.dialogue]))
        # "2025-12" / "2026-11-02" in a record is the date an answer writes "2025년 12월"
        known = _ISO_DATE_RE.sub(_korean_date, known)
        # "48 h", "2 wk" in an English record are the 48시간, 2주 an answer writes
        known = _EN_DURATION_RE.sub(lambda m: m.group(1) + _EN_DURATIONS[m.group(2).lower().rstrip("s")], known)
        ctx = self.prepare([item.question, answer, known])
        core = tx.strip_fillers(item.question)
        r = self.coverage(self.units(core, ctx), self.units(answer, ctx))
        r = 1.0 if r is None else r
        # (a sentence about studies or people in general — "연구에서는 평균 15%" — says nothing of
        # this patient: its figures are no claims about the record)
        claimed = _without_general(_without_non_claims(answer))
        level, reasons = self.conflicts(claimed, known, item.question)
        unsupported = self.unsupported_figures(claimed, known, item.question)
        readable, severities, claims, violations, patient_facts = _record_evidence(
            _without_general(answer), item.question, item.patient, "\n".join(patient_lines(item.dialogue))
        )
        # the record as written, read without the lexicon: other values, denied facts
        denied = denied_facts(answer, item.patient)
        against = [
            *value_conflicts(claimed, item.question, item.patient),
            *denied,
            *schedule_conflicts(answer, item.patient, item.question),
            # a result the record writes negative (검출 안 됨, 음성) said positive, or the reverse
            *reversed_results(answer, item.patient),
            # a value the record writes as fallen from its earlier one, said to have risen, or the reverse
            *reversed_trends(answer, item.patient),
            # "한 번에 두 알씩" against "1회 3정씩"
            *per_dose_against_record(answer, item.patient),
            # "알레르기가 없으시니" without naming it; the same denial is counted once
            *([] if denied else denied_allergy(answer, item.patient)),
        ]
        # a drug on the record's contraindication line, recommended: advice the record forbids
        violations = (*violations, *contraindicated_advice(answer, item.patient), *dismissed_cautions(answer, item.patient))
        # a drug the record says not to stop, which the answer lets the patient stop
        violations = (*violations, *stopped_against_record(answer, item.patient, item.question))
        # leave given for an act a record sentence forbids (a drink, one more tablet, a skipped dose)
        violations = (*violations, *permitted_against_record(answer, item.patient, item.question))
        # things to keep hours apart taken together; a drug to stop on a condition the question
        # tells of, continued
        violations = (
            *violations,
            *together_against_spacing(answer, item.patient),
            *continued_against_stop_rule(answer, item.patient, item.question),
            *beyond_recorded_limit(answer, item.patient),
        )
        if not violations and not against and "critical" not in severities:
            # nothing else found: a yes or leave on a subject a record sentence restricts, with
            # no word of the restriction
            violations = (*violations, *leave_beside_caution(answer, item.patient, item.question))
        # a drug of a class the record contraindicates by the drug table (its conditions, drugs,
        # allergies, labs), recommended or permitted with no warning: the rule id and the entry
        violations = (*violations, *table_violations(answer, item.patient, item.question))
        # a result of a test the record never names: an unsupported claim (normal severity)
        invented = unrecorded_results(answer, item.patient, item.question)
        critical = "critical" in severities or bool(against)
        # a figure the lexicon already found contradicted is one contradiction, not two
        seen = {n for c in claims for n in re.findall(r"\d+(?:\.\d+)?", c.split(" (")[0])}
        extra = [a for a in against if not (set(re.findall(r"^'[^']*' (\d+(?:\.\d+)?)", a)) & seen)]
        # one recorded item said with another dose and another frequency is one wrong regimen
        # (a denied fact is its own claim: "조짐이 없는 편두통" denies two facts of one line)
        extra = list({(a.rsplit("(기록: ", 1)[-1] if "부정함" not in a else a): a for a in extra}.values())
        if (critical and violations) or ("critical" in severities) + len(extra) >= 2:
            faithfulness = 1
        elif critical or violations:
            faithfulness = 2
        elif "normal" in severities or level >= 1 or len(unsupported) >= 2 or invented:
            faithfulness = 3
        elif severities or unsupported:
            faithfulness = 4
        else:
            faithfulness = 5
        # the record's own items the answer names count as patient facts whatever the lexicon knows
        # (across scripts too: "terbinafine" in an English answer names the record's 테르비나핀)
        named = tuple(n for i in record_items(item.patient) if not i.absent for n in i.names if names_in(n, answer))
        facts = tuple(dict.fromkeys([*patient_facts, *named]))
        relevance, rel_notes = self._clinical_relevance(item.question, answer, r, facts, item.patient)
        left_out = unmentioned_caution(item.question, answer, item.patient)
        if left_out and relevance > 3:
            # asked about a kind of drug the record cautions one of ("항생제 … 조심할 거?" where the
            # record forbids metronidazole), answered without it: part of what was asked
            relevance = 3
            rel_notes.append(f"질문한 약 종류 중 기록이 주의한 '{left_out}'을(를) 말하지 않음")
        notes = [*rel_notes, f"기록에 없는 수치 {len(unsupported)}개"]
        if not readable:
            notes.append("환자 기록을 'key: value' 줄로 읽지 못해 기록과의 모순·금기는 보지 못하고 수치만 비교")
        if claims:
            notes.append("기록과 다른 단정: " + "; ".join(claims))
        if against:
            notes.append("기록에 적힌 것과 다른 말: " + "; ".join(against))
        if violations:
            notes.append("기록상 금기인 권고: " + "; ".join(violations))
        if invented:
            notes.append("기록에 없는 검사 결과: " + "; ".join(invented))
        if reasons:
            notes.append("기록과 다른 수치: " + "; ".join(reasons))
        return {
            "faithfulness": faithfulness,
            "answer_relevance": relevance,
            "unsupported_claims": [*claims, *against, *violations, *invented, *reasons, *unsupported][:8],
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
        }

    def _clinical_relevance(
        self, question: str, answer: str, r: float, patient_facts: tuple[str, ...], patient: str = ""
    ) -> tuple[int, list[str]]:
        # English function words ("is", "it", "on") are no subject
        subject = [w for w in tx.stems(tx.strip_fillers(question)) if len(w) >= 2 and w.lower() not in EN_FUNCTION]
        mentioned = [w for w in subject if w in answer or (len(w) >= 3 and w[:-1] in answer)]
        s = len(mentioned) / len(subject) if subject else 0.0
        act, asked = _act(question, answer)
        if act and (mentioned or patient_facts or (asked == "해도 되는지 질문" and YES_NO_OPEN_RE.match(answer))):
            score = 5
        elif s >= 0.4:
            score = 4
        elif act:
            score = 3
        else:
            score = int(band(max(r, s), self.REL_CUTS, 1))
        # an answer that declines to advise, or that neither does the asked act nor names the
        # question's subject (a drug asked about, a diet talked about), sidesteps it
        silent_on = _record_silent_on(question, answer, patient) if asked == "답변 거절" else ""
        if silent_on:
            # "기록에는 피임약에 대한 내용이 없어 판단이 어려우니 선생님께 여쭤보세요", and the record
            # indeed never names 피임약: the honest answer, which the labels give 5
            score = 5
        elif not act and (asked == "답변 거절" or (subject and not mentioned)):
            score = min(score, 2)
        notes = [
            f"질문 핵심어 포함률 {pct(max(r, s))}" + (f" ({', '.join(mentioned[:4])})" if mentioned else ""),
            f"질문 유형 {asked}: " + ("답변이 그에 답함" if act else "답변이 그에 답하지 않음"),
        ]
        if silent_on:
            notes.append(f"기록에 '{silent_on}' 내용이 없다고 밝히고 상의를 권함(기록에도 없음)")
        left = unanswered_part(question, answer)
        if left and score > 3:
            # two things asked ("결과 어땠어요? 그리고 … 같이 먹어도 돼요?"), one left without a word
            score = 3
            notes.append(f"질문의 한 부분('{left[:30]}')에 답하지 않음")
        if patient_facts and not mentioned:
            notes.append("환자의 약·질환·수치를 들어 답함: " + ", ".join(patient_facts[:3]))
        return score, notes


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


# Kinds of drug a question names (항생제, 진통제…) and the drug-table classes they hold: a caution
# on the record about a member of one is part of what such a question asks.
CATEGORY_CLASSES: dict[str, tuple[str, ...]] = {
    "항생제": ("penicillin", "cephalosporin", "fluoroquinolone", "aminoglycoside", "macrolide", "tetracycline",
             "sulfonamide_antibiotic", "trimethoprim", "azole_metronidazole"),
    "antibiotic": ("penicillin", "cephalosporin", "fluoroquinolone", "aminoglycoside", "macrolide", "tetracycline",
                   "sulfonamide_antibiotic", "trimethoprim", "azole_metronidazole"),
    "진통제": ("nsaid", "salicylate", "opioid", "serotonergic_opioid"),
    "painkiller": ("nsaid", "salicylate", "opioid", "serotonergic_opioid"),
    "소염제": ("nsaid",), "해열제": ("nsaid", "salicylate"),
    "감기약": ("decongestant", "anticholinergic", "serotonergic_opioid"),
    "cold medicine": ("decongestant", "anticholinergic", "serotonergic_opioid"),
    "수면제": ("benzodiazepine", "anticholinergic"), "수면유도제": ("anticholinergic", "benzodiazepine"),
    "혈압약": ("ace_inhibitor", "arb", "beta_blocker", "thiazide", "non_dhp_ccb"),
    "피임약": ("estrogen_contraceptive",), "백신": ("live_vaccine",), "예방접종": ("live_vaccine",),
}  # fmt: skip
# azoles are antifungals: under 항생제 only metronidazole's names count
_NOT_ANTIBIOTIC = ("fluconazole", "플루코나졸", "디푸루칸", "miconazole", "미코나졸")


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


_EN_DURATIONS = {"h": "시간", "hr": "시간", "min": "분", "wk": "주", "d": "일"}
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


# A sentence about studies or people in general, not about the patient.
_GENERAL_RE = re.compile(
    r"연구에서|연구 결과|임상시험|평균적으로|일반적으로 알려|알려져 있|대부분의 사람|많은 환자|"
    r"\b(?:studies|in trials|on average|most people|in general)\b",
    re.I,
)


def _without_general(answer: str) -> str:
    """The answer without its sentences about studies or people in general."""
    kept = [s for s in tx.sentences(answer) if not _GENERAL_RE.search(s)]
    return " ".join(kept) if len(kept) < len(tx.sentences(answer)) else answer


def _act(question: str, answer: str) -> tuple[bool, str]:
    """(whether the answer performs what the question asks, the kind of question); an answer
    that declines to advise performs nothing, whatever it then directs."""
    if tx.has_any(answer, DECLINE_CUES):
        return False, "답변 거절"
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


# A sentence saying the record holds nothing on something ("기록에는 … 내용이 없어서", "your
# record doesn't mention …").
_RECORD_SILENT_RE = re.compile(
    r"(?:기록|차트)(?:에는|에|상)?[^.?!]{0,40}?(?:내용|언급|정보|말씀)?(?:이|은|도)?\s?없|"
    r"\brecords?\b[^.?!]{0,40}?(?:doesn't|does not|don't|do not)\s(?:say|mention|cover|include)|"
    r"\bnothing in (?:your|the) record",
    re.I,
)


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
_LIST_KEYS = ("conditions", "allergies")
_MAP_KEYS = ("labs", "vitals")


def patient_lines(dialogue: list[str]) -> list[str]:
    """The patient's own turns: lines the suite writes as "A: …" are earlier *answers*, which
    are no ground truth (an earlier hallucination repeated is still one)."""
    return [line for line in dialogue if not line.lstrip().startswith(("A:", "A :"))]


# Record keys as charts write them in Korean or English, and the slot each one fills.
KEY_ALIASES = {
    "나이": "age", "연령": "age", "성별": "sex", "주진단": "primary_condition", "주 진단": "primary_condition",
    "진단": "conditions", "병력": "conditions", "기저질환": "conditions", "동반질환": "conditions",
    "복용 약": "medications", "복용약": "medications", "복용 중인 약": "medications", "투약": "medications",
    "처방": "medications", "current medications": "medications", "meds": "medications",
    "알레르기": "allergies", "알러지": "allergies", "allergy": "allergies",
    "검사": "labs", "검사 결과": "labs", "혈액검사": "labs", "활력징후": "vitals", "생체징후": "vitals",
}  # fmt: skip
_SEX = {"남": "M", "남성": "M", "여": "F", "여성": "F"}
# "없음", "none": an empty list, not an allergy called 없음
_NONE_VALUES = frozenset({"없음", "없다", "해당 없음", "none", "nkda", "n/a", "-"})


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


def record_from_lines(text: str) -> dict[str, Any] | None:
    """The patient record from its ``key: value`` lines (lists joined by "; ", measures as
    "name value, name value", medications as "name dose; …"), in English keys or Korean ones
    ("복용 약", "알레르기", "검사": ``KEY_ALIASES``, items split on "," as well); None when no
    line reads so."""
    record: dict[str, Any] = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        key = KEY_ALIASES.get(key, KEY_ALIASES.get(key.lower(), key))
        if not sep or not key or " " in key:
            continue
        if key in _LIST_KEYS:
            items = [re.sub(r"\s*\(.*?\)", "", v).strip() for v in _split_top(value)]
            record[key] = [v for v in items if v and v.lower() not in _NONE_VALUES]
        elif key == "sex":
            record[key] = _SEX.get(value, value)
        elif key in _MAP_KEYS:
            measures: dict[str, float] = {}
            for part in _split_top(value):
                name, _, number = part.strip().rpartition(" ")
                if name and _NUMBER_RE.match(number):
                    measures[name] = float(number)
                elif m := _MEASURE_RE.match(part):  # "요산 7.8 mg/dL": the value before its unit
                    measures[m.group(1)] = float(m.group(2).replace(",", ""))
            record[key] = measures
        elif key == "medications":
            meds = []
            for part in _split_top(value) if ";" not in value else value.split(";"):
                words = part.replace("—", " — ").split()
                # the name ends at the first dose figure or a dash ("아픽사반 — 첫 7일 10mg …")
                cut = next((i for i, w in enumerate(words) if any(ch.isdigit() for ch in w) or w in "—-–"), len(words))
                if words[:cut]:
                    meds.append({"name": " ".join(words[:cut]), "dose": " ".join(words[cut:])})
            record[key] = meds
        elif _NUMBER_RE.match(value):
            record[key] = float(value) if "." in value else int(value)
        else:
            record[key] = value
    return record or None
