"""Filler in an agent's reply: sentences that say nothing about the request.

A sentence is filler when it shares no word with the request, has no digit and names no code or
action, asks nothing, sends the user nowhere and declines nothing: pleasantries ("감사합니다. 좋은
하루 되세요!"), connectives alone, keyboard mashing, lorem ipsum, text in another script. Such text
can still move the signals (an English reply's Korean filler hides the other person it names; a
nonsense word shares character n-grams with the request), so the rules read the reply twice, as
written and without its filler, and keep the lower verdict: filler can lower a reply, never
raise it. What follows a separator line ("---") is a trailer (a signature), filler whatever it says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from assay.judges.offline import text as tx
from assay.judges.offline.lang import available, pack
from assay.suites.agent.offline import actions as acts


def without_filler(request: str, message: str, keep: Iterable[re.Pattern[str]] = ()) -> tuple[str, tuple[str, ...]]:
    """The reply without its filler sentences, and those sentences ((message, ()) when it has
    none). A reply of filler only keeps its first sentence with letters: what comes after it is
    what an appended text would be."""
    sentences = _before_trailer(tx.sentences(message))
    asked = content_words(request)
    patterns = tuple(keep)
    kept = [s for s in sentences if not is_filler(s, asked, patterns)]
    if not kept:
        kept = [s for s in sentences if any(ch.isalpha() for ch in s)][:1]
    filler = tuple(s for s in tx.sentences(message) if s not in kept)
    if not filler or not kept:
        return message, ()
    return " ".join(kept), filler


def _before_trailer(sentences: list[str]) -> list[str]:
    """The sentences before a separator line ("---", "___"): what follows one is a trailer (a
    signature, a footer), not the reply."""
    for i, sentence in enumerate(sentences):
        if i and acts.RE["separator"].fullmatch(sentence):
            return sentences[:i]
    return sentences


def content_words(text: str) -> set[str]:
    """The text's word stems, lower-cased, without function words ("from", "the": every pack's)."""
    return {w.lower() for w in tx.stems(text)} - function_words()


@cache
def function_words() -> frozenset[str]:
    return frozenset(word for code in available() for word in pack(code).stopwords)


def is_filler(sentence: str, asked: set[str], keep: tuple[re.Pattern[str], ...] = ()) -> bool:
    if not any(ch.isalpha() for ch in sentence):
        return True  # punctuation, emoji or marks alone ("!!!! ????", "---")
    return not (
        content_words(sentence) & asked
        or acts.ids(sentence)
        or any(ch.isdigit() for ch in sentence)  # a figure or a date ("하루" alone is a greeting's word)
        or acts.actions_in(sentence)
        or "?" in sentence
        or acts.is_deflection(sentence)
        or any(p.search(sentence) for p in keep)
    )
