"""Claim-level checks of an answer against its reference, shared by every offline judge.

The judges' signals measure how much of the reference an answer covers; they cannot see a date
swapped for another, a name replaced, a claim denied or a question merely repeated. These checks
read the answer as claims (figures with units, entities, clauses with their sign) and return
*findings*: a cap on accuracy with its evidence, which the suites' rules apply (``rag_findings``
lists them all, strongest first). The algorithms are here; the Korean and English cue words and
phrase patterns they read are data, ``lang/ko.claims.yaml`` (``KO``), and concepts come from the
bilingual ``lexicon``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from re import Pattern

from assay.judges.offline import lang
from assay.judges.offline import lexicon as lx
from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, key_part, say
from assay.metrics.figure_forms import canonical_figures, native_clock_hours

# The Korean cues the checks read (each described in the table).
KO = lang.cues("ko", "claims")


def _say(key: str, **values: object) -> Msg:
    """A finding's evidence as a message (``claims.<key>`` in ``lang/<code>.messages.yaml``)."""
    return say(f"claims.{key}", **values)


@dataclass(frozen=True)
class Finding:
    rule: str
    cap: int
    evidence: Msg

    def note(self) -> Msg:
        # the check's name in the run's language (``finding.<rule>`` in the catalogues)
        return _say("note", rule=say(f"finding.{key_part(self.rule)}"), cap=self.cap, evidence=self.evidence)


@lru_cache(maxsize=4096)
def reference_refuses(reference: str) -> bool:
    """The reference itself says the documents do not hold the answer (and states no figure)."""
    return tx.has_any(reference, KO.no_answer_in_docs) and not tx.quantities(reference)


# A sentence or a parenthesis of its own: "…정보가 없습니다(조문객 주차는 3시간 무료)."
_REFUSAL_PARTS = re.compile(r"[.!?\n]+|[()（）]")


@lru_cache(maxsize=4096)
def reference_refuses_beside(reference: str) -> bool:
    """The reference says the documents do not hold the answer, and its figures are in a
    sentence or a parenthesis of their own beside that refusal ("…요금 정보가 없습니다(주차는
    3시간 무료)"): what the documents do say, given as an aside. An answer that refuses the same
    way (and may repeat the aside) is right; ``reference_refuses`` alone (no figure anywhere)
    still decides whether an answer that does not refuse is unfounded."""
    refusing = _refusing_parts(reference)
    return bool(refusing) and not any(tx.quantities(p) for p in refusing)


def _refusing_parts(reference: str) -> list[str]:
    """The reference's sentences and parentheses that say the documents hold no answer."""
    return [p for p in _REFUSAL_PARTS.split(reference) if tx.has_any(p, KO.no_answer_in_docs)]


def debunks(answer: str, reference: str) -> list[str]:
    """Cues in the answer that call a statement false, unless the reference uses them too or
    itself answers "no" (then saying "that is not true" may be the right answer); and an
    answer that sets the documented rule aside (``KO.set_aside``), which the reference does
    not do."""
    if KO.no_opener.match(tx.normalize(reference)):
        return []
    found = [c for c in tx.DEBUNK_CUES if tx.has_any(answer, (c,)) and not tx.has_any(reference, (c,))]
    norm, ref = tx.normalize(answer), tx.normalize(reference)
    for pattern in KO.set_aside:
        m = pattern.search(norm)
        if m and not pattern.search(ref):
            found.append(f"'{m.group(0)[:40]}'")
    return found


@lru_cache(maxsize=4096)
def refuses(answer: str, reference: str, question: str = "") -> bool:
    """The answer declines to answer: a refusal cue that the reference does not itself use
    (or says the documents are silent on the topic, ``KO.source_silent``), in an answer that
    states none of the reference's figures or entities."""
    cues = [c for c in tx.REFUSAL_CUES if tx.has_any(answer, (c,))]
    if m := KO.source_silent.search(tx.normalize(answer)):
        cues.append(m.group(0))
    beside = reference_refuses_beside(reference)
    if not cues or all(tx.has_any(reference, (c,)) for c in cues) and not (reference_refuses(reference) or beside):
        return False
    # the figures a refusing reference gives beside its refusal are what the documents do say:
    # an answer may repeat them and still decline what they do not say
    said = " ".join(_refusing_parts(reference)) if beside else reference
    present, _ = key_facts_present(answer, said, question)
    return present == 0


def hangul_share(text: str) -> float:
    letters = [ch for ch in tx.normalize(text) if ch.isalpha()]
    return sum("가" <= ch <= "힣" for ch in letters) / len(letters) if letters else 0.0


def cross_language(answer: str, reference: str) -> bool:
    """A Latin-script answer to a Hangul reference."""
    return hangul_share(answer) < 0.3 and hangul_share(reference) >= 0.5


@lru_cache(maxsize=4096)
def entities(text: str) -> tuple[str, ...]:
    """Entity-like words in order: proper nouns and Latin names (Kiwi), and words ending in an
    organisation/branch/place suffix (다온은행, 강남점, 부산지점), without their particles."""
    out: list[str] = [stem for stem in _word_stems(text) if len(stem) >= 3 and _suffix(stem)]
    for m in tx.analyse(text):
        if m.tag == "NNP" and len(m.lemma) >= 2:
            out.append(m.lemma)
        elif m.tag == "SL" and (len(m.lemma) >= 3 or m.lemma.isupper()) and m.lemma[:1].isupper():
            out.append(m.lemma)
    return tuple(dict.fromkeys(out))


def _present(entity: str, text: str) -> bool:
    return entity.lower() in tx.normalize(text).lower()


def _suffix(word: str) -> str | None:
    """The organisation/branch/place suffix the word ends in (은행, 지점), if any."""
    return next((s for s in KO.entity_suffixes if word.endswith(s) and len(word) > len(s)), None)


def _kind(entity: str) -> str:
    return _suffix(entity) or ("latin" if entity.isascii() else "name")


@lru_cache(maxsize=4096)
def _conceded(text: str) -> tuple[tx.Quantity, ...]:
    """Figures a sentence concedes before its answer: "2%는 100만 원이지만 최대 60만 원이므로
    60만 원" states 100만 원 only to set it aside for the figure of the same kind after
    -지만/-으나."""
    out: list[tx.Quantity] = []
    for sentence in tx.sentences(tx.normalize(text)):
        if "지만" not in sentence and "으나" not in sentence and "나 " not in sentence:
            continue
        split = _split_at(sentence, KO.conceded_endings)
        if not split:
            continue
        later = tx.quantities(split[1])
        out += [q for q in tx.quantities(split[0]) if any(r.kind == q.kind and not tx.same_quantity(r, q) for r in later)]
    return tuple(out)


def figure_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """Per unit: a reference figure the answer lacks, replaced by another of that unit (a
    figure the reference concedes before its answer, ``_conceded``, is no answer either)."""
    asked = tx.quantities(question)
    ref = _without(_without(_claimed_quantities(reference), asked), _conceded(reference))
    ans = _without(_claimed_quantities(answer), asked)
    out = []
    for kind in dict.fromkeys(_span_kind(r) for r in ref):
        missing = _without([r for r in ref if _span_kind(r) == kind], ans)
        other = _without([a for a in ans if _span_kind(a) == kind], ref)
        if missing and other:
            said, lacked = ", ".join(a.text for a in other), ", ".join(r.text for r in missing)
            out.append(Finding("figure-substitution", 1, _say("figure_substitution", said=said, lacked=lacked)))
    return out


def _without(figures: Sequence[tx.Quantity], others: Sequence[tx.Quantity]) -> list[tx.Quantity]:
    """The figures none of ``others`` states, in any notation."""
    return [q for q in figures if not any(tx.same_quantity(q, o) for o in others)]


def _span_kind(q: tx.Quantity) -> str:
    """A figure's kind, weeks counted as days ("일주일 전" replaces "2주 전")."""
    return "일" if q.unit == "주" else q.kind


@lru_cache(maxsize=4096)
def clock_in_context(answer: str, known: str) -> tuple[str, tuple[str, ...]]:
    """(answer, rewritten hours) with each bare hour below 12 written as the afternoon hour the
    question or reference states ("1시 타임은 없어요" to "오후 1시 예식 있어요?" is 13시), when
    neither states the morning hour: the answer keeps the context's half of the day."""
    if "시" not in answer:
        return answer, ()
    hours = {int(h) for h in KO.hour_of.findall(canonical_figures(tx.normalize(known)))}
    changed: list[str] = []

    def rewrite(m: re.Match[str]) -> str:
        hour = int(m.group(1))
        if 1 <= hour < 12 and hour + 12 in hours and hour not in hours:
            changed.append(_say("clock_hour", hour=hour, afternoon=hour + 12))
            return f"{hour + 12}{m.group(2)}"
        return m.group(0)

    # (a clock hour in native numerals, "네 시 전에", is a bare hour too)
    out = KO.bare_hour.sub(rewrite, native_clock_hours(answer))
    return out, tuple(changed)


@lru_cache(maxsize=4096)
def _claimed_quantities(text: str) -> tuple[tx.Quantity, ...]:
    """The text's figures less the one-unit period a charge is counted by ("하루 12,000원" says
    no span of one day, so "최소 3일" beside it substitutes nothing); ``rate_period_findings``
    compares periods."""
    found = tx.quantities(text)
    periods = [KO.period_units.get(period) for _, period, _ in _rates(text)] if found else []
    out = []
    for q in found:  # one occurrence per rate: "1일까지 무료, 이후 하루 12,000원" keeps its 1일
        if q.value == 1 and q.unit in periods:
            periods.remove(q.unit)
            continue
        out.append(q)
    return tuple(out)


@lru_cache(maxsize=4096)
def _word_stems(text: str) -> tuple[str, ...]:
    return tuple(tx.strip_suffix(re.sub(r"[^\w가-힣-]", "", w)) for w in tx.normalize(tx.strip_citations(text)).split())


def _neighbours(entity: str, text: str) -> set[str]:
    """Stems of the words right before and after the word holding ``entity``."""
    words = _word_stems(text)
    out: set[str] = set()
    for i, word in enumerate(words):
        if entity in word:
            out.update(w for w in (words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else "") if w)
    return out


def _same_slot(answer_entity: str, answer: str, ref_entity: str, reference: str) -> bool:
    """Two proper nouns are a swap only where they fill the same slot (a shared neighbouring
    word: "내과 박준영 교수" ↔ "내과 정하늘 교수"); a name the answer adds elsewhere is extra
    detail, not a substitution."""
    return bool(_neighbours(answer_entity, answer) & _neighbours(ref_entity, reference))


def entity_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """A reference entity the answer lacks, replaced by another of its kind; else, to a
    who/where/which question, the reference's first entity missing."""
    ref_ents = [e for e in entities(reference) if not _present(e, question)]
    ans_ents = [e for e in entities(answer) if not _present(e, question) and not _present(e, reference)]
    missing = [e for e in ref_ents if not _present(e, answer)]
    if swapped := _swapped_entity(missing, ans_ents, answer, reference):
        return [Finding("entity-substitution", 1, _say("entity_substitution", answer=swapped[1], reference=swapped[0]))]
    if ref_ents and missing and missing[0] == ref_ents[0] and tx.has_any(question, KO.entity_questions):
        return [Finding("key-entity-missing", 2, _say("key_entity_missing", entity=ref_ents[0]))]
    return []


def _swapped_entity(missing: list[str], said: list[str], answer: str, reference: str) -> tuple[str, str] | None:
    """(reference entity, answer entity) of one kind (…은행, …점, Latin); proper nouns only
    where they fill the same slot."""
    pairs = [(m, a) for m in missing for a in said if _kind(m) == _kind(a)]
    kinded = next(((m, a) for m, a in pairs if _kind(m) != "name"), None)
    return kinded or next(((m, a) for m, a in pairs if _same_slot(a, answer, m, reference)), None)


# Morpheme tags whose lemmas carry content (nouns, verbs, adjectives, roots, adverbs, Latin).
CONTENT_TAGS = frozenset({"NNG", "NNP", "VV", "VA", "XR", "MAG", "XPN"})
# Lemmas too common to align clauses by (a clause is not "about" 하다 or 있다), and units
# (figures are compared as figures).
_WEAK_TOKENS = tx.STOP_LEMMAS | set(tx.UNITS) | set(KO.weak_lemmas)


@lru_cache(maxsize=8192)
def claim_tokens(text: str) -> frozenset[str]:
    """What a clause is about, comparable across wordings and languages: content lemmas
    mapped to their lexicon concept (떼다 → issue, free → free, 뒤 → after), other lemmas as
    they are, English words the same way, and figures as ``#value unit`` in their smallest
    unit (2주 → #14일)."""
    return _claim_tokens(text, tx.analyse(text))


def _claim_tokens(text: str, morphs: tuple[tx.Morph, ...]) -> frozenset[str]:
    out: set[str] = set(lx.phrase_concepts(tx.normalize(text)))
    out.update(lx.english_concepts(tx.normalize(text)))
    skip = -1
    prefixed: set[str] = set()  # concepts only a prefixed noun names ("회원" in "비회원")
    plain: set[str] = set()
    for i, m in enumerate(morphs):
        if i == skip:
            continue
        if m.tag == "XPN" and m.lemma in KO.negating_prefixes and _at(morphs, i + 1, "NNG"):
            # "비회원" is not "회원": the prefix and its noun are one word, another subject
            out.add(m.lemma + morphs[i + 1].lemma)
            prefixed.add(lx.concept_of_lemma(morphs[i + 1].lemma) or "")
            skip = i + 1
            continue
        if m.tag not in CONTENT_TAGS or m.lemma in _WEAK_TOKENS:
            continue
        concept = lx.concept_of_lemma(m.lemma)
        out.add(concept if concept is not None else m.lemma)
        plain.add(concept or "")
    out -= prefixed - plain
    if "next_day" in out and len(KO.next_day.findall(text)) == len(KO.overnight.findall(text)):
        out.discard("next_day")  # "21시~다음 날 7시": the end of an overnight span, not a condition
    for q in tx.quantities(text):
        out.add(figure_token(q))
    return frozenset(out)


def figure_token(q: tx.Quantity) -> str:
    value, unit = q.value, q.unit
    if unit in tx.UNIT_FACTORS:
        unit, factor = tx.UNIT_FACTORS[unit]
        value *= factor
    return f"#{value:.6g}{unit}"


def is_concept_token(token: str) -> bool:
    """Tokens that compare across languages: lexicon concepts, figures, Latin words."""
    return token in lx.CONCEPTS or token.startswith("#") or token.isascii()


# A negation that ends in an adnominal ending modifies a noun ("19세가 안 된 사람", "할 수
#없는 경우") rather than denying the clause's claim.
_MODIFIER_TAGS = frozenset({"ETM"})


@lru_cache(maxsize=4096)
def polarity(text: str) -> int:
    """Parity of the negations that make a claim (1 negative, 0 affirmative): Kiwi's
    negation morphemes (않다/없다/못/안/아니다) except inside a condition (…하지 않으면,
    없으면) or a modifier (안 된 사람, 할 수 없는 경우), denying prefixes (불가, 금지, 제외),
    and English negations outside if/unless/when clauses (up to the next comma). "Free" words (무료, free) count as a
    negation, since free is as often said "돈이 들지 않습니다" or "no fee". So "할 수 없습니다",
    "불가합니다" and "cannot" are negative, and "무료입니다" has the sign of "수수료는 없습니다"."""
    return _polarity(text, tx.analyse(text))


def _polarity(text: str, morphs: tuple[tx.Morph, ...]) -> int:
    count = 0
    for i, m in enumerate(morphs):
        if (
            (m.lemma in tx.NEGATION_LEMMAS and m.tag in {"VX", "VA", "VCN", "MAG"} and not _inside(morphs, i))
            or _denies(morphs, i)
            or _negative_predicate(morphs, i)
        ) and not _not_only(morphs, i):
            # the endings after the predicate, past honorific and tense markers ("않으셨다면":
            # 않 + 으시 + 었 + 다면 is a condition as "않으면" is)
            rest = [k for k in range(i + 1, len(morphs)) if morphs[k].tag != "EP"]
            following = rest[:2] if m.tag != "MAG" else rest[1:3]
            if not any(
                (morphs[k].tag == "EC" and morphs[k].lemma in KO.conditional_endings)
                or (morphs[k].tag in _MODIFIER_TAGS and not _clause_final_modifier(morphs, k))
                or _premise(morphs, i, k)
                for k in following
            ):
                count += 1
    # an opening "No —" / "Yes," answers the question (the yes-no check reads it), it does not
    # negate the clause after it
    low = KO.yes_no_particle.sub("", tx.normalize(text))
    # a quoted label ("'반품 불가'로 표시된 상품") names a thing, it denies nothing
    count += sum(_QUOTED.sub(" ", low).count(p) for p in lx.NEGATION_KO)
    count += len(lx.NEGATION_EN.findall(lx.without_conditions(low)))
    return count % 2


_PREDICATE_TAGS = frozenset({"VV", "VA", "VX", "VCP", "XSV", "XSA"})


def _at(
    morphs: tuple[tx.Morph, ...], k: int, tags: str | Collection[str], lemmas: Collection[str] | None = None
) -> bool:
    """Morpheme ``k`` is in the text, has the tag (or one of the tags) and, given ``lemmas``,
    one of them."""
    if not 0 <= k < len(morphs):
        return False
    m = morphs[k]
    tagged = m.tag == tags if isinstance(tags, str) else m.tag in tags
    return tagged and (lemmas is None or m.lemma in lemmas)


def _clause_final_modifier(morphs: tuple[tx.Morph, ...], k: int) -> bool:
    return _at(morphs, k + 1, "NNB", KO.clause_final_nouns) and _at(morphs, k + 2, "VCP")


def _premise(morphs: tuple[tx.Morph, ...], i: int, k: int) -> bool:
    """Morpheme ``k`` is a reason ending with the clause's own predicate after it, and the
    negation at ``i`` places the case (아니다 after a noun, or 안 되다 / 넘지 않다 after a figure)."""
    if not (
        morphs[k].tag == "EC"
        and morphs[k].lemma in KO.reason_endings
        and any(f.tag in _PREDICATE_TAGS for f in morphs[k + 1 :])
    ):
        return False
    m = morphs[i]
    if m.tag == "VCN":
        return True
    # the figure the negated predicate is said of: "4만 원이 안 되니", "3시간이 넘지 않으니"
    head = i if m.tag == "MAG" else i - 2
    return _at(morphs, head - 1, {"JKS", "JKC"}) and _at(morphs, head - 2, {"NNB", "SN", "NR"})


def _not_only(morphs: tuple[tx.Morph, ...], i: int) -> bool:
    """"…뿐 아니라" / "…만 아니라" (not only): adds a member, denies nothing."""
    return morphs[i].lemma == "아니다" and _at(morphs, i - 1, "JX", {"뿐", "만"})


def _denies(morphs: tuple[tx.Morph, ...], i: int) -> bool:
    """A negation Kiwi does not tag as one: the prohibitive "-지 말다" ("내놓지 마세요", not
    "오늘 말고") and the avoid verbs (피하다, 삼가다, 자제하다)."""
    m = morphs[i]
    if m.lemma == "말다" and m.tag == "VX":
        # "잊지 마세요" (don't forget) tells the reader to do it: two negations
        return i > 1 and _at(morphs, i - 1, "EC", {"지"}) and morphs[i - 2].lemma not in KO.fail_lemmas
    if m.tag == "VV":
        return m.lemma in KO.avoid_lemmas
    # 자제하다 is a noun and 하다; 금지 alone is counted with the denying words (NEGATION_KO)
    return m.tag == "NNG" and m.lemma == "자제" and _at(morphs, i + 1, "XSV")


def _inside(morphs: tuple[tx.Morph, ...], i: int) -> bool:
    """"안" as the noun inside, which Kiwi may tag as the negating adverb ("기간 안이어도" →
    안/MAG + 잇다): before a particle or the copula, or after a figure, a bound noun or a
    span/place noun with no predicate after it. "예약 안 돼요" and "1개 안 남았어요" (a predicate
    follows) stay negations."""
    m = morphs[i]
    if m.lemma != "안" or m.tag != "MAG":
        return False
    prev = morphs[i - 1] if i else None
    nxt = morphs[i + 1] if i + 1 < len(morphs) else None
    if nxt is not None and (nxt.tag.startswith("J") or nxt.tag == "VCP" or nxt.lemma == "잇다"):
        return True
    # after a span or a place, unless a predicate follows ("1개 안 남았어요" still denies)
    return (
        prev is not None
        and (prev.tag in {"SN", "NNB"} or (prev.tag == "NNG" and prev.lemma in KO.inside_nouns))
        and (nxt is None or nxt.tag not in {"VV", "VA", "VX", "XSV", "XSA"})
    )


def _stopped(morphs: tuple[tx.Morph, ...], i: int) -> bool:
    m = morphs[i]
    if not _at(morphs, i - 1, "JKS"):
        return False
    if m.tag == "VV":
        return m.lemma in KO.stop_verbs
    return m.tag == "NNG" and m.lemma in KO.stop_nouns and _at(morphs, i + 1, "XSV", {"되", "되다"})


def _negative_predicate(morphs: tuple[tx.Morph, ...], i: int) -> bool:
    m = morphs[i]
    if _stopped(morphs, i):
        return True
    if m.tag == "NNG" and m.lemma in KO.negative_noun_predicates:
        return _at(morphs, i + 1, "XSV")
    # "환불은 어렵습니다", "하기 힘듭니다": the polite "cannot" of service answers ("어려운
    # 경우" is a modifier, left out with the other modifiers)
    return m.tag == "VA" and m.lemma in KO.negative_adjectives


_QUOTED = re.compile(r"'[^']{1,20}'|\"[^\"]{1,20}\"|‘[^’]{1,20}’|“[^”]{1,20}”|「[^」]{1,20}」")


def _free_parity(text: str) -> int:
    """Parity of the plain "free" words (무료, free) among a clause's negations: they carry a
    sign only against a clause that also speaks of price."""
    low = tx.normalize(text).lower()
    count = sum(low.count(w) for w in lx.FREE_WORDS_KO)
    count += sum(len(re.findall(rf"\b{w}\b", lx.without_conditions(low))) for w in lx.FREE_WORDS_EN)
    return count % 2


@dataclass(frozen=True)
class _Clause:
    text: str
    tokens: frozenset[str]
    sign: int
    # the tokens of the whole segment the clause was cut from (-고/-며 joins): conditions are
    # read over it, signs per clause
    scope: frozenset[str] = frozenset()

    @property
    def wide(self) -> frozenset[str]:
        return self.scope or self.tokens

    def agrees_in_sign(self, other: _Clause) -> bool:
        """Same sign; unless both speak of price, "무료" may be read either way ("앱에서 미리
        등록하시면 됩니다" does not deny "사전 등록하면 … 무료", and "배달비가 안 붙어요" still
        agrees with "배달비가 무료")."""
        if self.sign == other.sign:
            return True
        if self.tokens & KO.price_concepts and other.tokens & KO.price_concepts:
            return False
        return self.sign ^ _free_parity(self.text) == other.sign ^ _free_parity(other.text)


@lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[_Clause, ...]:
    """The text's clauses with their tokens and sign, from one analysis of the whole text
    (Kiwi's morpheme offsets say which clause each morpheme belongs to)."""
    if tx.CITATION_RE.search(text):  # offsets would shift where tags are removed
        return tuple(_Clause(c, claim_tokens(c), polarity(c)) for c in tx.segments(text))
    morphs, norm = tx.analyse(text), tx.normalize(text)
    return tuple(c for _, start, end in tx.segment_spans(text) for c in _segment_clauses(morphs, norm, start, end))


def _segment_clauses(morphs: tuple[tx.Morph, ...], norm: str, start: int, end: int) -> list[_Clause]:
    """The clauses one segment joins (-고/-며), each with its sign, sharing the segment's tokens."""
    pieces = _joined_clauses(morphs, start, end)
    owns = [tuple(m for m in morphs if a <= m.start < b) for a, b in pieces]
    # a later clause with a topic of its own ("토요일은 … 운영하며 일요일은 휴무입니다") is a
    # claim about another subject: its words are not conditions of the others, nor theirs of it
    apart = [k > 0 and _has_topic(own) for k, own in enumerate(owns)]
    shared = [k for k in range(len(pieces)) if not apart[k]]
    scope: frozenset[str] = frozenset()
    if len(shared) > 1:
        scope = _claim_tokens(
            " ".join(norm[pieces[k][0] : pieces[k][1]] for k in shared), tuple(m for k in shared for m in owns[k])
        )
    out = []
    for k, ((piece_start, piece_end), own) in enumerate(zip(pieces, owns, strict=True)):
        clause = norm[piece_start:piece_end].strip()
        if len(clause) >= 2:
            # "반납하지 않고 4시간을 넘기면 …": a clause -고 joins to a condition is part of it
            # (unless it has a topic of its own: "현금은 받지 않고 카드로 결제하면 …" denies)
            leads = k + 1 < len(owns) and _opens_condition(owns[k + 1]) and not _has_topic(own)
            sign = 0 if leads else _polarity(clause, own)
            out.append(_Clause(clause, _claim_tokens(clause, own), sign, frozenset() if apart[k] else scope))
    return out


def _opens_condition(morphs: tuple[tx.Morph, ...]) -> bool:
    """The clause's first connective ending is conditional (-면/-으면): it states a condition,
    and a clause joined before it with -고 is part of that condition."""
    first = next((m for m in morphs if m.tag == "EC"), None)
    return first is not None and first.lemma in {"면", "으면"}


def _has_topic(morphs: tuple[tx.Morph, ...]) -> bool:
    """A noun marked as the topic (은/는 after a noun or a figure)."""
    return any(
        m.tag == "JX" and m.lemma in {"은", "는"} and prev.tag in {"NNG", "NNP", "NNB", "SN", "SL"}
        for prev, m in zip(morphs, morphs[1:], strict=False)
    )


def _joined_clauses(morphs: tuple[tx.Morph, ...], start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of the clauses one segment joins with -며, split after the ending."""
    cuts = [start]
    own = [m for m in morphs if start <= m.start < end]
    for m, nxt in zip(own, own[1:], strict=False):
        if m.tag == "EC" and m.lemma in KO.clause_joiners and nxt.tag != "VX":
            cuts.append(nxt.start)
    cuts.append(end)
    return list(zip(cuts, cuts[1:], strict=False))


def _reversed_concepts(answer: _Clause, ref: _Clause) -> list[tuple[str, str]]:
    """(answer concept, reference concept) pairs where the answer swapped a condition for its
    opposite (출국 후 ↔ 출국 전, 이상 ↔ 미만, 무료 ↔ 유료). A clause naming two of one group
    ("7일이 지나기 전에": after and before) is ambiguous and not read as a swap."""
    out = []
    for concept in answer.wide:
        if concept in ref.wide or lx.opposites(concept) & answer.wide:
            continue
        for other in sorted(lx.opposites(concept)):
            if other in ref.wide:
                out.append((concept, other))
    return out


def day_swap_findings(answer: str, reference: str, question: str = "") -> list[Finding]:
    """The reference names one day (당일 / 다음 날 / 전날) and the answer only another, which
    the question does not name either: the answer moved the event to another day."""
    ref = claim_tokens(reference) & KO.day_concepts
    said = claim_tokens(answer) & KO.day_concepts
    if len(ref) != 1 or not said or said & ref or said & claim_tokens(question):
        return []
    clause = next((c.text for c in _clauses(answer) if c.tokens & said), answer)
    return [Finding("reversed-condition", 2, _say("other_day", answer=clause[:40], reference=reference[:40]))]


def _weekdays(text: str) -> set[str]:
    found = {m.group(1) for m in KO.weekday_word.finditer(text)}
    for m in KO.weekday_list.finditer(text):
        found |= {ch for ch in m.group(0) if ch in KO.weekday_letters}
    return found


def weekday_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """The reference names weekdays and the answer only others, none of which the question
    names ("월·수 오후 4시" for "화·목 오후 4시"): a wrong day beside whatever else is right."""
    ref, said = _weekdays(tx.normalize(reference)), _weekdays(tx.normalize(answer))
    if not ref or not said or ref & said or said & _weekdays(tx.normalize(question)):
        return []
    days, ref_days = ("·".join(d for d in KO.weekday_letters if d in found) for found in (said, ref))
    return [Finding("weekday-substitution", 2, _say("other_weekday", answer=days, reference=ref_days))]


def _past_the_bound(clause: _Clause, ref: _Clause) -> bool:
    """The answer clause speaks of the case past the reference clause's upper bound ("2명까지
    무료" → "세 번째 분부터는 … 내시면 돼요"): the other sign is its complement, not a reversal."""
    return bool(
        KO.past_bound.search(clause.text)
        and ref.tokens & {"within", "at_most"}
        and "more_than" not in ref.tokens
        and not KO.past_bound.search(ref.text)
    )


def _bound_side(text: str) -> str:
    """Which side of a bound the clause places its case on ("below", "past"), or "" when it
    names neither or both ("20분 전 이후에는": ambiguous)."""
    below, past = bool(KO.below_bound.search(text)), bool(KO.past_bound_side.search(text))
    return "below" if below and not past else "past" if past and not below else ""


def _is_conditional(text: str) -> bool:
    return any(m.tag == "EC" and m.lemma in KO.conditional_endings for m in tx.analyse(text))


def _complementary_case(clause: _Clause, ref: _Clause) -> bool:
    """The answer clause and the reference clause place their cases on opposite sides of a
    bound, one of them as a condition ("천 점이 안 되면 쓸 수 없고" beside "1,000점부터 사용할
    수 있습니다"; "13일까지 신청하면 안 나가요" beside "그 이후에 신청하면 청구됩니다"): the other
    sign is the complementary case (the contrapositive), not a reversal. The same side with the
    other sign is still a reversal, and so is a swapped comparison (이상 ↔ 이하), checked by the
    caller. "이내" is left out: "24시간 이내에 취소하면" is past a "24시간 전까지" deadline."""
    a, r = _bound_side(clause.text), _bound_side(ref.text)
    return bool(a and r and a != r and (_is_conditional(clause.text) or _is_conditional(ref.text)))


def _left_out_of_list(clause: _Clause, ref: _Clause) -> bool:
    """The answer clause denies the claim to someone a closed list of the reference leaves out
    ("방문객은 등록이 안 되고" beside "입주민만 할 수 있습니다"): the list's complement, not a
    reversal. It names none of the list's members."""
    if not clause.sign or ref.sign:
        return False
    lists = _closed_lists(ref.text)
    said = _content_lemmas(clause.text)
    return bool(lists) and all(not (members & said) for members, _ in lists)


def polarity_findings(answer: str, reference: str, question: str = "") -> list[Finding]:
    """Clause by clause (split on punctuation and commas, so two negated clauses in one
    sentence do not cancel out): each answer clause is aligned with the reference clauses that
    share the most of what it is about (``claim_tokens``: synonyms and English words map to
    one concept). If every best-aligned clause has the other sign, or the answer swapped a
    condition for its opposite (전/후, 이상/미만, 무료/유료), the answer contradicts it. A clause
    that agrees with one of the best-aligned clauses is consistent."""
    # a reason the reference gives for its conclusion ("…7년 이내여야 하므로 | 8년 차는 신청할
    # 수 없습니다") is no claim to align with: the conclusion after it is
    refs = [c for c in _clauses(reference) if len(c.tokens) >= 1 and not KO.reason_piece.search(c.text)]
    if not refs:
        return []
    for clause in _clauses(answer):
        aligned = _aligned(clause, refs) if len(clause.tokens) >= 2 else []
        if not aligned or _consistent(clause, aligned):
            continue
        ref = aligned[0]
        swaps = _reversed_concepts(clause, ref)
        if swaps and clause.agrees_in_sign(ref):
            pairs = joined((joined((lx.concept_name(a), lx.concept_name(b)), "↔") for a, b in swaps), ", ")
            evidence = _say("reversed_condition", pairs=pairs, answer=clause.text[:40], reference=ref.text[:40])
            return [Finding("reversed-condition", 2, evidence)]
        return [Finding("polarity", 2, _say("polarity", answer=clause.text[:40], reference=ref.text[:40]))]
    return []


def _aligned(clause: _Clause, refs: list[_Clause]) -> list[_Clause]:
    """The reference clauses sharing two tokens or more with ``clause`` whose share of the
    smaller clause is within 0.1 of the best, when the best is half at least."""
    scored = []
    for ref in refs:
        shared = clause.tokens & ref.tokens
        if len(shared) >= 2:
            scored.append((len(shared) / max(1, min(len(clause.tokens), len(ref.tokens))), ref))
    best = max((share for share, _ in scored), default=0.0)
    return [ref for share, ref in scored if share >= best - 0.1] if best >= 0.5 else []


def _consistent(clause: _Clause, aligned: list[_Clause]) -> bool:
    """The clause agrees with an aligned reference clause, or its other sign is no reversal:
    the case past the reference's bound, the other side of a bound, or one a closed list
    leaves out."""
    ref = aligned[0]
    return (
        any(clause.agrees_in_sign(r) and not _reversed_concepts(clause, r) for r in aligned)
        or (_past_the_bound(clause, ref) and not _reversed_concepts(clause, ref))
        or any(_complementary_case(clause, r) and not _reversed_concepts(clause, r) for r in aligned)
        or any(_left_out_of_list(clause, r) for r in aligned)
    )


# -- a closed list ("A와 B만", "인터넷으로만") and an answer that grants a member outside it ---------

_NOUN_TAGS = frozenset({"NNG", "NNP", "SL"})
_PHRASE_TAGS = _NOUN_TAGS | {"XSN", "SN", "NNB", "NR", "JC"}


def _noun_phrase(morphs: tuple[tx.Morph, ...], end: int) -> tuple[str, ...]:
    """The nouns of the phrase ending at morpheme ``end`` (a list joined by 와/과/및 too),
    last noun last: "1인 오피스와 지정석 멤버" → (오피스, 지정석, 멤버)."""
    out: list[str] = []
    j = end
    while j >= 0 and morphs[j].tag in _PHRASE_TAGS:
        if morphs[j].tag in _NOUN_TAGS:
            out.append(morphs[j].lemma)
        j -= 1
    return tuple(reversed(out))


def _closed_lists(text: str) -> list[tuple[frozenset[str], str]]:
    """(members, particle) of each "X만" the text restricts a claim to: 만 after a noun, or
    after a noun and its particle ("인터넷으로만", "매표소에서만"); not after a figure ("3만
    원만": an amount)."""
    morphs = tx.analyse(text)
    out = []
    for k, m in enumerate(morphs):
        if not (m.tag == "JX" and m.lemma == "만") or k == 0:
            continue
        j, particle = k - 1, ""
        if morphs[j].tag in {"JKB", "JKO", "JKS"}:
            particle, j = morphs[j].lemma.lstrip("으"), j - 1
        if not _at(morphs, j, _NOUN_TAGS | {"XSN"}):
            continue
        members = _noun_phrase(morphs, j)
        if members:
            out.append((frozenset(members), particle))
    return out


def _outside_member(
    clause: _Clause, members: frozenset[str], particle: str, known: frozenset[str], shares_claim: bool
) -> str | None:
    """The words by which an answer clause grants its claim beyond a closed list: "X뿐 아니라",
    naming a member, or — when the clause says the list's claim (``shares_claim``) — "누구나", another noun in the list's slot (the same particle: "앱에서" for "매표소에서만"),
    or, for a list of subjects, a noun the reference never names marked with 도 ("자유석 멤버도"
    for "지정석 멤버만", "방문객도" for "입주민만")."""
    text = clause.text
    if (m := KO.beyond.search(text)) and set(_content_lemmas(text[: m.start()])) & members:
        return text[max(0, m.start() - 12) : m.end()].strip()
    if not shares_claim:
        return None
    if m := KO.universal.search(text):
        return m.group(0)
    morphs = tx.analyse(text)
    for k, m in enumerate(morphs):
        if not _at(morphs, k - 1, _NOUN_TAGS | {"XSN"}):
            continue
        phrase = _noun_phrase(morphs, k - 1)
        if not phrase or set(phrase) & members and not (set(phrase) - known):
            continue
        if particle and m.tag in {"JKB", "JKO", "JKS"} and m.lemma.lstrip("으") == particle:
            if not set(phrase) & known:
                return " ".join(phrase) + m.lemma
        elif not particle and m.tag == "JX" and m.lemma == "도" and set(phrase) - known:
            return " ".join(phrase) + "도"
    return None


def closed_list_findings(answer: str, reference: str) -> list[Finding]:
    """The reference grants a claim only to the members of a list ("1인 오피스와 지정석 멤버만
    할 수 있습니다", "인터넷으로만 접수합니다") and an answer clause on the same claim, with the
    same sign, grants it beyond them (``_outside_member``)."""
    if "만" not in reference:
        return []
    known = _content_lemmas(reference)
    for ref in _clauses(reference):
        if ref.sign:
            continue
        for members, particle in _closed_lists(ref.text):
            claim = frozenset(
                t for t in ref.tokens if t not in members and not t.startswith("#") and t not in KO.subject_concepts
            )
            for clause in _clauses(answer):
                if clause.sign or not (clause.tokens & claim) or KO.universal.search(ref.text):
                    continue
                shares = len(clause.tokens & claim) >= 2
                outside = _outside_member(clause, members, particle, known, shares)
                if outside:
                    listed = "·".join(sorted(members))
                    evidence = _say(
                        "closed_list", listed=listed, particle=particle, outside=outside,
                        answer=clause.text[:40], reference=ref.text[:40],
                    )  # fmt: skip
                    return [Finding("closed-list", 1, evidence)]
    return []


# -- "even if X" against "if X": the answer says the reference's consequence does not follow ----


def _split_at(sentence: str, endings: frozenset[str]) -> tuple[str, str] | None:
    """(condition, consequence) of a sentence at its first connective ending in ``endings``."""
    morphs = tx.analyse(sentence)
    for k, m in enumerate(morphs):
        if m.tag == "EC" and m.lemma in endings and k + 1 < len(morphs):
            return sentence[: m.start], sentence[morphs[k + 1].start :]
    return None


def _consequence_sign(text: str) -> int:
    """A consequence's sign, "X 없이" (without a charge, a wait) counted as a denial of X."""
    return polarity(text) ^ (len(re.findall(r"없이(?!는)", text)) % 2)


def concessive_findings(answer: str, reference: str) -> list[Finding]:
    """The reference says what follows if X ("기한을 넘기면 대기자에게 순서가 넘어갑니다") and
    the answer says "even if X" ("기한을 넘겨도 …") with a consequence that is not the
    reference's: fewer than two of its claim words, or the other sign ("진단서를 내면 위약금 없이" →
    "진단서를 내셔도 위약금 10%는 똑같이 빠지고"). The condition must be the reference's (at
    least half of its words, one at least)."""
    conditions = []
    for sentence in tx.sentences(tx.normalize(reference)):
        split = _split_at(sentence, KO.conditional_endings)
        if split and split[1].strip():
            conditions.append((sentence, _content_lemmas(split[0]), split[1]))
    if not conditions:
        return []
    for sentence in tx.sentences(tx.normalize(answer)):
        split = _split_at(sentence, KO.concessive_endings)
        if not split or not split[1].strip():
            continue
        said = _content_lemmas(split[0])
        for ref_sentence, cond, consequence in conditions:
            shared = said & cond
            if not shared or len(shared) * 2 < len(said):
                continue
            asked = claim_tokens(split[0]) | claim_tokens(ref_sentence[: len(ref_sentence) - len(consequence)])
            common = (claim_tokens(split[1]) & claim_tokens(consequence)) - asked
            if len(common) >= 2 and _consequence_sign(split[1]) == _consequence_sign(consequence):
                continue
            evidence = _say("even_if", reference=ref_sentence[:40], answer=sentence[:40])
            return [Finding("even-if", 2, evidence)]
    return []


# -- who pays: the party named as the payer of a charge -------------------------------------------


@lru_cache(maxsize=4096)
def _payers(text: str) -> tuple[str, ...]:
    """The parties a text names as the subject of paying ("고객이 부담합니다", "판매자가
    냅니다", "회사 측에서 부담"): the noun phrase before 이/가/께서/에서 right before the
    paying predicate, honorifics (님) left out."""
    morphs = tx.analyse(text)
    out = []
    for k, m in enumerate(morphs):
        pays = (m.tag == "NNG" and m.lemma in KO.paying_nouns and _at(morphs, k + 1, {"XSV", "XSA"})) or (
            m.tag == "VV" and m.lemma in KO.paying_verbs
        )
        if not pays or k < 2 or not (_at(morphs, k - 1, "JKS") or _at(morphs, k - 1, "JKB", {"에서"})):
            continue
        j = k - 2
        if _at(morphs, j, "XSN", {"님"}):
            j -= 1
        if _at(morphs, j, "NNB", {"측"}):
            j -= 1
        phrase = _noun_phrase(morphs, j) if _at(morphs, j, _NOUN_TAGS) else ()
        if phrase:
            out.append("".join(phrase[-2:]))
    return tuple(out)


def payer_findings(answer: str, reference: str) -> list[Finding]:
    """The reference names who pays a charge ("배송비는 고객이 부담합니다") and the answer names
    another party in that place ("배송비는 저희 매장이 부담하니"): the payer reversed."""
    ref = _payers(reference)
    if not ref:
        return []
    for party in _payers(answer):
        if not any(party in r or r in party for r in ref):
            return [Finding("payer-swap", 1, _say("payer_swap", answer=party, reference=ref[0]))]
    return []


def _anchors(clause: _Clause) -> frozenset[str]:
    """The words that say what a clause is about (일반석, 서귀포, 영업소): its claim tokens that
    are neither lexicon concepts nor figures."""
    return frozenset(
        t
        for t in clause.tokens
        if not t.startswith("#")
        and (t not in lx.CONCEPTS or t in KO.subject_concepts)
        and len(t) >= 2
        and t not in KO.time_of_day
    )


def _is_subject(token: str) -> bool:
    """A token naming whom a figure is for: a subject concept, or a noun made its complement
    by a negating prefix (비회원 beside 회원)."""
    return token in KO.subject_concepts or (len(token) >= 3 and token[0] in KO.negating_prefixes and token not in lx.CONCEPTS)


def _names(words: frozenset[str], clause: _Clause) -> frozenset[str]:
    """The anchor words a clause says, as tokens or written out ("제주공항" in "제주 공항" is
    one token in one text and two in another)."""
    flat = clause.text.replace(" ", "")
    return frozenset(w for w in words if w in clause.tokens or (w not in lx.CONCEPTS and w in flat))


FigureClauses = list[tuple[_Clause, tuple[tx.Quantity, ...]]]
# (answer clause's home, the reference clause its figure belongs to) -> (answer clause, figure)
Misplaced = dict[tuple[int, int], tuple[_Clause, tx.Quantity]]


def _figure_clauses(text: str) -> FigureClauses:
    return [(c, qs) for c in _clauses(text) if (qs := tx.quantities(c.text))]


def swap_findings(answer: str, reference: str) -> list[Finding]:
    """Two reference figures swapped between their subjects ("일반석 23kg, 프레스티지석 32kg" →
    "일반석 32kg, 프레스티지석 23kg"), or one subject given another's figure: every figure is
    "in the reference", so the per-unit figure check cannot see it. An answer clause's figure
    is misplaced when the clause names one reference clause (``_home``) and the figure is
    another's; a figure merely repeated beside another subject (a total) is no swap."""
    # a parenthesis with a topic of its own states another subject's figure ("VIP는 10%(일반은
    # 5%)"): its own clause; one without ("투룸(2.5톤)") qualifies its figure
    refs = _figure_clauses(KO.topical_bracket.sub(r", \1, ", reference))
    if len(refs) < 2 or cross_language(answer, reference):
        return []
    misplaced, placed = _misplaced(answer, reference, refs)
    return _swapped(misplaced, refs) or _misplaced_figure(misplaced, placed, refs, answer)


def _subject_words(refs: FigureClauses) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """(words, figure tokens) only each reference figure clause has: what names it."""
    flats = [c.text.replace(" ", "") for c, _ in refs]
    # a word another clause also writes (as a token or inside a longer one) names neither
    own = [
        frozenset(w for w in words if not any(w in flat for j, flat in enumerate(flats) if j != i))
        for i, words in enumerate(_own_words([_anchors(c) for c, _ in refs]))
    ]
    return own, _own_words([frozenset(figure_token(q) for q in qs) for _, qs in refs])


def _misplaced(answer: str, reference: str, refs: FigureClauses) -> tuple[Misplaced, int]:
    """The answer's misplaced figures, and how many it places right."""
    own, own_figures = _subject_words(refs)
    entity_home = _entity_homes(reference, refs)
    misplaced: Misplaced = {}
    placed = 0
    for clause, figures in _figure_clauses(answer):
        by_entity = {home for entity, home in entity_home.items() if entity in clause.text}
        for q in figures:
            home = _home(clause, q, own, own_figures, by_entity)
            if home is None:
                continue
            if any(tx.same_quantity(q, r) for r in refs[home][1]):
                placed += 1
                continue
            for j, (_, qs) in enumerate(refs):
                if j != home and (own[j] or own_figures[j]) and any(tx.same_quantity(q, r) for r in qs):
                    misplaced.setdefault((home, j), (clause, q))
    return misplaced, placed


def _swapped(misplaced: Misplaced, refs: FigureClauses) -> list[Finding]:
    """Two answer clauses, each with the other's figure."""
    for (i, j), (clause, q) in misplaced.items():
        if (j, i) in misplaced:
            other_clause, other_q = misplaced[(j, i)]
            evidence = _say(
                "figure_swap", answer=clause.text[:30], figure=q.text, other=other_clause.text[:30],
                other_figure=other_q.text, reference=refs[j][0].text[:30], other_reference=refs[i][0].text[:30],
            )  # fmt: skip
            return [Finding("figure-swap", 1, evidence)]
    return []


def _misplaced_figure(misplaced: Misplaced, placed: int, refs: FigureClauses, answer: str) -> list[Finding]:
    """One subject given another's figure ("장애인 차량도 50%", 50% being 저공해's) while the
    answer states none of its own of that kind: accuracy 2 when another figure is placed right."""
    for (i, _j), (clause, q) in misplaced.items():
        kind = [r for r in refs[i][1] if r.kind == q.kind]
        if kind and not any(tx.same_quantity(r, a) for r in kind for a in tx.quantities(answer)):
            own = ", ".join(r.text for r in kind)
            evidence = _say("misplaced_figure", answer=clause.text[:30], figure=q.text, own=own, reference=refs[i][0].text[:30])
            return [Finding("misplaced-figure", 2 if placed else 1, evidence)]
    return []


def _own_words(groups: list[frozenset[str]]) -> list[frozenset[str]]:
    """Each group without the words any other group has."""
    return [g - frozenset().union(*(o for j, o in enumerate(groups) if j != i)) for i, g in enumerate(groups)]


def _entity_homes(reference: str, refs: FigureClauses) -> dict[str, int]:
    """Reference entities (branches, organisations, names) that only one figure clause names."""
    out = {}
    for entity in entities(reference):
        homes = [i for i, (c, _) in enumerate(refs) if entity in c.text]
        if len(homes) == 1:
            out[entity] = homes[0]
    return out


def _unit_of_token(token: str) -> str:
    return re.sub(r"^#[-+\d.e]+", "", token)


def _home(
    clause: _Clause,
    q: tx.Quantity,
    own: list[frozenset[str]],
    own_figures: list[frozenset[str]],
    by_entity: set[int],
) -> int | None:
    """The one reference clause ``clause`` names as the subject of its figure ``q``, or None."""
    if len(by_entity) == 1:
        return next(iter(by_entity))
    # a subject of exclusive kinds (회원/비회원, 성인/어린이) names the clause before other words,
    # which the sentence's topic may carry into another clause ("급속충전은 비회원이 …")
    by_subject = [i for i in range(len(own)) if any(_is_subject(w) for w in _names(own[i], clause))]
    if len(by_subject) == 1:
        return by_subject[0]
    named = [i for i in range(len(own)) if _names(own[i], clause)]
    if not named:  # no word names a subject: a figure of another kind may ("5kg 이하는 …원")
        unit = _unit_of_token(figure_token(q))
        named = [
            i for i in range(len(own)) if any(t in clause.tokens and _unit_of_token(t) != unit for t in own_figures[i])
        ]
    return named[0] if len(named) == 1 else None


Labelled = tuple[tx.Quantity, str, str | Msg]  # (figure, how the text reads it, as written or said)


def _relabelled(
    rule: str, cap: int, key: str, answer: Sequence[Labelled], reference: Sequence[Labelled]
) -> list[Finding]:
    """The finding ``rule`` on the first figure both texts state but read another way (a span
    before ↔ after its event, a limit ↔ a wait, a charge per one period ↔ per another), quoting
    the answer's and the reference's writing of it."""
    for q, label, written in answer:
        labels = {lab for r, lab, _ in reference if tx.same_quantity(q, r)}
        if labels and label not in labels:
            said = next(w for r, _, w in reference if tx.same_quantity(q, r))
            return [Finding(rule, cap, _say(key, answer=written, reference=said))]
    return []


def _span_contexts(text: str, before: int, after: int) -> Iterator[tuple[re.Match[str], str, str, tx.Quantity]]:
    """Each span of time that is no day of a date: its match, the ``before`` characters before
    it and the ``after`` characters after it, and its figure."""
    norm = canonical_figures(tx.normalize(text))
    for m in KO.span.finditer(norm):
        found = tx.quantities(m.group(0))
        if found and not KO.month_before.search(norm[: m.start()]):
            yield m, norm[max(0, m.start() - before) : m.start()], norm[m.end() : m.end() + after], found[0]


@lru_cache(maxsize=4096)
def _spans(text: str) -> tuple[Labelled, ...]:
    """(figure, "before" | "after", as written) for each span of time whose side of its event
    the text says: by the word after it ("3일 전", "3일이 지난 후") or, for a span with none, by
    the word before it ("나간 뒤 3일 이내")."""
    out = []
    for _, before, after, q in _span_contexts(text, 6, 8):
        side = "before" if KO.span_before.match(after) else "after" if KO.span_after.match(after) else ""
        if not side:
            side = "after" if KO.event_before_span_after.search(before) else "before" if KO.event_before_span_before.search(before) else ""
        if side:
            out.append((q, side, _say(f"span_{side}", figure=q.text)))
    return tuple(out)


def span_side_findings(answer: str, reference: str) -> list[Finding]:
    """A span of time the reference puts before its event ("이사 3일 전까지") that the answer
    puts after it ("이사 나간 뒤 3일 이내"), or the other way round: a reversed condition
    the concepts cannot see when the reference says 후 elsewhere ("검침 후 정산")."""
    return _relabelled("reversed-condition", 2, "span_side", _spans(answer), _spans(reference))


@lru_cache(maxsize=4096)
def _span_reaches(text: str) -> tuple[Labelled, ...]:
    """(figure, "limit" | "wait", as written) for each span of time the text reads as a limit
    to act within or as a wait to sit out."""
    out = []
    for m, before, after, q in _span_contexts(text, 14, 10):
        for name, later, earlier in (("limit", KO.span_limit, KO.span_limit_before), ("wait", KO.span_wait, KO.span_wait_before)):
            cue_after, cue_before = later.match(after), earlier.search(before)
            if cue_after or cue_before:
                written = m.group(0) + cue_after.group(0) if cue_after else cue_before.group(0) + m.group(0)
                out.append((q, name, written.strip()))
                break
    return tuple(out)


def span_reach_findings(answer: str, reference: str) -> list[Finding]:
    """A span the reference sets as a limit ("7일 이내에 접수") that the answer turns into a
    wait ("7일이 지난 뒤부터 접수"), or the other way round: both may sit on the same side of
    the event ("완료 후 7일 이내" / "끝나고 7일이 지난 뒤"), so ``span_side_findings`` cannot see it."""
    return _relabelled("reversed-condition", 2, "span_reach", _span_reaches(answer), _span_reaches(reference))


def _rate_pattern(template: str) -> Pattern[str]:
    periods = "|".join(f"(?P<{name}>{pattern})" for name, pattern in KO.rate_periods.items())
    return re.compile(template.replace("{periods}", periods).replace("{amount}", KO.amount))


_RATE_BEFORE, _RATE_AFTER = _rate_pattern(KO.rate_before), _rate_pattern(KO.rate_after)


def _rates(text: str) -> list[tuple[tx.Quantity, str, str]]:
    """(amount, period, as written) for each charge the text states per period of time."""
    norm = canonical_figures(tx.normalize(text))
    out = []
    for pattern in (_RATE_BEFORE, _RATE_AFTER):
        for m in pattern.finditer(norm):
            period = next(name for name in KO.rate_periods if m.group(name))
            found = tx.quantities(m.group("amount"))
            if found:
                out.append((found[0], period, m.group(0).strip()))
    return out


def rate_period_findings(answer: str, reference: str) -> list[Finding]:
    """A charge the reference counts by one period that the answer counts by another ("하루
    500원" → "일주일마다 500원씩"): the amount agrees, so the figure checks see nothing (a
    one-period rate is no figure of its own: "1년에 한 번" = "연 1회")."""
    ref = _rates(reference) if tx.has_any(reference, KO.currency_words) else []
    return _relabelled("rate-period", 1, "rate_period", _rates(answer), ref) if ref else []


def yes_no_findings(answer: str, reference: str, question: str = "") -> list[Finding]:
    """A yes/no answer that opens with the other word than the reference (네 ↔ 아니요), or,
    when the reference opens with neither, than the reference clause that answers the
    question (``implied_answer``)."""
    a, r = tx.normalize(answer), tx.normalize(reference)
    said, meant = _opening(a), _opening(r)
    if said and meant and said != meant:
        return [Finding("yes-no", 1, _say("yes_no", answer=a.split()[0], reference=r.split()[0]))]
    if said is None or meant is not None:
        return []
    implied = implied_answer(question, reference)
    if implied is not None and implied[0] != said:
        return [Finding("yes-no", 1, _say("yes_no_implied", answer=a.split()[0], reference=implied[1].text[:40]))]
    return []


def _opening(text: str) -> str | None:
    """"yes" or "no" when the (normalised) text opens by answering so (네, / 아니요 …)."""
    return "yes" if KO.yes_opener.match(text) else "no" if KO.no_answer_opener.match(text) else None


def implied_answer(question: str, reference: str) -> tuple[str, _Clause] | None:
    """("yes" | "no", clause) for a one-sentence yes/no question whose reference does not say
    네/아니요: the reference clause that shares the most with the question (claim tokens, and
    concepts the question has the opposite of: 열다 ↔ 휴관) answers it — "no" if its sign or
    a condition is the other way round. None when the question asks for content, or no clause
    shares two tokens, or the best clauses disagree."""
    q = tx.normalize(question)
    if not q or len(tx.sentences(q)) != 1 or tx.has_any(q.lower(), KO.content_questions):
        return None
    scored = _answering_clauses(_Clause(q, claim_tokens(q), polarity(q)), reference)
    if not scored:
        return None
    best = max(score for score, _, _ in scored)
    top = [(answer, ref) for score, answer, ref in scored if score == best]
    if len({answer for answer, _ in top}) != 1 or any(_restricted(ref) for _, ref in top):
        return None
    # the clause must be about what the question names: a clause that matched by a shared
    # concept and an opposite ("토요일에도 열어요?" ↔ "일요일은 휴무", both weekend) does not
    # answer it while another clause says the question's own words ("토요일은 … 운영")
    said = _content_lemmas(q)
    most = max(len(said & _content_lemmas(ref.text)) for ref in _clauses(reference))
    return None if most > len(said & _content_lemmas(top[0][1].text)) else top[0]


def _answering_clauses(asked: _Clause, reference: str) -> list[tuple[int, str, _Clause]]:
    """(score, "yes" | "no", clause) of each reference clause sharing two tokens or opposites
    with the question; "no" if it has an opposite of the question's or the other sign."""
    scored = []
    for ref in _clauses(reference):
        opposed = {c for c in asked.tokens for o in lx.opposites(c) if o in ref.tokens and c not in ref.tokens}
        score = len(asked.tokens & ref.tokens) + len(opposed)
        if score >= 2:
            scored.append((score, "no" if opposed or not ref.agrees_in_sign(asked) else "yes", ref))
    return scored


@lru_cache(maxsize=4096)
def _content_lemmas(text: str) -> frozenset[str]:
    """The words a text says as written (lemmas of content morphemes, no concepts)."""
    return frozenset(m.lemma for m in tx.analyse(text) if m.tag in CONTENT_TAGS and m.lemma not in _WEAK_TOKENS)


def _restricted(clause: _Clause) -> bool:
    """A clause that allows only part of something ("1장만 쓸 수 있습니다", only): to "can I use
    two?" it says no while its sign says yes, so it implies no answer either way."""
    return "only" in clause.tokens or any(m.lemma == "만" and m.tag == "JX" for m in tx.analyse(clause.text))


def has_predicate(text: str) -> bool:
    """A sentence-final ending (Korean) or a finite verb (English) somewhere in the text."""
    if any(m.tag in {"EF", "VCP", "VCN"} for m in tx.analyse(text)):
        return True
    if KO.english_predicate.search(text):
        return True
    # An English sentence in the imperative ("Report it on the website") has no auxiliary but
    # has function words, which a keyword list does not.
    words = re.findall(r"[A-Za-z']+", text)
    return len(words) >= 4 and any(w.lower() in KO.english_function_words for w in words)


# A list of terms: four or more items between commas (or ·, /), none longer than three words,
# fewer than half of them figures (a list of figures — "평일 9시, 오후 6시, 토요일 10시, 오후 1시" — is a
# terse answer, a timetable or price list).
_LIST_SPLIT = re.compile(r"\s*(?:,(?!\d{3})|[·/])\s*")  # not the comma of 5,000


def _listed_keywords(answer: str) -> bool:
    """Terms listed without a sentence ("주차장, 40면, 대관 팀, 무료, 2시간, 관리사무소")."""
    if has_predicate(answer):
        return False
    items = [item for item in _LIST_SPLIT.split(answer.strip().rstrip(".")) if item]
    figures = sum(bool(tx.quantities(item)) for item in items)
    return len(items) >= 4 and all(len(item.split()) <= 3 for item in items) and 2 * figures < len(items)


def _run_of_terms(answer: str) -> bool:
    """Eight words or more with no predicate, fewer than half of them figures."""
    words = answer.split()
    if len(words) < 8 or has_predicate(answer):
        return False
    return 2 * sum(bool(tx.quantities(w)) for w in words) < len(words)


def only_echoes(answer: str) -> bool:
    """Every sentence only restates the question or promises an answer (no claim is made)."""
    sentences = tx.sentences(answer) or [answer]
    return all(KO.echo_end.search(s.strip()) or KO.echo_english.search(s.strip()) for s in sentences)


def no_answer_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """Keyword stuffing: text that holds none of the reference's figures and is no sentence,
    or mostly repeats the question, or repeats its own words (each word on average twice)."""
    why = _no_answer(answer, reference, question)
    return [Finding("no-answer", 1, why)] if why else []


def _no_answer(answer: str, reference: str, question: str) -> Msg | None:
    words = list(tx.stems(answer))
    if len(words) < 4:
        return None
    ref_figs = tx.quantities(reference)
    holds_figure = any(tx.same_quantity(a, r) for a in tx.quantities(answer) for r in ref_figs)
    # a list of terms is no answer even when a figure of the reference is among them, nor is a long
    # run of terms with no sentence ("회원 가입 조건 주민등록 만 19세 신분증 연회비 5,000원 대여 3점 3일
    # 연장"), figures among them: a keyword list, not a terse timetable
    if _listed_keywords(answer) or (holds_figure and _run_of_terms(answer)):
        return _say("keywords")
    if holds_figure:
        return None
    if only_echoes(answer):
        return _say("echo")
    if not has_predicate(answer):
        return _say("keywords")
    asked = set(tx.stems(question))
    repeated = sum(w in asked for w in words) / len(words)
    if repeated >= 0.7:
        return _say("repeats_question", share=round(100 * repeated))
    distinct = len(set(words)) / len(words)
    if len(words) >= 6 and distinct <= 0.6 and repeated >= 0.4:
        return _say("repeats_itself", distinct=round(100 * distinct), share=round(100 * repeated))
    return None


# -- a deduction the reference makes and an answer that pays out the whole ------------------------


def deduction_findings(answer: str, reference: str) -> list[Finding]:
    """The reference pays out less a deducted item ("등록비 5만 원을 뺀 금액을 돌려받습니다",
    "가입비를 제외한 전액") and the answer pays out the whole ("전부 환불") without naming the
    item; not where the reference pays the whole in another case."""
    ref = tx.normalize(reference)
    items = [tx.strip_suffix(m.group(1)) for m in KO.deducted.finditer(ref)]
    whole = KO.whole_amount.search(tx.normalize(answer))
    # a reference that pays the whole in another case ("개시 전에는 전액, 개시 후에는 … 공제")
    # lets the answer say so
    if not items or not whole or KO.whole_amount.search(KO.deducted.sub(" ", ref)):
        return []
    said = tx.normalize(answer)
    if any(item in said or tx.strip_suffix(item) in said for item in items):
        return []
    return [Finding("deduction-ignored", 1, _say("deduction", item=items[0], whole=whole.group(0)))]


def hedge_findings(answer: str, reference: str) -> list[Finding]:
    """The answer hedges its claim, and the reference does not."""
    m = KO.hedges.search(tx.normalize(answer))
    if not m or KO.hedges.search(tx.normalize(reference)):
        return []
    return [Finding("hedged", 2, _say("hedged", cue=m.group(0)))]


@lru_cache(maxsize=4096)
def rag_findings(answer: str, reference: str, question: str) -> tuple[Finding, ...]:
    """Every finding for one answer, strongest first (memoised: the three offline judges
    ask the same question of the same texts)."""
    found: list[Finding] = []
    cues = debunks(answer, reference)
    if cues:
        found.append(Finding("debunk", 1, _say("debunk", cues=", ".join(cues))))
    found += figure_findings(answer, reference, question)
    found += entity_findings(answer, reference, question)
    found += swap_findings(answer, reference)
    found += yes_no_findings(answer, reference, question)
    found += polarity_findings(answer, reference, question)
    found += closed_list_findings(answer, reference)
    found += concessive_findings(answer, reference)
    found += payer_findings(answer, reference)
    found += hedge_findings(answer, reference)
    found += deduction_findings(answer, reference)
    found += span_side_findings(answer, reference) or span_reach_findings(answer, reference)
    if not any(f.rule == "reversed-condition" for f in found):
        found += day_swap_findings(answer, reference, question)
    found += rate_period_findings(answer, reference)
    found += weekday_findings(answer, reference, question)
    found += no_answer_findings(answer, reference, question)
    return tuple(sorted(found, key=lambda f: f.cap))


@lru_cache(maxsize=4096)
def key_facts_present(answer: str, reference: str, question: str, latin_only: bool = False) -> tuple[int, int]:
    """(present, total) of the reference's figures and entities not in the question;
    ``latin_only`` counts only Latin-script entities (an English answer cannot hold 구청)."""
    figs, ans = _without(tx.quantities(reference), tx.quantities(question)), tx.quantities(answer)
    ents = [e for e in entities(reference) if not _present(e, question) and (e.isascii() or not latin_only)]
    present = sum(any(tx.same_quantity(r, a) for a in ans) for r in figs)
    present += sum(_present(e, answer) for e in ents)
    return present, len(figs) + len(ents)


@lru_cache(maxsize=4096)
def meaning_coverage(answer: str, reference: str, question: str, cross_language: bool = False) -> tuple[float, int]:
    """(share, size) of what the reference is about (``claim_tokens`` not in the question;
    all of them if the question takes every one) that the answer also says, in any wording.
    Across languages only concepts, figures and Latin words count (Korean words outside the
    lexicon cannot match an English answer)."""
    ref = claim_tokens(reference)
    key = ref - claim_tokens(question) or ref
    if cross_language:
        key = frozenset(t for t in key if is_concept_token(t))
    if not key:
        return 0.0, 0
    said = claim_tokens(answer)
    return len(key & said) / len(key), len(key)


def _figure_kind(q: tx.Quantity) -> str:
    """What a figure measures, so 2주 and 10일 (days), 1년 and 6개월 (months, as days) are of one
    kind and 2층 (a bare number) is not of the kind of 9시."""
    unit = tx.UNIT_FACTORS.get(q.unit, (q.unit,))[0]
    return "일" if unit == "개월" else unit or q.counter


@lru_cache(maxsize=4096)
def applied_figure(q: tx.Quantity, known: str, question: str) -> bool:
    """A figure the answer computed by applying a known rule to the asker's case: the sum,
    difference or product of a figure the question states and one the reference or documents
    state ("4시간이면 3시간을 넘긴 1시간", "하루 12,000원이니 5일이면 60,000원"). Sums and
    differences keep the unit; a product multiplies by a bare count or a count of days, people
    or times the question gives. One operand must come from the question: two known figures
    combined may be anything, the asker's case is what the rule was applied to."""
    asked = tx.quantities(question)
    if not asked or any(tx.same_quantity(q, k) for k in asked):
        return False
    stated = tx.quantities(known)
    for a in asked:
        for k in stated:
            if a.unit == k.unit == q.unit and q.value in {a.value + k.value, abs(a.value - k.value)}:
                return True
            for rate, count in ((k, a), (a, k)):
                if rate.unit == q.unit and count.unit != q.unit and q.value == rate.value * count.value and count.value > 1:
                    return True
    return False


def checkable_figures(answer: str, known: str, question: str = "") -> str:
    """The answer's figures, written out, of a kind ``known`` (the reference and contexts)
    states at all, in a sentence on a topic some known figure of that kind is about
    (``_off_topic``): a figure of another kind (a floor, a count the reference never gives) or
    of a thing no known figure is about is unverifiable, not a contradiction, so the judges'
    figure conflicts see only the rest."""
    kinds = {_figure_kind(q) for q in tx.quantities(known)}
    found = tx.quantities(answer)
    kept = [
        q
        for q in found
        if _figure_kind(q) in kinds and not _off_topic(q, answer, known) and not applied_figure(q, known, question)
    ]
    if len(kept) == len(found):
        return answer
    # "; " between figures: "4시간 5분" written side by side would read as one span (245분)
    return "; ".join(q.text for q in kept)


@lru_cache(maxsize=4096)
def _topic_nouns(text: str) -> frozenset[str]:
    return frozenset(m.lemma for m in tx.analyse(text) if m.tag in {"NNG", "NNP", "SL"} and m.lemma not in _WEAK_TOKENS)


def _off_topic(q: tx.Quantity, answer: str, known: str) -> bool:
    """A figure said of something no sentence of ``known`` gives a figure of its kind for: the
    answer's sentence holding it shares no noun with any known sentence that states a figure of
    that kind ("소견서 발급은 보통 1~2일 걸리니" where the documents' days are 결석 days). Such a
    figure is unverifiable, not a contradiction."""
    said = next((s for s in tx.sentences(answer) if q.text in s), "")
    if not said or any(tx.same_quantity(q, k) for k in tx.quantities(known)):
        return False  # a figure the documents state is checked (it agrees) wherever it is said
    kind = _figure_kind(q)
    holders = [s for s in tx.sentences(known) if any(_figure_kind(k) == kind for k in tx.quantities(s))]
    return bool(holders) and not any(_topic_nouns(said) & _topic_nouns(h) for h in holders)


@lru_cache(maxsize=4096)
def split_digression(answer: str, reference: str, question: str) -> tuple[str, str]:
    """(core, aside): the answer's clauses about the reference or the question — sharing two
    of their claim tokens, or a third of its own — and the rest, side remarks the reference
    cannot verify ("참고로 … 주차가 어려울 수 있어요"). The aside is empty when every clause
    is on the reference. Clauses come from the one analysis the polarity check made."""
    topic = claim_tokens(reference) | claim_tokens(question)
    core, aside = [], []
    for clause in _clauses(answer):
        shared = len(clause.tokens & topic)
        on_topic = shared >= 2 or (clause.tokens and shared / len(clause.tokens) >= 1 / 3)
        (core if on_topic else aside).append(clause.text)
    if not core or not aside:
        return answer, ""
    return ". ".join(core), ", ".join(aside)


@lru_cache(maxsize=4096)
def figures_all_present(answer: str, reference: str, question: str) -> bool:
    """Every figure of the reference (not in the question) is in the answer, in any notation."""
    return not _without(_without(tx.quantities(reference), tx.quantities(question)), tx.quantities(answer))


@lru_cache(maxsize=4096)
def figures_all_supported(answer: str, reference: str, question: str) -> bool:
    """Every figure the answer states is one the reference or the question states (in any
    notation): the answer may leave figures out, but adds or changes none."""
    known = (*tx.quantities(reference), *tx.quantities(question))
    return all(applied_figure(a, reference, question) for a in _without(tx.quantities(answer), known))
