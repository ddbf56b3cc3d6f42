"""The agent suite's cue words (``rules/cues.yaml``), loaded and checked once."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

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
    person_words: Words
    application_words: Words
    role_nouns: Words
    vague_words: Words


def load(path: Path) -> AgentCues:
    """The cue tables of ``path``; a missing, unknown or mistyped key is one ValueError naming
    the file and the key (an unquoted YAML ``on``/``no`` reads as a boolean, not a word)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cues = AgentCues.model_validate(data)
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the cue tables ({exc})") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        if not error["loc"]:
            raise ValueError(f"{path}: the cue tables must be a mapping of word lists ({error['msg']})") from None
        key = ".".join(str(part) for part in error["loc"])
        raise ValueError(f"{path}: key {key!r}: {error['msg']}") from None
    unknown = sorted(set(cues.action_cues) - set(ACTIONS))
    if unknown:
        raise ValueError(f"{path}: key 'action_cues': unknown action {unknown[0]!r} (known: {', '.join(ACTIONS)})")
    return cues


@cache
def cues() -> AgentCues:
    return load(CUES_FILE)
