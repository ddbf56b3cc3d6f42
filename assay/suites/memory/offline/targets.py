"""Whose value a memory holds: the asked target's, or another entity's or person's (a target
error), and what ties a memory written in another script to the query."""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.judges.offline.claims import hangul_share
from assay.suites.memory.offline.cues import cues
from assay.suites.memory.offline.facets import SYNONYM_GROUPS, Facet, names, typed

C = cues()
RE = C.regexes
PEOPLE = C.person_aliases  # other people, each under its words
_ASKED_PERSON_RE = re.compile(
    r"(?:^|\s)(" + "|".join(re.escape(a) for g in PEOPLE for a in sorted(g, key=len, reverse=True)) + ")(?![a-z])"
)
_NAMED_ASKED_RE = re.compile(
    r"(?<![가-힣])([가-힣]{2,3})\s?(?:" + "|".join(C.titles) + r")(?:이|가|은|는|의|한테|네|께서)?(?![가-힣])"
)
Clause = tuple[int, str]  # (sentence index, clause text)


def _typed_here(want: str, seg: str) -> bool:
    return typed(want, seg, tx.quantities(seg))


def _beside_other_entity(
    entity: str, wants: list[str], entities: list[str], query: str, skip: list[str], clauses: list[Clause]
) -> str | None:
    """Another entity with a value of the asked type in its clause (60만 원 beside 영어 학원
    when asked for 수학 과외비)."""
    for other in entities:
        if other == entity or other in query or other in skip:
            continue
        if any(other in seg and _typed_here(w, seg) for w in wants for _, seg in clauses):
            return other
    return None


def _attribute_elsewhere(
    entity: str, mine: list[Facet], skip: list[str], clauses: list[Clause], sentences: list[str]
) -> str | None:
    """A value of the asked attribute in a sentence without the entity ("사용자 여권 만료일 …"
    asked for 남편's): the clause's first word. A header's date ("점검 기록 10/27: …") dates
    every item after it, so it is no other target's."""
    for s_idx, seg in clauses:
        for f in mine:
            if any(t in seg for t in skip):
                continue
            head, colon, _ = seg.partition(":")
            if colon and f.want == "time" and _typed_here("time", head):
                continue
            if (
                f.want
                and f.attribute
                and entity not in sentences[s_idx]
                and _typed_here(f.want, seg)
                and names(seg, f.attribute)
            ):
                return seg.split()[0]
    return None


def _value_missing(entity: str, wants: list[str], clauses: list[Clause]) -> bool:
    """The entity's clauses exist and hold no value of the asked types."""
    own = [seg for _, seg in clauses if entity in seg]
    return bool(wants) and bool(own) and not any(_typed_here(w, seg) for w in wants for seg in own)


def confused_target(
    query: str, entities: list[str], facets: list[Facet], clauses: list[Clause], sentences: list[str]
) -> tuple[str, str] | None:
    """(asked entity, other) when the asked entity's clauses hold no value of the asked type and
    one sits with another target. An entity holding a query word ("건사료" for 사료) is the
    thing asked about, not another target."""
    asked = [e for e in entities if e and e in query]
    if not asked or not any(f.want for f in facets):
        return None
    query_words = [w for w in tx.stems(query) if len(w) >= 2]
    asked_things = [o for o in entities if o not in asked and any(w in o for w in query_words)]
    for entity in asked:
        mine = [f for f in facets if len(facets) == 1 or entity in f.text]  # its own questions
        wants = [f.want for f in mine if f.want]
        if not _value_missing(entity, wants, clauses):
            continue
        other = _beside_other_entity(entity, wants, entities, query, asked_things, clauses) or _attribute_elsewhere(
            entity, mine, asked_things, clauses, sentences
        )
        if other:
            return entity, other
    return None


def other_person(query: str, answering: list[str]) -> tuple[str, str] | None:
    """The user's own thing asked ("내 자동차세") and every answering clause files it under
    another person named right before it ("어머니 자동차세"): (asked, other)."""
    mine = RE["mine"].search(tx.normalize(query))
    if not answering or not mine:
        return None
    thing = tx.strip_suffix(mine.group(1))
    people = "|".join(map(re.escape, C.other_people))
    found: list[str] = []
    for clause in answering:
        for m in re.finditer(re.escape(thing), clause):
            before = re.search(rf"({people})\S{{0,3}}\s*$", clause[: m.start()])
            if not before:
                return None
            found.append(before.group(1))
    return (f"사용자의 {thing}", found[0]) if found else None


def _asked_person(query: str) -> tuple[str, ...] | None:
    """The person a query asks about: a kinship word's group, or a given name before a title
    (the name right before the last title: "공방 선배 지호 형" → 지호)."""
    found = _ASKED_PERSON_RE.search(tx.normalize(query).lower())
    if found:
        return next((g for g in (*PEOPLE, C.user_aliases) if found.group(1) in g), None)
    named = [m.group(1) for m in _NAMED_ASKED_RE.finditer(tx.normalize(query)) if m.group(1) not in C.titles]
    return (named[-1],) if named else None


def _person_named(sentence: str, asked: tuple[str, ...]) -> str | None:
    low = sentence.lower()
    other = next((a for g in (*PEOPLE, C.user_aliases) if g is not asked for a in g if a.strip() in low), None)
    if other is not None:
        return other.strip()
    named = RE["named_other"].search(sentence)
    return named.group() if named else None


def unnamed_person(query: str, memory: str, answering: list[str]) -> tuple[str, str] | None:
    """The query asks about a person the memory never names ("아빠 여권", "준호 형이") while
    every answering sentence names another ("User's passport", "민재 씨"): (asked, other)."""
    asked = _asked_person(query)
    if asked is None or not answering or any(a in memory.lower() for a in asked):
        return None
    others = [_person_named(sentence, asked) for sentence in answering]
    return None if None in others else (asked[0], others[0])


def glossed(word: str, memory: str) -> bool:
    """A query word whose synonym group has a member the memory writes in the other script
    ("선생님" for "tutor"): the word's own group, else one whose Hangul member it starts with."""
    low = memory.lower()
    group = next((g for g in SYNONYM_GROUPS if word.lower() in g), None) or next(
        (g for g in SYNONYM_GROUPS if any(word.startswith(m) for m in g if not m.isascii() and len(m) >= 2)),
        None,
    )
    if group is None:
        return False
    return any(re.search(rf"(?<![a-z]){re.escape(m)}", low) if m.isascii() else m in memory for m in group)


def gloss_share(words: tuple[str, ...], memory: str) -> float:
    """The share of a facet's Hangul words the glossary finds in the memory."""
    words = tuple(w for w in words if not w.isascii())
    return sum(glossed(w, memory) for w in words) / len(words) if words else 0.0


def touches(query: str, memory: str, entities: list[str]) -> bool:
    """Something ties a memory sharing no word with the query to it: an entity's word in the
    query, one person under two words (엄마, 어머니), or a synonym."""
    low_query = query.lower()
    if any(w.lower() in low_query for e in entities for w in tx.stems(e) if len(w) >= 2):
        return True
    text = f"{memory} {' '.join(entities)}".lower()
    if any(any(a.strip() in low_query for a in g) and any(a.strip() in text for a in g) for g in PEOPLE):
        return True
    return any(glossed(w, text) for w in tx.stems(query) if len(w) >= 2)


def other_script(query: str, memory: str) -> bool:
    """The query and the memory are written in different scripts (Hangul against Latin)."""
    q, m = hangul_share(query), hangul_share(memory)
    return (q < 0.3 and m >= 0.5) or (m < 0.3 and q >= 0.5)


def entities_elsewhere(query: str, memory: str, entities: list[str]) -> bool:
    """Every entity is in the query's script and nothing ties the memory to the query."""
    query_hangul = hangul_share(query) >= 0.5
    same_script = [e for e in entities if (hangul_share(e) >= 0.5) == query_hangul]
    return bool(same_script) and len(same_script) == len(entities) and not touches(query, memory, entities)


def about_entity(sentence: str, entities: list[str], memory: str) -> bool:
    """The sentence names an entity the memory writes (any sentence, if it writes none)."""
    low = memory.lower()
    present = [e.lower() for e in entities if e and e.lower() in low]
    return not present or any(e in sentence.lower() for e in present)


def entity_sentences(entities: list[str], memory: str, sentences: list[str]) -> list[int]:
    """Indexes of the sentences naming an entity (two letters or more) the memory writes."""
    low = memory.lower()
    present = [e.lower() for e in entities if e and len(e) >= 2 and e.lower() in low]
    return [i for i, sent in enumerate(sentences) if any(e in sent.lower() for e in present)]
