"""memory_usefulness offline (scale 0-10): how far a stored memory answers a query.

The judge sees the query, the memory and its entities, no session. The query is cut into facets
(``facets.py``); each is *answered* by a clause on its head holding a value of the type it wants
about its attribute, *topic only* when the head is there without the value, *undecided* when the
memory says it is not settled. A base reading (``BASE_READINGS``, first that applies) scores
that, and adjustments (``ADJUSTMENTS``, in order) lower it for a stale value, another target's
value (``targets.py``), conflicting values (``conflicts.py``) and count the noise. Unless the
judge runs on rules alone, the fitted stage (``stage.py``) then reads the scores with
its signals (``_signals``) and gives the final relevance, completeness and noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from assay.judges.offline import fitted
from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, say, tagged
from assay.judges.offline.scoring import Units, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import MemoryInput
from assay.schemas import JsonObject
from assay.suites.memory.offline import targets
from assay.suites.memory.offline.conflicts import value_conflicts
from assay.suites.memory.offline.cues import cues
from assay.suites.memory.offline.facets import (
    Facet,
    counted_list,
    end_from_start,
    names,
    read_facets,
    typed,
    want_label,
    year_month,
)
from assay.suites.memory.offline.stage import STAGE

C = cues()
RE = C.regexes
BOILERPLATE = (*tx.GREETING_CUES, *C.boilerplate)
RESOLVED = (*tx.STALE_CUES, *C.resolved)
OFF_TOPIC_WEIGHT = 3.0
FLAGGED_WEIGHT = 1.5
CHATTY_MIN, CHATTY_WEIGHT = 3, 8.5  # 3+ small-talk sentences, half the memory or more: chatty
TARGET_ERROR_NOISE = 4  # another target's value is noise for this query (labels: 4-5)

# The base readings' notes, said in the feedback.
NOTES = {
    name: say(f"memory.reading_{name}")
    for name in ("glossary", "typed", "mention", "specific", "entity", "elsewhere", "scripts", "unrelated")
}


@dataclass
class Reading:
    """The item read once: sentences, clauses (sentence index, text), their units and figures."""

    item: MemoryInput
    sentences: list[str]
    clauses: list[tuple[int, str]]
    clause_units: list[Units]
    figures: list[list[tx.Quantity]]
    whole: Units
    q: float
    facets: list[Facet]
    other_script: bool

    @property
    def memory(self) -> str:
        return self.item.memory

    def sentence(self, clause: int) -> str:
        return self.sentences[self.clauses[clause][0]]

    def figures_of(self, clause: int) -> list[tx.Quantity]:
        return self.figures[self.clauses[clause][0]]

    def clauses_of(self, sentence: int) -> list[int]:
        return [c for c, (i, _) in enumerate(self.clauses) if i == sentence]


@dataclass
class Match:
    """Facets against clauses: facet index -> clauses answering it / about it."""

    answered_by: dict[int, list[int]] = field(default_factory=dict)
    shared_by: dict[int, list[int]] = field(default_factory=dict)
    topic_only: list[int] = field(default_factory=list)
    undecided: list[int] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)  # counts answered by a list to count
    counted_end: list[int] = field(default_factory=list)  # end dates counted from a start


@dataclass
class Score:
    """The verdict being built: scores, notes, and what each rule found."""

    rel: int
    comp: int
    acc: int
    answered_by: dict[int, list[int]]
    notes: list[Msg] = field(default_factory=list)
    bridged: bool = False  # answered across scripts by the asked type of value
    entity_bridge: bool = False  # across scripts by the prompt's entity alone
    entity_sentences: list[int] = field(default_factory=list)
    unrelated: bool = False
    vague: bool = False
    stale: bool = False
    unknown_update: bool = False
    confused: tuple[str, str] | None = None
    conflicts: list[str] = field(default_factory=list)
    updated: bool = False
    superseded: bool = False
    about: list[list[int]] = field(default_factory=list)  # clauses on each answered facet
    about_sentences: list[int] = field(default_factory=list)
    follow_ups: list[int] = field(default_factory=list)  # dated updates right after them
    noise: int = 0
    flagged: list[str] = field(default_factory=list)
    off_topic: list[str] = field(default_factory=list)
    helpful: list[str] = field(default_factory=list)
    chatter: list[str] = field(default_factory=list)


def _summary(relevance: float) -> Msg:
    return say("memory.summary_useful" if relevance >= 7 else "memory.summary_partly" if relevance >= 4 else "memory.summary_unrelated")


def mention_only(sentence: str) -> bool:
    """Only that a topic came up ("PT에 대해 이야기함"): no fact to judge."""
    return bool(RE["mention"].search(sentence)) and not RE["specific"].search(sentence)


def dated_update(sentence: str) -> bool:
    return bool(RE["dated_update"].search(sentence)) and not tx.has_any(sentence, BOILERPLATE)


def _shortcut(item: MemoryInput, tag: str) -> JsonObject | None:
    """Nothing stored (accuracy 5: nothing to judge), or entities alone (3/1/5 when they touch
    the query, 1/0/5 when not)."""
    if not tx.is_empty_memory(item.memory):
        return None
    missing = [say("memory.missing_answer", query=item.query)]
    if not item.entities:
        return {
            "relevance": 0, "completeness": 0, "accuracy": 5, "noise": 0,
            "reasoning": joined((tag, say("memory.nothing_stored")), " "), "helpful_info": [],
            "missing_info": missing, "summary": say("memory.summary_nothing_stored"),
        }  # fmt: skip
    touches = any(w in item.query for e in item.entities for w in tx.stems(e) if len(w) >= 2)
    return {
        "relevance": 3 if touches else 1, "completeness": 1 if touches else 0, "accuracy": 5, "noise": 0,
        "reasoning": joined((tag, say("memory.entities_only_on_topic" if touches else "memory.entities_only")), " "),
        "helpful_info": [], "missing_info": missing, "summary": say("memory.summary_entities_only"),
    }  # fmt: skip


# -- base readings: the first that applies scores the facets ----------------------------------


def all_answered(r: Reading, m: Match) -> Score | None:
    """Every facet answered: 10/10/9 (completeness 9 when few query words are there; 8/8 for an
    end date to be counted from a start and a span)."""
    if not r.facets or len(m.answered_by) != len(r.facets):
        return None
    if m.counted_end:
        return Score(8, 8, 9, m.answered_by)
    return Score(10, 10 if r.q >= 0.5 else 9, 9, m.answered_by)


def glossary_bridge(r: Reading, m: Match) -> Score | None:
    """Across scripts, the synonym glossary finds the query's words ("선생님" → tutor) and every
    typed facet finds its type: 10/10/9 (8 for completeness when some words are missing)."""
    gloss = [targets.gloss_share(f.words, r.memory) for f in r.facets] if r.other_script and r.facets else []
    if not gloss or min(gloss) < 0.5:
        return None
    pairs = list(zip(r.sentences, r.figures, strict=True))
    if not all(not f.want or any(typed(f.want, *pair) for pair in pairs) for f in r.facets):
        return None
    every = {f: list(range(len(r.clauses))) for f in range(len(r.facets))}
    return Score(10, 10 if min(gloss) == 1.0 else 8, 9, every, bridged=True, notes=[NOTES["glossary"]])


def typed_across_scripts(r: Reading, m: Match) -> Score | None:
    """Across scripts, every facet wants a type and a value of it sits beside an entity the
    memory writes: 10/9/9."""
    if not r.other_script or not r.facets:
        return None

    def beside_entity(want: str, i: int) -> bool:
        sentence = r.sentences[i]
        return typed(want, sentence, r.figures[i]) and targets.about_entity(sentence, r.item.entities, r.memory)

    if not all(f.want and any(beside_entity(f.want, i) for i in range(len(r.sentences))) for f in r.facets):
        return None
    hits = [c for c, (i, _) in enumerate(r.clauses) if any(beside_entity(f.want, i) for f in r.facets)]
    return Score(10, 9, 9, dict.fromkeys(range(len(r.facets)), hits), bridged=True, notes=[NOTES["typed"]])


def some_answered(r: Reading, m: Match) -> Score | None:
    """Some facets answered: relevance 8, completeness the mean of facets (10 answered, 5
    undecided, 3 topic only), accuracy 9."""
    if not m.answered_by:
        return None
    comp = round((10 * len(m.answered_by) + 5 * len(m.undecided) + 3 * len(m.topic_only)) / max(len(r.facets), 1))
    return Score(8, comp, 9, m.answered_by)


def only_undecided(r: Reading, m: Match) -> Score | None:
    """The topic and that it is not settled, no value: 7/5/6."""
    return Score(7, 5, 6, m.answered_by) if m.undecided else None


def topic_only(r: Reading, m: Match) -> Score | None:
    """The topic without the asked value: 5/3, accuracy 9 for a specific fact, 6 for a mere mention."""
    if not m.topic_only:
        return None
    vague = all(mention_only(r.sentence(c)) for f in m.topic_only for c in m.shared_by.get(f, []))
    note = NOTES["mention" if vague else "specific"]
    return Score(5, 3, 6 if vague else 9, m.answered_by, vague=vague, notes=[note])


def entity_bridge(r: Reading, m: Match) -> Score | None:
    """A "what/which" asked across scripts, the prompt's entity written in the memory the only
    bridge (the value unseen): 8/8/9."""
    if not r.other_script or not r.facets:
        return None
    found = targets.entity_sentences(r.item.entities, r.memory, r.sentences)
    if not found or not all(
        not f.want or any(typed(f.want, r.sentences[i], r.figures[i]) for i in found) for f in r.facets
    ):
        return None
    hits = dict.fromkeys(range(len(r.facets)), [c for c, (i, _) in enumerate(r.clauses) if i in found])
    return Score(8, 8, 9, hits, entity_bridge=True, entity_sentences=found, notes=[NOTES["entity"]])


def entities_elsewhere(r: Reading, m: Match) -> Score | None:
    """Across scripts, entities in the query's script that touch nothing of it: unrelated."""
    if not (r.other_script and targets.entities_elsewhere(r.item.query, r.memory, r.item.entities)):
        return None
    return Score(0, 0, 5, m.answered_by, unrelated=True, notes=[NOTES["elsewhere"]])


def other_script(r: Reading, m: Match) -> Score | None:
    """Across scripts with nothing matched: no evidence either way, 5/4/6."""
    return Score(5, 4, 6, m.answered_by, notes=[NOTES["scripts"]]) if r.other_script else None


def some_query_word(r: Reading, m: Match) -> Score | None:
    """Some query word in the memory, no facet's head: 3/1/6."""
    return Score(3, 1, 6, m.answered_by) if r.q > 0 else None


def tied(r: Reading, m: Match) -> Score | None:
    """No word in common, but an entity, a person (엄마/어머니) or a synonym ties them: 2/0/5."""
    return Score(2, 0, 5, m.answered_by) if targets.touches(r.item.query, r.memory, r.item.entities) else None


def unrelated(r: Reading, m: Match) -> Score | None:
    """Nothing of the query in the memory: 0/0/5, every sentence noise."""
    return Score(0, 0, 5, m.answered_by, unrelated=True, notes=[NOTES["unrelated"]])


BASE_READINGS: tuple[Callable[[Reading, Match], Score | None], ...] = (
    all_answered, glossary_bridge, typed_across_scripts, some_answered, only_undecided, topic_only,
    entity_bridge, entities_elsewhere, other_script, some_query_word, tied, unrelated,
)  # fmt: skip


# -- adjustments, in order --------------------------------------------------------------------


def answer_context(r: Reading, m: Match, s: Score) -> None:
    """The clauses on what is answered (with nothing answered, on the topic), and a dated
    update right after one of their sentences, which continues it though it names no query word."""
    s.about = (
        [[*hits, *m.shared_by.get(f, [])] for f, hits in s.answered_by.items()]
        if s.answered_by
        else [m.shared_by.get(f, []) for f in m.topic_only]
    )
    s.about_sentences = sorted({r.clauses[c][0] for hits in s.about for c in hits})
    s.follow_ups = [
        i + 1 for i in s.about_sentences
        if i + 1 < len(r.sentences) and i + 1 not in s.about_sentences and dated_update(r.sentences[i + 1])
    ]  # fmt: skip


def stale_value(r: Reading, m: Match, s: Score) -> None:
    """A change asked (바뀌/올렸다며…) and none recorded where the answer is: relevance ≤ 7,
    accuracy and completeness ≤ 3. The current value asked (최종/현재) with no change record:
    accuracy ≤ 6, completeness − 1."""
    text = " ".join([*(r.sentence(c) for hits in s.about for c in hits), *(r.sentences[i] for i in s.follow_ups)])
    if not text or tx.has_any(text, (*C.change_record, *C.supersede)):
        return
    s.stale = tx.has_any(r.item.query, C.change_query)
    s.unknown_update = not s.stale and bool(s.answered_by) and tx.has_any(r.item.query, C.current_query)
    if s.stale:
        s.rel, s.acc, s.comp = min(s.rel, 7), min(s.acc, 3), min(s.comp, 3)
        s.notes.append(say("memory.stale"))
    elif s.unknown_update:
        s.acc, s.comp = min(s.acc, 6), max(s.comp - 1, 0)
        s.notes.append(say("memory.unknown_update"))


def target_confusion(r: Reading, m: Match, s: Score) -> None:
    """The asked value is another entity's or person's: relevance ≤ 5, completeness ≤ 2
    (accuracy stands: the fact is true of the other one)."""
    query = r.item.query
    answering = [c for hits in s.answered_by.values() for c in hits]
    topic = [r.sentence(c) for f in m.topic_only for c in m.shared_by.get(f, [])]
    s.confused = (
        targets.confused_target(query, r.item.entities, r.facets, r.clauses, r.sentences)
        or targets.other_person(query, [r.clauses[c][1] for c in answering])
        or targets.unnamed_person(query, r.memory, [r.sentence(c) for c in answering])
        or (targets.unnamed_person(query, r.memory, topic) if not s.answered_by else None)
    )
    if s.confused:
        s.rel, s.comp = min(s.rel, 5), min(s.comp, 2)
        s.notes.append(say("memory.other_target", asked=s.confused[0], other=s.confused[1]))


def conflicting_values(r: Reading, m: Match, s: Score) -> None:
    """An old value kept before its update on the topic: accuracy ≤ 8. One subject with two
    values: with an update cue completeness − 1, accuracy ≤ 8; without, relevance − 1,
    completeness − 3, accuracy ≤ 4."""
    s.conflicts = value_conflicts(r.memory)
    on_topic = sorted({*s.about_sentences, *s.follow_ups}) if s.answered_by else []
    updates = [i for i in on_topic if tx.has_any(r.sentences[i], C.supersede)]
    s.superseded = (
        not s.conflicts
        and bool(updates)
        and any(i < updates[-1] and not tx.has_any(r.sentences[i], C.change_record) for i in on_topic)
    )
    if s.superseded:
        s.acc = min(s.acc, 8)
        s.notes.append(say("memory.superseded"))
    s.updated = bool(s.conflicts) and tx.has_any(r.memory, tx.UPDATE_CUES)
    if s.updated:
        s.comp, s.acc = max(s.comp - 1, 0), min(s.acc, 8)
        s.notes.append(say("memory.updated", values=", ".join(s.conflicts)))
    elif s.conflicts:
        s.rel, s.comp, s.acc = max(s.rel - 1, 0), max(s.comp - 3, 0), min(s.acc, 4)
        s.notes.append(say("memory.conflicting", values=", ".join(s.conflicts)))


ADJUSTMENTS = (answer_context, stale_value, target_confusion, conflicting_values)


class MemoryRules(RuleSet):
    """The memory_usefulness rules, reading the judge's signals (``units``, ``coverage``…)."""

    signal: ClassVar[str]
    fitted: bool  # set by ``OfflineJudge``: run the fitted stage after the rules

    def memory_usefulness(self, item: MemoryInput) -> JsonObject:
        """The rules' verdict, then (unless the judge runs on rules only) the fitted stage's."""
        verdict, signals = self.memory_rule_verdict(item)
        if not self.fitted or signals is None:  # the shortcuts' scores are the rubric's own
            return verdict
        refined = fitted.refine(STAGE, self.signal, verdict, signals)
        return {**refined, "summary": _summary(float(refined["relevance"]))}

    def memory_rule_verdict(self, item: MemoryInput) -> tuple[JsonObject, dict[str, float] | None]:
        """The rules' verdict and the signals it was read from (None for the shortcuts)."""
        tag = f"[{self.signal}]"
        shortcut = _shortcut(item, tag)
        if shortcut is not None:
            return shortcut, None
        r, ctx = self._read(item)
        m = self._match(r)
        s = next(score for reading in BASE_READINGS if (score := reading(r, m)) is not None)
        s.notes[:0] = self._facet_notes(r, m)
        for adjust in ADJUSTMENTS:
            adjust(r, m, s)
        self._noise(r, s, ctx)
        missing = [
            say("memory.missing_facet", facet=f.text, want=want_label(f.want))
            for i, f in enumerate(r.facets) if i not in s.answered_by
        ]  # fmt: skip
        verdict = {
            "relevance": s.rel, "completeness": s.comp, "accuracy": s.acc, "noise": s.noise,
            "reasoning": tagged(tag, s.notes), "helpful_info": s.helpful[:5],
            "missing_info": missing[:5], "summary": _summary(s.rel),
        }  # fmt: skip
        return verdict, _signals(r, m, s)

    def _read(self, item: MemoryInput) -> tuple[Reading, object]:
        memory = item.memory
        sentences = tx.sentences(memory) or ([memory] if memory.strip() else [])
        clauses = [(i, seg) for i, sent in enumerate(sentences) for seg in tx.segments(sent)]
        ctx = self.prepare([item.query, *sentences, *item.entities])
        whole = self.units("\n".join([memory, *item.entities]), ctx)
        reading = Reading(
            item=item, sentences=sentences, clauses=clauses,
            clause_units=[self.units(seg, ctx) for _, seg in clauses],
            figures=[tx.quantities(year_month(sent)) for sent in sentences], whole=whole,
            q=self.coverage(self.units(tx.strip_fillers(item.query), ctx), whole) or 0.0,
            facets=read_facets(item.query, memory, lambda text: self.units(text, ctx)),
            other_script=targets.other_script(item.query, memory),
        )  # fmt: skip
        return reading, ctx

    def _match(self, r: Reading) -> Match:
        """Each facet answered, on the topic only, or missing; then the answered ones whose every
        sentence says the value is not settled (미정, 아직…) are undecided."""
        m = Match()
        for f_idx, facet in enumerate(r.facets):
            self._match_facet(r, m, f_idx, self._borrow_head(r, f_idx, facet))
        for f_idx, hits in list(m.answered_by.items()):
            about = {*hits, *m.shared_by.get(f_idx, [])}  # a later "완료" beside an earlier "예정" settles it
            if not r.facets[f_idx].want and all(tx.has_any(r.sentence(c), C.undecided) for c in about):
                del m.answered_by[f_idx]
                m.undecided.append(f_idx)
        return m

    def _match_facet(self, r: Reading, m: Match, f_idx: int, facet: Facet) -> None:
        """A facet's clauses on its head and those answering it; a counter such as 명 or 박 is
        answered by a figure with it wherever it stands."""
        shared = [c for c, units in enumerate(r.clause_units) if self._shares(facet, units, r.clauses[c][1])]
        hits = self._hits(r, facet, shared)
        if hits and all(_counted_end_only(r, facet, c) for c in hits):
            m.counted_end.append(f_idx)
        if facet.want and facet.want not in {"amount", "duration", "time", "identifier"}:
            hits += [
                c
                for c, (i, _) in enumerate(r.clauses)
                if c not in hits and typed(facet.want, r.sentences[i], r.figures[i])
            ]
        m.shared_by[f_idx] = shared
        if (
            facet.want in C.list_counters
            and hits
            and not any(typed(facet.want, r.sentence(c), r.figures_of(c)) for c in hits)
        ):
            m.counted.append(facet.want)
        if hits:
            m.answered_by[f_idx] = hits
        elif shared or (self.coverage(facet.head, r.whole) or 0.0) >= 0.5:
            m.topic_only.append(f_idx)

    def _borrow_head(self, r: Reading, f_idx: int, facet: Facet) -> Facet:
        """A typed facet whose head is nowhere in the memory takes the previous facet's ("약
        이름이랑 용량": the dose of that drug)."""
        if (
            not f_idx
            or not facet.want
            or (self.coverage(facet.head, r.whole) or 0.0)
            or any(w in r.memory for w in facet.words)
        ):
            return facet
        prev = r.facets[f_idx - 1]
        return Facet(facet.text, prev.head, prev.words, facet.want, facet.attribute or prev.attribute)

    def _hits(self, r: Reading, facet: Facet, shared: list[int]) -> list[int]:
        """The clauses on the facet that answer it: with a type, a value of it in a sentence naming
        the attribute (an identifier or a ratio names itself; a list counts; an end date counts
        from a start and a span); without, most of the head."""
        if not facet.want:
            return [c for c in shared if self._head_share(facet, r.clause_units[c], r.clauses[c][1]) >= 0.5]
        return [c for c in shared if _typed_answer(r, facet, c)]

    def _shares(self, facet: Facet, units: Units, clause: str) -> bool:
        """The clause is about the facet: the judge's overlap, or a facet word inside a longer
        word (인테리어 in 한결인테리어)."""
        if not facet.head:
            return False
        if (self.coverage(facet.head, units) or 0.0) >= max(self.SEGMENT_OVERLAP, 0.01):
            return True
        return any(word in clause for word in facet.words)

    def _head_share(self, facet: Facet, units: Units, clause: str) -> float:
        by_words = sum(word in clause for word in facet.words) / len(facet.words) if facet.words else 0.0
        return max(self.coverage(facet.head, units) or 0.0, by_words)

    @staticmethod
    def _facet_notes(r: Reading, m: Match) -> list[Msg]:
        topic_only = say("memory.topic_only", count=len(m.topic_only)) if m.topic_only else ""
        notes = [
            say("memory.query_words", share=pct(r.q)),
            say("memory.facets_answered", facets=len(r.facets), answered=len(m.answered_by), topic_only=topic_only),
        ]
        if m.undecided:
            notes.append(say("memory.undecided"))
        if m.counted:
            notes.append(say("memory.counted_list", counter=m.counted[0]))
        if m.counted_end:
            notes.append(say("memory.end_from_start"))
        return notes

    def _noise(self, r: Reading, s: Score, ctx: object) -> None:
        """1.5 per notice, greeting or resolved item (unless a status is asked), plus 3 × the share
        of other sentences off the query; a chatty memory 8.5 × its small talk's share; + 2 for a
        conflict or a superseded value; 10 when unrelated; at least 4 for another target's value."""
        self._sort_sentences(r, s, ctx)
        others = len(r.sentences) - len(s.flagged)
        raw = FLAGGED_WEIGHT * len(s.flagged) + (OFF_TOPIC_WEIGHT * len(s.off_topic) / others if others else 0.0)
        s.chatter = [sent for sent in s.off_topic if not RE["specific"].search(sent)]
        if len(s.chatter) >= CHATTY_MIN and others and len(s.chatter) / others >= 0.5:
            raw = max(raw, CHATTY_WEIGHT * len(s.chatter) / others)
            s.notes.append(say("memory.chatter", count=len(s.chatter)))
        s.noise = 10 if s.unrelated else min(round(raw) + (2 if s.conflicts or s.superseded else 0), 10)
        if s.confused:
            s.noise = max(s.noise, TARGET_ERROR_NOISE)
            s.notes.append(say("memory.other_target_noise"))
        s.notes.append(say("memory.sentences", flagged=len(s.flagged), off_topic=len(s.off_topic), total=len(r.sentences)))

    def _sort_sentences(self, r: Reading, s: Score, ctx: object) -> None:
        """Each sentence flagged (notice, resolved), helpful (answers), or off the query (no
        clause shares enough of it; not counted when bridged across scripts)."""
        helpful = set() if s.entity_bridge else {c for hits in s.answered_by.values() for c in hits}
        if s.answered_by:
            helpful |= {c for i in s.follow_ups for c in r.clauses_of(i)}
        query_units = self.units(r.item.query, ctx)
        status_query = tx.has_any(r.item.query, C.status_query)
        for s_idx, sent in enumerate(r.sentences):
            own = r.clauses_of(s_idx)
            if tx.has_any(sent, BOILERPLATE) or (not status_query and tx.has_any(sent, RESOLVED)):
                s.flagged.append(sent)
            elif any(c in helpful for c in own):
                s.helpful.append(sent)
            elif s.entity_bridge and s_idx in s.entity_sentences:
                continue
            elif not s.bridged and not any(
                (self.coverage(query_units, r.clause_units[c]) or 0.0) >= self.SEGMENT_OVERLAP for c in own
            ):
                s.off_topic.append(sent)


def _typed_answer(r: Reading, facet: Facet, c: int) -> bool:
    sentence, figures = r.sentence(c), r.figures_of(c)
    has_value = typed(facet.want, sentence, figures) or counted_list(facet.want, sentence)
    named = facet.want in ("identifier", "ratio") or names(sentence, facet.attribute)
    return (has_value and named) or end_from_start(facet, sentence, figures)


def _counted_end_only(r: Reading, facet: Facet, c: int) -> bool:
    return end_from_start(facet, r.sentence(c), r.figures_of(c)) and not names(r.sentence(c), facet.attribute)


def _signals(r: Reading, m: Match, s: Score) -> dict[str, float]:
    """What the rules read off a memory, as the fitted stage's features (``stage.py``): Q, the
    query's core words in the memory; the shares of facets answered, on the topic only and
    undecided; scripts and bridges; the adjustments that fired; the sentences flagged (notices,
    resolved items), and the shares of the others off the query and small talk."""
    facets = max(len(r.facets), 1)
    others = max(len(r.sentences) - len(s.flagged), 1)
    return {
        "Q": r.q, "facets": float(len(r.facets)), "answered": len(s.answered_by) / facets,
        "topic only": len(m.topic_only) / facets, "undecided": len(m.undecided) / facets,
        "other script": float(r.other_script), "bridged": float(s.bridged or s.entity_bridge),
        "unrelated": float(s.unrelated), "mention only": float(s.vague), "stale": float(s.stale),
        "update unknown": float(s.unknown_update), "other target": float(bool(s.confused)),
        "conflicts": float(bool(s.conflicts)), "updated": float(s.updated), "superseded": float(s.superseded),
        "sentences": float(len(r.sentences)), "notices": float(len(s.flagged)),
        "off query": len(s.off_topic) / others, "small talk": len(s.chatter) / others,
    }  # fmt: skip
