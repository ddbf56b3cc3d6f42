"""The cue tables of the clinical offline rules (``rules/offline_cues.yaml``), read and checked once."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator

from assay.yaml_files import read_checked_yaml

CUES_PATH = Path(__file__).resolve().parents[1] / "rules" / "offline_cues.yaml"

Words = tuple[str, ...]


class OfflineCues(BaseModel):
    """Every table the rules read; the YAML file says what each one is for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    permission: Words
    amount: Words
    what: Words
    status: Words
    decision: Words
    prohibition: Words
    when: Words
    time_words: Words
    directive: Words
    decline: Words
    statement: Words
    en_function: frozenset[str]
    status_words: Words
    category_classes: dict[str, Words]
    not_antibiotic: Words
    en_durations: dict[str, str]
    key_aliases: dict[str, str]
    sex_values: dict[str, str]
    none_values: frozenset[str]
    units: Words
    unit_aliases: dict[str, str]
    bare_followers: Words
    item_stop: frozenset[str]
    absent: Words
    native_counts: dict[str, int]
    result_words: frozenset[str]
    stop_verbs: Words
    schedule_groups: tuple[Words, ...]
    caution_words: frozenset[str]
    allergy_labels: Words
    contraindication: Words
    warning: Words
    generic_labels: frozenset[str]
    key_labels: frozenset[str]
    caution_line: Words
    result: Words
    about_record: Words
    test_stop: frozenset[str]
    lab_groups: tuple[tuple[Words, Words], ...]
    dose_units: frozenset[str]
    table_caution: Words
    table_caution_labels: frozenset[str]
    medication_labels: frozenset[str]
    table_warnings: Words
    symptoms_ko: dict[str, Words]
    no_condition: frozenset[str]
    count_units: dict[str, str]
    counted: Words
    plain_words: frozenset[str]
    per_dose_units: dict[str, str]
    asked_acts: dict[str, str]
    en_times: tuple[tuple[str, str], ...]
    regexes: dict[str, str]

    @field_validator("regexes", "asked_acts")
    @classmethod
    def _compiles(cls, regexes: dict[str, str]) -> dict[str, str]:
        _check_compiles(regexes.items())
        return regexes

    @field_validator("en_times")
    @classmethod
    def _times_compile(cls, times: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        _check_compiles((korean, pattern) for pattern, korean in times)
        return times

    def regex(self, name: str) -> re.Pattern[str]:
        """One of ``regexes``, compiled ("(?i)" at its start: any case)."""
        return re.compile(self.regexes[name])


def _check_compiles(named: Iterable[tuple[str, str]]) -> None:
    for name, pattern in named:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{name}: {exc}") from None


@cache
def offline_cues(path: Path = CUES_PATH) -> OfflineCues:
    """The tables, checked: a missing, unknown or mistyped key is one error naming the file and key."""
    return read_checked_yaml(path, OfflineCues, "clinical offline cues")
