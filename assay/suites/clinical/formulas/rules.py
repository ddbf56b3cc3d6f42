"""The clinical suite's rules as typed data: lexicon, cue phrases, contraindications, weights.

The files live beside the suite's code (``assay/suites/clinical/rules/*.yaml``, package data);
they are read on first use, never at import. ``load_rules(folder)`` reads another folder with
the same four files, so a team can ship its own lexicon without touching code.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.yaml_files import read_yaml_mapping

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"  # the suite's own rules/
RULE_FILES = ("lexicon.yaml", "cues.yaml", "contraindications.yaml", "scoring.yaml")
Severity = Literal["critical", "normal", "minor"]


class RulesError(ValueError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Drug(_Strict):
    names: list[str] = Field(min_length=1)
    brands: list[str] = Field(default_factory=list)
    classes: list[str] = Field(default_factory=list)


class Condition(_Strict):
    names: list[str] = Field(min_length=1)
    related: list[str] = Field(default_factory=list)
    flag: str | None = None


class Measure(_Strict):
    """A lab or vital sign: its names, unit and normal range (a bound may be open)."""

    names: list[str] = Field(min_length=1)
    unit: str = ""
    normal: tuple[float | None, float | None] = (None, None)
    related: list[str] = Field(default_factory=list)


class Names(_Strict):
    names: list[str]
    related: list[str] = Field(default_factory=list)


class Lexicon(_Strict):
    drugs: dict[str, Drug]
    drug_classes: dict[str, list[str]]
    conditions: dict[str, Condition]
    labs: dict[str, Measure]
    vitals: dict[str, Measure]
    blood_pressure: Names
    sex: dict[Literal["F", "M"], list[str]]
    age_related: list[str] = Field(default_factory=list)


class Status(_Strict):
    high: list[str]
    low: list[str]
    normal: list[str]


class Cues(_Strict):
    """Regular expressions (case-insensitive) that decide how a mention is read."""

    asserted_before: list[str]
    asserted_after: list[str]
    condition_after: list[str]
    condition_before: list[str]
    hypothetical: list[str]
    negated: list[str]
    example: list[str]
    avoid: list[str]
    recommend: list[str]
    recommend_before: list[str]
    avoid_before: list[str]
    contrast: list[str]
    joiners: list[str]
    threshold_after: list[str]
    threshold_before: list[str]
    approximate: list[str]
    status: Status

    @model_validator(mode="after")
    def _compiles(self) -> Cues:
        for name, value in self:
            patterns = [p for v in value for p in v[1]] if isinstance(value, Status) else value
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"cues.{name}: {pattern!r} is not a regular expression ({exc})") from None
        return self


class Test(_Strict):
    """One test of a patient flag: a lab or vital against a bound, a condition, a drug taken, an allergy."""

    lab: str | None = None
    vital: str | None = None
    condition: str | None = None
    takes: str | None = None
    allergy: str | None = None
    lt: float | None = None
    le: float | None = None
    gt: float | None = None
    ge: float | None = None


class FlagDef(_Strict):
    any: list[Test] = Field(min_length=1)


class When(_Strict):
    all: list[str] = Field(default_factory=list)
    any: list[str] = Field(default_factory=list)


class ViolationIf(_Strict):
    recommends: list[str] = Field(default_factory=list)
    says: list[str] = Field(default_factory=list)
    omits: list[str] = Field(default_factory=list)
    new_only: bool = False


class Rule(_Strict):
    id: str
    description: str = ""
    when: When
    violation_if: ViolationIf
    penalty: float

    @property
    def weight(self) -> float:
        return abs(self.penalty)


class Contraindications(_Strict):
    flags: dict[str, FlagDef]
    question_cues: dict[str, list[str]]
    rules: list[Rule]

    @model_validator(mode="after")
    def _known_flags(self) -> Contraindications:
        known = set(self.flags) | set(self.question_cues)
        seen: set[str] = set()
        for rule in self.rules:
            if rule.id in seen:
                raise ValueError(f"rule id {rule.id!r} is used twice")
            seen.add(rule.id)
            unknown = set(rule.when.all + rule.when.any) - known
            if unknown:
                raise ValueError(f"rule {rule.id}: unknown flag(s) {sorted(unknown)}; known: {sorted(known)}")
            if not rule.when.all and not rule.when.any:
                raise ValueError(f"rule {rule.id}: 'when' names no flag")
        return self


class Range(_Strict):
    lo: float
    hi: float
    higher_is_better: bool


class AggregateConfig(_Strict):
    weights: dict[str, float]
    ranges: dict[str, Range]


class Scoring(_Strict):
    severity_weights: dict[Severity, float]
    fact_severity: dict[str, Severity]
    slot_weights: dict[str, float]
    usage_scores: dict[Literal["explicit", "indirect", "absent"], float]
    aggregate: AggregateConfig


class ClinicalRules(_Strict):
    lexicon: Lexicon
    cues: Cues
    contraindications: Contraindications
    scoring: Scoring


def load_rules(folder: Path | None = None) -> ClinicalRules:
    """The four rule files of ``folder`` (default: the bundled ones), validated; errors name the file."""
    if folder is None:
        return _bundled()
    return _read(Path(folder))


@lru_cache(maxsize=1)
def _bundled() -> ClinicalRules:
    return _read(RULES_DIR)


def _read(folder: Path) -> ClinicalRules:
    parts = {}
    for name in RULE_FILES:
        path = folder / name
        data = read_yaml_mapping(path, "clinical rules", RulesError)
        try:
            parts[name.removesuffix(".yaml")] = {
                "lexicon.yaml": Lexicon, "cues.yaml": Cues,
                "contraindications.yaml": Contraindications, "scoring.yaml": Scoring,
            }[name].model_validate(data)
        except ValueError as exc:
            raise RulesError(f"{path}: {exc}") from None
    return ClinicalRules(**parts)
