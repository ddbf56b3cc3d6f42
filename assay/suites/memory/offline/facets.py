"""What a memory query asks: its facets (head words, the type of value wanted, the attribute
asked about) and whether a memory sentence holds a value of that type about that attribute."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, say
from assay.judges.offline.scoring import Units
from assay.suites.memory.offline.cues import cues

C = cues()
RE = C.regexes  # the named patterns of ``rules/cues.yaml``
SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in C.synonyms)

# The kinds of value a facet wants that the feedback names (``memory.want_<kind>`` messages);
# any other want is a counter ("명"), named by ``memory.want_counter``.
WANT_KINDS = frozenset({"", "amount", "duration", "time", "progress", "identifier", "ratio", "kilo"})


@dataclass(frozen=True)
class Facet:
    """One thing the query asks for: its head words and the kind of value it wants."""

    text: str
    head: Units
    words: tuple[str, ...]  # the head as word stems, for substring matching
    want: str  # "" (no figure), "amount", "duration", "time", … or a counter such as "명"
    attribute: tuple[str, ...] = ()  # the words the interrogative asks about


def query_parts(query: str) -> list[str]:
    """The query cut into the things it asks ("예산이랑 무게", "언제 갈았고 얼마 들었는지")."""
    parts = [p for q in RE["next_question"].split(tx.normalize(query)) for p in RE["facet_split"].split(q) if p.strip()] or [
        query
    ]
    return merge_reminders([q for p in parts for q in split_joined_questions(p)])


def read_facets(query: str, memory: str, units: Callable[[str], Units]) -> list[Facet]:
    """The query's facets; a facet with no head word borrows the previous one's ("요금제가 뭐고
    월 얼마"); a query figure the memory writes the same way ("1일권") is a head word."""
    out: list[Facet] = []
    for part in query_parts(query):
        words = [
            w for w in tx.strip_fillers(part).split()
            if (not RE["number_word"].fullmatch(w) or w in memory) and not RE["quote"].fullmatch(w.rstrip(".?!,"))
        ]  # fmt: skip
        head = units(" ".join(w for w in words if not w.startswith(C.head_stop)))
        stems = tuple(
            w for w in (*tx.stems(" ".join(words)), *(w for w in words if RE["number_word"].fullmatch(w)))
            if len(w) >= 2 and not w.startswith(C.head_stop)
        )  # fmt: skip
        if not head and out:
            head, stems = out[-1].head, out[-1].words
        if not head and not out:
            head, stems = units(query), tx.stems(query)
        text = tx.strip_fillers(part) or part.strip()
        out.append(Facet(text=text, head=head, words=stems, want=answer_type(part), attribute=attribute(part, memory)))
    return out


def merge_reminders(parts: list[str]) -> list[str]:
    """A part with no interrogative that recalls something ("회비 올렸다며") joins the next."""
    out: list[str] = []
    carry = ""
    for i, part in enumerate(parts):
        if i + 1 < len(parts) and RE["reminder_end"].search(part) and not RE["interrogative"].search(part):
            carry = f"{carry}, {part}" if carry else part
            continue
        out.append(f"{carry}, {part}" if carry else part)
        carry = ""
    return out or parts


def split_joined_questions(part: str) -> list[str]:
    """Two questions joined by a verb's -고 ("언제 갈았고 얼마 들었는지"), an interrogative on
    both sides or one ending in -고 ("언제고"); "언제 가고 싶다고" is one question."""
    for m in RE["verb_join"].finditer(part):
        left, right = part[: m.start()], part[m.end() :]
        if RE["asked_and"].search(left) or (RE["interrogative"].search(left) and RE["interrogative"].search(right)):
            return [left, *split_joined_questions(right)]
    return [part]


def _counter_type(word: str) -> str:
    """The type a counter after 몇 wants (몇 명 → 명, 몇 시 → time, 몇 퍼센트 → %)."""
    if word.startswith(("키로", "킬로")):
        return "kilo"
    for unit in sorted(tx.UNITS, key=len, reverse=True):
        if word.startswith(unit):
            return C.counter_aliases.get(unit, unit) if unit != "시" else "time"
    for alias, unit in C.counter_aliases.items():
        if word.startswith(alias):
            return unit
    local = (*C.local_counters, *sorted(C.list_counters, key=len, reverse=True))
    return next((c for c in local if word.startswith(c)), "amount")


# The answer types an interrogative wants, first match wins (before the Korean counter, after it).
_TYPE_BEFORE_COUNTER = (
    (RE["en_time"].search, "time"),
    (RE["en_duration"].search, "duration"),
    (RE["en_amount"].search, "amount"),
    (RE["ratio_question"].search, "ratio"),  # 몇 대 몇: not a count of vehicles
)
_TYPE_AFTER_COUNTER = (
    (lambda p: RE["identifier_question"].search(p) and not tx.has_any(p, ("얼마", "몇")), "identifier"),
    (RE["progress_question"].search, "progress"),
    (RE["month_question"].search, "월"),
    (lambda p: tx.has_any(p, C.time_question), "time"),
)


def answer_type(part: str) -> str:
    """The type of value a facet wants: "" (none), amount, duration, time, a counter…"""
    for test, want in _TYPE_BEFORE_COUNTER:
        if test(part):
            return want
    counter = RE["counter"].search(part)
    if counter:
        return _counter_type(counter.group(1))
    for test, want in _TYPE_AFTER_COUNTER:
        if test(part):
            return want
    if "얼마" in part:
        return "duration" if tx.has_any(part, C.duration_nouns) else "amount"
    return "amount" if tx.has_any(part, C.amount_nouns) else ""


def _counted(want: str, sentence: str) -> bool:
    """A figure written with a counter the figure reader does not carry ("4박으로", "3명이")."""
    particles = "으로|이|을|에|의|은|도|씩" if want in C.list_counters else "으로|이|을|에|의|은|도"
    return bool(re.search(rf"\d\s*{want}(?![가-힣])|\d\s*{want}(?:{particles})", sentence))


_TYPED = {
    "kilo": lambda s, found: any(q.unit in ("kg", "km") for q in found) or bool(re.search(r"\d\s*(?:키로|킬로)", s)),
    "ratio": lambda s, found: bool(RE["ratio"].search(s)),
    "progress": lambda s, found: bool(RE["progress"].search(s)),
    "identifier": lambda s, found: any(is_identifier(m.group()) for m in RE["identifier"].finditer(s)),
    "time": lambda s, found: any(q.unit in C.time_units for q in found) or bool(RE["weekday"].search(s)),
    "duration": lambda s, found: any(q.unit in C.duration_units for q in found),
    "amount": lambda s, found: any(q.unit not in C.time_units and q.unit not in C.ordinal_units for q in found),
}


def typed(want: str, sentence: str, found: list[tx.Quantity]) -> bool:
    """Whether a sentence (with its figures ``found``) holds a value of the type wanted."""
    if not want:
        return True
    if want in C.list_counters and not has_unit(found, want):
        return _counted(want, sentence)
    if want in C.local_counters:
        return _counted(want, sentence)
    if want in _TYPED:
        return _TYPED[want](sentence, found)
    return has_unit(found, want)


def has_unit(found: list[tx.Quantity], unit: str) -> bool:
    return any(C.counter_aliases.get(q.unit, q.unit) == unit for q in found)


def is_identifier(found: str) -> bool:
    """An address, a lettered code (X500, INV-031), or hyphened digits that are no date and
    hold four digits or more (010-4821-7730, 85112-3)."""
    if "@" in found or found[0].isalpha():
        return True
    return not RE["date_form"].fullmatch(found) and len(re.sub(r"\D", "", found)) >= 4


def counted_list(want: str, sentence: str) -> bool:
    """A count of things asked (몇 권/명) and a list of them (two 《…》 titles, or three items
    after a colon): the count is there to be read by counting."""
    return want in C.list_counters and (sentence.count("《") >= 2 or bool(RE["list"].search(sentence)))


def end_from_start(facet: Facet, sentence: str, found: list[tx.Quantity]) -> bool:
    """An end date asked of a start date and a span ("2025-03-01 입주, 2년 계약"): counted."""
    return (
        facet.want == "time"
        and any(w.startswith(C.end_words) for w in (*facet.attribute, *facet.words))
        and any(q.unit in C.time_units for q in found)
        and bool(RE["span"].search(sentence))
    )


def synonyms(word: str) -> frozenset[str]:
    return frozenset().union(*(g for g in SYNONYM_GROUPS if word.lower() in g)) or frozenset({word.lower()})


def canonical(word: str) -> str:
    """One name for the words of a synonym group (수업료, 요금, fee → one)."""
    group = next((g for g in SYNONYM_GROUPS if word.lower() in g), None)
    return min(group) if group else word


def names(sentence: str, attributes: tuple[str, ...]) -> bool:
    """Whether a sentence names one of the attributes or a synonym (a word of three syllables
    or more may lose its last: 출국일 → 출국); a date before 까지 names a deadline."""
    if not attributes:
        return True
    low = sentence.lower()
    if any(a.startswith(C.deadline_words) for a in attributes) and RE["deadline"].search(sentence):
        return True
    return any(s in low or (len(s) >= 3 and not s.isascii() and s[:-1] in low) for a in attributes for s in synonyms(a))


def _word_before(own: str, memory: str) -> str | None:
    """The nearest content word of the two before the interrogative (not a rate's period, a
    type or order word, nor a figure the memory does not write)."""
    for word in reversed(own.split()[-2:]):
        stem = tx.strip_suffix(word)
        if stem in C.rate_words:
            continue
        if RE["number_word"].fullmatch(stem):
            if stem in memory:
                return stem
            continue
        if (len(stem) < 2 and synonyms(stem) == {stem}) or stem.startswith(
            (*C.type_words, *C.head_stop, *C.order_words)
        ):
            continue
        return stem
    return None


def _noun_after(part: str, at: re.Match[str]) -> str | None:
    """A noun with the copula right after the interrogative ("며칠 출발이야" → 출발)."""
    rest = part[at.end() :].split(maxsplit=1)
    glued = bool(rest) and not part[at.end() : at.end() + 1].isspace()
    after = rest[1:] if glued else rest  # "언제야 …": skip the interrogative's own ending
    if at.group(0) == "몇" and not glued:
        after = after[1:]  # "몇 시 …": skip the counter
    words = after[0].split() if after else []
    noun = RE["copula"].fullmatch(re.sub(r"[?!.,]", "", words[0])) if words else None
    if noun and len(noun.group(1)) >= 2 and not noun.group(1).startswith((*C.type_words, *C.head_stop)):
        return noun.group(1)
    return None


def attribute(part: str, memory: str) -> tuple[str, ...]:
    """The words the interrogative asks about ("체크인 날짜가 언제" → 체크인), read in its own
    sentence and clause only."""
    at = re.search(r"몇|언제|얼마|며칠", part)
    if not at:
        return ()
    own = re.split(r"[?.!,]", part[: at.start()])[-1]
    return tuple(w for w in (_word_before(own, memory), _noun_after(part, at)) if w)


def year_month(sentence: str) -> str:
    """A year-month "2026-02" read as the date it is (2026년 2월), not as two bare figures."""
    return RE["year_month"].sub(lambda m: f"{m.group(1)}년 {int(m.group(2))}월", sentence)


def want_label(want: str) -> Msg:
    """What a facet wants, as the feedback says it after the facet ("'용량'의 금액/수치")."""
    return say(f"memory.want_{want or 'any'}") if want in WANT_KINDS else say("memory.want_counter", counter=want)
