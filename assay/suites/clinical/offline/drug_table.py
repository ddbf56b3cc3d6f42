"""Textbook contraindications and interactions by drug class (``rules/drug_interactions.yaml``).

An entry is keyed by what the record holds — a condition, a drug taken (on a medication line or
with a dose), an allergy, a lab value past a limit — and names the classes to avoid. A segment
that cautions or forbids triggers nothing. An answer clause naming a member of an avoided class
with no warning, or a first sentence permitting the one the question names, is forbidden advice;
a drug the patient already takes, or one named as the thing replaced (대신, instead), is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, say
from assay.suites.clinical.offline.advice import warned
from assay.suites.clinical.offline.cues import CUES
from assay.suites.clinical.offline.record_facts import CLAUSE_RE, label_values

TABLE_PATH = Path(__file__).resolve().parents[1] / "rules" / "drug_interactions.yaml"


@dataclass(frozen=True)
class DrugClass:
    id: str
    label: str
    names: tuple[str, ...]
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str  # condition | takes | allergy | lab
    key: str  # condition id or class id; for lab the joined names
    lab_names: tuple[str, ...]
    lab_op: str  # lt | gt
    lab_value: float
    avoid: tuple[str, ...]
    source: str
    note: str


@dataclass(frozen=True)
class Table:
    classes: dict[str, DrugClass]
    conditions: dict[str, re.Pattern[str]]
    entries: tuple[Entry, ...]


def _pattern(names: list[str]) -> re.Pattern[str]:
    """Latin names on word boundaries, case-insensitively; Hangul names anywhere; longest first.
    A name written ``re:<pattern>`` is a regular expression (a form with a figure in it: "임신
    22주", "24 weeks pregnant")."""
    parts = []
    for name in sorted(set(names), key=len, reverse=True):
        if name.startswith("re:"):
            parts.append(f"(?:{name[3:]})")
            continue
        escaped = re.escape(name).replace(r"\ ", r"\s?")
        parts.append(rf"(?<![A-Za-z0-9]){escaped}(?![A-Za-z])" if name[:1].isascii() else escaped)
    return re.compile("|".join(parts), re.I)


@lru_cache(maxsize=4)
def load_table(path: Path = TABLE_PATH) -> Table:
    """The table, checked: every class an entry names exists, every condition too."""
    from assay.yaml_files import read_yaml_mapping

    data = read_yaml_mapping(path, "drug interaction table", ValueError)
    classes: dict[str, DrugClass] = {}
    for cid, spec in (data.get("classes") or {}).items():
        names = tuple(map(str, spec["names"]))
        classes[cid] = DrugClass(cid, str(spec.get("label", cid)), names, _pattern(list(names)))
    conditions = {
        cid: _pattern(list(map(str, words))) for cid, words in (data.get("conditions") or {}).items()
    }
    entries = []
    for raw in data.get("entries") or []:
        when = raw["if"]
        kind = next(k for k in ("condition", "takes", "allergy", "lab") if k in when)
        lab_names: tuple[str, ...] = tuple(when["lab"]) if kind == "lab" else ()
        op = "lt" if "lt" in when else "gt"
        entry = Entry(
            id=str(raw["id"]), kind=kind, key="" if kind == "lab" else str(when[kind]), lab_names=lab_names,
            lab_op=op, lab_value=float(when.get(op, 0)), avoid=tuple(raw["avoid"]),
            source=str(raw.get("source", "")), note=str(raw.get("note", "")),
        )  # fmt: skip
        named = (*entry.avoid, *([entry.key] if kind in ("takes", "allergy") else ()))
        unknown = [c for c in named if c not in classes]
        if kind == "condition" and entry.key not in conditions:
            unknown.append(entry.key)
        if unknown:
            raise ValueError(f"drug interaction table {path}: entry {entry.id} names unknown {unknown}")
        entries.append(entry)
    return Table(classes, conditions, tuple(entries))


# A segment that cautions or forbids names what to avoid, not what the patient has or takes.
_CAUTION_CUES = (*CUES.contraindication, *CUES.table_caution)
_SEGMENT_RE = re.compile(r"(?<!\d)\.\s+|;|\n|(?<!\d),\s+(?=[^\d])")


def _segments(patient: str) -> list[tuple[str, str]]:
    """(label, segment) for each sentence or ``;``/``,`` part of each record line or field."""
    out = []
    for label, value in label_values(patient, every_line=True):
        for part in _SEGMENT_RE.split(value):
            if part.strip():
                out.append((label.strip(), part.strip()))
    return out


def _cautions(label: str, segment: str) -> bool:
    return (
        label.lower() in CUES.table_caution_labels
        or tx.has_any(segment.lower(), _CAUTION_CUES)
        or bool(CUES.regex("english_no").search(segment))
    )


@lru_cache(maxsize=512)
def record_cautions(patient: str) -> dict[str, tuple[str, ...]]:
    """Class id → the member names the record's caution segments (주의:, 금지, 피할 것, 병용…)
    name: what the record itself warns about."""
    table = load_table()
    out: dict[str, list[str]] = {}
    for label, segment in _segments(patient):
        if not _cautions(label, segment):
            continue
        for cid, cls in table.classes.items():
            for m in cls.pattern.finditer(segment):
                out.setdefault(cid, []).append(m.group(0))
    return {cid: tuple(dict.fromkeys(names)) for cid, names in out.items()}


@dataclass(frozen=True)
class RecordTriggers:
    triggered: tuple[tuple[Entry, str | Msg], ...]  # entry, the record's words that trigger it
    taken: frozenset[str]  # lower-cased names of the drugs the patient takes


@lru_cache(maxsize=512)
def record_triggers(patient: str) -> RecordTriggers:
    """The table's entries this record triggers, with the words that trigger each."""
    table = load_table()
    held = _record_holds(patient, table)
    triggered: list[tuple[Entry, str | Msg]] = []
    for entry in table.entries:
        if entry.kind == "lab":
            why = _lab_past_limit(entry, patient)
        else:
            why = held[entry.kind].get(entry.key, "")
            why = say("clinical.allergy_to", what=why) if why and entry.kind == "allergy" else why
        if why:
            triggered.append((entry, why))
    return RecordTriggers(tuple(triggered), frozenset(held["taken"]))


def _record_holds(patient: str, table: Table) -> dict[str, dict[str, str]]:
    """condition / takes / allergy: id -> the record's word for it, and "taken": the drug names
    the patient takes. Caution segments and items written absent hold nothing."""
    held: dict[str, dict[str, str]] = {"condition": {}, "takes": {}, "allergy": {}, "taken": {}}
    for label, segment in _segments(patient):
        low_label = label.lower()
        allergy = tx.has_any(low_label, CUES.allergy_labels) or tx.has_any(segment.lower(), (*CUES.allergy_labels, "과민반응"))
        if tx.has_any(segment, CUES.absent) and not re.search(r"\d", segment):
            continue
        if allergy:
            for cid, cls in table.classes.items():
                if m := cls.pattern.search(segment):
                    held["allergy"].setdefault(cid, m.group(0))
        elif not _cautions(label, segment):
            _takes_and_conditions(segment, low_label in CUES.medication_labels, table, held)
    return held


def _takes_and_conditions(segment: str, medication_line: bool, table: Table, held: dict[str, dict[str, str]]) -> None:
    """A drug taken: named on a medication line or followed by a dose; a condition: its word
    outside a medication line."""
    for cid, cls in table.classes.items():
        for m in cls.pattern.finditer(segment):
            if medication_line or CUES.regex("dose").search(segment[m.end() : m.end() + 40]):
                held["takes"].setdefault(cid, m.group(0))
                held["taken"][m.group(0).lower()] = ""
    if not medication_line:
        for cid, pattern in table.conditions.items():
            if m := pattern.search(segment):
                held["condition"].setdefault(cid, m.group(0))


def _lab_past_limit(entry: Entry, patient: str) -> str:
    """The record's "<name> <value>" past the entry's limit ("eGFR 24" for eGFR < 30), or ""."""
    names = "|".join(re.escape(n) for n in entry.lab_names)
    for m in re.finditer(rf"(?i)(?<![A-Za-z])(?:{names})\s*[:=]?\s*(\d+(?:\.\d+)?)", patient):
        value = float(m.group(1))
        if (value < entry.lab_value) if entry.lab_op == "lt" else (value > entry.lab_value):
            return m.group(0)
    return ""


def _table_warned(clause: str) -> bool:
    bare = CUES.regex("table_dismiss").sub(" ", clause)
    if warned(bare) or CUES.regex("english_no_x").search(CUES.regex("reassurance").sub(" ", bare)):
        return True
    stripped = CUES.regex("no_matter").sub(" ", bare)
    return tx.has_any(stripped.lower(), CUES.table_warnings)


def _hits(cls: DrugClass, text: str, taken: frozenset[str]) -> list[str]:
    """Names of the class in the text, not a drug the patient takes, not the thing replaced."""
    return [
        m.group(0) for m in cls.pattern.finditer(text)
        if m.group(0).lower() not in taken and not CUES.regex("instead").match(text[m.end() :])
    ]  # fmt: skip


def _listed(clauses: list[str], cls: DrugClass) -> list[str]:
    """Clauses, each one that ends in a name of the class joined to the next: a list ("나프록센,
    이부프로펜 같은 소염진통제는 쓰시면 안 됩니다") is warned by the clause that closes it."""
    out: list[Msg] = []
    carry = ""
    for clause in clauses:
        clause = f"{carry} {clause}" if carry else clause
        if cls.pattern.search(clause) and re.search(rf"(?:{cls.pattern.pattern})\s*$", clause.strip(), re.I):
            carry = clause
            continue
        carry = ""
        out.append(clause)
    return [*out, carry] if carry else out


@lru_cache(maxsize=1024)
def table_violations(answer: str, patient: str, question: str = "") -> tuple[Msg, ...]:
    """Forbidden advice by the table: a drug of a class the record contraindicates, named in an
    answer clause with no warning, or permitted when the question names it."""
    triggers = record_triggers(patient)
    if not triggers.triggered:
        return ()
    table = load_table()
    # a clause recounting the past ("아스피린을 드시고 숨이 찼던 적이 있어서") advises nothing
    clauses = [c for c in CLAUSE_RE.split(answer) if c.strip() and not CUES.regex("history").search(c)]
    first = (tx.sentences(answer) or [answer])[0]
    out: list[Msg] = []
    seen: set[Msg] = set()  # one finding per name, under the first entry that forbids it
    for entry, why in triggers.triggered:
        for cid in entry.avoid:
            cls = table.classes[cid]
            found = _advised(cls, clauses, first, question, triggers.taken)
            if found and found not in seen:
                seen.add(found)
                out.append(say(
                    "clinical.drug_table", entry=entry.id, found=found, drug_class=cls.label, source=entry.source,
                    note=entry.note, record=why,
                ))  # fmt: skip
                break
    return tuple(dict.fromkeys(out))


def _advised(cls: DrugClass, clauses: list[str], first: str, question: str, taken: frozenset[str]) -> Msg | None:
    """A member of the class named in a clause with no warning; or, the answer naming none, the
    one the question names permitted by the first sentence; None otherwise."""
    named = False
    for clause in _listed(clauses, cls):
        hits = _hits(cls, clause, taken)
        named = named or bool(hits)
        if hits and not _table_warned(clause):
            return say("clinical.drug_advised", name=hits[0])
    asked = _hits(cls, question, taken) if not named and question else []
    if asked and CUES.regex("table_permit").search(first) and not _table_warned(first):
        return say("clinical.drug_permitted", name=asked[0])
    return None
