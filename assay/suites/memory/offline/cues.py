"""The memory rules' cue words, read once from ``rules/cues.yaml`` and checked on load."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from assay.yaml_files import read_checked_yaml

CUES_PATH = Path(__file__).resolve().parents[1] / "rules" / "cues.yaml"


class MemoryCues(BaseModel):
    """Every list of ``cues.yaml`` (its comments say what each is for), order kept."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    amount_nouns: tuple[str, ...]
    duration_nouns: tuple[str, ...]
    head_stop: tuple[str, ...]
    type_words: tuple[str, ...]
    order_words: tuple[str, ...]
    rate_words: frozenset[str]
    undecided: tuple[str, ...]
    time_question: tuple[str, ...]
    end_words: tuple[str, ...]
    deadline_words: tuple[str, ...]
    change_query: tuple[str, ...]
    current_query: tuple[str, ...]
    supersede: tuple[str, ...]
    change_record: tuple[str, ...]
    boilerplate: tuple[str, ...]
    resolved: tuple[str, ...]
    status_query: tuple[str, ...]
    other_people: tuple[str, ...]
    person_aliases: tuple[tuple[str, ...], ...]
    user_aliases: tuple[str, ...]
    titles: tuple[str, ...]
    synonyms: tuple[str, ...]
    time_units: frozenset[str]
    duration_units: frozenset[str]
    ordinal_units: frozenset[str]
    counter_aliases: dict[str, str]
    local_counters: tuple[str, ...]
    list_counters: frozenset[str]
    regexes: dict[str, re.Pattern[str]]  # compiled on load


@cache
def cues(path: Path = CUES_PATH) -> MemoryCues:
    """The cue table, or a ValueError naming the file and the key that is wrong."""
    return read_checked_yaml(path, MemoryCues, "memory cue table")
