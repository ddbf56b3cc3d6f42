"""Reading a medical answer against the patient record: the facts it mentions (SFS).

Rule checks (CSP) and slot use (CUS) build on this reading in ``checks``.

Each sentence is scanned for lexicon mentions (``lexicon``). A mention's reading
comes from the words around it, by the cue phrases of ``cues.yaml``:

- *asserted* about this patient ("현재 복용 중인 X", "X가 있으시니", "eGFR이 48이시므로"),
  checked against the record; a contradiction is a hallucination;
- an *example* or *general advice* ("예를 들어 X 같은 약", "일반적으로"), or *hypothetical*
  ("X를 복용 중이시라면"): mentioned, never a hallucination;
- a number next to a threshold word ("eGFR 60 미만", "목표 130/80") is not the patient's value.

A drug's *stance* is read from the words after it up to the next drug or a contrast ("지만"):
avoided ("피하세요", "대신", "드시면 안 됩니다") or recommended ("드셔도 됩니다", "복용하세요");
words that only join a list ("X나 Y는") take the stance of the next drug; English verbs before
a drug ("avoid ibuprofen", "take Advil") count too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from assay.metrics.memory import sentences
from assay.metrics.quantities import normalize
from assay.suites.clinical.formulas.lexicon import Index, Mention, build_index
from assay.suites.clinical.formulas.rules import ClinicalRules, Cues

Reading = Literal["asserted", "example", "advice", "hypothetical", "mention"]
WINDOW = 40  # characters after a lab or vital name in which its value may stand
_NUMBER = re.compile(r"(?<![\d.])(\d{1,4}(?:\.\d+)?)(?![\d])")
_BP = re.compile(r"(?<!\d)(\d{2,3})\s*/\s*(\d{2,3})(?!\d)")
_AGE = re.compile(r"(?<!\d)(\d{1,3})\s*(?:세(?![대트])|살)|(\d{1,3})[- ]year[- ]old|\baged? (\d{1,3})\b", re.IGNORECASE)
_DECADE = re.compile(r"(?<!\d)([1-9]0)\s*대(?=\s*(?:이시|시니|이신|이므로|이라|의|\s*(?:여성|남성|환자|어르신|분)))")
_STAGE = re.compile(r"^\s*(?:(\d)\s*기|stage\s*(\d))", re.IGNORECASE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DOSE = re.compile(r"(\d+(?:\.\d+)?)\s*(mg|밀리그램|g|mcg|units?|단위|IU)", re.IGNORECASE)
_STATUS_LEAD = r"^\W{0,2}(?:수치|농도|레벨|level|값|결과|기능)?\s*(?:이|가|은|는|도|is|are|was)?\s*(?:조금|약간|많이|아주|매우|꽤|좀|상당히|다소|여전히|아직|very|a bit|still)?\s*"


class Fact(BaseModel):
    """One fact the answer mentions, how it was read, and whether it contradicts the record."""

    kind: str = Field(description="medication, dose, condition, stage, lab_value, vital_value, status, age, sex")
    key: str
    text: str = Field(description="the words in the answer")
    sentence: str
    severity: Literal["critical", "normal", "minor"]
    reading: Reading
    stated: str | None = None
    truth: str | None = None
    hallucinated: bool = False
    reason: str = ""


# --------------------------------------------------------------------------- cue helpers


@dataclass(frozen=True)
class _Cues:
    raw: Cues

    def any(self, name: str, text: str) -> re.Match[str] | None:
        for pattern in self._compiled(name):
            found = pattern.search(text)
            if found:
                return found
        return None

    def _compiled(self, name: str) -> tuple[re.Pattern[str], ...]:
        """The cue list's patterns, compiled once per reader (a reader checks many sentences)."""
        cache = self.__dict__.setdefault("_patterns", {})
        if name not in cache:
            cache[name] = tuple(re.compile(p, re.IGNORECASE) for p in getattr(self.raw, name))
        return cache[name]

    def status(self, text: str) -> str | None:
        """The state a lab or vital is said to be in, right after its name; the earliest wins."""
        best: tuple[int, str] | None = None
        for state, patterns in (("high", self.raw.status.high), ("low", self.raw.status.low),
                                ("normal", self.raw.status.normal)):
            for pattern in patterns:
                found = re.match(_STATUS_LEAD + "(?:" + pattern + ")", text, re.IGNORECASE)
                if found and (best is None or found.end() < best[0]):
                    best = (found.end(), state)
        return best[1] if best else None


def _cut(text: str, cues: _Cues) -> str:
    found = cues.any("contrast", text)
    return text[: found.start()] if found else text


def sentence_reading(sentence: str, cues: _Cues) -> Reading | None:
    """"example" when the sentence offers examples or general knowledge, not facts about this patient."""
    return "example" if cues.any("example", sentence) else None


# --------------------------------------------------------------------------- record access


@dataclass(frozen=True)
class Record:
    """The patient record, resolved against the lexicon."""

    raw: Mapping[str, Any]
    drugs: dict[str, str]  # lexicon key (or folded name) -> record text
    drug_classes: set[str]
    doses: dict[str, str]
    conditions: dict[str, str]
    allergies: dict[str, str]

    def lab(self, key: str) -> float | None:
        return _number((self.raw.get("labs") or {}).get(key))

    def vital(self, key: str) -> float | None:
        vitals = self.raw.get("vitals") or {}
        if key not in vitals and key in ("bp_systolic", "bp_diastolic") and isinstance(vitals.get("bp"), str):
            pair = _BP.search(vitals["bp"])  # a record may hold blood pressure as "152/94"
            return float(pair.group(1 if key == "bp_systolic" else 2)) if pair else None
        return _number(vitals.get(key))

    def measure(self, kind: str, key: str) -> float | None:
        return self.lab(key) if kind == "lab" else self.vital(key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    found = _NUMBER.search(str(value))
    return float(found.group(1)) if found else None


def as_list(value: Any) -> list[Any]:
    """A record's list field; a single value (a string) is a list of one."""
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def med_name(med: Any) -> tuple[str, str]:
    if isinstance(med, Mapping):
        return str(med.get("name", "")), str(med.get("dose", "") or "")
    return str(med), ""


def read_record(slots: Mapping[str, Any], index: Index) -> Record:
    drugs, doses, classes = {}, {}, set()
    for med in as_list(slots.get("medications")):
        name, dose = med_name(med)
        keys = index.resolve(name, "drug") or {fold(name)}
        for key in keys:
            drugs[key] = name
            doses[key] = dose or name
            classes |= set(index.drug_classes.get(key, ())) | {key}
        classes |= index.resolve(name, "drug_class")
    conditions = {}
    for name in [slots.get("primary_condition"), *as_list(slots.get("conditions"))]:
        if name:
            for key in index.resolve(str(name), "condition") or {fold(str(name))}:
                conditions.setdefault(key, str(name))
    allergies = {}
    for name in as_list(slots.get("allergies")):
        for key in index.resolve(str(name), "drug", "drug_class") or {fold(str(name))}:
            allergies[key] = str(name)
    return Record(slots, drugs, classes, doses, conditions, allergies)


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", normalize(text)).casefold()


# --------------------------------------------------------------------------- flags


def patient_flags(rules: ClinicalRules, record: Record, index: Index) -> dict[str, str]:
    """Flag -> why it is raised (a flag is raised when any of its tests holds)."""
    out = {}
    for name, flag in rules.contraindications.flags.items():
        for test in flag.any:
            why = _test(test, record, index)
            if why:
                out[name] = why
                break
    return out


def _test(test: Any, record: Record, index: Index) -> str | None:
    if test.lab or test.vital:
        key = test.lab or test.vital
        value = record.lab(key) if test.lab else record.vital(key)
        if value is None:
            return None
        for op, bound in (("lt", test.lt), ("le", test.le), ("gt", test.gt), ("ge", test.ge)):
            if bound is not None and {"lt": value < bound, "le": value <= bound,
                                      "gt": value > bound, "ge": value >= bound}[op]:
                return f"{key} {value:g} {dict(lt='<', le='≤', gt='>', ge='≥')[op]} {bound:g}"
        return None
    if test.condition:
        return f"condition {record.conditions[test.condition]}" if test.condition in record.conditions else None
    if test.takes:
        return f"takes {test.takes}" if test.takes in record.drug_classes else None
    if test.allergy:
        hit = [v for k, v in record.allergies.items() if k == test.allergy or test.allergy in index.drug_classes.get(k, ())]
        return f"allergy {hit[0]}" if hit else None
    return None


def question_flags(rules: ClinicalRules, question: str) -> dict[str, str]:
    folded = normalize(question).casefold()
    out = {}
    for name, patterns in rules.contraindications.question_cues.items():
        hit = next((m for p in patterns if (m := re.search(p, folded, re.IGNORECASE))), None)
        if hit:
            out[name] = f"question says {hit.group(0)!r}"
    return out


# --------------------------------------------------------------------------- the reading


@dataclass
class Reader:
    rules: ClinicalRules
    index: Index
    cues: _Cues
    record: Record
    question: str

    def severity(self, kind: str) -> Any:
        return self.rules.scoring.fact_severity[kind]

    # -- drugs ------------------------------------------------------------------------------
    def stance(self, sentence: str, mentions: list[Mention], i: int) -> str | None:
        """'avoid', 'recommend' or None for the i-th mention (a drug or class)."""
        m = mentions[i]
        before = sentence[max(0, m.start - 30) : m.start]
        if self.cues.any("avoid_before", before):
            return "avoid"
        if self.cues.any("recommend_before", before):
            return "recommend"
        nxt = next((n for n in mentions[i + 1 :] if n.has("drug", "drug_class")), None)
        after = sentence[m.end : nxt.start if nxt else len(sentence)]
        window = _cut(after, self.cues)
        if self.cues.any("avoid", window):
            return "avoid"
        if self.cues.any("recommend", window):
            return "recommend"
        if nxt is not None and (self.cues.any("joiners", window) or not window.strip()):
            return self.stance(sentence, mentions, mentions.index(nxt))
        return None

    def drug_reading(self, sentence: str, m: Mention) -> Reading:
        before, after = sentence[: m.start], _cut(sentence[m.end :], self.cues)
        asserted = self.cues.any("asserted_before", before) or self.cues.any("asserted_after", after)
        if asserted and self.cues.any("hypothetical", after[:25]):
            return "hypothetical"
        said = self.cues.any("asserted_after", after)
        if said and self.cues.any("negated", after[said.end() :]):
            return "mention"  # "X는 복용하고 계시지 않으니": denied, not asserted
        if sentence_reading(sentence, self.cues) and not self.cues.any("asserted_before", before):
            return "example"
        return "asserted" if asserted else "advice"

    def drug_facts(self, sentence: str, m: Mention) -> list[Fact]:
        reading = self.drug_reading(sentence, m)
        drugs, classes = m.keys("drug"), m.keys("drug_class")
        fact = Fact(kind="medication", key="/".join(sorted(drugs or classes)), text=m.text, sentence=sentence,
                    severity=self.severity("medication"), reading=reading)
        if reading != "asserted":
            return [fact]
        # a generic name ("인슐린") is taken when the patient takes a drug of that class
        taken = (drugs & (set(self.record.drugs) | self.record.drug_classes)) if drugs else classes & self.record.drug_classes
        record_meds = ", ".join(self.record.drugs.values()) or "none"
        if not taken:
            return [fact.model_copy(update={"hallucinated": True, "truth": record_meds, "stated": m.text,
                                            "reason": f"stated as taken, but the record lists: {record_meds}"})]
        out = [fact.model_copy(update={"truth": record_meds, "stated": m.text})]
        dose = _DOSE.search(_cut(sentence[m.end : m.end + 30], self.cues))
        key = next(iter(sorted(taken)))
        truth_dose = _DOSE.search(self.record.doses.get(key, ""))
        if dose and truth_dose and key in self.record.drugs:
            same = abs(float(dose.group(1)) - float(truth_dose.group(1))) < 1e-9
            out.append(Fact(kind="dose", key=key, text=dose.group(0), sentence=sentence, severity=self.severity("dose"),
                            reading="asserted", stated=dose.group(0), truth=self.record.doses[key],
                            hallucinated=not same, reason="" if same else f"the record's dose is {self.record.doses[key]}"))
        return out

    # -- conditions ------------------------------------------------------------------------
    def condition_reading(self, sentence: str, m: Mention, mentions: list[Mention]) -> Reading:
        before, after = sentence[: m.start], _cut(sentence[m.end :], self.cues)
        nxt = next((n for n in mentions if n.start >= m.end and n.has("condition")), None)
        if nxt is not None and self.cues.any("joiners", sentence[m.end : nxt.start]):
            return self.condition_reading(sentence, nxt, mentions)  # "고혈압과 당뇨가 있으시니": one claim
        asserted = self.cues.any("condition_before", before) or self.cues.any("condition_after", after)
        if asserted and self.cues.any("hypothetical", after[:20]):
            return "hypothetical"
        if sentence_reading(sentence, self.cues) and not self.cues.any("condition_before", before):
            return "example"
        return "asserted" if asserted else "mention"

    def condition_facts(self, sentence: str, m: Mention, mentions: list[Mention]) -> list[Fact]:
        after = _cut(sentence[m.end :], self.cues)
        reading = self.condition_reading(sentence, m, mentions)
        keys = m.keys("condition")
        fact = Fact(kind="condition", key="/".join(sorted(keys)), text=m.text, sentence=sentence,
                    severity=self.severity("condition"), reading=reading)
        held = [k for k in keys if k in self.record.conditions or self._implied(k)]
        known = ", ".join(self.record.conditions.values()) or "none"
        if reading == "asserted" and not held:
            return [fact.model_copy(update={"hallucinated": True, "stated": m.text, "truth": known,
                                            "reason": f"stated as the patient's, but the record lists: {known}"})]
        out = [fact.model_copy(update={"stated": m.text, "truth": known})]
        stage = _STAGE.match(after) if reading in ("asserted", "mention") and held else None
        truth = self.record.conditions.get(held[0], "") if held else ""
        truth_stage = re.search(r"(?:stage\s*|)(\d)\s*(?:기|$)|stage\s*(\d)", truth, re.IGNORECASE)
        if stage and truth_stage:
            said = stage.group(1) or stage.group(2)
            real = truth_stage.group(1) or truth_stage.group(2)
            out.append(Fact(kind="stage", key=held[0], text=stage.group(0).strip(), sentence=sentence,
                            severity=self.severity("stage"), reading="asserted", stated=said, truth=truth,
                            hallucinated=said != real, reason="" if said == real else f"the record says {truth}"))
        return out

    def _implied(self, condition: str) -> bool:
        flag = self.rules.lexicon.conditions[condition].flag
        return bool(flag) and flag in patient_flags(self.rules, self.record, self.index)

    # -- labs and vitals -------------------------------------------------------------------
    def measure_facts(self, sentence: str, m: Mention, mentions: list[Mention]) -> list[Fact]:
        nxt = next((n.start for n in mentions if n.start >= m.end), len(sentence))
        window = _cut(sentence[m.end : min(nxt, m.end + WINDOW)], self.cues)
        if m.has("bp"):
            return self._bp_facts(sentence, m, window)
        kind = "lab" if m.has("lab") else "vital" if m.has("vital") else None
        if kind is None:  # a related word ("신장 기능") can state a status only
            return self._status_facts(sentence, m, window, [(e.kind, e.key) for e in m.entries if e.kind == "lab_related"])
        key = next(iter(m.keys(kind)))
        value = self._value(window)
        if value is None:
            return self._status_facts(sentence, m, window, [(kind, key)])
        stated, text = value
        return [self._value_fact(sentence, f"{kind}_value" if kind == "lab" else "vital_value", kind, key, stated, text)]

    def _value(self, window: str) -> tuple[float, str] | None:
        found = _NUMBER.search(window)
        if not found:
            return None
        lead = window[: found.start()]
        if re.search(r"[.!?]", lead) or len(lead) > 16:
            return None
        if self.cues.any("threshold_before", lead) or self.cues.any("threshold_after", window[found.end() :]):
            return None
        if re.match(r"\s*(?:~|-|–|에서)\s*\d", window[found.end() :]):
            return None  # a range ("3.5~5.0") is a reference, not the patient's value
        return float(found.group(1)), found.group(1)

    def _value_fact(self, sentence: str, kind: str, measure: str, key: str, stated: float, text: str) -> Fact:
        truth = self.record.lab(key) if measure == "lab" else self.record.vital(key)
        fact = Fact(kind=kind, key=key, text=text, sentence=sentence, severity=self.severity(kind), reading="asserted",
                    stated=text, truth=None if truth is None else f"{truth:g}")
        if _in_question(stated, self.question):
            return fact.model_copy(update={"reading": "mention", "reason": "the question states this value"})
        if truth is None:
            return fact.model_copy(update={"hallucinated": True, "reason": f"the record has no {key} value"})
        approx = bool(self.cues.any("approximate", sentence[max(0, sentence.find(text) - 8) : sentence.find(text) + len(text) + 6]))
        if not _same_value(stated, text, truth, approx):
            return fact.model_copy(update={"hallucinated": True, "reason": f"the record's {key} is {truth:g}"})
        return fact

    def _bp_facts(self, sentence: str, m: Mention, window: str) -> list[Fact]:
        pair = _BP.search(window)
        if pair and len(window[: pair.start()]) <= 16 and not self.cues.any("threshold_before", window[: pair.start()]) \
                and not self.cues.any("threshold_after", window[pair.end() :]):
            return [self._value_fact(sentence, "vital_value", "vital", "bp_systolic", float(pair.group(1)), pair.group(1)),
                    self._value_fact(sentence, "vital_value", "vital", "bp_diastolic", float(pair.group(2)), pair.group(2))]
        value = None if pair else self._value(window)
        if value is not None:
            return [self._value_fact(sentence, "vital_value", "vital", "bp_systolic", *value)]
        return self._status_facts(sentence, m, window, [("vital", "bp_systolic"), ("vital", "bp_diastolic")])

    def _status_facts(self, sentence: str, m: Mention, window: str, measures: list[tuple[str, str]]) -> list[Fact]:
        said = self.cues.status(window)
        if said is None or self.cues.any("hypothetical", window[:14]) or sentence_reading(sentence, self.cues):
            return []
        states = []
        for kind, key in measures:
            measure_kind = "lab" if kind in ("lab", "lab_related") and key in self.rules.lexicon.labs else "vital"
            value = self.record.measure(measure_kind, key)
            if value is not None:
                states.append((key, value, _state(value, self._range(measure_kind, key))))
        if not states:
            return []
        if said == "normal":
            wrong = all(s != "normal" for _, _, s in states)
        else:
            wrong = all(s != said for _, _, s in states)
        truth = ", ".join(f"{k} {v:g} ({s})" for k, v, s in states)
        return [Fact(kind="status", key=states[0][0], text=m.text, sentence=sentence, severity=self.severity("status"),
                     reading="asserted", stated=said, truth=truth, hallucinated=wrong,
                     reason=f"said {said}, the record has {truth}" if wrong else "")]

    def _range(self, kind: str, key: str) -> tuple[float | None, float | None]:
        table = self.rules.lexicon.labs if kind == "lab" else self.rules.lexicon.vitals
        return table[key].normal if key in table else (None, None)

    # -- demographics ----------------------------------------------------------------------
    def age_facts(self, sentence: str) -> list[Fact]:
        out = []
        age = _number(self.record.raw.get("age"))
        for found in _AGE.finditer(sentence):
            text = found.group(0)
            after = sentence[found.end() : found.end() + 10]
            if self.cues.any("threshold_after", after) or self.cues.any("hypothetical", after[:6]) \
                    or _in_question(float(next(g for g in found.groups() if g)), self.question):
                continue
            stated = float(next(g for g in found.groups() if g))
            wrong = age is not None and stated != age
            out.append(Fact(kind="age", key="age", text=text, sentence=sentence, severity=self.severity("age"),
                            reading="asserted", stated=f"{stated:g}", truth=None if age is None else f"{age:g}",
                            hallucinated=age is None or wrong,
                            reason="the record has no age" if age is None else f"the record's age is {age:g}" if wrong else ""))
        for found in _DECADE.finditer(sentence):
            decade = int(found.group(1))
            wrong = age is not None and not decade <= age < decade + 10
            out.append(Fact(kind="age", key="age", text=found.group(0), sentence=sentence, severity=self.severity("age"),
                            reading="asserted", stated=f"{decade}s", truth=None if age is None else f"{age:g}",
                            hallucinated=wrong, reason=f"the record's age is {age:g}" if wrong else ""))
        return out

    def sex_fact(self, sentence: str, m: Mention) -> list[Fact]:
        after = sentence[m.end : m.end + 8]
        if re.match(r"\s*(의\s*경우|이라면|이시라면|들|분들|에게|에서는|호르몬|은\s*일반|s\b)", after) \
                or sentence_reading(sentence, self.cues):
            return []
        said = next(iter(m.keys("sex")))
        truth = str(self.record.raw.get("sex") or "")
        wrong = bool(truth) and truth.upper()[:1] != said
        return [Fact(kind="sex", key="sex", text=m.text, sentence=sentence, severity=self.severity("sex"),
                     reading="asserted", stated=said, truth=truth or None, hallucinated=wrong,
                     reason=f"the record's sex is {truth}" if wrong else "")]


def _state(value: float, normal: tuple[float | None, float | None]) -> str:
    lo, hi = normal
    if hi is not None and value > hi:
        return "high"
    if lo is not None and value < lo:
        return "low"
    return "normal"


def _same_value(stated: float, text: str, truth: float, approx: bool) -> bool:
    """Equal after rounding the record to the stated precision ("8" for 8.1 is not, "약 8" is)."""
    if approx:
        return abs(stated - truth) <= max(0.1 * abs(truth), 0.5)
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(round(truth, decimals) - stated) < 1e-9 or abs(truth - stated) < 1e-9


def _in_question(value: float, question: str) -> bool:
    return any(abs(float(n) - value) < 1e-9 for n in _NUMBER.findall(normalize(question)))


# --------------------------------------------------------------------------- the three readings


def extract_facts(reader: Reader, answer: str) -> tuple[list[Fact], list[tuple[str, list[Mention]]]]:
    facts: list[Fact] = []
    parsed = []
    for sentence in sentences(answer):
        sentence = _THOUSANDS.sub("", sentence)  # "1,000mg" reads as one number
        mentions = reader.index.find(sentence)
        parsed.append((sentence, mentions))
        for m in mentions:
            if m.has("drug", "drug_class"):
                facts += reader.drug_facts(sentence, m)
            elif m.has("condition"):
                facts += reader.condition_facts(sentence, m, mentions)
            elif m.has("lab", "vital", "bp", "lab_related"):
                facts += reader.measure_facts(sentence, m, mentions)
            elif m.has("sex"):
                facts += reader.sex_fact(sentence, m)
        facts += reader.age_facts(sentence)
    return facts, parsed


def reader_for(rules: ClinicalRules, slots_truth: Mapping[str, Any], question: str) -> Reader:
    index = build_index(rules)
    return Reader(rules, index, _Cues(rules.cues), read_record(slots_truth, index), question or "")
