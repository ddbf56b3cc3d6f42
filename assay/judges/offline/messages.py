"""An offline verdict's feedback as message keys and values, written out in the run's language.

The rules never write a sentence: a finding or a rule's reason is ``say(key, **values)``, and a
verdict's text fields hold those messages (joined with ``joined``) until ``render_verdict(verdict,
lang)`` writes them from the language's catalogue, ``lang/<code>.messages.yaml``, as the last step
of a judgment. So the rules are one set for every language and the scores cannot depend on it.

Values are written as they are: text quoted from the answer, the reference or the request stays
in its own language, between the quotes the template puts around it. A value that is itself a
message is written in the same language first, and so is a name the data gives in each language
(``InEach``: a lexicon concept, a lab's name); a number keeps the template's format (``{s:.2f}``).

Every catalogue has the same keys: loading one checks all of them, and a key one language has
and another lacks raises ``ValueError`` naming the key and the file that lacks it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from assay.yaml_files import read_yaml_mapping

HERE = Path(__file__).resolve().parent / "lang"
SUFFIX = ".messages.yaml"


@dataclass(frozen=True)
class Msg:
    """One sentence or phrase of feedback: a catalogue key and the values it is filled with."""

    key: str
    values: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Joined:
    """Parts written one after another with ``sep`` between them and ``end`` after the last."""

    parts: tuple[Any, ...]
    sep: str = ". "
    end: str = ""


@dataclass(frozen=True)
class InEach:
    """A value the data gives in each language (a lexicon concept's name: 미만 / "less than"),
    written in the run's language like a message."""

    forms: tuple[tuple[str, str], ...]


def say(key: str, **values: Any) -> Msg:
    return Msg(key, tuple(values.items()))


def key_part(name: str) -> str:
    """A name as part of a message key: "conflict 1" → "conflict_1", "yes-no" → "yes_no", "N" → "n"."""
    return name.lower().replace(" ", "_").replace("-", "_")


def joined(parts: Iterable[Any], sep: str = ". ", end: str = "") -> Joined:
    return Joined(tuple(parts), sep, end)


def tagged(tag: str, notes: Iterable[Any]) -> Joined:
    """The usual feedback: the judge's tag, then the notes as sentences ("[lexical] a. b.")."""
    return Joined((tag, Joined(tuple(notes), ". ", ".")), " ")


def render(part: Any, lang: str) -> str:
    """``part`` written in ``lang``: a message from the catalogue, joined parts, or text as it is."""
    if isinstance(part, Msg):
        template = catalogue(lang).get(part.key)
        if template is None:
            raise KeyError(f"{lang}{SUFFIX}: no message {part.key!r}")
        return template.format(**{name: _value(value, lang) for name, value in part.values})
    if isinstance(part, Joined):
        return part.sep.join(render(p, lang) for p in part.parts) + part.end
    if isinstance(part, InEach):
        forms = dict(part.forms)
        if lang not in forms:
            raise KeyError(f"no {lang} form of {part.forms[0][1]!r}")
        return forms[lang]
    return str(part)


def _value(value: Any, lang: str) -> Any:
    """A message value: messages, joined parts and names in each language written in ``lang``;
    anything else as it is (numbers keep the template's format)."""
    return render(value, lang) if isinstance(value, Msg | Joined | InEach) else value


def render_verdict(verdict: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The verdict with every message in it (in a field, a list or a nested object) written in ``lang``."""
    return {key: _rendered(value, lang) for key, value in verdict.items()}


def _rendered(value: Any, lang: str) -> Any:
    if isinstance(value, Msg | Joined | InEach):
        return render(value, lang)
    if isinstance(value, list | tuple):
        return [_rendered(v, lang) for v in value]
    if isinstance(value, Mapping):
        return render_verdict(value, lang)
    return value


def languages(folder: Path = HERE) -> list[str]:
    return sorted(p.name[: -len(SUFFIX)] for p in folder.glob(f"*{SUFFIX}"))


@cache
def catalogue(code: str) -> dict[str, str]:
    """The message catalogue of ``code`` (key -> template), checked against every other one."""
    catalogues = _bundled()
    if code not in catalogues:
        raise KeyError(f"no message catalogue {code}{SUFFIX}; there are: {', '.join(sorted(catalogues))}")
    return catalogues[code]


@cache
def _bundled() -> dict[str, dict[str, str]]:
    """The bundled catalogues, read and checked once per process (not once per language)."""
    return load_catalogues(HERE)


def load_catalogues(folder: Path) -> dict[str, dict[str, str]]:
    """Every ``<code>.messages.yaml`` in ``folder``, flattened (``group.key``); raises
    ``ValueError`` naming the file and the key when one catalogue lacks a key another has or a
    template is not text."""
    found = {code: _flat(folder / f"{code}{SUFFIX}") for code in languages(folder)}
    every = set().union(*found.values()) if found else set()
    for code, messages in sorted(found.items()):
        missing = sorted(every - set(messages))
        if missing:
            owner = next(other for other in sorted(found) if missing[0] in found[other])
            raise ValueError(
                f"{code}{SUFFIX}: no message {missing[0]!r} (it is in {owner}{SUFFIX})"
                + (f", and {len(missing) - 1} more missing" if len(missing) > 1 else "")
            )
    return found


def _flat(path: Path) -> dict[str, str]:
    data = read_yaml_mapping(path, "message catalogue", ValueError)
    out: dict[str, str] = {}
    for group, messages in data.items():
        if not isinstance(messages, dict):
            raise ValueError(f"{path.name}: group {group!r} must map keys to message templates")
        for key, template in messages.items():
            if not isinstance(template, str):
                raise ValueError(f"{path.name}: message '{group}.{key}' must be text, not {type(template).__name__}")
            out[f"{group}.{key}"] = template
    return out
