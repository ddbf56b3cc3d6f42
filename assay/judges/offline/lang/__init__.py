"""Language packs: what the offline jury's generic answer core knows of a language, as data.

A pack is one YAML file beside this module (``en.yaml``): tokenisation choice, function words,
negation, refusal, hedge and grader-address cues, number and calendar words and antonym pairs.
The feedback's sentences are the language's message catalogue, ``<code>.messages.yaml``
(``messages.py``). ``pack(code)`` loads and checks it once. A language's larger cue tables
sit beside it as ``<code>.<table>.yaml`` (``ko.claims.yaml``, ``ko.concepts.yaml``), each read
by ``cues(code, name)``: its YAML tags say each cue's type (``!re`` a pattern, ``!set`` a set).
``language_of(text)`` says which pack a text is written for, by the script its letters are in
(Hangul → ``ko``, Latin → ``en``). Adding a language is a data file, its script in ``SCRIPTS``
when it is a new one, and its tests.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

HERE = Path(__file__).resolve().parent

# Which letters a script has; a text's language is the pack of its dominant script.
SCRIPTS: dict[str, str] = {"hangul": "ko", "latin": "en"}


class LanguagePack(BaseModel):
    """One language's cues (see ``en.yaml`` for what each list is for)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    name: str
    script: str
    # A sentence of an answer whose letters are less than this share in the pack's script is
    # set aside as text in another language (Korean keeps a sentence with any Hangul: Latin
    # product names and codes sit inside Korean sentences).
    own_script_share: float = 0.5
    # A pack may carry only what its language's judging reads so far (Korean: what sets text
    # aside); every list defaults to empty.
    stopwords: frozenset[str] = frozenset()
    negations: frozenset[str] = frozenset()
    negation_endings: tuple[str, ...] = ()
    antonyms: tuple[tuple[str, str], ...] = ()
    refusals: tuple[str, ...] = ()
    hedges: tuple[str, ...] = ()
    grader_cues: tuple[str, ...] = ()
    grader_commands: tuple[str, ...] = ()
    number_words: dict[str, float] = Field(default_factory=dict)
    soft_number_words: frozenset[str] = frozenset()
    calendar_words: dict[str, str] = Field(default_factory=dict)
    calendar_kinds: dict[str, str] = Field(default_factory=dict)
    months_beside_day: dict[str, str] = Field(default_factory=dict)
    clock: dict[str, str] = Field(default_factory=dict)
    figure_rewrites: tuple[tuple[str, str], ...] = ()
    unit_conversions: dict[str, float] = Field(default_factory=dict)
    negation_idioms: tuple[str, ...] = ()
    negating_phrases: tuple[str, ...] = ()
    refusal_verbs: frozenset[str] = frozenset()
    refusal_subjects: frozenset[str] = frozenset()
    name_questions: frozenset[str] = frozenset()
    second_asks: frozenset[str] = frozenset()
    ask_joins: frozenset[str] = frozenset()
    # the feedback names each meaning (core.particle_yes, core.particle_no)
    answer_particles: dict[str, Literal["yes", "no"]] = Field(default_factory=dict)
    clause_joins: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()


@cache
def pack(code: str) -> LanguagePack:
    """The language pack ``code`` (``en``); raises ``KeyError`` naming the packs there are."""
    path = HERE / f"{code}.yaml"
    if not path.is_file():
        raise KeyError(f"no language pack {code!r}; there are: {', '.join(available())}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # suffixes are tried longest first, whatever order the file lists them in
    data["suffixes"] = sorted(data.get("suffixes", ()), key=len, reverse=True)
    return LanguagePack.model_validate(data)


def available() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.yaml") if "." not in p.stem)


class CueLoader(yaml.SafeLoader):
    """YAML for cue tables: a list is a tuple, ``!set`` makes it a frozenset, ``!re`` compiles a
    regular expression (each of a list's)."""


def _compiled(loader: CueLoader, node: yaml.Node) -> re.Pattern[str] | tuple[re.Pattern[str], ...]:
    try:
        if isinstance(node, yaml.SequenceNode):
            return tuple(re.compile(pattern) for pattern in loader.construct_sequence(node))
        return re.compile(loader.construct_scalar(node))
    except re.error as exc:
        raise ValueError(f"line {node.start_mark.line + 1}: not a regular expression ({exc})") from None


CueLoader.add_constructor("tag:yaml.org,2002:seq", lambda loader, node: tuple(loader.construct_sequence(node)))
CueLoader.add_constructor("!set", lambda loader, node: frozenset(loader.construct_sequence(node)))
CueLoader.add_constructor("!re", _compiled)


class Cues:
    """A cue table read as attributes (``KO.hedges``), each cue typed by its YAML tag."""

    def __init__(self, source: str, cues: dict[str, Any]) -> None:
        self.source = source
        self.__dict__.update(cues)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{self.source}: no cue {name!r}")


@cache
def cues(code: str, name: str) -> Cues:
    """The cue table ``<code>.<name>.yaml`` (``CueLoader``'s tags say each cue's type); a missing
    file or a broken pattern raises ``ValueError`` naming the file (and the pattern's line)."""
    path = HERE / f"{code}.{name}.yaml"
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=CueLoader)  # CueLoader is a SafeLoader
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: not a mapping of cue names to cues")
    return Cues(path.name, data)


def script_of(ch: str) -> str | None:
    """``hangul``, ``latin``, ``other`` for a letter; None for anything else."""
    if not ch.isalpha():
        return None
    if "\uac00" <= ch <= "\ud7a3" or "\u1100" <= ch <= "\u11ff" or "\u3130" <= ch <= "\u318f":
        return "hangul"
    name = unicodedata.name(ch, "")
    return "latin" if name.startswith("LATIN") else "other"


def script_shares(text: str) -> dict[str, float]:
    """The share of the text's letters in each script."""
    counts: dict[str, int] = {}
    for ch in text:
        script = script_of(ch)
        if script:
            counts[script] = counts.get(script, 0) + 1
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def language_of(text: str) -> str | None:
    """The language code of the text's dominant script (at least half its letters), or None
    (no letters, or a script no pack covers)."""
    shares = script_shares(text)
    if not shares:
        return None
    script, share = max(shares.items(), key=lambda kv: kv[1])
    return SCRIPTS.get(script) if share >= 0.5 else None
