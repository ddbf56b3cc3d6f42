"""What an answer says against a patient record as written (``label: value`` lines, ``|`` fields,
SOAP sentences), with no lexicon: another value or time of taking for a recorded item, a
recorded fact or allergy denied, a result or trend reversed, a drug the record forbids or says
not to stop recommended, leave for a forbidden act, a caution dismissed, an unrecorded result.
Names are also met across scripts (paroxetine / 파록세틴) by their consonant skeleton.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, say
from assay.suites.clinical.offline.cues import CUES
from assay.suites.clinical.offline.names import names_in

# The finding of a recorded fact the answer denies (a contradiction of its own, never merged).
DENIED_FACT = "clinical.denied_fact"

FIGURE_RE = re.compile(r"(?<![\d.,A-Za-z])(\d+(?:,\d{3})*(?:\.\d+)?)(\s*)([^\s\d]*)")
# Clause breaks; a point or comma between digits (0.9, 6,200) is part of a figure.
CLAUSE_RE = re.compile(r"(?<!\d)[.,;!?](?!\d)|(?<=\d)[.,;!?](?!\d)|(?<!\d)[.,;!?](?=\d)|\n")
NEGATION_STARTS = ("없", "아니", "않", "아닌")
# A parenthesis after a value holds its reference range or target ("(ref 0.9-1.7)", "(목표 5–8)"):
# the item's own value is outside it.
PARENS_RE = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str  # "" for a bare figure


@dataclass(frozen=True)
class RecordItem:
    text: str
    names: tuple[str, ...]
    figures: tuple[Figure, ...]
    absent: bool  # the record writes this item as absent


# Counts written in Korean numerals ("하루 한 번", "두 알", "세 정"): the same as 1회, 2알.
_NATIVE_COUNT_RE = re.compile(r"(?<![가-힣])(한|두|세|네|다섯|여섯)\s*(번|회|알|정)(?![가-힣])")


def figures(text: str) -> list[Figure]:
    """Figures with a known unit, and bare figures followed by nothing or a particle; a figure
    with another unit (30분, 38도, 24주) is left out. Counts in Korean numerals ("한 번") count."""
    out = [
        Figure(float(CUES.native_counts[m.group(1)]), CUES.unit_aliases.get(m.group(2), m.group(2)))
        for m in _NATIVE_COUNT_RE.finditer(text)
    ]
    for m in FIGURE_RE.finditer(text):
        value = float(m.group(1).replace(",", ""))
        after = m.group(3) + ("10" if m.group(3) == "×" else "")  # "0.42 ×10³/µL" stops at its 1
        # 점 of a score, not the start of a word after a space ("3 점심")
        unit = next((u for u in CUES.units if after.startswith(u) and not (u == "점" and m.group(2))), None)
        if unit is not None:
            out.append(Figure(value, CUES.unit_aliases.get(unit, unit)))
        elif (
            not after
            or after.startswith(("/", ")", ",", ".", "("))
            or (not m.group(2) and after.startswith(CUES.bare_followers))
        ):
            out.append(Figure(value, ""))
    return out


def label_values(patient: str, every_line: bool = False) -> list[tuple[str, str]]:
    """(label, value) of each ``label: value`` line; a line of ``|``-separated fields
    ("환자 | 71세 남 | 탐스로신 0.4mg 1일 1회 취침 전") gives each field as a value, and so does
    every line with ``every_line`` (an unlabelled one as ("", line))."""
    out = []
    for line in patient.splitlines():
        if "|" in line or every_line:  # each field may carry its own label ("… | 주의: X 금지 | …")
            for field in line.split("|"):
                label, sep, value = field.partition(":")
                out.append((label, value) if sep and len(label.strip()) <= 20 else ("", field))
            continue
        label, sep, value = line.partition(":")
        if sep:
            out.append((label, value))
    return out


# A line's value splits into sentences at ". " and ";" (not at a decimal point: "0.4 mg/dL").
_SENTENCE_SPLIT_RE = re.compile(r"(?<!\d)\.\s+|;")


def value_sentences(value: str) -> list[str]:
    """The sentences of one ``label: value`` line's value."""
    return _SENTENCE_SPLIT_RE.split(value)


def record_sentences(patient: str) -> list[str]:
    """Every sentence of every ``label: value`` line (or ``|`` field) of the record."""
    return [sentence for _, value in label_values(patient) for sentence in value_sentences(value)]


@lru_cache(maxsize=512)
def record_items(patient: str) -> tuple[RecordItem, ...]:
    """Each value of each ``label: value`` line (or ``|`` field), split on ";" and ", " (not
    inside 6,200). An item's figures leave out its parenthesised range or target."""
    items = []
    for _, value in label_values(patient):
        # a note's sentences ("…1일 1회. 림프구 0.42(2026-11-10, 이전 0.51). 맥박 64") are items
        # of their own, and a comma inside parentheses (an earlier value, a date) splits nothing
        for part in re.split(r";|,\s+(?![^()]*\))|(?<!\d)\.\s+", value):
            part = part.strip()
            if not part:
                continue
            words = re.findall(r"[가-힣]{2,}|[A-Za-z][A-Za-z0-9]{1,}", re.sub(r"(?<![A-Za-z])\d\S*", " ", part))
            names = tuple(
                dict.fromkeys(
                    w for w in (tx.strip_suffix(word) for word in words)
                    if w not in CUES.item_stop and w not in CUES.units and len(w) >= 2
                )
            )  # fmt: skip
            items.append(RecordItem(part, names, tuple(figures(PARENS_RE.sub(" ", part))), tx.has_any(part, CUES.absent)))
    return tuple(items)


def _named(clause: str, item: RecordItem) -> bool:
    return any(name in clause for name in item.names)


def value_conflicts(answer: str, question: str, patient: str) -> list[Msg]:
    """Figures the answer gives for a recorded item that differ from the record's: of the items a
    clause names, or, naming none, of the one item the question names."""
    items = [i for i in record_items(patient) if i.figures and not i.absent]
    asked = [i for i in items if _named(question, i)]
    out: list[Msg] = []
    # every value the record writes, ranges and targets included
    written = {f.value for i in record_items(patient) for f in figures(i.text)}
    for clause in CLAUSE_RE.split(answer):
        own = [i for i in items if _named(clause, i)]
        said = _said_figures(clause, own, written)
        for item in (own or (asked if len(asked) == 1 else [])) if said else []:
            shown = item.names[0] if item.names else item.text
            out += [
                say("clinical.other_value", shown=shown, figure=f"{fig.value:g}", unit=fig.unit, record=item.text)
                for fig in said if _contradicts(item, fig)
            ]  # fmt: skip
    return list(dict.fromkeys(out))


def _said_figures(clause: str, own: list[RecordItem], written: set[float]) -> list[Figure]:
    """The clause's figures the record does not write; but a count or dose in the unit of the one
    item the clause names is that item's ("티카그렐러는 하루 한 번" where 1회 is another's)."""
    units = {f.unit for f in own[0].figures} if len(own) == 1 else set()
    return [f for f in figures(clause) if f.value not in written or (f.unit and f.unit in units)]


def _contradicts(item: RecordItem, fig: Figure) -> bool:
    """The item writes a figure in the figure's unit (a bare figure: the item's one figure) and
    none of its figures, nor an earlier value it quotes in parentheses, is this one; a bare
    figure the item writes anywhere ("96 → 14.2 ng/mL") is the record's."""
    if not fig.unit and fig.value in _bare_numbers(item.text):
        return False
    if fig.unit:
        same_unit = [f for f in item.figures if f.unit == fig.unit]
    else:
        same_unit = list(item.figures) if len(item.figures) == 1 else []
    quoted = [f for f in figures(item.text) if f.unit == fig.unit]
    return bool(same_unit) and not any(abs(f.value - fig.value) <= 1e-9 for f in [*same_unit, *quoted])


def _bare_numbers(text: str) -> set[float]:
    return {float(n) for n in re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", text.replace(",", ""))}


def reversed_results(answer: str, patient: str) -> list[Msg]:
    """A recorded test result said the other way round: the record writes the item negative
    (검출 안 됨, 음성, not detected) and an answer clause naming the item says it positive
    (검출되어, 양성, detected), or the record positive and the clause negative."""
    out: list[Msg] = []
    for item in record_items(patient):
        negative = bool(CUES.regex("negative_result").search(item.text))
        positive = not negative and bool(CUES.regex("positive_result").search(item.text))
        names = [n for n in item.names if n.lower() not in CUES.result_words and len(n) >= 2]
        if not (negative or positive) or not names:
            continue
        for clause in CLAUSE_RE.split(answer):
            if not any(n in clause for n in names):
                continue
            said_negative = bool(CUES.regex("negative_result").search(clause))
            said_positive = not said_negative and bool(CUES.regex("positive_result").search(clause))
            if (negative and said_positive) or (positive and said_negative):
                key = "clinical.said_positive" if negative else "clinical.said_negative"
                out.append(say(key, name=names[0], record=item.text))
                break
    return list(dict.fromkeys(out))


def reversed_trends(answer: str, patient: str) -> list[Msg]:
    """A recorded value that went down from its earlier value ("ESR 18(…, 진단 시 62)") said to
    have gone up in an answer clause naming it ("ESR이 62로 … 올라서"), or the reverse."""
    out: list[Msg] = []
    for item in record_items(patient):
        earlier = CUES.regex("earlier").search(item.text)
        # the item's value is its first figure outside the parenthesis, in any unit ("18 mm/h")
        bare = PARENS_RE.sub(" ", item.text)
        current = FIGURE_RE.search(bare)
        if not earlier or not current:
            continue
        now, before = float(current.group(1).replace(",", "")), float(earlier.group(1).replace(",", ""))
        if now == before:
            continue
        # the item's own names, outside its parenthesis and not a unit ("mm/h", "ppm")
        names = [n for n in item.names if n in bare and not (n.isascii() and n.islower() and len(n) <= 3)]
        for clause in CLAUSE_RE.split(answer):
            if not any(_lab_named(n, clause) for n in names):
                continue
            rose, fell = bool(CUES.regex("rose").search(clause)), bool(CUES.regex("fell").search(clause))
            if rose != fell and rose == (now < before):
                key = "clinical.said_rose" if rose else "clinical.said_fell"
                out.append(say(key, name=names[0], record=item.text.strip()[:40]))
                break
    return list(dict.fromkeys(out))


def _tail(answer: str, end: int, words: int = 3) -> list[str]:
    return re.split(r"[.,!?]", answer[end:], maxsplit=1)[0].split()[:words]


def denied_facts(answer: str, patient: str) -> list[Msg]:
    """Record items whose word the answer follows with a negation within two words (not the
    negation of a stopping verb: "와파린을 끊지 않고" keeps the drug)."""
    out: list[Msg] = []
    for item in record_items(patient):
        # a thing the record forbids ("모메타손은 얼굴·눈가 금지"): saying not to do it agrees
        if item.absent or CUES.regex("forbids").search(item.text):
            continue
        for name in item.names:
            # a caution word (금지, 금기, 주의) names no fact: "음주 금지라 안 돼요" denies nothing;
            # nor does repeating a negation the record itself writes ("OCT 황반부종 없음")
            if name in CUES.caution_words or re.search(rf"{re.escape(name)}\S*\s+(?:\S+\s+)?(?:없|않|아니|아닌)", patient):
                continue
            if any(_denies(_tail(answer, m.end(), 4), item) for m in re.finditer(re.escape(name), answer)):
                out.append(say(DENIED_FACT, name=name, record=item.text))
    return list(dict.fromkeys(out))


def _denies(tail: list[str], item: RecordItem) -> bool:
    """The words after a mention negate it: a negation within three words, not inside a condition
    ("발작이 없으셨으면"), not after one ("넘기면 안 됩니다"), not before another noun ("항히스타민이
    없는 약", unless a word of the item: "조짐이 없는 편두통"), not of a stopping verb."""
    negated = [i for i, w in enumerate(tail[:3]) if w.startswith(NEGATION_STARTS) or w == "안"]
    if not negated:
        return False
    at = negated[0]
    if any(CUES.regex("conditional").search(w) for w in tail[: at + 2]):  # at the negation or before it
        return False
    before_noun = CUES.regex("negation_before_noun").search(tail[at].strip(".,!?")) and len(tail) > at + 1
    if before_noun and not tail[at + 1].startswith(tuple(item.names)):
        return False
    return not any(w.startswith(CUES.stop_verbs) for w in tail[:at])


_EN_TIMES = tuple((re.compile(pattern), korean) for pattern, korean in CUES.en_times)  # an English record's times


def _meals(text: str) -> str:
    # "빈속에" (on an empty stomach) is 공복
    text = CUES.regex("empty_stomach").sub("공복", text)
    return CUES.regex("meal").sub(lambda m: "식전" if m.group(1) in ("전", "직전") else "식후", text)


def _frequency(text: str) -> str:
    return "주 1회" if CUES.regex("weekly").search(text) else ("매일" if CUES.regex("daily").search(text) else "")


@lru_cache(maxsize=2048)
def _times_of(text: str) -> str:
    """The item's text with its English times of taking added in Korean, meals read as 식전/식후."""
    for pattern, korean in _EN_TIMES:
        if pattern.search(text):
            text = f"{text} {korean}"
    return _meals(text)


@lru_cache(maxsize=8192)
def _mention_ends(name: str, answer: str) -> tuple[int, ...]:
    """Where mentions of a recorded name end: as written, or a Latin name in Hangul
    transcription ("methotrexate" / "메토트렉세이트는")."""
    ends = [m.end() for m in re.finditer(re.escape(name), answer)]
    if not ends and name.isascii() and len(name) >= 6:
        ends = [m.end() for m in re.finditer(r"[가-힣]{3,}", answer) if names_in(name, m.group(0))]
    return tuple(ends)


def schedule_conflicts(answer: str, patient: str, question: str = "") -> list[Msg]:
    """See ``_schedule_conflicts``; cached, the three offline judges ask the same."""
    return list(_schedule_conflicts(answer, patient, question))


@lru_cache(maxsize=1024)
def _schedule_conflicts(answer: str, patient: str, question: str = "") -> tuple[Msg, ...]:
    """A recorded item taken at one time (아침, 공복) that the answer, right after naming it, says
    is taken at another of the same group (저녁, 식후), or weekly said daily (or the reverse); an
    answer naming no timed item talks, in its first sentence, about the one the question names."""
    items = [i for i in record_items(patient) if not i.absent]
    answer, question = _meals(answer), _meals(question)
    asked = _asked_timed_item(items, answer, question)
    out: list[Msg] = []
    for item in items:
        text = _times_of(item.text)
        recorded = [[t for t in group if t in text] for group in CUES.schedule_groups]
        how_often = _frequency(text)
        if not (any(recorded) or how_often):
            continue
        for name, said in _said_of(item, answer, asked):
            wrong = _other_times(recorded, how_often, said)
            if wrong:
                out.append(say("clinical.other_times", name=name, times=" ".join(wrong), record=item.text))
    return tuple(dict.fromkeys(out))


_ALL_TIMES = frozenset(t for group in CUES.schedule_groups for t in group)


def _drug_named(text: str, item: RecordItem) -> bool:
    """The item is named in the text by a name that is no time word."""
    return any(_mention_ends(n, text) for n in item.names if n not in _ALL_TIMES)


def _asked_timed_item(items: list[RecordItem], answer: str, question: str) -> list[RecordItem]:
    """When the answer names no timed item, the timed items the question names, or, naming none
    but a time, the record's one timed item ("갑상선 약을 자기 전에 먹어도 될까요?")."""
    timed = [i for i in items if any(t in _times_of(i.text) for t in _ALL_TIMES)]
    in_answer = [i for i in items if _drug_named(answer, i) and (i in timed or _frequency(i.text))]
    if not question or in_answer:
        return []
    asked = [i for i in items if _drug_named(question, i) and (i in timed or _frequency(i.text))]
    if not asked and len(timed) == 1 and any(t in question for t in _ALL_TIMES):
        return timed
    return asked


def _said_of(item: RecordItem, answer: str, asked: list[RecordItem]) -> list[tuple[str, str]]:
    """(name, the words right after each mention of it); for the one item asked about, the first
    sentence too (with the next after a bare yes: "네, 맞아요.")."""
    spans = [(name, " ".join(_tail(answer, end, 4))) for name in item.names for end in _mention_ends(name, answer)]
    if len(asked) == 1 and asked[0] is item:
        said_first = tx.sentences(answer) or [answer]
        first = " ".join(said_first[:2]) if CUES.regex("bare_yes").match(said_first[0]) else said_first[0]
        spans.append((item.names[0] if item.names else item.text, first))
    return spans


def _other_times(recorded: list[list[str]], how_often: str, said: str) -> list[str]:
    """Times said of one group other than the recorded ones (one per group: "저녁 식후" against
    "아침 공복" is one other time), and another frequency."""
    wrong = []
    for group, times in zip(CUES.schedule_groups, recorded, strict=True):
        other = [t for t in group if t in said and t not in times]
        if times and other and not any(t in said for t in times):
            wrong.append(other[0])
    said_often = _frequency(said)
    if how_often and said_often and said_often != how_often:
        wrong.append(said_often)
    return wrong


def denied_allergy(answer: str, patient: str) -> list[Msg]:
    """The record names an allergy ("알레르기: 설파제(두드러기)") and the answer says there is
    none ("특별한 약물 알레르기가 없으시니")."""
    recorded = [
        value.strip()
        for label, value in label_values(patient)
        if tx.has_any(label.lower(), CUES.allergy_labels) and value.strip() and not tx.has_any(value, CUES.absent)
    ]
    if recorded and CUES.regex("no_allergy").search(answer):
        return [say("clinical.denied_allergy", record=recorded[0])]
    return []


def _lab_named(name: str, text: str) -> bool:
    if name.isascii():
        return bool(re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", text, re.I))
    return name in text


def _unrecorded_labs(clause: str, known: str) -> list[str]:
    """Lab values of ``CUES.lab_groups`` the clause names and the record (and question) never does."""
    return [
        next(w for w in words if _lab_named(w, clause))
        for words, record_names in CUES.lab_groups
        if any(_lab_named(w, clause) for w in words) and not any(_lab_named(n, known) for n in (*words, *record_names))
    ]


def unrecorded_results(answer: str, patient: str, question: str = "") -> list[Msg]:
    """A result the answer reports for a test the record (and the question) never names: a
    claim with nothing in the record behind it ("같이 한 시야 검사도 작년과 달라진 게 없었습니다"
    where the record holds only 안압). A test the answer only recommends states no result."""
    known = f"{patient}\n{question}".lower()
    out = []
    for clause in CLAUSE_RE.split(answer):
        if not tx.has_any(clause, CUES.result) or tx.has_any(clause.lower(), CUES.about_record):
            continue
        # a lab value named without a test word ("간 수치와 혈소판 수도 정상이었어요")
        for name in _unrecorded_labs(clause, f"{patient}\n{question}"):
            out.append(say("clinical.unrecorded_result", result=name))
        for m in CUES.regex("test_named").finditer(clause):
            word = tx.strip_suffix(m.group(1)).lower()
            if word in CUES.test_stop or len(word) < 2 or word in known or word[:2] in known:
                continue
            out.append(say("clinical.unrecorded_result", result=m.group(0)))
        for m in CUES.regex("abbrev_value").finditer(clause):
            word = (m.group(1) or m.group(2)).lower()
            if word in CUES.test_stop or word in known:
                continue
            out.append(say("clinical.unrecorded_result", result=m.group(0)))
    return list(dict.fromkeys(out))
