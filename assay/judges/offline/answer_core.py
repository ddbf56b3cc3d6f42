"""The generic answer core: a reference-based rag_answer verdict from a language pack's signals.

It judges an answer in a language with a pack (``lang/<code>.yaml``) and no hand rules (today:
English) and knows no language itself: words, negations, refusals, hedges, number and calendar
words all come from the pack; its notes are messages, written in the run's language
(``messages.py``). Text addressed to the grader, JSON and
sentences in another script are set aside first (they can lower a score, never raise it). The
verdict (1-5 each; N, P, Q the coverages of ``read``): shortcuts for an empty answer, a refusal,
an answer where the reference refuses and a keyword list; then a wrong figure or name, a claim
reversed, or N < .2 make it wrong; else accuracy from N, capped by invented extras and hedges.
``view`` is the judge's way of matching words: ``stems``, ``ngrams`` (character 4-grams of the
content words) or ``figures`` (stems, figures counted three times).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from assay.judges.offline.lang import LanguagePack, language_of, pack, script_of, script_shares
from assay.judges.offline.messages import Msg, say, tagged
from assay.judges.offline.scoring import band, pct
from assay.schemas import JsonObject

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,:]\d+)*", re.UNICODE)
NAME = re.compile(r"\b[A-Z][\w'’-]*")
ACRONYM = re.compile(r"[A-Z]{2,}")
JSON_OBJECT = re.compile(r"\{[^{}]*:[^{}]*\}")
HOURS_MINUTES = re.compile(r"\b(\d{1,2}):(\d{2})\b")
# a list's separators; a comma between digits ("30,000") separates nothing
LIST_SEPARATOR = re.compile(r"(?<!\d),|,(?!\d)|[/|·;]")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
SIZE_CUTS: tuple[tuple[float, float], ...] = ((0.8, 5), (0.6, 4), (0.4, 3), (0.2, 2))
ACCURACY_CUTS: tuple[tuple[float, float], ...] = ((0.35, 5), (0.2, 4))


def handles(reference: str, answer: str) -> str | None:
    """The pack code the core judges this pair with, or None (Korean, or no pack): the
    reference's language decides; an answer in another language is then set aside."""
    code = language_of(reference) or language_of(answer)
    return code if code is not None and code != "ko" else None


# -- what is judged -------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def judged_part(answer: str, lang: LanguagePack, keep_foreign: bool = False) -> tuple[str, list[str]]:
    """The answer without JSON objects, sentences addressed to the grader and (unless
    ``keep_foreign``) sentences in another script; returns the kept text and what was set aside."""
    aside: list[str] = [m.group(0) for m in JSON_OBJECT.finditer(answer)]
    text = JSON_OBJECT.sub(" ", answer)
    kept: list[str] = []
    for whole in sentences(text):
        sentence, tail = (whole, "") if keep_foreign else trailing_foreign(whole, lang)
        if tail:
            aside.append(tail)
        lowered = normal(sentence)
        if any(cue in lowered for cue in lang.grader_cues) or (not keep_foreign and foreign(sentence, lang)):
            aside.append(sentence)
        else:
            kept.append(sentence)
    return " ".join(kept), aside


# Words of letters, for counting a trailing run in another script.
LETTER_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# A run this long in another script, after the sentence's last letter in the pack's script,
# is text appended to the sentence (filler, a second language), not a name inside it.
FOREIGN_TAIL_WORDS = 3


def trailing_foreign(sentence: str, lang: LanguagePack) -> tuple[str, str]:
    """The sentence and what follows its last letter in the pack's script when that is a run of
    at least ``FOREIGN_TAIL_WORDS`` words in another script ("… 안내 Lorem ipsum dolor sit") and
    the sentence before it is mostly in the pack's script."""
    last = max((i for i, ch in enumerate(sentence) if script_of(ch) == lang.script), default=-1)
    if last < 0:
        return sentence, ""
    tail = sentence[last + 1 :]
    words = [w for w in LETTER_WORD.findall(tail) if script_of(w[0]) not in (None, lang.script)]
    if len(words) < FOREIGN_TAIL_WORDS:
        return sentence, ""
    cut = last + 1 + tail.index(words[0])
    if script_shares(sentence[:cut]).get(lang.script, 0.0) < 0.5:
        return sentence, ""  # a sentence in another script quoting a word of this one ("Government24 (정부24) or …")
    return sentence[:cut].rstrip(), sentence[cut:].strip()


@lru_cache(maxsize=4096)
def judged_in_own_language(answer: str, code: str) -> tuple[str, list[str]]:
    """``judged_part`` for a language with hand rules (Korean): when no sentence in the
    language is left, the answer is in another language as a whole and is judged as written
    (the rules' cross-language path), without what addresses the grader."""
    lang = pack(code)
    kept, aside = judged_part(answer, lang)
    if script_shares(kept).get(lang.script):
        return kept, aside
    return judged_part(answer, lang, keep_foreign=True)


def foreign(sentence: str, lang: LanguagePack) -> bool:
    """A sentence with letters, too few of them in the pack's script (``own_script_share``)."""
    shares = script_shares(sentence)
    return bool(shares) and shares.get(lang.script, 0.0) < lang.own_script_share


def normal(text: str) -> str:
    return " ".join(text.replace("’", "'").lower().split())


def has_phrase(text: str, phrases: Iterable[str]) -> str | None:
    """The first phrase found in ``text`` on word boundaries (text already ``normal``)."""
    for phrase in phrases:
        if re.search(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", text):
            return phrase
    return None


# -- signals ---------------------------------------------------------------------------------


def stem(word: str, lang: LanguagePack) -> str:
    for suffix in lang.suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def content(text: str, lang: LanguagePack) -> set[str]:
    """The stems of the text's content words (no function words, no figures)."""
    out = set()
    for word in words(text):
        base = word.replace("’", "'").split("'")[0]  # "it'll" is "it" said with a verb
        if word in lang.stopwords or base in lang.stopwords or word in lang.negations or word[0].isdigit() or len(word) < 2:
            continue
        out.add(stem(base, lang))
    return out


@dataclass(frozen=True)
class Figure:
    """One figure as it was written, its kind (``amount`` for numbers and clock times, else the
    calendar word's kind) and every form it matches in (unit conversions, a clock time's hour)."""

    shown: str
    forms: frozenset[str]
    kind: str = "amount"
    unit: str = ""  # the word after a number ("days"), stemmed
    soft: bool = False  # a word that is often no figure: it may match, never stands on its own
    clock: str = ""  # a clock time written with its half of the day ("11 pm"): 24-hour "23:00"

    def found_in(self, others: Iterable[Figure]) -> bool:
        return any(self.matches(other) for other in others)

    def matches(self, other: Figure) -> bool:
        # "11 pm" is not "11 am", though either matches a bare "11"
        if self.clock and other.clock:
            return self.clock == other.clock
        return bool(self.forms & other.forms)


def _number(raw: str | float) -> str:
    value = float(str(raw).replace(",", ""))
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _alternatives(words: Iterable[str]) -> str:
    """The words as a regular expression's alternatives, longest first ("eighteen" before "eight")."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=64)
def _clock_pattern(markers: tuple[str, ...]) -> re.Pattern[str]:
    pattern = rf"(?<![\d:])(\d{{1,2}})(?::(\d{{2}}))?\s*({_alternatives(markers)})(?![\w])"
    return re.compile(pattern, re.IGNORECASE)


@lru_cache(maxsize=64)
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w'])({_alternatives(words)})(?![\w'])", re.IGNORECASE)


def digitised(text: str, lang: LanguagePack) -> str:
    """The text with number words as digits ("twenty-one" as 21, "two hundred" as 200) and the
    pack's figure rewrites applied."""
    hard = tuple(w for w in lang.number_words if w not in lang.soft_number_words)
    if hard:
        every = tuple(lang.number_words)
        text = _number_run_pattern(hard, every).sub(lambda m: _run_value(m.group(0), lang), text)
    for pattern, replacement in lang.figure_rewrites:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


@lru_cache(maxsize=64)
def _number_run_pattern(first: tuple[str, ...], rest: tuple[str, ...]) -> re.Pattern[str]:
    """A run of number words joined by spaces or hyphens ("twenty-one", "two hundred"); it opens
    with a word that is always a figure (a soft one such as "one" may follow)."""
    opens, then = _alternatives(first), _alternatives(rest)
    return re.compile(rf"(?<![\w'])(?:{opens})(?:[\s-]+(?:{then}))*(?![\w'])", re.IGNORECASE)


def _run_value(run: str, lang: LanguagePack) -> str:
    """A run of number words as digits: a unit after a tens word adds ("twenty one"), a word of
    100 or more multiplies what came before it ("two hundred"). A run that does not compose so
    ("ten one-way") keeps each word on its own (a soft word as it was written)."""
    parts = re.split(r"([\s-]+)", run)
    total = current = 0.0
    for word in parts[::2]:
        value = float(lang.number_words[word.lower()])
        if value >= 100 and current:
            current *= value
            if value >= 1000:
                total, current = total + current, 0.0
        elif current == 0 or (value < 10 and current % 100 >= 20 and current % 10 == 0):
            current += value
        else:
            return "".join(
                p if i % 2 or p.lower() in lang.soft_number_words else _number(lang.number_words[p.lower()])
                for i, p in enumerate(parts)
            )
    return _number(total + current)


def _clock(hour: int, minutes: str, marker: str) -> frozenset[str]:
    """A clock time's forms: 24-hour ``H:MM`` and, on the hour, the bare 12-hour figure (an
    answer's "3" for "3 pm"); a time with minutes also matches its hour ("half past six": 6)."""
    if marker == "pm" and hour < 12:
        hour += 12
    elif marker == "am" and hour == 12:
        hour = 0
    twelve = hour % 12 or 12
    return frozenset({f"{hour}:{minutes}", str(twelve)})


def figures(text: str, lang: LanguagePack) -> list[Figure]:
    """The text's figures: clock times, numbers and number words (with converted forms when a
    unit follows), and calendar words (weekdays, months, periods)."""
    out: list[Figure] = []
    rest = digitised(text, lang)
    if lang.clock:
        pattern = _clock_pattern(tuple(lang.clock))
        for m in pattern.finditer(rest):
            marker = lang.clock[m.group(3).lower()]
            forms = _clock(int(m.group(1)), m.group(2) or "00", marker)
            day_half = next(f for f in forms if ":" in f) if marker else ""
            out.append(Figure(m.group(0).strip(), forms, clock=day_half))
        rest = pattern.sub(" ", rest)
    for m in HOURS_MINUTES.finditer(rest):
        out.append(Figure(m.group(0), _clock(int(m.group(1)), m.group(2), "")))
    rest = HOURS_MINUTES.sub(" ", rest)
    tokens = words(rest)
    for index, token in enumerate(tokens):
        after = tokens[index + 1] if index + 1 < len(tokens) else ""
        before = tokens[index - 1] if index else ""
        if (token[0].isdigit() and NUMBER.fullmatch(token)) or token in lang.soft_number_words:
            out.append(_number_figure(token, after, lang))
        elif (calendar := lang.calendar_words.get(token)) is not None:
            kind = lang.calendar_kinds.get(calendar) or ("amount" if ":" in calendar else "month")
            out.append(Figure(token, frozenset({calendar}), kind=kind))
        elif token in lang.months_beside_day and (before[:1].isdigit() or after[:1].isdigit()):
            out.append(Figure(token, frozenset({lang.months_beside_day[token]}), kind="month"))
    return out


def _number_figure(token: str, after: str, lang: LanguagePack) -> Figure:
    """A number (digits, or a soft number word such as "one") and its form in the unit after it."""
    soft = not token[0].isdigit()
    value = _number(lang.number_words[token] if soft else token)
    forms = {value}
    if after in lang.unit_conversions:
        forms.add(_number(float(value) * lang.unit_conversions[after]))
    if soft:
        return Figure(f"{token} {after}".strip(), frozenset(forms), soft=True)
    shown = f"{token} {after}" if after in lang.unit_conversions else token
    unit = stem(after, lang) if after and not after[0].isdigit() and after not in lang.stopwords else ""
    return Figure(shown, frozenset(forms), unit=unit)


def names(text: str, lang: LanguagePack) -> set[str]:
    """Capitalised words inside a sentence (not its first word, unless an acronym such as
    "AC"), as lower-case stems."""
    out = set()
    for sentence in sentences(text):
        for m in NAME.finditer(sentence):
            if m.start() == 0 and not ACRONYM.fullmatch(m.group(0)) and not _name_follows(sentence, m.end()):
                continue
            word = m.group(0).lower().replace("’", "'").split("'")[0]
            if word in lang.stopwords or word in lang.calendar_words or word in lang.number_words:
                continue
            out.add(stem(word, lang))
    return out


def _name_follows(sentence: str, end: int) -> bool:
    """Another capitalised word right after the first one: "Johanna Steiner.", a full name."""
    return bool(re.match(r"\s+[A-Z][a-z]", sentence[end:]))


def common_words(text: str, lang: LanguagePack) -> set[str]:
    """Stems of the words written in lower case: a word a text uses as a common noun is no
    name of its own elsewhere."""
    return {stem(w, lang) for w in WORD.findall(text) if w.islower() and not w[0].isdigit()}


def particle(sentence: str, lang: LanguagePack) -> str | None:
    """``yes`` or ``no`` when the sentence opens with an answer particle ("No, …")."""
    tokens = words(sentence)
    return lang.answer_particles.get(tokens[0]) if tokens else None


def negation_parity(sentence: str, lang: LanguagePack) -> int:
    lowered = normal(sentence)
    if lang.negation_idioms:
        lowered = _words_pattern(tuple(lang.negation_idioms)).sub(" ", lowered)
    if lang.negating_phrases:
        lowered = _words_pattern(tuple(lang.negating_phrases)).sub(" not ", lowered)
    tokens = words(lowered)
    if tokens and tokens[0] in lang.answer_particles:
        tokens = tokens[1:]
    found = sum(1 for w in tokens if w in lang.negations or w.endswith(lang.negation_endings))
    return found % 2


def clauses(text: str, lang: LanguagePack) -> list[str]:
    """The text's sentences split at commas and the pack's joining words."""
    joins = _alternatives(lang.clause_joins)
    pattern = rf"[,;:()]\s*|\s+(?:{joins})\s+" if joins else r"[,;:()]\s*"
    return [c for s in sentences(text) for c in re.split(pattern, s, flags=re.IGNORECASE) if c.strip()]


def unsupported_clauses(answer: str, support: set[str], support_figs: list[Figure], lang: LanguagePack) -> list[str]:
    """Clauses of at least three content words, none of whose figures is supported and under a
    third of whose words the reference, question or retrieved texts hold: claims of the
    answer's own."""
    out = []
    for clause in clauses(answer, lang):
        own = content(clause, lang)
        if len(own) < 3 or any(f.found_in(support_figs) for f in figures(clause, lang)):
            continue
        if len(own & support) / len(own) < 0.34:
            out.append(clause.strip())
    return out


def _own_parity(clause: str, question: str, lang: LanguagePack) -> int:
    """A clause's negation parity, not counting a negation it repeats from the question
    ("students who are not in their final year can register …")."""
    parity = negation_parity(clause, lang)
    if parity and question and negation_parity(question, lang) and len(content(clause, lang) & content(question, lang)) >= 2:
        return 0
    return parity


def reversal(answer: str, reference: str, lang: LanguagePack, question: str = "") -> Msg | None:
    """How the answer states a reference claim the other way round (a message for the feedback),
    or None: a "yes" where
    the reference opens with "no" (or the reverse), or an answer clause aligned with a reference
    clause (sharing at least two content words, and more than with any other) whose negation
    parity differs, or which holds one word of an antonym
    pair where the reference sentence holds the other."""
    pairs = [(stem(a, lang), stem(b, lang)) for a, b in lang.antonyms]
    answer_sentences = sentences(answer)
    said, meant = particle(answer_sentences[0], lang) if answer_sentences else None, particle(reference, lang)
    if said and meant and said != meant:
        return say("core.reversed_particle", said=say(f"core.particle_{said}"), meant=say(f"core.particle_{meant}"))
    # clause by clause: "10 days a year, and unused ones don't carry over" holds two claims
    ref_sentences = [(c, content(c, lang)) for c in clauses(reference, lang)]
    for sentence in clauses(answer, lang):
        own = content(sentence, lang)
        best = max(ref_sentences, key=lambda rs: len(own & rs[1]), default=None)
        if best is None or len(own & best[1]) < 2:
            continue
        if _own_parity(sentence, question, lang) != negation_parity(best[0], lang):
            return say("core.reversed_clause", answer=sentence.strip(), reference=best[0].strip())
        for a, b in pairs + [(b, a) for a, b in pairs]:
            if a in own and b in best[1] and a not in best[1] and b not in own:
                return say("core.reversed_words", said=a, meant=b)
    return None


def refuses(text: str, lang: LanguagePack) -> bool:
    """A refusal phrase, or a sentence with a negation, a saying verb and a document word
    ("nothing in the information mentions it")."""
    if has_phrase(normal(text), lang.refusals) is not None:
        return True
    for sentence in sentences(text):
        tokens = set(words(sentence))
        negated = any(w in lang.negations or w.endswith(lang.negation_endings) for w in tokens)
        if negated and tokens & lang.refusal_verbs and tokens & lang.refusal_subjects:
            return True
    return False


def keyword_list(text: str, lang: LanguagePack) -> bool:
    """Words with no statement: at least four words and almost no function words, or a list of
    three or more short comma-separated fragments with none."""
    tokens = [w for w in words(text) if not w[0].isdigit() and w not in lang.number_words]
    if len(tokens) < 4:
        return False
    # "it's" is "it" said with a verb
    function = sum(1 for w in tokens if re.sub(r"['’]\w+$", "", w) in lang.stopwords or w in lang.negations)
    if function / len(tokens) < 0.15:
        return True
    # six or more words with few function words, neither opened nor closed as a sentence is
    unwritten = text.strip()[:1].islower() and text.strip()[-1:] not in ".!?"
    if unwritten and len(tokens) >= 6 and function / len(tokens) < 0.25:
        return True
    fragments = [f for f in LIST_SEPARATOR.split(text) if f.strip()]
    return len(fragments) >= 3 and all(len(words(f)) <= 3 for f in fragments) and function <= 1


def is_list(text: str) -> bool:
    """Comma-separated fragments of at most three words: a reference that is itself a list
    ("Spanish, Italian, German and Japanese") is answered by a list."""
    fragments = [f for f in LIST_SEPARATOR.split(text) if f.strip()]
    return len(fragments) >= 2 and all(len(words(f)) <= 3 for f in fragments)


@dataclass(frozen=True)
class Reading:
    """What the core reads off one answer (for the verdict and its feedback)."""

    n: float
    p: float
    q: float
    wrong_figures: tuple[str, ...]
    missing_figures: tuple[str, ...]
    wrong_names: tuple[str, ...]
    missing_names: tuple[str, ...]
    no_reference_name: bool  # a name question answered with none of the reference's names
    extra: tuple[str, ...]
    reversed: Msg | None
    hedge: str | None
    all_facts: bool
    right_figures: int = 0  # the reference's figures (beyond the question's) the answer says
    lead_said: bool = False  # every figure of the reference's opening claim is in the answer


def _ngrams(stems: Iterable[str]) -> set[str]:
    out = set()
    for s in stems:
        padded = f"^{s}$"
        out.update(padded[i : i + 4] for i in range(max(1, len(padded) - 3)))
    return out


def _share(target: set[str], source: set[str]) -> float | None:
    return len(target & source) / len(target) if target else None


def read(question: str, answer: str, reference: str, contexts: list[str], lang: LanguagePack, view: str) -> Reading:
    """N = share of the reference's content beyond the question that the answer says, P = share
    of the answer's own content the reference or retrieved texts support, Q = share of the
    question's content words said; wrong, missing and unsupported figures and names."""
    q_words, a_words, r_words = content(question, lang), content(answer, lang), content(reference, lang)
    support_words = r_words | content(" ".join(contexts), lang)
    a_figs, r_figs = figures(answer, lang), figures(reference, lang)
    q_figs, c_figs = figures(question, lang), figures(" ".join(contexts), lang)
    wrong_figs, missing_figs, extra = _figure_check(a_figs, r_figs, q_figs, c_figs)
    wrong_names, missing_names, new_names, no_reference_name = _name_check(question, answer, reference, contexts, lang)
    extra += new_names
    # the reference's content beyond the question; all of it when it only repeats the question
    key = (r_words - q_words) or r_words
    n, p = _coverages(view, key, a_words, a_words - q_words, support_words, r_figs, a_figs)
    extra += [short(c, 60) for c in unsupported_clauses(answer, support_words | q_words, r_figs + q_figs + c_figs, lang)]
    q_stems = {stem(w, lang) for w in words(question)}
    # the reference's own facts: its figures and names that the question does not already state
    r_facts = sum(1 for f in r_figs if not f.soft and not f.found_in(q_figs)) + len(names(reference, lang) - q_stems)
    return Reading(
        n=1.0 if n is None else n,
        p=1.0 if p is None else p,
        q=_share(q_words, a_words) if q_words else 1.0,  # type: ignore[arg-type]
        wrong_figures=tuple(f.shown for f in wrong_figs),
        missing_figures=tuple(f.shown for f in missing_figs),
        wrong_names=tuple(wrong_names),
        missing_names=tuple(missing_names),
        no_reference_name=no_reference_name,
        extra=tuple(extra),
        reversed=reversal(answer, reference, lang, question),
        hedge=_own_hedge(answer, reference, lang),
        all_facts=r_facts > 0 and not missing_figs and not missing_names,
        right_figures=sum(1 for f in r_figs if not f.soft and f.found_in(a_figs) and not f.found_in(q_figs)),
        lead_said=_lead_said(reference, a_figs, q_figs, lang),
    )


def _own_hedge(answer: str, reference: str, lang: LanguagePack) -> str | None:
    """A hedge of the answer's own: "may be reassigned" repeats a reference that says "may"."""
    hedge = has_phrase(normal(answer), lang.hedges)
    return hedge if hedge is not None and has_phrase(normal(reference), (hedge,)) is None else None


def lead(reference: str, lang: LanguagePack) -> str:
    """The reference's opening claim: its first clause after an answer particle ("Yes. Lite
    customers pay 2 dollars a day …" → "Lite customers pay 2 dollars a day")."""
    parts = [c for c in clauses(reference, lang) if words(c) and not (len(words(c)) == 1 and particle(c, lang))]
    return parts[0] if parts else ""


def _lead_said(reference: str, a_figs: list[Figure], q_figs: list[Figure], lang: LanguagePack) -> bool:
    """The reference's opening claim holds figures beyond the question's, and the answer says them all."""
    own = [f for f in figures(lead(reference, lang), lang) if not f.soft and not f.found_in(q_figs)]
    return bool(own) and all(f.found_in(a_figs) for f in own)


def asks_one_thing(question: str, lang: LanguagePack) -> bool:
    """No second question joined by "and" ("…, and what does the extra cost?")."""
    tokens = words(question)
    pairs = zip(tokens, tokens[1:], strict=False)
    return not any(t in lang.ask_joins and nxt in lang.second_asks for t, nxt in pairs)


def _figure_check(
    a_figs: list[Figure], r_figs: list[Figure], q_figs: list[Figure], c_figs: list[Figure]
) -> tuple[list[Figure], list[Figure], list[str]]:
    """(wrong, missing, extra): a figure where the reference states another of its kind, or
    beside the reference's figure another of its unit no text supports ("within 7 days … within
    30 days"), is wrong; one no text supports at all is an invented extra."""
    missing = [f for f in r_figs if not f.soft and not f.found_in(a_figs) and not f.found_in(q_figs)]
    new = [f for f in a_figs if not f.soft and not f.found_in(r_figs) and not f.found_in(q_figs)]
    wrong = [
        f for f in new
        if any(m.kind == f.kind for m in missing)
        or (f.unit and not f.found_in(c_figs) and any(r.unit == f.unit for r in r_figs))
    ]
    return wrong, missing, [f.shown for f in new if f not in wrong and not f.found_in(c_figs)]


def _name_check(
    question: str, answer: str, reference: str, contexts: list[str], lang: LanguagePack
) -> tuple[list[str], list[str], list[str], bool]:
    """(wrong, missing, extra, none said) names: one the reference gives and the answer never
    writes (in any case), against one the answer gives that the reference does not (and no text
    uses as a common word); or a name question answered with none of the reference's names and
    no name of its own (no wrong name to show, ``none said`` True)."""
    a_names, r_names = names(answer, lang), names(reference, lang)
    a_stems, q_stems = {stem(w, lang) for w in words(answer)}, {stem(w, lang) for w in words(question)}
    r_stems = {stem(w, lang) for w in words(reference)}
    common = common_words(" ".join([reference, question, *contexts]), lang)
    missing = sorted(r_names - a_stems - q_stems)
    new = sorted(n for n in a_names - r_stems - q_stems if n not in common)
    asks_name = asks_for_name(question, lang)
    if missing and (new or (asks_name and not (r_names & a_stems))):
        return new, missing, [], not new
    if asks_name and (other := _other_filler(question, answer, reference, lang)):
        return other[0], other[1], [], False
    return [], missing, new, False


def asks_for_name(question: str, lang: LanguagePack) -> bool:
    """The question opens with a name interrogative ("Who …", "In which …"), not "… who are not …"."""
    return bool(set(words(question)[:3]) & lang.name_questions)


def _other_filler(question: str, answer: str, reference: str, lang: LanguagePack) -> tuple[list[str], list[str]] | None:
    """A "which"/"who" question the answer fills with other words than the reference: the
    reference clause closest to the question holds words beyond it (its answer), the answer holds
    none of them and words of its own instead ("Dogs and puppies" for "Cats and rabbits")."""
    q_words = content(question, lang)
    ref_clauses = [content(c, lang) for c in clauses(reference, lang)]
    closest = max(ref_clauses, key=lambda c: len(c & q_words), default=set())
    # figures and dates are the figure check's: here only words
    filler = {w for w in closest - q_words if not w[:1].isdigit() and w not in lang.calendar_words}
    a_words = content(answer, lang)
    own = a_words - q_words - content(reference, lang)
    if filler and own and not (filler & a_words):
        return sorted(own), sorted(filler)
    return None


def _coverages(
    view: str, key: set[str], a_words: set[str], own: set[str], support: set[str], r_figs: list[Figure], a_figs: list[Figure]
) -> tuple[float | None, float | None]:
    """(N, P) in the judge's view: character 4-grams, or stems with each reference figure said
    counted once (``stems``) or three times (``figures``)."""
    if view == "ngrams":
        return _share(_ngrams(key), _ngrams(a_words)), _share(_ngrams(own), _ngrams(support))
    weight = 3 if view == "figures" else 1
    said = len(key & a_words) + weight * sum(1 for f in r_figs if f.found_in(a_figs))
    total = len(key) + weight * len(r_figs)
    return (said / total if total else None), _share(own, support)


# -- the verdict ---------------------------------------------------------------------------


def rag_verdict(question: str, answer: str, reference: str, contexts: list[str], code: str, view: str, tag: str) -> JsonObject:
    """The rag_answer verdict: accuracy, completeness, relevance (1-5) and feedback in the
    pack's language."""
    return _rag_verdict(question, answer, reference, tuple(contexts), code, view, tag)


@lru_cache(maxsize=4096)
def _rag_verdict(
    question: str, answer: str, reference: str, contexts: tuple[str, ...], code: str, view: str, tag: str
) -> JsonObject:
    lang = pack(code)
    kept, aside = judged_part(answer, lang)
    notes = [say("core.stripped", what="; ".join(short(a) for a in aside))] if aside else []
    accuracy, completeness, relevance, more = _shortcut(question, kept, reference, contexts, lang) or _scored(
        question, kept, reference, contexts, lang, view
    )
    return {"feedback": tagged(tag, [*notes, *more]), "accuracy": accuracy, "completeness": completeness, "relevance": relevance}


Scores = tuple[float, float, float, list[Msg]]  # accuracy, completeness, relevance, notes


def _shortcut(question: str, kept: str, reference: str, contexts: tuple[str, ...], lang: LanguagePack) -> Scores | None:
    """An empty answer (1, 1, 2), a refusal (5s when the reference refuses too, else 1, 1, 2),
    an answer where the reference refuses (1, 1, 3), a keyword list (1s); None otherwise."""
    if not kept.strip() or not any(ch.isalnum() for ch in kept):
        return 1, 1, 2, [say("core.empty")]
    ref_refuses = refuses(reference, lang)
    if refuses(kept, lang) and (ref_refuses or not _answers_anyway(question, kept, reference, contexts, lang)):
        return (5, 5, 5, [say("core.refusal_right")]) if ref_refuses else (1, 1, 2, [say("core.refusal_wrong")])
    if ref_refuses:
        return 1, 1, 3, [say("core.answer_without_basis")]
    if _bare_particle(question, kept, reference, lang):
        return 5, 4, 5, [say("core.particle_agrees", what=say(f"core.particle_{particle(reference, lang)}"))]
    if keyword_list(kept, lang) and not is_list(reference):
        return 1, 1, 1, [say("core.salad")]
    return None


def _scored(question: str, kept: str, reference: str, contexts: tuple[str, ...], lang: LanguagePack, view: str) -> Scores:
    """A wrong claim or N < .2 make the answer wrong; else accuracy is whether what it says
    agrees (N ≥ .35 → 5, ≥ .2 → 4; 5 with every figure and name said), ≤ 4 with invented
    extras, ≤ 2 hedged; completeness is band(N)."""
    r = read(question, kept, reference, list(contexts), lang, view)
    facts = [say("core.coverage", share=pct(r.n)), say("core.support", share=pct(r.p))]
    wrong = _wrong_claim(r, lang)
    if wrong:
        # a wrong main claim leaves little of the reference said, whatever else is repeated
        return 1, min(band(r.n, SIZE_CUTS, 1), 2), 4 if r.q >= 0.3 or r.n >= 0.2 else 2, [wrong, *facts]
    if r.n < 0.2 and not r.all_facts and not r.right_figures:
        # says almost nothing the reference says: wrong, or true of something else
        return 1, 1, 4 if r.q >= 0.5 else 2, [say("core.off_topic"), *facts]
    accuracy = band(r.n, ACCURACY_CUTS, 3)
    completeness = band(r.n, SIZE_CUTS, 1)
    if r.right_figures and accuracy < 5:
        # a terse or partial answer that gives the reference's own figures: what it says is
        # right (5 when the reference or the retrieved texts support most of its words); what
        # it leaves out is completeness
        accuracy = 5 if r.p >= 0.5 else 4
    if r.all_facts:
        accuracy, completeness = 5, max(completeness, 4)
    elif r.lead_said and asks_one_thing(question, lang):
        # the reference's opening claim is the answer; what follows it explains or adds
        completeness = max(completeness, 4)
    if r.extra:
        accuracy = min(accuracy, 4)
        facts.append(say("core.extra", what=", ".join(r.extra)))
    if r.hedge:
        accuracy = min(accuracy, 2)
        facts.append(say("core.hedged", what=r.hedge))
    return accuracy, completeness, 5 if r.q >= 0.3 or r.n >= 0.35 else 4, facts


def _wrong_claim(r: Reading, lang: LanguagePack) -> Msg | None:
    """The note of a figure or name where the reference has another, or a reversed claim."""
    if r.wrong_figures:
        return say("core.wrong_figure", answer=", ".join(r.wrong_figures), reference=", ".join(r.missing_figures))
    if r.wrong_names:
        return say("core.wrong_name", answer=", ".join(r.wrong_names), reference=", ".join(r.missing_names))
    if r.no_reference_name:
        return say("core.no_reference_name", reference=", ".join(r.missing_names))
    if r.reversed:
        return say("core.reversed", what=r.reversed)
    return None


def _bare_particle(question: str, answer: str, reference: str, lang: LanguagePack) -> bool:
    """A terse "No." to a yes-no question the reference answers with the same particle, its
    other words (if any) the question's or the reference's ("Yes, it'll just show as a W")."""
    said = particle(answer, lang)
    own = content(answer, lang) - content(question, lang) - content(reference, lang)
    return said is not None and said == particle(reference, lang) and not own and not figures(answer, lang)


def _answers_anyway(question: str, answer: str, reference: str, contexts: tuple[str, ...], lang: LanguagePack) -> bool:
    """A refusal cue inside an answer that states the reference's content ("it is not stated
    whether…, but returns take 30 days") is not a refusal: half the reference said."""
    return read(question, answer, reference, list(contexts), lang, "stems").n >= 0.5


def short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)
