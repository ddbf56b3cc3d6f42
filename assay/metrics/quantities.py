"""Numbers as Korean text writes them: "1.2억" = "120,000,000원" = "1억 2천만 원".

Pure and light (no tokenizer, no model): shared by the offline judges and the metric
formulas that compare figures (the memory suite's fact recall, for one).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from assay.metrics.figure_forms import UNIT_FACTORS, canonical_figures

CITATION_RE = re.compile(r"\[\s*SOURCE\s*:\s*(\d+)\s*\]", re.IGNORECASE)


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").strip()


def strip_citations(text: str) -> str:
    return CITATION_RE.sub(" ", text)


_MAG = {"조": 1e12, "억": 1e8, "천만": 1e7, "백만": 1e6, "십만": 1e5, "만": 1e4, "천": 1e3, "백": 1e2}
UNITS = tuple(
    "퍼센트 개월 시간 단계 달러 % 원 명 년 월 일 시 분 초 주 건 개 배 위 회 차 곳 팀 대 점 kg km GB MB TB ms g".split()
)
_UNIT_ALIASES = {"퍼센트": "%"}
_NUM_PIECE = re.compile(r"(\d+(?:,\d{3})*(?:\.\d+)?)\s*(조|억|천만|백만|십만|만|천|백)?")
# 분 is minutes, but not in 분기 (a quarter: "3분기" counts quarters, it is no duration).
_UNIT_RE = re.compile(r"\s*(" + "|".join(re.escape(u) + ("(?!기)" if u == "분" else "") for u in UNITS) + r")")
# Words that make a figure approximate. A bound (이상, 이하, 미만, 초과, 최대, 최소) is not one:
# "45kg 이상" is a threshold, exact, and 47kg is another figure.
_APPROX_BEFORE = re.compile(r"(약|대략|거의|近)\s*$")
_APPROX_AFTER = re.compile(r"^\s*(여|가량|정도|내외|안팎)")


@dataclass(frozen=True)
class Quantity:
    """A number as written: value with magnitude words applied, unit, whether approximate,
    and, for a number without a known unit, the counter word glued to it (학점, 층, 권)."""

    value: float
    unit: str
    text: str
    approx: bool = False
    counter: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        """What the figure counts: its unit, else its counter ("2층" and "30학점" differ)."""
        return self.unit or self.counter

    @property
    def key(self) -> str:
        return f"{self.value:.6g}{self.unit}"


@lru_cache(maxsize=8192)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Numbers with Korean magnitudes merged ("1억 2천만원" → 1.2e8 원, "1.2억" → 1.2e8).

    Figures are first put in one written form (``figure_forms.canonical_figures``: 08:00 =
    오전 8시 = 8 a.m. → 8시, 2024-03-01 → 2024년 3월 1일, 하루 → 1일, 10,000 won → 10000원),
    so equal values compare equal however they were written. Citation tags are ignored.
    """
    text = strip_citations(canonical_figures(_without_non_claims(normalize(text))))
    out: list[Quantity] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _NUM_PIECE.search(text, pos)
        if not m:
            break
        start = m.start()
        # A digit glued to a name is part of the name, not a quantity: "B2B", "H2O",
        # "GPT-4", "COVID-19", "코로나19", "제3" (but "약3%" or "총3명" stay figures).
        if start > 0 and _is_name_digit(text, start):
            pos = m.end()
            continue
        value = float(m.group(1).replace(",", "")) * _MAG.get(m.group(2) or "", 1.0)
        last_mag = _MAG.get(m.group(2) or "", 1.0)
        end = m.end()
        # Merge "1억 2천만": a following piece with a smaller magnitude.
        while m.group(2):
            nxt = _NUM_PIECE.match(text, end + (len(text[end:]) - len(text[end:].lstrip(" "))))
            if not nxt or not nxt.group(1):
                break
            mag = _MAG.get(nxt.group(2) or "", 1.0)
            if mag >= last_mag:
                break
            value += float(nxt.group(1).replace(",", "")) * mag
            last_mag = mag
            end = nxt.end()
            if not nxt.group(2):
                break
        unit = ""
        um = _UNIT_RE.match(text, end)
        if um and not (
            um.group(1).isascii()
            and um.end() < len(text)
            and text[um.end()].isascii()
            and text[um.end()].isalpha()
        ) and not _spaced_word(text, um):
            unit = _UNIT_ALIASES.get(um.group(1), um.group(1))
            end = um.end()
        before = text[max(0, start - 4) : start]
        after = text[end : end + 3]
        approx = bool(_APPROX_BEFORE.search(before) or _APPROX_AFTER.match(after))
        written = "말일" if (value, unit) == (LAST_DAY, "일") else text[start:end].strip()
        counter = "" if unit else _counter(text, end)
        out.append(Quantity(value=value, unit=unit, text=written, approx=approx, counter=counter))
        spans.append((start, end))
        pos = end
    return tuple(_range_units(text, out, spans))


def _spaced_word(text: str, um: re.Match[str]) -> bool:
    """A Hangul unit after a space that begins a longer word ("#7 시트라 IPA", "3 일반"): the word,
    not a unit. A unit with a particle ("7 시에", "2 명입니다") stays a unit."""
    # (the number's own pattern may have taken the space already)
    spaced = um.group(0)[:1].isspace() or (um.start() > 0 and text[um.start() - 1].isspace())
    if not spaced or um.group(1).isascii():
        return False
    word = _GLUED_HANGUL.match(text, um.start(1))
    tail = word.group(0)[len(um.group(1)) :] if word else ""
    return bool(tail) and not tail.startswith(_COUNTER_TAILS)


_RANGE_DASH = frozenset("~∼〜-–—,·")


def _range_units(text: str, found: list[Quantity], spans: list[tuple[int, int]]) -> list[Quantity]:
    """A range or a short list writes its unit once, at its end: "2~3일" is 2일 to 3일, "2~3주"
    2주 to 3주 and "7, 8월" 7월 and 8월, so a bare figure before it takes the next one's unit (or
    counter) instead of matching any bare 2 or 7."""
    out = list(found)
    for i in reversed(range(len(out) - 1)):  # from the end: "1, 2, 3층" passes 층 back to 1
        first, last = out[i], out[i + 1]
        between = text[spans[i][1] : spans[i + 1][0]].strip()
        if not first.unit and not first.counter and between in _RANGE_DASH and (last.unit or last.counter):
            out[i] = Quantity(value=first.value, unit=last.unit, text=first.text, approx=first.approx, counter=last.counter)
    return out


_GLUED_HANGUL = re.compile(r"[가-힣]+")
# Particles and endings after a counter ("130학점이며", "2층에서"), longest first.
_COUNTER_TAILS = tuple(
    sorted(
        "이며 이고 이나 이면 에서 에게 으로 부터 까지 이상 이하 이내 미만 초과 만큼 짜리 입니다 이에요 예요 씩 로 에 은 는 이 가 을 를 의 도 만 과 와".split(),
        key=len,
        reverse=True,
    )
)


def _counter(text: str, end: int) -> str:
    """The Hangul counter glued to a number without a known unit, particles removed."""
    m = _GLUED_HANGUL.match(text, end)
    if not m:
        return ""
    word = m.group(0)
    for _ in range(2):
        tail = next((t for t in _COUNTER_TAILS if word.endswith(t) and len(word) > len(t)), None)
        if tail is None:
            break
        word = word[: -len(tail)]
    word = "" if word in _COUNTER_TAILS else word[:3]
    return _COUNTER_ALIASES.get(word, word)


# Counters that count the same thing: an age in 살 or 세, people in 인 or 명, times in 번 or
# 회 ("8번까지" = "8회까지"; 회 is a unit, so a digit with 번 counts as 회).
_COUNTER_ALIASES = {"살": "세", "인": "명", "번": "회"}


# Figures that are no claim: emphasis ("하루라도 늦으면", "1분이라도" = even a day late), idioms
# ("하루 종일" = all day, "한 번도" = never) and a
# one-period rate ("1년에 한 번", "한 달에 두 번", "하루에" = per year, per month, per day; "연 1회"
# says the same without a figure). "1일에" stays: it is as often a date ("매월 1일에").
_EMPHASIS_RE = re.compile(r"(?<![\d가-힣])(?:\d+\s*[가-힣]{0,2}|하루|이틀|한\s*(?:번|달|시간|명|개))\s*(?:이)?라도")
_RATE_RE = re.compile(r"(?<![\d가-힣])(?:1\s*(?:년|개월|주일?)|한\s*(?:해|달|주)|일주일|하루)\s*(?:에|마다|당)(?=\s)")
# all day long, never once, all at once: no count
_IDIOM_RE = re.compile(r"하루\s*종일|한\s*번도|한\s*번에\s*(?=모두|다\s|전부|몰아)")
# The last day of a month is a day of the month, written as a word ("매월 말일까지").
_LAST_DAY_RE = re.compile(r"(?:말일|월말일?)(?=[\s가-힣]|$)")
LAST_DAY = 9999.0  # compares equal only to another "last day", unequal to every numbered day


def _without_non_claims(text: str) -> str:
    """``text`` without emphasis, rate and idiom figures, and 말일 as a day (each pattern only
    where its cue is: this runs on every text, contexts included)."""
    if "라도" in text:
        text = _EMPHASIS_RE.sub(" ", text)
    if "1" in text or "한" in text or "하루" in text or "일주일" in text:
        text = _RATE_RE.sub(" ", text)
    if "종일" in text or "번" in text:
        text = _IDIOM_RE.sub(" ", text)
    if "말일" in text or "월말" in text:
        text = _LAST_DAY_RE.sub(f"{LAST_DAY:.0f}일", text)
    return text


# Hangul that may sit right before a figure without making it part of a name.
_GLUE_OK = set("약총각및은는이가을를에의와과도로만중단불근월주연일년매")


def _is_name_digit(text: str, start: int) -> bool:
    prev = text[start - 1]
    if prev.isascii() and prev.isalpha():
        return True
    if prev == "-" and start > 1 and text[start - 2].isascii() and text[start - 2].isalpha():
        return True  # GPT-4, COVID-19, ISO-9001
    return "가" <= prev <= "힣" and prev not in _GLUE_OK


# Numbers that label rather than measure: plan stages with their span ("1단계(1~3개월)"),
# quarters ("2분기"), ordinals ("1차 타깃"), frequencies ("월 1회"), age groups ("20~30대").
_LABEL_RES = (
    re.compile(r"\d+\s*단계(?:\s*\([^)]*\))?"),
    re.compile(r"[1-4]\s*분기"),
    re.compile(r"\d+\s*차(?=\s|$|[^\w])"),
    re.compile(r"(?:월|주|연|년|일|하루|매일|매주|매월|매년)\s*\d+\s*(?:회|번)"),
    re.compile(r"\d+0\s*(?:~\s*\d+0\s*)?대(?=\s|$|[^\w])"),
)


def label_spans(text: str) -> list[str]:
    """The label numbers of ``text`` as written (see ``mask_labels``)."""
    text = normalize(text)
    return [m.group(0) for pattern in _LABEL_RES for m in pattern.finditer(text)]


def mask_labels(text: str) -> str:
    """``text`` with label numbers (stages, ordinals, frequencies, age groups) removed, so
    only figures that state a fact remain for a claim check."""
    text = normalize(text)
    for pattern in _LABEL_RES:
        text = pattern.sub(lambda m: re.sub(r"[\d~.,()\s]+", "", m.group(0)), text)
    return text


DATE_UNITS = frozenset({"년", "월", "일", "시", "분", "초", "주"})
EXACT_UNITS = DATE_UNITS | {"차", "위", "단계", "회", "개월"}


def is_date(q: Quantity) -> bool:
    """Dates and times: context of a claim rather than its answer."""
    return q.unit in DATE_UNITS


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Equal value and compatible unit. Dates, times and ordinals must be equal; other values
    may differ by 0.5 % (5 % if either is written as approximate: 약/가량/정도). Durations
    compare across units (2주 = 14일, 1년 = 12개월, 1시간 = 60분)."""
    if not a.unit and not b.unit and a.counter and b.counter and a.counter != b.counter:
        return False  # 2층 is not 2권
    if bool(a.unit) != bool(b.unit) and (a.counter or b.counter) and (a.counter or b.counter) != (a.unit or b.unit):
        return False  # 20인 (people) is not 20%; a bare 20 may still be either
    if a.unit and b.unit and a.unit != b.unit:
        a, b = _in_smaller_unit(a), _in_smaller_unit(b)
        if {a.unit, b.unit} == {"개월", "일"}:
            return _months_as_days(a, b)
        if a.unit != b.unit:
            return False
    if a.unit in EXACT_UNITS or b.unit in EXACT_UNITS:
        return a.value == b.value
    tol = 0.05 if (a.approx or b.approx) else 0.005
    scale = max(abs(a.value), abs(b.value), 1e-12)
    return abs(a.value - b.value) <= tol * scale


def _months_as_days(a: Quantity, b: Quantity) -> bool:
    """"한 달" = "30일", "두 달" = "60일", "1년" = "365일": a month is 28-31 days."""
    months, days = (a, b) if a.unit == "개월" else (b, a)
    return 28 * months.value <= days.value <= 31 * months.value


def _in_smaller_unit(q: Quantity) -> Quantity:
    if q.unit not in UNIT_FACTORS:
        return q
    unit, factor = UNIT_FACTORS[q.unit]
    return Quantity(value=q.value * factor, unit=unit, text=q.text, approx=q.approx)


def quantity_check(
    answer: str, reference: str, ignore: str = ""
) -> tuple[list[Quantity], list[Quantity], list[Quantity]]:
    """Answer quantities split into (matched, contradicted, unsupported) against ``reference``.

    Quantities that also appear in ``ignore`` (e.g. the question) are skipped. A quantity is
    contradicted when the reference has no equal quantity but has one with the same unit.
    """
    ref = quantities(reference)
    skip = quantities(ignore) if ignore else ()
    matched: list[Quantity] = []
    contradicted: list[Quantity] = []
    unsupported: list[Quantity] = []
    for q in quantities(answer):
        if any(same_quantity(q, s) for s in skip):
            continue  # an echo of the question is neither support nor contradiction
        if any(same_quantity(q, r) for r in ref):
            matched.append(q)
        elif any(r.kind == q.kind for r in ref):
            contradicted.append(q)
        else:
            unsupported.append(q)
    return matched, contradicted, unsupported
