"""One written form for figures that are written many ways, so equal values compare equal.

``canonical_figures`` rewrites a text's times, dates, amounts and counts into the Korean
notation ``quantities`` parses (digits, magnitude words, a unit), leaving everything else as
it is:

    ==========================================  ===========================
    written                                     becomes
    ==========================================  ===========================
    08:00, 오전 8시, 8 a.m., 8am, 8:00 AM         8시
    오후 3시 반, 15:30, 3:30 p.m., 정오            15시 30분, 12시
    자정, 밤 12시, 24:00, 0:00, 12 a.m.           0시 (midnight is one hour)
    9시부터 6시까지 (an end hour below the start)   9시부터 18시까지
    1시간 반, 1시간 30분, 1.5 hours              90분 (1시간 = 60분 compare equal)
    2024-03-01, 2024.3.1, March 1, 2024,        2024년 3월 1일
    1 March 2024, 3/1 (before a date particle)
    ₩10,000, KRW 10,000, 10,000 won, 10,000 KRW  10000원 (1만 원 = 10,000원 already)
    $5, USD 5, 5 dollars                         5달러
    1.5 million, 2 thousand                      1500000, 2000
    하루, 이틀, 사흘 … 열흘, 보름                    1일, 2일, 3일 … 10일, 15일
    한 달, 두 달, 석 달; 두 시간; 세 명; 두 번       1개월, 2개월, 3개월; 2시간; 3명; 2회
    3달, 6달간 (digits before 달, not 달러)          3개월, 6개월간
    한 번에, 건당, 회당 (at a time, per use)          1회에
    two weeks, 14 working days, 10 percent      2주, 14일, 10%
    once, twice (a count: "extended once",      1회, 2회
    "twice a year")
    two bags, one coupon (a counted noun)       2 bags, 1 coupon (as 2개, 1장 without unit)
    다음 날, 이튿날, 익일; 전날                       1일 후; 1일 전
    5분의 1, 1/3이 지나기 전, two-thirds          20%, 33.3333%, 66.6667%
    만 오천 원, 삼천 원, 사십육만 팔천 원             15000원, 3000원, 468000원
    8킬로, 8킬로그램; 5킬로미터                        8kg; 5km
    ==========================================  ===========================

Durations in different units compare through ``UNIT_FACTORS`` (2주 = 14일, 1년 = 12개월,
1시간 = 60분) in ``quantities.same_quantity``. Pure regular expressions: no tokenizer.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Larger unit -> (smaller unit, factor): a duration in one compares equal to the other.
UNIT_FACTORS: dict[str, tuple[str, float]] = {"주": ("일", 7.0), "년": ("개월", 12.0), "시간": ("분", 60.0)}

_NATIVE_DAYS = {
    "하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "여드레": 8,
    "아흐레": 9, "열흘": 10, "보름": 15, "일주일": 7,
}
_NATIVE_NUMS = {
    "한": 1, "두": 2, "세": 3, "석": 3, "네": 4, "넉": 4, "다섯": 5, "여섯": 6, "일곱": 7,
    "여덟": 8, "아홉": 9, "열": 10, "열한": 11, "열두": 12,
}
_NATIVE_ALT = "|".join(sorted(_NATIVE_NUMS, key=len, reverse=True))
# Counters of things after a native numeral ("세 곡", "두 잔", "한 켤레"), read only when the word
# ends there or takes a particle ("네 장점" is no count).
# "한 잔도" (not even one) is no count.
_THING_COUNTERS = ("곡", "잔", "권", "장", "병", "마리", "켤레", "벌", "판", "게임", "세트", "그릇", "인분")
_NATIVE_THING_RE = re.compile(
    rf"(?<![가-힣])(?!한\s*\S+도(?![가-힣]))({_NATIVE_ALT})\s*({'|'.join(sorted(_THING_COUNTERS, key=len, reverse=True))})"
    r"(?=$|[\s,.!?)]|(?:이|가|을|를|은|는|에|씩|만|도|까지|이요|요|이에요|예요|입니다|이고|으로|로|과|와)(?![가-힣]))"
)
# "일곱 시 반", "열두 시에", "세 시부터": a clock hour; not 시간, 시작, 시청 (a word goes on after 시)
_NATIVE_CLOCK = re.compile(rf"(?<![가-힣])({_NATIVE_ALT})\s*시(?=\s|$|[에부까쯤경반엔와과로요,.?!~\-])")
_NATIVE_HOURS_HALF = re.compile(rf"(?<![가-힣])({_NATIVE_ALT})\s*시간\s*반(?![가-힣])")
# Counters after a native numeral, and the unit they become ("번" needs 2 or more: "한 번 더"
# is rarely a count).
_NATIVE_COUNTERS = {"달": "개월", "시간": "시간", "명": "명", "개": "개", "곳": "곳", "번": "회", "주": "주", "해": "년"}
_EN_NUMS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90,
}
_EN_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_EN_MONTH_SHORT = {m[:3]: i for m, i in _EN_MONTHS.items()}
_EN_UNIT_WORDS = (
    (r"days?", "일"), (r"weeks?", "주"), (r"months?", "개월"), (r"years?", "년"), (r"hours?", "시간"),
    (r"minutes?|mins?", "분"), (r"percent|per\s*cent", "%"), (r"people|persons?|employees|staff|members", "명"),
    (r"times", "회"), (r"cases", "건"), (r"won|KRW", "원"), (r"dollars?|USD", "달러"),
)
# Months counted with digits and the native 달 ("3달 됐는데" = 3개월); not 달러, 달성, 달라, 달력.
_DIGIT_MONTHS = re.compile(r"(\d+)\s*달(?![러성라력리려렸걀])")
# Metric units written in Hangul: "8킬로" = 8kg, "5킬로미터" = 5km.
_HANGUL_KM = re.compile(r"(\d)\s*킬로미터")
_HANGUL_KG = re.compile(r"(\d)\s*(?:킬로그램|킬로)")
# "groups of 10", "a party of 6": a count of people.
_EN_GROUP = re.compile(r"\b(groups?|parties|party|teams?)\s+of\s+(\d+)\b(?!\s*(?:people|persons?|members))", re.I)
_EN_UNIT_RE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:(?:working|business|calendar)\s+)?(" + "|".join(p for p, _ in _EN_UNIT_WORDS) + r")\b",
    re.I,
)
_EN_NUM_WORD_RE = re.compile(
    r"\b(" + "|".join(_EN_NUMS) + r")\s+(?=(?:(?:working|business|calendar)\s+)?(?:"
    + "|".join(p for p, _ in _EN_UNIT_WORDS[:8]) + r")\b)",
    re.I,
)
_MONTH_NAMES = "|".join([*_EN_MONTHS, *(m + r"\.?" for m in _EN_MONTH_SHORT)])
_EN_DATE_MDY = re.compile(r"\b(" + _MONTH_NAMES + r")\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s*(\d{4}))?\b", re.I)
_EN_DATE_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH_NAMES + r")(?:,?\s*(\d{4}))?\b", re.I)
_ISO_DATE = re.compile(r"(?<![\d.])((?:19|20)\d\d)\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{1,2})\.?(?![\d])")
# "3/1" is a date only before a date particle or weekday ("3/1(금)", "3/1까지", "3/1부터").
_SLASH_DATE = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?=\s*(?:\(|까지|부터|에|일|~|$))")
_CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-4]):([0-5]\d)(?::[0-5]\d)?(?![\d:])(\s*(?:a\.?m\.?|p\.?m\.?)(?![a-z]))?", re.I)
_EN_AMPM = re.compile(r"(?<![\d:])(\d{1,2})\s*(a\.?m\.?|p\.?m\.?)(?![a-z])", re.I)
_KO_AMPM = re.compile(r"(오전|오후|저녁|밤|새벽|아침)\s*(\d{1,2})\s*시(?:\s*(반|(\d{1,2})\s*분))?")
# "오후 2시, 3시 반, 5시": a list of clock hours after one 오후 is all in the afternoon.
_HOUR_ITEM = r"\d{1,2}\s*시(?!간)(?:\s*(?:반|\d{1,2}\s*분))?"
_PM_LIST = re.compile(
    r"((?:오후|저녁|밤)\s*)(" + _HOUR_ITEM + r")((?:\s*(?:,|、|와|과|하고|및|또는|이나)\s*" + _HOUR_ITEM + r")+)"
)
_HALF_HOUR = re.compile(r"(\d{1,2})\s*시\s*반")
_HOURS_MINUTES = re.compile(r"(\d+)\s*시간\s*(?:반|(\d{1,2})\s*분)")
_EN_HOURS_DECIMAL = re.compile(r"(\d+\.\d+)\s*시간")
_EN_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion)\b", re.I)
_MONEY_PREFIX = re.compile(r"(?:₩|KRW\s*)(\d[\d,]*(?:\.\d+)?)", re.I)
_DOLLAR_PREFIX = re.compile(r"(?:\$|USD\s*)(\d[\d,]*(?:\.\d+)?)", re.I)
_NATIVE_DAY_RE = re.compile(r"(?<![가-힣])(" + "|".join(sorted(_NATIVE_DAYS, key=len, reverse=True)) + r")(?=[\s가-힣]|$)")
_NATIVE_COUNT_RE = re.compile(
    r"(?<![가-힣])(" + "|".join(sorted(_NATIVE_NUMS, key=len, reverse=True)) + r")\s*("
    + "|".join(_NATIVE_COUNTERS) + r")(?!째)"
    # "주" is a week only as a word of its own ("한 주", "두 주간"), not the start of 주문, 주소
    + r"(?<!주)|(?<![가-힣])(" + "|".join(sorted(_NATIVE_NUMS, key=len, reverse=True)) + r")\s*(주)"
    + r"(?=$|[\s,.)]|간|동안|에|마다|이|가|은|는|도|만|까지|부터|전|후|뒤|째)(?!째)"
)
# "9시부터 6시까지" (no 오전/오후): an end hour below the start hour is in the afternoon.
_HOUR_RANGE = re.compile(r"(?<![\d.])(\d{1,2})시(\s*(?:부터|~|-|–|에서)\s*)(\d{1,2})시(?!간)")
# "한 번에 두 명" = 1회 2명; 건당/회당 (per occurrence) say the same: "건당 3,000원" = "한 번에 3천 원"
_ONCE_AT_A_TIME = re.compile(r"(?<![가-힣\d])(?:한\s*번에|건당|회당|1\s*회당|1\s*건당)")
# The day after / before an event, a span of one day: "다음 날 도착" = "하루 뒤 도착"; before
# a clock time ("다음 날 7시", "익일 07:00") it only dates the time, and stays.
_CLOCK_NEXT = r"(?!\s*(?:오전|오후|새벽|아침|저녁|밤|낮|\d))"
_NEXT_DAY = re.compile(r"(?<![가-힣])(?:이튿날|익일|다음\s*날)" + _CLOCK_NEXT)
_DAY_BEFORE = re.compile(r"(?<![가-힣])전날" + _CLOCK_NEXT)
# Fractions as the percentages they are: "5분의 1" = 20 %, "two-thirds" = 2/3; "1/3" only
# before a particle or a word of passing ("1/3이 지나기 전", "1/2을 환불"), since "3/5 완료"
# counts steps.
_KO_FRACTION = re.compile(r"(\d+)\s*분의\s*(\d+)")
_SLASH_FRACTION = re.compile(
    r"(?<![\d/.:])([1-9])\s*/\s*([2-9]|10)(?![\d/])(?=\s*(?:을|를|이|가|은|는|의|만|까지|씩|로|경과|지나|지난|이상|이하|미만|초과))"
)
_EN_FRACTIONS = {"third": 3, "thirds": 3, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10}
_EN_FRACTION = re.compile(r"\b(one|a|two|three|four)[\s-]+(" + "|".join(_EN_FRACTIONS) + r")\b", re.I)
# Sino-Korean amounts written out before 원: "만 오천 원" = 15,000원, "삼천 원" = 3,000원,
# "사십육만 팔천 원" = 468,000원 (any number below 10,000 before 만 and after it).
_SINO = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_SINO_BELOW = r"(?:[일이삼사오육칠팔구]?천)?\s*(?:[일이삼사오육칠팔구]?백)?\s*(?:[일이삼사오육칠팔구]?십)?\s*[일이삼사오육칠팔구]?"
_SINO_AMOUNT = re.compile(
    rf"(?<![가-힣\d])(?:({_SINO_BELOW})만)?\s*({_SINO_BELOW})\s*원(?=$|[^가-힣]|씩|이|을|은|의|에|으로|까지|부터|만|짜리|정도|가량|입니다|이에요|예요|이고|이며)"
)
_MAGNITUDES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_LATIN_WORD = re.compile(r"[A-Za-z]")
# "once"/"twice" as a count (before a pause, a period or a limit word); "once you apply" is
# "after", not a count.
_EN_ONCE = re.compile(r"\b(once|twice)(?=\s*(?:[.,;:)]|$|a\b|an\b|per\b|every\b|each\b|for\b|only\b|more\b|again\b|in\b))", re.I)
# An English number word before a counted noun ("two bags", "one coupon", "two of those") is a
# count, as "2개" is; "no one", "the one", "one another" are pronouns.
_EN_COUNT_WORD = re.compile(
    r"(?<!\bno )(?<!\bany )(?<!\bthe )(?<!\bthis )(?<!\bthat )(?<!\bevery )\b("
    + "|".join(_EN_NUMS)
    + r")\s+(?!another\b|and\b|or\b|to\b)(?=[a-z])",
    re.I,
)


def _num(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _month(name: str) -> int:
    key = name.lower().rstrip(".")
    return _EN_MONTHS.get(key) or _EN_MONTH_SHORT[key[:3]]


def _date(year: str | None, month: int, day: str) -> str:
    return (f"{year}년 " if year else "") + f"{month}월 {int(day)}일"


def _clock(hour: int, minute: int, meridiem: str) -> str:
    """24-hour "H시 M분" from a 12-hour reading ("p" after noon, "a" 12 = midnight)."""
    meridiem = meridiem.lower()
    if meridiem.startswith("p") and hour < 12:
        hour += 12
    elif meridiem.startswith("a") and hour == 12:
        hour = 0
    if hour == 24:  # 24:00 is midnight, written 0시 like 자정
        hour = 0
    return f"{hour}시" + (f" {minute}분" if minute else "")


def _ko_ampm(m: re.Match[str]) -> str:
    hour = int(m.group(2))
    afternoon = m.group(1) in {"오후", "저녁", "밤"} and hour < 12
    minute = 30 if m.group(3) == "반" else int(m.group(4) or 0)
    # 밤 12시 and 새벽 12시 are midnight (0시), as 오전 12시 is; 오후 12시 stays noon
    midnight = m.group(1) in {"밤", "새벽", "오전"} and hour == 12
    return _clock(0 if midnight else hour, minute, "p" if afternoon else "")


def _pm_list(m: re.Match[str]) -> str:
    """Each later hour of the list gets the first one's 오후 while the hours rise and stay
    below 12 ("오후 2시, 3시 반, 5시"); a list that falls back ("밤 11시, 1시") keeps its own."""
    meridiem = m.group(1).strip()
    last = int(re.match(r"\d+", m.group(2)).group(0))
    out = m.group(1) + m.group(2)
    for sep, item in re.findall(r"(\s*(?:,|、|와|과|하고|및|또는|이나)\s*)(" + _HOUR_ITEM + ")", m.group(3)):
        hour = int(re.match(r"\d+", item).group(0))
        rising = last < hour < 12
        out += sep + (f"{meridiem} {item}" if rising else item)
        last = hour if rising else 99
    return out


def _clock_colon(m: re.Match[str]) -> str:
    return _clock(int(m.group(1)), int(m.group(2)), (m.group(3) or "").strip())


def canonical_figures(text: str) -> str:
    """``text`` with its figures in one written form (see the module table)."""
    if not text or not any(ch.isdigit() for ch in text) and not _has_word_figure(text):
        return text
    english = bool(_LATIN_WORD.search(text))  # the English forms need English words
    out = _ISO_DATE.sub(lambda m: _date(m.group(1), int(m.group(2)), m.group(3)), text)
    if english:
        out = _EN_DATE_MDY.sub(lambda m: _date(m.group(3), _month(m.group(1)), m.group(2)), out)
        out = _EN_DATE_DMY.sub(lambda m: _date(m.group(3), _month(m.group(2)), m.group(1)), out)
    out = _SLASH_DATE.sub(
        lambda m: _date(None, int(m.group(1)), m.group(2)) if 1 <= int(m.group(1)) <= 12 else m.group(0), out
    )
    if "시" in out:
        # a clock hour in native numerals ("일곱 시 반", "열두 시") and hours and a half ("한
        # 시간 반") in digits first, so the forms below read them
        out = native_clock_hours(out)
        out = _NATIVE_HOURS_HALF.sub(lambda m: f"{_NATIVE_NUMS[m.group(1)] * 60 + 30}분", out)
        out = _PM_LIST.sub(_pm_list, out)
    out = _KO_AMPM.sub(_ko_ampm, out)
    out = _CLOCK.sub(_clock_colon, out)
    if english:
        out = _EN_AMPM.sub(lambda m: _clock(int(m.group(1)), 0, m.group(2)), out)
    out = out.replace("정오", "12시").replace("자정", "0시")
    out = _HOUR_RANGE.sub(_afternoon_end, out)
    out = _HALF_HOUR.sub(lambda m: f"{m.group(1)}시 30분", out)
    out = _HOURS_MINUTES.sub(lambda m: f"{int(m.group(1)) * 60 + (int(m.group(2)) if m.group(2) else 30)}분", out)
    out = _NATIVE_DAY_RE.sub(lambda m: f"{_NATIVE_DAYS[m.group(1)]}일", out)
    if "킬로" in out:
        out = _HANGUL_KG.sub(r"\1kg", _HANGUL_KM.sub(r"\1km", out))
    if "달" in out:
        out = _DIGIT_MONTHS.sub(r"\1개월", out)
    out = _NEXT_DAY.sub("1일 후", out)
    out = _DAY_BEFORE.sub("1일 전", out)
    out = _KO_FRACTION.sub(lambda m: _percent(int(m.group(2)), int(m.group(1))), out)
    out = _SLASH_FRACTION.sub(lambda m: _percent(int(m.group(1)), int(m.group(2))), out)
    if "원" in out:
        out = _SINO_AMOUNT.sub(_sino_amount, out)
    out = _ONCE_AT_A_TIME.sub("1회에", out)
    out = _NATIVE_COUNT_RE.sub(_native_count, out)
    out = _NATIVE_THING_RE.sub(lambda m: f"{_NATIVE_NUMS[m.group(1)]}{m.group(2)}", out)
    if english:
        out = _EN_FRACTION.sub(lambda m: _percent(_EN_NUMS.get(m.group(1).lower(), 1), _EN_FRACTIONS[m.group(2).lower()]), out)
        out = _EN_MAGNITUDE.sub(lambda m: _num(float(m.group(1)) * _MAGNITUDES[m.group(2).lower()]), out)
    out = _MONEY_PREFIX.sub(lambda m: m.group(1).replace(",", "") + "원", out)
    out = _DOLLAR_PREFIX.sub(lambda m: m.group(1).replace(",", "") + "달러", out)
    if english:
        out = _EN_NUM_WORD_RE.sub(lambda m: f"{_EN_NUMS[m.group(1).lower()]} ", out)
        out = _EN_ONCE.sub(lambda m: "1회" if m.group(1).lower() == "once" else "2회", out)
        out = _EN_COUNT_WORD.sub(lambda m: f"{_EN_NUMS[m.group(1).lower()]} ", out)
        out = _EN_GROUP.sub(lambda m: f"{m.group(1)} of {m.group(2)}명", out)
        out = _EN_UNIT_RE.sub(_en_unit, out)
    out = _EN_HOURS_DECIMAL.sub(lambda m: f"{_num(float(m.group(1)) * 60)}분", out)
    return out


# the native numerals as one alternation, longest first ("열두" before "열"), for other readers' patterns
NATIVE_NUMBER_ALT = _NATIVE_ALT


@lru_cache(maxsize=64)
def _native_before(counters: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"(?<![가-힣])({_NATIVE_ALT})\s?({'|'.join(sorted(counters, key=len, reverse=True))})")


def native_counts(text: str, counters: tuple[str, ...]) -> str:
    """Native numerals before one of ``counters`` written in digits ("하루 두 잔" → "하루 2잔",
    "한 번에 세 알씩" → "한 번에 3알씩" for ("잔", "알")), nothing else of the text changed."""
    return _native_before(counters).sub(lambda m: f"{_NATIVE_NUMS[m.group(1)]}{m.group(2)}", text)


def native_clock_hours(text: str) -> str:
    """Clock hours in native numerals written in digits ("네 시 전에" → "4시 전에")."""
    return _NATIVE_CLOCK.sub(lambda m: f"{_NATIVE_NUMS[m.group(1)]}시", text)


def _percent(numerator: int, denominator: int) -> str:
    if not 0 < numerator < denominator:
        return f"{numerator}/{denominator}"
    return f"{_num(round(100 * numerator / denominator, 4))}%"


def _sino_below(words: str) -> int:
    """A Sino-Korean number below 10,000 written out ("사십육" = 46, "팔천" = 8,000, "" = 0)."""
    value, digit = 0, 0
    for ch in words.replace(" ", ""):
        if ch in _SINO:
            digit = _SINO[ch]
        else:
            value += (digit or 1) * {"천": 1000, "백": 100, "십": 10}[ch]
            digit = 0
    return value + digit


def _sino_amount(m: re.Match[str]) -> str:
    man, below = m.group(1), m.group(2).strip()
    # without 만, a bare digit word before 원 ("이 원") is too often another word: a unit is needed
    if man is None and not any(u in below for u in "천백십"):
        return m.group(0)
    value = (_sino_below(man) or 1) * 10000 if man is not None else 0
    return f"{value + _sino_below(below)}원"


def _afternoon_end(m: re.Match[str]) -> str:
    start, end = int(m.group(1)), int(m.group(3))
    # an end at 0시 is midnight (24:00, 밤 12시, 자정 are written 0시), not noon
    if end < start and 0 < end < 12:
        end += 12
    return f"{start}시{m.group(2)}{end}시"


def _native_count(m: re.Match[str]) -> str:
    number, counter = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    count, unit = _NATIVE_NUMS[number], _NATIVE_COUNTERS[counter]
    if counter == "번" and count < 2:
        return m.group(0)
    return f"{count}{unit}"


def _en_unit(m: re.Match[str]) -> str:
    word = m.group(2).lower()
    for pattern, unit in _EN_UNIT_WORDS:
        if re.fullmatch(pattern, word, re.I):
            return f"{m.group(1)}{unit}"
    return m.group(0)


_WORD_FIGURE_RE = re.compile(
    "|".join(_NATIVE_DAYS) + rf"|(?:{_NATIVE_ALT})\s*(?:시|{'|'.join(_THING_COUNTERS)})|정오|자정|이튿날|익일|다음\s*날|전날|분의|[만천백]\s*원|\b(?:third|fifth|tenth)s?\b|한\s*번에|건당|회당|(?:" + "|".join(_NATIVE_NUMS) + r")\s+(?:" + "|".join(_NATIVE_COUNTERS) + ")"
    + r"|\b(?:" + "|".join(_EN_NUMS) + r")\s|\b(?:once|twice)\b",
    re.I,
)


def _has_word_figure(text: str) -> bool:
    return bool(_WORD_FIGURE_RE.search(text))
