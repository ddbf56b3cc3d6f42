"""Whether feedback is written in the run's language: the checks the offline jury's feedback
tests share (``tests/unit/judges/offline/test_feedback_language.py``, the rag_qa flow test).

- English feedback: no Hangul outside the “ ” the English catalogue puts around every quoted
  value or the JSON string quotes of text set aside (a text quoted whole, or a figure a verdict
  lists, "3일", is a value too).
- Korean feedback: every run of Latin-script words is quoted from the judged input (found in it,
  ignoring case), or is a name kept in every language: the judges' names and unit symbols
  (``KEPT``) and the verdict's own labels (``kept``). The Korean catalogue does not always quote
  its values, so the check asks where the words come from, not how they are marked; a run is
  checked whole, so a sentence written in English ("… where the reference says …") fails even
  when the answer is English.
"""

from __future__ import annotations

import re
import unicodedata

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
# a value quoted by the English catalogue (“ ”), or text set aside quoted as a JSON string
QUOTED_EN = re.compile(r"“[^”]*”|\"(?:[^\"\\]|\\.)*\"")
# a run of Latin-script words (with the spaces, apostrophes and hyphens inside it)
LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z'’\-]*(?: [A-Za-z][A-Za-z'’\-]*)*")
# kept as they are in every language: the judges' names and unit symbols
KEPT = frozenset({"lexical", "ngram", "numeric", "kg", "km", "cm", "mg", "ml", "mcg", "am", "pm"})
# a figure as a verdict lists it (an unsupported "3일", "1,500원")
FIGURE = re.compile(r"^[\d.,:~\-]+\s*[^\s\d]{0,3}$")


def plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().replace("’", "'").split())


def squeezed(text: str) -> str:
    return plain(text).replace(" ", "")


def foreign_in_korean(feedback: str, source: str, kept: frozenset[str] = frozenset()) -> list[str]:
    """Runs of Latin-script words in Korean feedback that ``source`` (``plain``) does not hold."""
    out = []
    for run in LATIN_RUN.findall(feedback):
        words = [w.strip("'’-") for w in run.split()]
        if all(len(w) < 2 or w.lower() in KEPT | kept for w in words):
            continue
        if plain(run).strip("'-") not in source:
            out.append(run)
    return out


def foreign_in_english(feedback: str, source: str) -> list[str]:
    """Hangul in English feedback outside the quotes around values (none in a text quoted whole)."""
    if FIGURE.match(feedback) or squeezed(feedback) in squeezed(source):
        return []
    return HANGUL.findall(QUOTED_EN.sub(" ", feedback))
