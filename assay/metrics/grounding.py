"""Reference-free grounding formulas: shares of supported claims and relevant chunks, and the
offline figure check. Pure functions, no I/O.

- ``supported_share(verdicts)``: faithfulness, the share of the answer's claims a judge found
  supported by the retrieved contexts (0-1). No claims: None (nothing to be faithful about).
- ``relevant_share(verdicts)``: context relevance, the share of retrieved chunks a judge found
  relevant to the question: precision without a reference (0-1). No chunks: None.
- ``figure_checks(answer, contexts, question)``: the offline stand-in for faithfulness. Each
  sentence of the answer that carries figures written in digits (numbers, amounts, percentages,
  dates) or names (capitalised words inside a sentence, acronyms) is checked: found when every
  figure has an equal figure in the contexts (``assay.metrics.quantities``: the numeric offline
  judge's value-and-unit comparison) and every name occurs in them. It does not read meaning:
  "revenue fell 12 %" and "revenue rose 12 %" check the same; a sentence without figures or
  names is not checked at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.metrics.quantities import quantity_check

# A name: a capitalised word that is not a sentence's first word, or an acronym of 2+ capitals.
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_ACRONYM = re.compile(r"^[A-Z]{2,}$")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# Capitalised words that are not names even inside a sentence.
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'll", "I'd", "OK"})


def supported_share(verdicts: Sequence[bool]) -> float | None:
    return sum(verdicts) / len(verdicts) if verdicts else None


def relevant_share(verdicts: Sequence[bool]) -> float | None:
    return sum(verdicts) / len(verdicts) if verdicts else None


@dataclass(frozen=True)
class FigureCheck:
    """One sentence of the answer, the figures and names in it, and which the contexts lack."""

    sentence: str
    checked: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def found(self) -> bool:
        return not self.missing


def names_in(sentence: str) -> list[str]:
    """Capitalised words after the first word, and acronyms anywhere: a plain-text proxy for names."""
    words = _WORD.findall(sentence)
    out = [w for i, w in enumerate(words)
           if len(w) > 1 and (_ACRONYM.match(w) or (i > 0 and w[0].isupper())) and w not in _NOT_NAMES]
    return list(dict.fromkeys(out))


def sentences(text: str) -> list[str]:
    """The answer's sentences: each line split after ., ! or ?, list markers removed."""
    out = []
    for line in text.splitlines():
        line = _LIST_MARK.sub("", line.strip())
        out += [part.strip() for part in _SENTENCE_END.split(line) if part.strip()]
    return out


def _digits(text: str) -> str:
    return text.replace(",", "")


def _figure(quantity: object) -> str:
    """A parsed figure as the reader wrote it, in digits ("70", "12%"): the parser's units are its
    own normalised forms, and a figure it read from words ("once") is not checked."""
    value = f"{quantity.value:g}"  # type: ignore[attr-defined]
    return value + "%" if quantity.unit == "%" else value  # type: ignore[attr-defined]


def figure_checks(answer: str, contexts: Sequence[str], question: str = "") -> list[FigureCheck]:
    """Every sentence of ``answer`` with figures or names, checked against ``contexts``.

    Figures and names that the question itself gives are not checked (repeating the question is
    not a claim about the contexts)."""
    context = "\n".join(contexts)
    lowered = context.casefold()
    asked = question.casefold()
    checks = []
    for sentence in sentences(answer):
        matched, contradicted, unsupported = quantity_check(sentence, context, question)
        written = _digits(sentence)
        found = [_figure(q) for q in matched if _figure(q).rstrip("%") in written]
        lacking = [_figure(q) for q in [*contradicted, *unsupported] if _figure(q).rstrip("%") in written]
        names = [n for n in names_in(sentence) if n.casefold() not in asked]
        checked = found + lacking + names
        if not checked:
            continue
        missing = lacking + [n for n in names if n.casefold() not in lowered]
        checks.append(FigureCheck(sentence, tuple(checked), tuple(missing)))
    return checks
