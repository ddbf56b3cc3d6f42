"""A small bilingual lexicon: the concepts FAQ-style answers are made of, in Korean and English.

Word overlap cannot see that "등본을 떼면" and "발급 시", or "free" and "무료", say the same
thing; the claim checks (``claims.py``) compare an answer with its reference by these concepts.
The table is data, ``lang/ko.concepts.yaml`` (how a form matches is written at its top);
polarity is no concept (불가/cannot map to ``possible``, the negation is counted apart), and
``opposites`` groups concepts that reverse a condition (이상/미만, 전/후, 무료/유료).
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import Pattern

from assay.judges.offline import lang
from assay.judges.offline.messages import InEach


def _checked(table: lang.Cues) -> lang.Cues:
    """The concept table, once every concept has Korean and English forms (and no other key) and
    every opposite is a concept; else ``ValueError`` naming the file and the concept."""
    for name, forms in table.concepts.items():
        if not isinstance(forms, dict) or set(forms) != {"ko", "en"} or not forms["ko"] or not forms["en"]:
            raise ValueError(f"{table.source}: concepts.{name} needs Korean and English forms (ko, en)")
    for group in table.opposites:
        if unknown := [c for c in group if c not in table.concepts]:
            raise ValueError(f"{table.source}: opposites: {', '.join(unknown)} is no concept")
    return table


TABLE = _checked(lang.cues("ko", "concepts"))
CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {n: (f["ko"], f["en"]) for n, f in TABLE.concepts.items()}
OPPOSITES = TABLE.opposites
FREE_WORDS_KO, FREE_WORDS_EN = TABLE.free_words_ko, TABLE.free_words_en
NEGATION_KO = (*TABLE.negation_words_ko, *FREE_WORDS_KO)
NEGATION_EN = re.compile(r"\b(?:" + "|".join(map(re.escape, (*TABLE.negation_words_en, *FREE_WORDS_EN))) + r")\b", re.I)
EN_STOPWORDS = TABLE.english_stopwords


def without_conditions(text: str) -> str:
    """``text`` without its English condition clauses, whose negations state a condition."""
    return TABLE.english_condition.sub(" ", text)


_EN_WORD = re.compile(r"[a-z][a-z'-]*")


def _english_form(form: str) -> Pattern[str]:
    """A phrase on word boundaries; a trailing * lets its last word go on (``refund*``)."""
    return re.compile(r"\b" + re.escape(form.rstrip("*")) + (r"\w*" if form.endswith("*") else r"\b"), re.I)


def _index() -> tuple[dict[str, str], list[tuple[str, str]], dict[str, str], list[tuple[str, str]], list[tuple[Pattern[str], str]]]:
    """(Korean lemma -> concept, Korean substrings longest first, English word -> concept,
    English prefixes, English phrases and patterns then Korean patterns)."""
    ko_lemma: dict[str, str] = {}
    ko_sub: list[tuple[str, str]] = []
    ko_re: list[tuple[Pattern[str], str]] = []
    en_word: dict[str, str] = {}
    en_prefix: list[tuple[str, str]] = []
    en_phrase: list[tuple[Pattern[str], str]] = []
    for concept, (ko, en) in CONCEPTS.items():
        for form in ko:
            if form.startswith("re:"):
                ko_re.append((re.compile(form[3:]), concept))
                continue
            ko_lemma.setdefault(form, concept)
            if len(form) >= 2:
                ko_sub.append((form, concept))
        for form in en:
            if form.startswith("re:"):
                en_phrase.append((re.compile(form[3:], re.I), concept))
            elif " " in form or "-" in form:
                en_phrase.append((_english_form(form), concept))
            elif form.endswith("*"):
                en_prefix.append((form[:-1], concept))
            else:
                en_word.setdefault(form, concept)
    ko_sub.sort(key=lambda p: len(p[0]), reverse=True)
    return ko_lemma, ko_sub, en_word, en_prefix, en_phrase + ko_re


_KO_LEMMA, _KO_SUB, _EN_WORD_MAP, _EN_PREFIX, _EN_PHRASE = _index()
_OPPOSITES_OF: dict[str, frozenset[str]] = {}
for _group in OPPOSITES:
    for _concept in _group:
        _OPPOSITES_OF[_concept] = _OPPOSITES_OF.get(_concept, frozenset()) | (frozenset(_group) - {_concept})


def concept_name(concept: str) -> InEach:
    """A concept as the feedback names it: its first plain form in each language ("less_than" →
    미만 / less than), not the table's key."""
    ko, en = CONCEPTS[concept]
    return InEach((("ko", _plain_form(ko, concept)), ("en", _plain_form(en, concept))))


def _plain_form(forms: tuple[str, ...], concept: str) -> str:
    return next((f.rstrip("*") for f in forms if not f.startswith("re:")), concept)


def opposites(concept: str) -> frozenset[str]:
    """The concepts that exclude ``concept`` (its groups in ``OPPOSITES`` without it)."""
    return _OPPOSITES_OF.get(concept, frozenset())


def concept_of_lemma(lemma: str) -> str | None:
    """The concept a Korean lemma (or its stem without 다) or an English word names."""
    if lemma in _KO_LEMMA:
        return _KO_LEMMA[lemma]
    if lemma.endswith("다") and lemma[:-1] in _KO_LEMMA:
        return _KO_LEMMA[lemma[:-1]]
    word = lemma.lower()
    if word in _EN_WORD_MAP:
        return _EN_WORD_MAP[word]
    return next((concept for prefix, concept in _EN_PREFIX if word.startswith(prefix)), None)


@lru_cache(maxsize=8192)
def phrase_concepts(text: str) -> frozenset[str]:
    """Concepts named by multi-syllable Korean forms (substrings) and English phrases."""
    low = text.lower()
    found = {concept for form, concept in _KO_SUB if form.lower() in low}
    found |= {concept for pattern, concept in _EN_PHRASE if pattern.search(text)}
    return frozenset(found)


@lru_cache(maxsize=8192)
def english_concepts(text: str) -> tuple[str, ...]:
    """English words as concepts where the lexicon knows them, else the word itself."""
    out: list[str] = []
    for word in _EN_WORD.findall(text.lower()):
        concept = concept_of_lemma(word)
        if concept is not None:
            out.append(concept)
        elif len(word) >= 3 and word not in EN_STOPWORDS:
            out.append(word)
    return tuple(out)
