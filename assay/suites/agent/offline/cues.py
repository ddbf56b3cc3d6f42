"""The agent suite's cue words (``rules/cues.yaml``), loaded and checked once."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictStr

from assay.yaml_files import read_checked_yaml

CUES_FILE = Path(__file__).resolve().parent.parent / "rules" / "cues.yaml"
ACTIONS = ("DELETE", "MOVE", "ADD", "UPDATE", "VIEW")

Words = tuple[StrictStr, ...]


class AgentCues(BaseModel):
    """Every list ``cues.yaml`` must hold (its comments say what each is for)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action_cues: dict[str, Words]
    send_cues: Words
    save_cues: Words
    error_cues: Words
    all_cues: Words
    statuses: dict[str, Words]
    destination_generic: Words
    generic_qualifiers: Words
    person_words: frozenset[StrictStr]
    application_words: frozenset[StrictStr]
    role_nouns: frozenset[StrictStr]
    vague_words: frozenset[StrictStr]
    regexes: dict[str, re.Pattern[str]]  # compiled on load


def load(path: Path) -> AgentCues:
    """The cue tables of ``path``; a missing, unknown or mistyped key is one ValueError naming
    the file and the key (an unquoted YAML ``on``/``no`` reads as a boolean, not a word)."""
    cues = read_checked_yaml(path, AgentCues, "agent cue tables")
    unknown = sorted(set(cues.action_cues) - set(ACTIONS))
    if unknown:
        raise ValueError(f"{path}: key 'action_cues': unknown action {unknown[0]!r} (known: {', '.join(ACTIONS)})")
    return cues


@cache
def cues() -> AgentCues:
    return load(CUES_FILE)
