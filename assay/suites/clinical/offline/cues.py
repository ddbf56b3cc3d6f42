"""The cue tables of the clinical offline rules (``rules/offline_cues.yaml``), read and checked once."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model, field_validator

from assay.yaml_files import read_checked_yaml

CUES_PATH = Path(__file__).resolve().parents[1] / "rules" / "offline_cues.yaml"

Words = tuple[str, ...]

# The tables the rules read (as ``CUES.<name>``), by the kind of value each holds: the model
# ``OfflineCues`` the YAML file is checked against. The YAML file says what each one is for.
TABLES: tuple[tuple[Any, str], ...] = (
    (Words, "permission amount what status decision prohibition when time_words directive decline statement"
     " status_words not_antibiotic units bare_followers absent stop_verbs allergy_labels contraindication"
     " warning result about_record table_caution table_warnings counted"),
    (frozenset[str], "en_function none_values item_stop result_words caution_words generic_labels key_labels"
     " test_stop dose_units table_caution_labels medication_labels no_condition plain_words"),
    (dict[str, str], "en_durations key_aliases sex_values unit_aliases count_units per_dose_units asked_acts regexes"
     " first_vowels"),
    (dict[str, Words], "category_classes symptoms_ko same_counters"),
    (dict[str, int], "native_counts"),
    (tuple[Words, ...], "schedule_groups"),
    (tuple[tuple[Words, Words], ...], "lab_groups"),
    (tuple[tuple[str, str], ...], "en_times latin_classes"),
)  # fmt: skip


class _Checks(BaseModel):
    """What every table is checked for beyond its kind: its regular expressions compile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("regexes", "asked_acts", check_fields=False)
    @classmethod
    def _compiles(cls, regexes: dict[str, str]) -> dict[str, str]:
        _check_compiles(regexes.items())
        return regexes

    @field_validator("en_times", check_fields=False)
    @classmethod
    def _times_compile(cls, times: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        _check_compiles((korean, pattern) for pattern, korean in times)
        return times

    def regex(self, name: str) -> re.Pattern[str]:
        """One of ``regexes``, compiled once ("(?i)" at its start: any case)."""
        return _compiled(self.regexes[name])  # type: ignore[attr-defined]


OfflineCues = create_model(  # type: ignore[call-overload]
    "OfflineCues", __base__=_Checks, **{name: (kind, ...) for kind, names in TABLES for name in names.split()}
)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _check_compiles(named: Iterable[tuple[str, str]]) -> None:
    for name, pattern in named:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{name}: {exc}") from None


@cache
def offline_cues(path: Path = CUES_PATH) -> Any:
    """The tables, checked: a missing, unknown or mistyped key is one error naming the file and key."""
    return read_checked_yaml(path, OfflineCues, "clinical offline cues")


CUES = offline_cues()
