"""Finding lexicon entries in text: drugs, drug classes, conditions, labs, vitals, sex words.

One regular expression over every name (longest first, so "고칼륨혈증" wins over "칼륨"
and "eGFR" over "GFR"); Latin names must stand as words, Korean names may carry particles.
A surface can name several entries ("당뇨" names both diabetes types; "신장 기능" is a word
for CKD and for eGFR), so each match carries every entry it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assay.metrics.quantities import normalize
from assay.suites.clinical.formulas.rules import ClinicalRules

Kind = Literal["drug", "drug_class", "condition", "condition_related", "lab", "lab_related", "vital", "bp",
               "bp_related", "sex", "age_related"]


@dataclass(frozen=True)
class Entry:
    kind: Kind
    key: str  # drug, class, condition, lab or vital key; "F"/"M" for sex


@dataclass(frozen=True)
class Mention:
    text: str
    start: int
    end: int
    entries: tuple[Entry, ...]

    def keys(self, *kinds: str) -> set[str]:
        return {e.key for e in self.entries if e.kind in kinds}

    def has(self, *kinds: str) -> bool:
        return any(e.kind in kinds for e in self.entries)


@dataclass(frozen=True)
class Index:
    pattern: re.Pattern[str]
    surfaces: dict[str, tuple[Entry, ...]]
    drug_classes: dict[str, frozenset[str]]  # drug -> its classes

    def find(self, text: str) -> list[Mention]:
        out = []
        for m in self.pattern.finditer(text):
            entries = self.surfaces.get(_fold(m.group(0)))
            if entries:
                out.append(Mention(m.group(0), m.start(), m.end(), entries))
        return out

    def drug_keys(self, mention: Mention) -> set[str]:
        """A drug mention names the drug and its classes; a class word names the class."""
        keys = mention.keys("drug_class")
        for drug in mention.keys("drug"):
            keys |= {drug, *self.drug_classes.get(drug, ())}
        return keys

    def resolve(self, name: str, *kinds: str) -> set[str]:
        """Keys of the given kinds a free-text record value names ("CKD stage 3" -> ckd)."""
        return {e.key for m in self.find(normalize(name)) for e in m.entries if e.kind in kinds}


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", normalize(text)).casefold()


def _surface_pattern(surface: str) -> str:
    body = r"\s*".join(re.escape(part) for part in surface.split())
    if surface[:1].isascii() and surface[:1].isalnum():
        body = r"(?<![A-Za-z0-9])" + body
    if surface[-1:].isascii() and surface[-1:].isalnum():
        body += r"(?![A-Za-z0-9])"
    return body


_INDEXES: dict[int, tuple[ClinicalRules, Index]] = {}


def build_index(rules: ClinicalRules) -> Index:
    """The index of a rule set, built once per rule set (rules are not hashable)."""
    cached = _INDEXES.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    index = _build(rules)
    _INDEXES[id(rules)] = (rules, index)
    return index


def _build(rules: ClinicalRules) -> Index:
    lex = rules.lexicon
    table: dict[str, list[Entry]] = {}

    def add(surfaces: list[str], entry: Entry) -> None:
        for surface in surfaces:
            bucket = table.setdefault(_fold(surface), [])
            if entry not in bucket:
                bucket.append(entry)

    for key, drug in lex.drugs.items():
        add(drug.names + drug.brands, Entry("drug", key))
    for key, words in lex.drug_classes.items():
        add(words, Entry("drug_class", key))
    for key, cond in lex.conditions.items():
        add(cond.names, Entry("condition", key))
        add(cond.related, Entry("condition_related", key))
    for key, lab in lex.labs.items():
        add(lab.names, Entry("lab", key))
        add(lab.related, Entry("lab_related", key))
    for key, vital in lex.vitals.items():
        add(vital.names, Entry("vital", key))
        add(vital.related, Entry("lab_related", key))
    add(lex.blood_pressure.names, Entry("bp", "bp"))
    add(lex.blood_pressure.related, Entry("bp_related", "bp"))
    for sex, words in lex.sex.items():
        add(words, Entry("sex", sex))
    add(lex.age_related, Entry("age_related", "age"))
    ordered = sorted(table, key=lambda s: (-len(s), s))
    pattern = re.compile("|".join(_surface_pattern(s) for s in ordered), re.IGNORECASE)
    classes = {key: frozenset(d.classes) for key, d in lex.drugs.items()}
    return Index(pattern, {s: tuple(e) for s, e in table.items()}, classes)
