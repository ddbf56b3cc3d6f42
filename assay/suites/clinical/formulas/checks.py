"""Rule checks (CSP) and slot use (CUS) of an answer, on the reading of ``extract``.

A rule applies when its patient flags and question cues hold; it is violated by a recommended
drug of a listed class, a listed phrase stated without negation, or a required phrase never
stated. A required slot is used explicitly (its value or own name), indirectly (a related word,
its class, a correct status) or not at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from assay.metrics.quantities import normalize
from assay.suites.clinical.formulas.extract import (
    Fact,
    Reader,
    as_list,
    fold,
    med_name,
    patient_flags,
    question_flags,
)
from assay.suites.clinical.formulas.lexicon import Mention
from assay.suites.clinical.formulas.rules import Rule

Usage = Literal["explicit", "indirect", "absent"]


class RuleCheck(BaseModel):
    id: str
    weight: float
    applicable: bool
    violated: bool
    flags: list[str] = Field(default_factory=list, description="the flags that made the rule apply")
    matches: list[str] = Field(default_factory=list, description="the answer's text that violates it")
    reason: str = ""


class SlotUse(BaseModel):
    slot: str
    weight: float
    usage: Usage
    score: float
    evidence: str = ""


def check_rules(reader: Reader, answer: str, parsed: list[tuple[str, list[Mention]]]) -> list[RuleCheck]:
    flags = {**patient_flags(reader.rules, reader.record, reader.index), **question_flags(reader.rules, reader.question)}
    recommended: list[tuple[set[str], str]] = []
    for sentence, mentions in parsed:
        drugs = [m for m in mentions if m.has("drug", "drug_class")]
        for i, m in enumerate(drugs):
            if reader.stance(sentence, drugs, i) == "recommend":
                recommended.append((reader.index.drug_keys(m), sentence))
    return [_check(rule, flags, recommended, parsed, reader) for rule in reader.rules.contraindications.rules]


def _check(rule: Rule, flags: Mapping[str, str], recommended: list[tuple[set[str], str]],
           parsed: list[tuple[str, list[Mention]]], reader: Reader) -> RuleCheck:
    when = rule.when
    applicable = all(f in flags for f in when.all) and (not when.any or any(f in flags for f in when.any))
    why = [f"{f}: {flags[f]}" for f in [*when.all, *when.any] if f in flags]
    base = RuleCheck(id=rule.id, weight=rule.weight, applicable=applicable, violated=False, flags=why)
    if not applicable:
        return base
    matches, reasons = [], []
    wanted = set(rule.violation_if.recommends)
    for keys, sentence in recommended:
        if rule.violation_if.new_only and keys & (set(reader.record.drugs) | set(reader.record.drugs.values())):
            continue  # continuing a drug the patient takes is not adding one
        if keys & wanted:
            matches.append(sentence)
            reasons.append("recommends " + ", ".join(sorted(keys & wanted)))
    for pattern in rule.violation_if.says:
        for sentence, _ in parsed:
            found = re.search(pattern, sentence, re.IGNORECASE)
            if found and not reader.cues.any("avoid", sentence[found.end() : found.end() + 20]):
                matches.append(sentence)
                reasons.append(f"says {found.group(0)!r}")
    if rule.violation_if.omits:
        text = normalize(answer_text(parsed)).casefold()
        if not any(re.search(p, text, re.IGNORECASE) for p in rule.violation_if.omits):
            reasons.append("never says: " + " / ".join(rule.violation_if.omits[:4]))
    violated = bool(reasons)
    return base.model_copy(update={"violated": violated, "matches": list(dict.fromkeys(matches)),
                                   "reason": "; ".join(dict.fromkeys(reasons))})


def answer_text(parsed: Iterable[tuple[str, list[Mention]]]) -> str:
    return " ".join(sentence for sentence, _ in parsed)


def slot_uses(reader: Reader, facts: list[Fact], parsed: list[tuple[str, list[Mention]]],
              required: Iterable[str]) -> list[SlotUse]:
    scoring = reader.rules.scoring
    out = []
    for slot in required:
        usage, evidence = _slot_usage(reader, slot, facts, parsed)
        top = slot.split(".")[0]
        weight = scoring.slot_weights.get(slot, scoring.slot_weights.get(top, scoring.slot_weights.get("default", 1.0)))
        out.append(SlotUse(slot=slot, weight=weight, usage=usage, score=scoring.usage_scores[usage], evidence=evidence))
    return out


ALIASES = {"medication": "medications", "condition": "conditions", "allergy": "allergies", "lab": "labs",
           "vital": "vitals", "bp": "vitals.bp", "blood_pressure": "vitals.bp"}


def canonical_slot(slot: str, raw: Mapping[str, Any]) -> str:
    """A slot as the record holds it: "egfr" is "labs.egfr", "bp" is "vitals.bp", "medication" is
    "medications"; a name the record does not hold is an error that names it."""
    slot = ALIASES.get(slot, slot)
    if "." not in slot and slot not in raw:
        for top in ("labs", "vitals"):
            if isinstance(raw.get(top), Mapping) and slot in raw[top]:
                return f"{top}.{slot}"
    top, _, sub = slot.partition(".")
    vitals = raw.get("vitals") if isinstance(raw.get("vitals"), Mapping) else {}
    has_bp = {"bp_systolic", "bp_diastolic"} & set(vitals) or "bp" in vitals
    if top not in raw or (sub and not (sub == "bp" and has_bp) and sub not in (raw.get(top) or {})):
        raise ValueError(f"required slot {slot!r} is not in the patient record (keys: {', '.join(sorted(raw))})")
    return slot


def _slot_usage(reader: Reader, slot: str, facts: list[Fact], parsed: list[tuple[str, list[Mention]]]) -> tuple[Usage, str]:
    raw = reader.record.raw
    top, _, sub = canonical_slot(slot, raw).partition(".")
    mentions = [m for _, ms in parsed for m in ms]
    text = normalize(answer_text(parsed)).casefold()
    good = [f for f in facts if not f.hallucinated]
    if top == "age":
        if any(f.kind == "age" and f.reading == "asserted" and f.stated == f"{float(raw['age']):g}" for f in good):
            return "explicit", f"states the age {raw['age']}"
        hit = next((f.text for f in good if f.kind == "age"), None) or next((m.text for m in mentions if m.has("age_related")), None)
        return ("indirect", f"refers to age: {hit}") if hit else ("absent", "")
    if top == "sex":
        hit = next((f.text for f in good if f.kind == "sex"), None)
        return ("explicit", f"names the patient as {hit}") if hit else ("absent", "")
    if top in ("primary_condition", "conditions"):
        names = [raw[top]] if top == "primary_condition" else as_list(raw.get(top))
        return _best(_condition_usage(reader, str(n), mentions, text) for n in names)
    if top == "medications":
        return _best(_medication_usage(reader, med, mentions, text) for med in as_list(raw.get(top)))
    if top == "allergies":
        return _best(_allergy_usage(reader, str(a), parsed) for a in as_list(raw.get(top)))
    if top in ("labs", "vitals"):
        keys = [sub] if sub else list(raw.get(top) or {})
        if sub == "bp":
            keys = ["bp_systolic", "bp_diastolic"]
        return _best(_measure_usage(k, facts, mentions) for k in keys)
    value = str(raw[top]).casefold()
    return ("explicit", f"states {raw[top]}") if value and value in text else ("absent", "")


def _best(uses: Iterable[tuple[Usage, str]]) -> tuple[Usage, str]:
    order = {"explicit": 2, "indirect": 1, "absent": 0}
    return max(uses, key=lambda u: order[u[0]], default=("absent", ""))


def _condition_usage(reader: Reader, name: str, mentions: list[Mention], text: str) -> tuple[Usage, str]:
    keys = reader.index.resolve(name, "condition")
    if not keys:
        return ("explicit", f"names {name}") if name.casefold() in text else ("absent", "")
    for m in mentions:
        named = m.keys("condition")
        if named & keys and len(named) == 1:
            return "explicit", f"names {m.text}"
    for m in mentions:
        if (m.keys("condition") | m.keys("condition_related")) & keys:
            return "indirect", f"refers to it: {m.text}"
    return "absent", ""


def _medication_usage(reader: Reader, med: Any, mentions: list[Mention], text: str) -> tuple[Usage, str]:
    name, _ = med_name(med)
    keys = reader.index.resolve(name, "drug")
    if not keys:
        return ("explicit", f"names {name}") if fold(name) in text else ("absent", "")
    classes = {c for k in keys for c in reader.index.drug_classes.get(k, ())}
    # a drug's first class is its own (statin, insulin); a broad one (antidiabetic) is shared by too many
    own = {reader.rules.lexicon.drugs[k].classes[0] for k in keys if reader.rules.lexicon.drugs[k].classes}
    for m in mentions:
        if m.keys("drug") & keys:
            return "explicit", f"names {m.text}"
    for m in mentions:
        if m.keys("drug_class") & classes or reader.index.drug_keys(m) - m.keys("drug_class") & own:
            return "indirect", f"names its class or a drug of it: {m.text}"
    return "absent", ""


_ALLERGY = re.compile(r"알레르기|알러지|allerg|과민", re.IGNORECASE)


def _allergy_usage(reader: Reader, name: str, parsed: list[tuple[str, list[Mention]]]) -> tuple[Usage, str]:
    """Explicit: the allergen named beside an allergy word; indirect: an allergy word alone.
    Naming the allergen without the allergy (recommending it) is not using the slot."""
    keys = reader.index.resolve(name, "drug", "drug_class")
    for sentence, mentions in parsed:
        if not _ALLERGY.search(sentence):
            continue
        if name.casefold() in sentence.casefold() or any(reader.index.drug_keys(m) & keys for m in mentions):
            return "explicit", f"names the allergy: {sentence[:80]}"
    if any(_ALLERGY.search(sentence) for sentence, _ in parsed):
        return "indirect", "mentions an allergy"
    return "absent", ""


def _measure_usage(key: str, facts: list[Fact], mentions: list[Mention]) -> tuple[Usage, str]:
    for f in facts:
        if f.key == key and f.kind in ("lab_value", "vital_value") and not f.hallucinated and f.reading == "asserted":
            return "explicit", f"states {key} {f.stated}"
    for f in facts:
        if f.key == key and f.kind == "status" and not f.hallucinated:
            return "indirect", f"says {key} is {f.stated}"
    for m in mentions:
        named = m.keys("lab", "vital", "lab_related")
        if key in named or (key.startswith("bp_") and m.has("bp", "bp_related")):
            return "indirect", f"refers to it: {m.text}"
    return "absent", ""
