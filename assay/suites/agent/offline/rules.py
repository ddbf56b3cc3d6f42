"""agent_intent: whether an agent's message performs the action a request asks, on its target.

The request's and the message's actions are read by cue words (``actions``). An ordered table of
rules gives a verdict where the message fails (an error, a deflection, an unrelated reply), asks
back, or does the wrong thing (a ruled-out, different or partial action; another value, stage,
status or target). Otherwise s = 0.5·action + 0.4·target coverage + 0.1·figures repeated gives the
band, which a vague report raises to GOOD and a list of caps lowers (a group half done, a member,
filter, figure or asked action left out). ``intent_label`` is the message's action.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, say
from assay.judges.offline.scoring import pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import AgentIntentInput
from assay.judges.prompts.agent import INTENT_SCORES
from assay.schemas import JsonObject
from assay.suites.agent.offline import actions as acts
from assay.suites.agent.offline.cues import cues
from assay.suites.agent.offline.filler import without_filler

WRITES = acts.WRITE_ACTIONS
TOP = frozenset({"PERFECT", "GOOD"})


C = cues()
RE = C.regexes  # the named patterns of ``rules/cues.yaml``
_DIGIT_WORDS = str.maketrans("0123456789", "영일이삼사오육칠팔구")


def _target_words(text: str) -> tuple[str, ...]:
    """The words naming a target, stage ordinals kept as words ("1차" → "제일차")."""
    ordinals = RE["ordinal"].sub(lambda m: f"제{m.group(1)}차 ".translate(_DIGIT_WORDS), tx.strip_action_words(text))
    return tx.stems(ordinals)


def _person_word(word: str) -> bool:
    """A role word after a name, with its particle ("님에게", "지원자의", "candidate")."""
    return word in C.person_words or word.startswith(("님", "지원자", "후보"))


def _names_a_person(words: tuple[str, ...]) -> bool:
    return any(RE["name"].match(w) and n in C.person_words for w, n in pairwise(words))


def _one_of_all(query: str, message: str) -> str:
    """A person the message names before a role word where the request asked for a whole group
    (전원, 모두, all) and names no one itself."""
    if not acts.covers_all(query):
        return ""
    asked = _target_words(query)
    people = [
        w for w, nxt in pairwise(_target_words(message))
        if _person_word(nxt) and RE["name"].match(w) and w not in C.role_nouns and w not in asked
    ]  # fmt: skip
    return people[0] if people and not _names_a_person(asked) else ""


def _people(text: str, latin: bool = True) -> set[str]:
    """People a text names: a Hangul name before 지원자/님/지원서, a Hangul word of two to four
    syllables in an English sentence, and (``latin``) a Latin full name."""
    out = {m.group(0).lower() for m in RE["latin_name"].finditer(text)} if latin else set()
    if len(re.findall(r"[A-Za-z]{2,}", text)) > 2 * len(re.findall(r"[가-힣]+", text)):
        out |= set(re.findall(r"(?<![가-힣])[가-힣]{2,4}(?![가-힣])", text))
    anchors = C.person_words | C.application_words
    out |= {
        w for w, nxt in pairwise(_target_words(text))
        if nxt in anchors and re.match(r"^[가-힣]{2,4}$", w) and w not in C.role_nouns
        and not w.startswith(C.generic_qualifiers)
    }  # fmt: skip
    return out


def _other_person(query: str, message: str) -> str:
    """The message names a person the request does not, and none of the request's people; a
    Latin full name outside parentheses counts (a job title stands in parentheses)."""
    asked, said = _people(query), _people(message, latin=False)
    low_message, low_query = tx.lowered(message), tx.lowered(query)
    if not asked or any(p in low_message for p in asked):
        return ""
    said |= {m.group(0).lower() for m in RE["latin_name"].finditer(re.sub(r"\([^()]*\)", " ", message))}
    others = sorted(p for p in said if p not in low_query)
    return others[0] if others else ""


def _extra_on_others(query: str, message: str) -> str:
    """A later sentence reporting a write on people the request does not name."""
    low_query = tx.lowered(query)
    for sentence in (tx.sentences(message) or [message])[1:]:
        done = acts.actions_in(sentence) & WRITES
        others = sorted(p for p in _people(sentence) if p not in low_query)
        if done and others:
            return others[0]
    return ""


def _vague(request: str, message: str) -> bool:
    """Every word of the message is the request's own or names nothing; a message of action
    words only ("Tags added.") leaves its target unnamed."""
    request, message = acts.drop_ids(request), acts.drop_ids(message)
    own = {w[:2] for w in (*tx.stems(request), *_target_words(request)) if len(w) >= 2}
    words = [w for w in _target_words(acts.strip_extra_cues(message)) if not w.isdigit()]
    if not words:
        return bool(acts.actions_in(message))
    return all(w in C.vague_words or w[:2] in own or len(w) < 2 or w.startswith("님") for w in words)


def _shares_a_word(request: str, message: str) -> bool:
    """Some word of the message starts like a word of the request (지원자들/지원자)."""
    heads = {w[:2] for w in tx.stems(request) if len(w) >= 2}
    return any(w[:2] in heads for w in tx.stems(message) if len(w) >= 2)


def _some_of_asked(query: str, message: str) -> bool:
    """The message reports part of the count asked ("4명 중 3명에게" for "네 명한테")."""
    m = RE["some_of"].search(message)
    if not m:
        return False
    total, done = (int(m.group(1)), int(m.group(3))) if m.group(1) else (int(m.group(5)), int(m.group(4)))
    return done < total and total in {int(q.value) for q in tx.quantities(query)}


def _excluded_item(query: str, message: str) -> str:
    """An item the request rules out with 말고 (an action aside: "삭제하지 말고") that the
    message names while it names none of the item asked instead."""
    m = RE["excluded_item"].search(tx.normalize(query))
    if not m or re.search(r"(?:하지|지)$", m.group(2)):
        return ""
    ruled = " ".join(w for w in ((m.group(1) or "").strip(), m.group(2)) if w)
    instead = tx.strip_suffix(m.group(3))
    if acts.actions_in(ruled) or len(instead) < 2:
        return ""
    said = all(w in message for w in (tx.strip_suffix(w) for w in ruled.split()) if len(w) >= 2)
    return ruled if said and instead not in message else ""


def _swapped_pairs(query: str, message: str) -> list[tuple[str, str]]:
    """(qualifier, target word): before a target word both share, the request has a qualifier
    the message lacks and the message one of its own ("디자이너 공고" for "백엔드 개발자 공고").
    Generic references, action words, two forms of one word and vague words are no qualifier."""
    asked, said = _target_words(query), _target_words(message)
    asked_set, said_set = set(asked), set(said)
    out = []
    for i, word in enumerate(said):
        if i == 0 or word not in asked_set or asked.index(word) == 0:
            continue
        mine, theirs = said[i - 1], asked[asked.index(word) - 1]
        if (
            theirs not in said_set
            and mine not in asked_set
            and not mine.startswith(C.generic_qualifiers)
            and not theirs.startswith(C.generic_qualifiers)
            and not acts.request_action(mine)
            and mine[:2] != theirs[:2]
            and mine not in C.vague_words
        ):
            out.append((mine, word))
    return out


def _other_target(query: str, message: str) -> list[str]:
    """Another target: other codes than the request's; on the request's own code (not a group),
    only another stage or another person before a role word; else another qualifier."""
    asked, said = acts.ids(query), acts.ids(message)
    if asked and said and not asked & said:
        return sorted(said - asked)
    pairs = _swapped_pairs(query, message)
    if asked and asked <= said and not acts.covers_all(query):
        people = [
            mine for mine, anchor in pairs
            if anchor in C.person_words and RE["name"].match(mine) and mine not in C.role_nouns
        ]  # fmt: skip
        return [w for w, _ in pairs if RE["stage_word"].match(w)] + people
    return [mine for mine, _ in pairs]


@dataclass
class Case:
    """What the rules read about one request and message."""

    tag: str
    query: str
    expected: str
    message: str
    request: str  # the query and the expected result
    label: str  # the message's action
    wanted: str | None  # the request's action
    t: float  # target coverage
    scope: float  # share of the request's figures the message repeats
    why: Msg
    action: float = 0.5  # 1 the asked action, 0.5 a related or unknown one, 0 another
    vague: bool = False

    def say(self, verdict: str, text: Msg, label: str | None = None) -> JsonObject:
        reasoning = joined((self.tag, say("agent.because", why=self.why, text=text)), " ")
        return {"verdict": verdict, "intent_label": label or self.label, "reasoning": reasoning}


Rule = Callable[[Case], JsonObject | None]


def deflected(c: Case) -> JsonObject | None:
    """Sends the user elsewhere or says it cannot act → FAILED/OTHER."""
    if c.label == "CLARIFY" or not acts.deflects(c.message):
        return None
    reasoning = joined((c.tag, say("agent.deflected", wanted=c.wanted or say("agent.unknown"))), " ")
    return {"verdict": "FAILED", "intent_label": "OTHER", "reasoning": reasoning}


def unrelated(c: Case) -> JsonObject | None:
    """Names nothing of the request's target (unless a vague report of the asked write) → FAILED."""
    confirmed = (
        (c.label == c.wanted or {c.label, c.wanted} == {"ADD", "UPDATE"})
        and c.label in WRITES
        and _vague(c.request, c.message)
    )
    if (c.label == "OTHER" and c.t < 0.2) or (
        c.label != "CLARIFY" and c.t < 0.1 and not _shares_a_word(c.request, c.message) and not confirmed
    ):
        return c.say("FAILED", say("agent.unrelated"), "OTHER" if c.label == "VIEW" else c.label)
    return None


def declined_for_reason(c: Case) -> JsonObject | None:
    """A discriminatory filter or a request expected refused, declined with its reason → PERFECT/OTHER."""
    expected = RE["protected"].search(c.query) or RE["not_to_do"].search(c.expected)
    if expected and RE["decline"].search(c.message) and RE["why_declined"].search(c.message):
        return c.say("PERFECT", say("agent.declined_for_reason"), "OTHER")
    return None


def clarifies(c: Case) -> JsonObject | None:
    """Asks back: PARTIAL about the target, WEAK about some of it, FAILED about nothing it names."""
    if c.label != "CLARIFY":
        return None
    return c.say("PARTIAL" if c.t >= 0.3 else "WEAK" if c.t >= 0.1 else "FAILED", say("agent.clarifies"))


def ruled_out_action(c: Case) -> JsonObject | None:
    """Performs the action the request rules out ("삭제하지 말고") → RELATED_BUT_WRONG."""
    if c.label in acts.excluded_actions(c.query) and c.label != c.wanted:
        return c.say("RELATED_BUT_WRONG", say("agent.ruled_out_action"))
    return None


def other_action(c: Case) -> JsonObject | None:
    """Another action: a look-up where a change was asked → WEAK; else RELATED_BUT_WRONG (FAILED if T ≤ .2)."""
    if c.action != 0.0:
        return None
    if c.label == "VIEW" and c.wanted in WRITES and c.t > 0.2:
        return c.say("WEAK", say("agent.looked_up_only"))
    return c.say("RELATED_BUT_WRONG" if c.t > 0.2 else "FAILED", say("agent.other_action"))


def _when_asked_action(rule: Callable[[Case], JsonObject | None]) -> Rule:
    """The rule, read only where the message performs the asked action."""
    return lambda c: rule(c) if c.action == 1.0 else None


def partly_failed(c: Case) -> JsonObject | None:
    """Done, and a later sentence reports a part failed → PARTIAL."""
    return c.say("PARTIAL", say("agent.partly_failed")) if acts.partly_failed(c.message) else None


def memo_instead(c: Case) -> JsonObject | None:
    """A memo written where a value was to change → WEAK."""
    if c.wanted == "UPDATE" and acts.memo_instead(c.query, c.message):
        return c.say("WEAK", say("agent.memo_instead"))
    return None


def some_of_count(c: Case) -> JsonObject | None:
    """Part of the asked count done and said so ("4명 중 3명") → PARTIAL."""
    return c.say("PARTIAL", say("agent.some_of_count")) if _some_of_asked(c.query, c.message) else None


def excluded_item(c: Case) -> JsonObject | None:
    """Done on the item the request ruled out ("현재 연봉 말고 희망 연봉") → RELATED_BUT_WRONG."""
    item = _excluded_item(c.query, c.message)
    return c.say("RELATED_BUT_WRONG", say("agent.excluded_item", item=item)) if item else None


def other_value(c: Case) -> JsonObject | None:
    """A figure in the request's unit, none equal ("5월 30일" for "6월 30일") → RELATED_BUT_WRONG."""
    other = acts.other_values(c.query, c.message)
    return c.say("RELATED_BUT_WRONG", say("agent.other_value", values=joined(other[:3], ", "))) if other else None


def other_stage_or_status(c: Case) -> JsonObject | None:
    """A move to another stage, or another status set → RELATED_BUT_WRONG."""
    wrong = acts.other_destination(c.query, c.message) or acts.other_status(c.query, c.message)
    return c.say("RELATED_BUT_WRONG", say("agent.other_stage_or_status", what=wrong)) if wrong else None


def _swapped_targets(c: Case) -> list[str]:
    """The asked action's other targets, and the expected result's code where the message names
    other codes only; a write on other codes when the request's verb is no cue."""
    said_ids = acts.ids(c.message)
    if c.action == 1.0:
        swapped = _other_target(c.query, c.message)
        expected_ids = acts.ids(c.expected)
        if not swapped and expected_ids and said_ids and not expected_ids & said_ids:
            swapped = sorted(said_ids - expected_ids)
        return swapped
    asked_ids = acts.ids(c.query)
    if c.wanted is None and c.label in WRITES and asked_ids and said_ids and not asked_ids & said_ids:
        return sorted(said_ids - asked_ids)
    return []


def other_target(c: Case) -> JsonObject | None:
    """Done on another target → RELATED_BUT_WRONG; on one member of a group asked → PARTIAL."""
    swapped = _swapped_targets(c)
    group = acts.covers_all(c.query)
    if swapped and group:
        return c.say("PARTIAL", say("agent.part_of_group", targets=", ".join(swapped[:3])))
    if not swapped and c.action >= 0.5 and c.label in WRITES and not group:
        person = _other_person(c.query, c.message)
        swapped = [person] if person else []
    return c.say("RELATED_BUT_WRONG", say("agent.other_target", targets=", ".join(swapped[:3]))) if swapped else None


# Before the action is scored, in order.
FAILURES: tuple[Rule, ...] = (deflected, unrelated, declined_for_reason, clarifies, ruled_out_action)
# After it, in order (the middle six only where the message performs the asked action).
WRONG_DOINGS: tuple[Rule, ...] = (
    other_action,
    *map(_when_asked_action, (partly_failed, memo_instead, some_of_count, excluded_item, other_value, other_stage_or_status)),
    other_target,
)


def one_of_group(c: Case) -> Msg | str:
    """One named person done where the whole group was asked (→ WEAK)."""
    one = _one_of_all(c.query, c.message)
    return say("agent.one_of_group", one=one) if one else ""


def extra_write(c: Case) -> Msg | str:
    """A write the request did not ask for, on other people, beside the asked one."""
    extra = _extra_on_others(c.query, c.message)
    return say("agent.extra_write", others=extra) if extra else ""


def member_left(c: Case) -> Msg | str:
    """One of two targets the request joins left out."""
    left = acts.missing_member(c.query, c.message)
    return say("agent.member_left", left=left) if left else ""


def filter_left(c: Case) -> Msg | str:
    """A list shown without the request's filter ("X만", "only … with X")."""
    unfiltered = acts.missing_filter(c.query, c.message) if c.label == "VIEW" else ""
    return say("agent.filter_left", condition=unfiltered) if unfiltered else ""


def action_left(c: Case) -> Msg | str:
    """Two or more actions asked (ruled-out ones and ones named in a reason aside), not all done."""
    asked = tx.intents_in(acts.without_reasons(acts.without_excluded(c.query)))
    done = tx.intents_in(c.message)
    if len(asked) >= 2 and not asked <= done:
        done_ones = "/".join(sorted(asked & done)) or say("agent.none")
        return say("agent.action_left", asked="/".join(sorted(asked)), done=done_ones)
    return ""


# A PERFECT or GOOD verdict is lowered, in order, by each cap whose note is not empty.
CAPS: tuple[tuple[str, Callable[[Case], Msg | str]], ...] = (
    ("WEAK", one_of_group),
    ("PARTIAL", extra_write),
    ("PARTIAL", member_left),
    ("PARTIAL", filter_left),
    ("PARTIAL", action_left),
)


def _band(s: float) -> str:
    bands = ((0.9, "PERFECT"), (0.65, "GOOD"), (0.5, "PARTIAL"), (0.3, "WEAK"))
    return next((verdict for floor, verdict in bands if s >= floor), "RELATED_BUT_WRONG")


def graded(c: Case) -> JsonObject:
    """The band of s; a vague report of the asked write is GOOD; then the caps."""
    s = 0.5 * c.action + 0.4 * c.t + 0.1 * c.scope
    verdict, note = _band(s), ""
    c.vague = (
        (c.action == 1.0 or {c.wanted, c.label} == {"ADD", "UPDATE"})
        and verdict in {"PARTIAL", "WEAK"}
        and _vague(c.request, c.message)
    )
    if c.vague:
        verdict, note = "GOOD", say("agent.vague")
    for capped, note_of in CAPS:
        cap_note = note_of(c) if verdict in TOP else ""
        if cap_note:
            verdict, note = capped, cap_note
    reasoning = joined((c.tag, say("agent.graded", why=c.why, s=s, note=note)), " ")
    return {"verdict": verdict, "intent_label": c.label, "reasoning": reasoning}


def _score_action(c: Case) -> None:
    """The asked write reported beside a related one ("이동했고, … 발송했습니다") performs it; then
    the action's score."""
    near = frozenset({c.wanted, c.label}) in tx.NEAR_INTENTS
    if c.wanted in WRITES and c.label in WRITES and near and c.wanted in acts.actions_in(c.message):
        c.label = c.wanted
    if c.wanted is None or c.label == "OTHER":
        c.action = 0.5
    else:  # (``near`` is still this pair's: a relabelled write is the asked action)
        c.action = 1.0 if c.wanted == c.label else 0.5 if near else 0.0


def _first_verdict(rules: tuple[Rule, ...], c: Case) -> JsonObject | None:
    return next((verdict for rule in rules if (verdict := rule(c)) is not None), None)


class AgentRules(RuleSet):
    """The agent suite's rules, reading the judge's signals (``units``, ``coverage``…)."""

    def agent_intent(self, item: AgentIntentInput) -> JsonObject:
        """The reply's verdict, as written and without its filler (``filler.py``): the lower one."""
        message = tx.normalize(item.assistant_message)
        found = self._agent_verdict(item, message)
        kept, filler = without_filler(item.query + "\n" + item.expected_result, message, (RE["decline"], RE["why_declined"]))
        if not filler:
            return found
        plain = self._agent_verdict(item, kept)
        if INTENT_SCORES[plain["verdict"]] >= INTENT_SCORES[found["verdict"]]:
            return found
        note = say("agent.filler_set_aside", what=joined((say("agent.quoted", text=s[:40]) for s in filler), "; "))
        return {**plain, "reasoning": joined((plain["reasoning"], note), " ", ".")}

    def _agent_verdict(self, item: AgentIntentInput, message: str) -> JsonObject:
        tag = f"[{self.signal}]"
        label = acts.message_action(message)
        if label == "ERROR":
            empty = not message.strip()  # no reply at all reports no error either: OTHER
            reasoning = say("agent.empty" if empty else "agent.error")
            return {"verdict": "FAILED", "intent_label": "OTHER" if empty else "ERROR", "reasoning": joined((tag, reasoning), " ")}
        case = self._case(item, message, label, tag)
        found = _first_verdict(FAILURES, case)
        if found is None:
            _score_action(case)
            found = _first_verdict(WRONG_DOINGS, case)
        return found if found is not None else graded(case)

    def _case(self, item: AgentIntentInput, message: str, label: str, tag: str) -> Case:
        request = item.query + ("\n" + item.expected_result if item.expected_result.strip() else "")
        ctx = self.prepare([request, message])
        # English function words and the words that rule an action out name no target
        target = self.units(RE["en_function"].sub(" ", tx.strip_action_words(acts.without_excluded(item.query))), ctx)
        t = self.coverage(target, self.units(message, ctx))
        t = 1.0 if t is None else t
        # (an order not to, closing the request — "아직 보내지 마" — is not what it asks)
        wanted = acts.request_action(acts.without_excluded(item.query)) or acts.request_action(item.query)
        figures, said = tx.quantities(item.query), tx.quantities(message)
        scope = sum(any(tx.same_quantity(f, g) for g in said) for f in figures) / len(figures) if figures else 1.0
        why = say("agent.why", wanted=wanted or say("agent.unknown"), label=label, target=pct(t), scope=pct(scope))
        return Case(tag, item.query, item.expected_result, message, request, label, wanted, t, scope, why)
