"""clinical_answer (scale 1-5): the offline jury's rules.

Faithfulness reads the answer against the patient record: the clinical lexicon's contradictions
and forbidden advice (``record_lines``), the record as written (``record_facts``,
``caution_rules``), the drug table (``drug_table``), and figures found in neither record,
dialogue nor question. Relevance asks whether the answer does what the question asks (``asks``)
and names its subject.
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, say, tagged
from assay.judges.offline.scoring import band, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import ClinicalInput
from assay.schemas import JsonObject
from assay.suites.clinical.offline import advice, asks, drug_table
from assay.suites.clinical.offline import caution_rules as cr
from assay.suites.clinical.offline import record_facts as rf
from assay.suites.clinical.offline.cues import CUES
from assay.suites.clinical.offline.names import names_in
from assay.suites.clinical.offline.record_lines import patient_lines, record_evidence

WHOLE_FLOAT_RE = re.compile(r"(?<![\d.])(\d+)\.0+(?![\d])")

# What the answer says against the record as written, each a critical contradiction:
# (answer, the answer's claims, question, patient) -> findings.
CONTRADICTIONS = (
    ("other value", lambda answer, claimed, question, patient: rf.value_conflicts(claimed, question, patient)),
    ("denied fact", lambda answer, claimed, question, patient: rf.denied_facts(answer, patient)),
    ("other time of taking", lambda answer, claimed, question, patient: rf.schedule_conflicts(answer, patient, question)),
    # a result the record writes negative (검출 안 됨, 음성) said positive, or the reverse
    ("reversed result", lambda answer, claimed, question, patient: rf.reversed_results(answer, patient)),
    # a value the record writes as fallen from its earlier one, said to have risen, or the reverse
    ("reversed trend", lambda answer, claimed, question, patient: rf.reversed_trends(answer, patient)),
    # "한 번에 두 알씩" against "1회 3정씩"
    ("other count per intake", lambda answer, claimed, question, patient: cr.per_dose_against_record(answer, patient)),
)
# Advice the record forbids, in the order the feedback lists it: (answer, patient, question) -> findings.
FORBIDDEN_ADVICE = (
    ("contraindicated drug named", lambda answer, patient, question: advice.contraindicated_advice(answer, patient)),
    ("stopped against the record", advice.stopped_against_record),
    ("leave for a forbidden act", advice.permitted_against_record),
    ("things kept apart taken together", lambda answer, patient, question: cr.together_against_spacing(answer, patient)),
    ("continued against a stop rule", cr.continued_against_stop_rule),
    ("beyond a recorded limit", lambda answer, patient, question: cr.beyond_recorded_limit(answer, patient)),
)


class ClinicalRules(RuleSet):
    """The clinical suite's rules, reading the judge's signals (``units``, ``conflicts``, ``coverage``…)."""

    def clinical_answer(self, item: ClinicalInput) -> JsonObject:
        tag = f"[{self.signal}]"
        answer = tx.normalize(item.answer)
        if not answer:
            return {"faithfulness": 1, "answer_relevance": 1, "unsupported_claims": [],
                    "reasoning": joined((tag, say("clinical.empty")), " ")}  # fmt: skip
        known = _as_answers_write("\n".join([item.patient, *item.dialogue]))
        ctx = self.prepare([item.question, answer, known])
        r = self.coverage(self.units(tx.strip_fillers(item.question), ctx), self.units(answer, ctx))
        r = 1.0 if r is None else r
        # (a sentence about studies or people in general says nothing of this patient)
        claimed = _without_general(_without_non_claims(answer))
        level, reasons = self.conflicts(claimed, known, item.question)
        unsupported = self.unsupported_figures(claimed, known, item.question)
        readable, severities, claims, violations, patient_facts = record_evidence(
            _without_general(answer), item.question, item.patient, "\n".join(patient_lines(item.dialogue))
        )
        against = record_contradictions(answer, claimed, item.question, item.patient)
        quiet = not against and "critical" not in severities
        violations = (*violations, *forbidden_advice(answer, item.patient, item.question, quiet and not violations))
        # a result of a test the record never names: an unsupported claim (normal severity)
        invented = rf.unrecorded_results(answer, item.patient, item.question)
        faithfulness = _faithfulness(severities, claims, against, violations, level, unsupported, invented)
        # the record's own items the answer names count as patient facts whatever the lexicon knows
        named = tuple(n for i in rf.record_items(item.patient) if not i.absent for n in i.names if names_in(n, answer))
        facts = tuple(dict.fromkeys([*patient_facts, *named]))
        relevance, notes = self._clinical_relevance(item.question, answer, r, facts, item.patient)
        notes += [say("clinical.unsupported_figures", count=len(unsupported))]
        if not readable:
            notes.append(say("clinical.record_unreadable"))
        for title, found in (("claims", claims), ("against", against), ("violations", violations),
                             ("invented", invented), ("figures", reasons)):  # fmt: skip
            if found:
                notes.append(say(f"clinical.found_{title}", found=joined(map(_quoted, found), "; ")))
        return {
            "faithfulness": faithfulness,
            "answer_relevance": relevance,
            "unsupported_claims": [*claims, *against, *violations, *invented, *reasons, *unsupported][:8],
            "reasoning": tagged(tag, notes),
        }

    def _clinical_relevance(
        self, question: str, answer: str, r: float, patient_facts: tuple[str, ...], patient: str = ""
    ) -> tuple[int, list[Msg]]:
        subject, mentioned = asks.subject_words(question, answer)
        s = len(mentioned) / len(subject) if subject else 0.0
        act, asked = asks.asked_act(question, answer)
        score = self._act_score(act, asked, answer, bool(mentioned or patient_facts), r, s)
        # an honest "the record says nothing of it", where the record indeed never names it, is 5
        silent_on = asks.record_silent_on(question, answer, patient) if asked == asks.DECLINED else ""
        if silent_on:
            score = 5
        elif not act and (asked == asks.DECLINED or (subject and not mentioned)):
            score = min(score, 2)  # declines, or neither does the asked act nor names its subject
        notes = [
            say("clinical.question_words", share=pct(max(r, s)),
                words=say("clinical.mentioned", words=", ".join(mentioned[:4])) if mentioned else ""),
            say("clinical.answers_asked" if act else "clinical.answers_not_asked", asked=say(f"clinical.asked_{asked}")),
        ]
        if silent_on:
            notes.append(say("clinical.record_silent", subject=silent_on))
        left = asks.unanswered_part(question, answer)
        if left and score > 3:  # two things asked, one left without a word
            score = 3
            notes.append(say("clinical.part_unanswered", part=left[:30]))
        if patient_facts and not mentioned:
            notes.append(say("clinical.patient_facts", facts=", ".join(patient_facts[:3])))
        return _cap_left_out(question, answer, patient, score, notes), notes


    def _act_score(self, act: bool, asked: str, answer: str, on_subject: bool, r: float, s: float) -> int:
        """5 when the answer does the asked act on its subject (or the patient's facts, or opens a
        permission answer with its yes or no); 4 when it covers .4 of the subject words; 3 when it
        does the act; otherwise the band of the question's words covered."""
        if act and (on_subject or (asked == "permission" and CUES.regex("yes_no_open").match(answer))):
            return 5
        if s >= 0.4:
            return 4
        return 3 if act else int(band(max(r, s), self.REL_CUTS, 1))


def _cap_left_out(question: str, answer: str, patient: str, score: int, notes: list[Msg]) -> int:
    """At most 3 when a drug of the kind asked about that the record cautions is left out."""
    left_out = asks.unmentioned_caution(question, answer, patient)
    if left_out and score > 3:
        score = 3
        notes.append(say("clinical.caution_left_out", drug=left_out))
    return score


def record_contradictions(answer: str, claimed: str, question: str, patient: str) -> list[Msg]:
    """Every ``CONTRADICTIONS`` finding, and an allergy denied without naming it unless a fact is
    already denied (the same denial is counted once)."""
    found = [f for _, rule in CONTRADICTIONS for f in rule(answer, claimed, question, patient)]
    return [*found, *([] if rf.denied_facts(answer, patient) else rf.denied_allergy(answer, patient))]


def forbidden_advice(answer: str, patient: str, question: str, nothing_else: bool) -> tuple[str | Msg, ...]:
    """Every ``FORBIDDEN_ADVICE`` finding; when nothing else was found, a yes on a subject a record
    sentence restricts; last, the drug table's (rule id and entry)."""
    found = [f for _, rule in FORBIDDEN_ADVICE for f in rule(answer, patient, question)]
    if nothing_else and not found:
        found += cr.leave_beside_caution(answer, patient, question)
    return (*found, *drug_table.table_violations(answer, patient, question))


def _faithfulness(
    severities: tuple[str, ...], claims: tuple[str | Msg, ...], against: list[Msg], violations: tuple[str | Msg, ...],
    level: int, unsupported: list[str], invented: list[Msg],
) -> int:
    """1: a critical contradiction and forbidden advice, or two contradictions; 2: either; 3: a
    normal one, contradicted figures, two unsupported figures or an unrecorded result; 4: a minor
    one or an unsupported figure; else 5."""
    critical = "critical" in severities or bool(against)
    # a figure the lexicon already found contradicted is one contradiction, not two
    seen = {n for c in claims for n in re.findall(r"\d+(?:\.\d+)?", _claim_words(c).split(" (")[0])}
    extra = [a for a in against if not (_said_figure(a) & seen)]
    # one recorded item said with another dose and frequency is one wrong regimen (a denied fact is its own)
    extra = list({_recorded_item(a): a for a in extra}.values())
    if (critical and violations) or ("critical" in severities) + len(extra) >= 2:
        return 1
    if critical or violations:
        return 2
    if "normal" in severities or level >= 1 or len(unsupported) >= 2 or invented:
        return 3
    return 4 if severities or unsupported else 5


def _claim_words(claim: str | Msg) -> str:
    """The answer's words of a contradicted fact (``record_lines._claim``)."""
    return str(dict(claim.values)["said"]) if isinstance(claim, Msg) else claim


def _quoted(finding: str | Msg) -> Msg:
    """A finding as the feedback lists it: text quoted from the answer or record between quotes."""
    return finding if isinstance(finding, Msg) else say("core.quoted", text=finding)


# The findings that name an item and then what the answer said of it, and those two values.
SAID_OF_ITEM = {"clinical.other_value": ("shown", "figure"), "clinical.other_times": ("name", "times")}


def _said_figure(finding: Msg) -> set[str]:
    """The figure a finding says the answer gave of a recorded item ({"48"}), else none."""
    if finding.key not in SAID_OF_ITEM:
        return set()
    item, said = (dict(finding.values)[name] for name in SAID_OF_ITEM[finding.key])
    figure = re.match(r"\d+(?:\.\d+)?", said) if "'" not in item else None
    return {figure.group(0)} if figure else set()


def _recorded_item(finding: Msg) -> object:
    """What a contradiction is about: the record's words it cites (the finding itself for a
    denied fact, or one citing none)."""
    values = dict(finding.values)
    if finding.key == rf.DENIED_FACT or "record" not in values:
        return finding
    return values.get("per_dose"), values["record"]


def _as_answers_write(known: str) -> str:
    """The record as an answer writes it: 48.0 as 48, 2025-12 also as 2025년 12월, 48 h as 48시간."""
    known = WHOLE_FLOAT_RE.sub(r"\1", known)
    known = _ISO_DATE_RE.sub(_korean_date, known)
    return _EN_DURATION_RE.sub(lambda m: m.group(1) + CUES.en_durations[m.group(2).lower().rstrip("s")], known)


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

    return CUES.regex("not_a_claim").sub(blank, answer)


def _without_general(answer: str) -> str:
    """The answer without its sentences about studies or people in general."""
    kept = [s for s in tx.sentences(answer) if not CUES.regex("general").search(s)]
    return " ".join(kept) if len(kept) < len(tx.sentences(answer)) else answer
