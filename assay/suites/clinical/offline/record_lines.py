"""The patient record read as ``key: value`` lines into the slots the clinical lexicon reads, and
the lexicon's evidence on an answer (``assay.suites.clinical.formulas.scores.evaluate_answer``)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from assay.judges.offline import text as tx
from assay.judges.offline.messages import InEach, Joined, Msg, catalogue, joined, say
from assay.suites.clinical.offline.cues import CUES

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.checks import RuleCheck
    from assay.suites.clinical.formulas.extract import Fact


@lru_cache(maxsize=1024)
def record_evidence(
    answer: str, question: str, patient: str, dialogue: str = ""
) -> tuple[bool, tuple[str, ...], tuple[str | Msg, ...], tuple[Msg, ...], tuple[str, ...]]:
    """(whether the record could be read, severities of contradicted facts, their descriptions
    as messages (``_claim``), forbidden advice, every patient fact the answer mentions) for one
    answer; a contradicted fact the patient states in the question or an earlier turn ("X를 먹기
    시작했어요") is the patient's word, not a contradiction. Cached: the three offline judges read
    the same evidence, so a jury computes it once per answer."""
    from assay.suites.clinical.formulas.scores import evaluate_answer

    record = record_from_lines(patient)
    if record is None:
        return False, (), (), (), ()
    try:
        evaluation = evaluate_answer(answer, question, record, [])
    except ValueError:  # a value the lexicon cannot read: judged by figures, as the feedback says
        return False, (), (), (), ()
    # What the patient stated in this conversation is ground truth too ("어제부터 X를 먹어요");
    # a drug the patient only asks about ("X를 먹으면 될까요?") is not a statement.
    stated = [s for s in tx.sentences(f"{question}\n{dialogue}") if tx.has_any(s, CUES.statement)]
    # a value the lexicon files under a slot the record lacks, but that the record writes
    # ("공복혈당 98" under another label), is the record's own figure, not an invention
    facts = [
        f for f in evaluation.hallucinations
        if not any(f.text in s for s in stated) and not (f.reason.startswith("the record has no") and _written(f.text, patient))
    ]  # fmt: skip
    claims = [_claim(f) for f in facts]
    violations = [_violation(v) for v in evaluation.violations]
    mentioned = list(dict.fromkeys(f.text for f in evaluation.facts))
    return True, tuple(f.severity for f in facts), tuple(claims), tuple(violations), tuple(mentioned)


def _claim(fact: Fact) -> str | Msg:
    """A contradicted fact as the feedback lists it, in the run's language: the answer's words
    and what the record holds (its value as the record writes it), or that it holds none."""
    if not fact.reason:
        return fact.text
    if fact.truth is None:
        return say("clinical.no_record_value", said=fact.text, name=_slot_name(fact.kind, fact.key))
    return say("clinical.record_has", said=fact.text, record=_record_value(fact))


def _record_value(fact: Fact) -> str | Msg | Joined:
    """The record's value of a contradicted fact in the run's language where the lexicon's reader
    writes it in English: an empty list ("none"), a sex ("F"), a measure's state ("uric_acid 7.8
    (high)"); any other value as the record writes it."""
    truth = fact.truth or ""
    if fact.kind in ("medication", "condition") and truth == "none":
        return say("clinical.record_none")
    if fact.kind == "sex" and truth.lower() in _SEX:
        return say(f"clinical.sex_{_SEX[truth.lower()]}")
    states = [_STATE.fullmatch(part) for part in truth.split(", ")]
    if fact.kind == "status" and all(states):
        return joined(
            (say("clinical.measure_state", name=_slot_name("status", m[1]), value=m[2], state=say(f"clinical.state_{m[3]}"))
             for m in states if m), ", ",
        )  # fmt: skip
    return truth


# a sex as the record reader keeps it (CUES.sex_values), and a measure's state as
# ``extract.Reader._status_facts`` writes it ("uric_acid 7.8 (high)")
_SEX = {"m": "m", "male": "m", "f": "f", "female": "f"}
_STATE = re.compile(r"(\w+) (\S+) \((low|normal|high)\)")


def _violation(check: RuleCheck) -> Msg:
    """A violated contraindication rule by its name in each catalogue (``contraindication.<id>``;
    its id when the catalogues have none) and the answer's sentences that violate it, or, when it is violated by what the answer never
    says (``omits``), that."""
    key = f"contraindication.{check.id}"
    # a rule added to the data without a name in the catalogues is named by its id
    rule = say(key) if key in catalogue("en") else check.id
    if check.matches:
        return say("clinical.contraindication", rule=rule, found=", ".join(check.matches))
    return say("clinical.contraindication_omits", rule=rule)


def _slot_name(kind: str, key: str) -> InEach | Msg:
    """A lab or vital sign by its names in the clinical lexicon (요산 / uric acid), not its key."""
    from assay.suites.clinical.formulas.rules import load_rules

    if kind == "age":
        return say("clinical.slot_age")
    lexicon = load_rules().lexicon
    measure = lexicon.labs.get(key) or lexicon.vitals.get(key)
    names = measure.names if measure else [key]
    korean = next((n for n in names if _HANGUL.search(n)), names[0])
    other = next((n for n in names if not _HANGUL.search(n)), key.replace("_", " "))
    return InEach((("ko", korean), ("en", other)))


_HANGUL = re.compile(r"[가-힣]")


def _written(figure: str, record: str) -> bool:
    """Whether the record writes this figure (as a whole number, not inside another)."""
    return any(
        re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", record) for n in re.findall(r"\d+(?:\.\d+)?", figure)
    )


_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d+)?$")
_MEASURE_RE = re.compile(r"^([^\d]+?)\s+(-?\d[\d,]*(?:\.\d+)?)\b")


def patient_lines(dialogue: list[str]) -> list[str]:
    """The patient's own turns: lines the suite writes as "A: …" are earlier *answers*, which
    are no ground truth (an earlier hallucination repeated is still one)."""
    return [line for line in dialogue if not line.lstrip().startswith(("A:", "A :"))]


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
    return [v for v in items if v and v.lower() not in CUES.none_values]


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
        cut = next(
            (i for i, w in enumerate(words) if any(ch.isdigit() for ch in w) or w in "—-–"), len(words)
        )
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
    (``CUES.key_aliases``); None when no line reads so."""
    record: dict[str, Any] = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        key = CUES.key_aliases.get(key, CUES.key_aliases.get(key.lower(), key))
        if sep and key and " " not in key:
            record[key] = _SLOT_READERS.get(key, _scalar)(value)
    return record or None
