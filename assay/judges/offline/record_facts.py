"""What an answer says against a patient record written as free ``label: value`` lines.

The clinical lexicon reads the record layout the suite bundles (``labs: egfr 48``); records
written any other way ("복용 약: 메토트렉세이트 15mg 주 1회", "검사: ALT 38 U/L") still carry
two checks that need no lexicon:

- *a different value for a recorded item*: the answer names an item of the record (a drug, a
  lab, a measure) — or, naming none, talks about the one item the question names — and gives a
  figure in a unit the item also has, with another value ("매일 7.5mg" against "15mg";
  "하루 4번" against "하루 3회"); a bare figure is compared when the item has exactly one figure
  ("ALT도 80으로" against "ALT 38 U/L");
- *a recorded fact denied*: a word of a record item followed within two words by a negation
  ("설파제 알레르기가 없으시니" against "알레르기: 설파제"), not of a stopping verb ("와파린을
  끊지 않고" keeps it); items the record itself writes as absent ("엽산 복용하지 않음",
  "미검출") are not facts to deny;
- *another time of taking*: a recorded item taken at one time ("매일 아침 공복") said, right
  after its name, to be taken at another of the same group ("저녁 식후에").

Both are read on Hangul and Latin words as written; an answer in another language than the
record is not compared (no contradiction is claimed without evidence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assay.judges.offline import text as tx

# Units an item's figure can carry; 번 and 회 are the same count.
UNITS = (
    "mg/dL",
    "mEq/L",
    "U/L",
    "mmHg",
    "mcg",
    "µg",
    "mg",
    "mL",
    "ml",
    "IU",
    "kg",
    "g",
    "%",
    "회",
    "번",
    "정",
    "알",
)
UNIT_ALIASES = {"번": "회", "ml": "mL", "µg": "mcg"}
# Particles that may follow a bare figure ("80으로", "98로", "76이던").
BARE_FOLLOWERS = (
    "으로",
    "로",
    "이던",
    "이었",
    "이고",
    "이며",
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "에",
    "까지",
    "과",
    "와",
)
FIGURE_RE = re.compile(r"(?<![\d.,])(\d+(?:,\d{3})*(?:\.\d+)?)(\s*)([^\s\d]*)")
# Clause breaks; a point or comma between digits (0.9, 6,200) is part of a figure.
CLAUSE_RE = re.compile(r"(?<!\d)[.,;!?](?!\d)|(?<=\d)[.,;!?](?!\d)|(?<!\d)[.,;!?](?=\d)|\n")
NEGATION_STARTS = ("없", "아니", "않", "아닌")
# Item words that say how or when, not what.
ITEM_STOP = frozenset("하루 매일 필요 필요시 없음 않음 복용 복용하지 이후 동안 자세 최근 기타 계획".split())
ABSENT_CUES = ("없음", "않음", "미검출", "음성", "안 함", "하지 않")


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


def figures(text: str) -> list[Figure]:
    """Figures with a known unit, and bare figures followed by nothing or a particle; a figure
    with another unit (30분, 38도, 24주) is left out."""
    out = []
    for m in FIGURE_RE.finditer(text):
        value = float(m.group(1).replace(",", ""))
        after = m.group(3)
        unit = next((u for u in UNITS if after.startswith(u)), None)
        if unit is not None:
            out.append(Figure(value, UNIT_ALIASES.get(unit, unit)))
        elif (
            not after
            or after.startswith(("/", ")", ",", ".", "("))
            or (not m.group(2) and after.startswith(BARE_FOLLOWERS))
        ):
            out.append(Figure(value, ""))
    return out


@lru_cache(maxsize=512)
def record_items(patient: str) -> tuple[RecordItem, ...]:
    """Each value of each ``label: value`` line, split on ";" and ", " (not inside 6,200)."""
    items = []
    for line in patient.splitlines():
        _, sep, value = line.partition(":")
        if not sep:
            continue
        for part in re.split(r";|,\s+", value):
            part = part.strip()
            if not part:
                continue
            words = re.findall(r"[가-힣]{2,}|[A-Za-z][A-Za-z0-9]{1,}", re.sub(r"\d\S*", " ", part))
            names = tuple(
                dict.fromkeys(
                    w for w in (tx.strip_suffix(word) for word in words)
                    if w not in ITEM_STOP and w not in UNITS and len(w) >= 2
                )
            )  # fmt: skip
            items.append(RecordItem(part, names, tuple(figures(part)), tx.has_any(part, ABSENT_CUES)))
    return tuple(items)


def _named(clause: str, item: RecordItem) -> bool:
    return any(name in clause for name in item.names)


def value_conflicts(answer: str, question: str, patient: str) -> list[str]:
    """Figures the answer gives for a recorded item that differ from the record's."""
    items = [i for i in record_items(patient) if i.figures and not i.absent]
    asked = [i for i in items if _named(question, i)]
    out: list[str] = []
    written = {f.value for i in items for f in i.figures}
    for clause in CLAUSE_RE.split(answer):
        # a value the record writes somewhere is the record's, even if read beside another item
        said = [f for f in figures(clause) if f.value not in written]
        if not said:
            continue
        named = [i for i in items if _named(clause, i)] or (asked if len(asked) == 1 else [])
        for item in named:
            for fig in said:
                same_unit = [f for f in item.figures if f.unit == fig.unit] if fig.unit else []
                if not fig.unit and len(item.figures) == 1:
                    same_unit = list(item.figures)
                if same_unit and not any(abs(f.value - fig.value) <= 1e-9 for f in same_unit):
                    shown = f"{fig.value:g}{fig.unit}"
                    out.append(f"'{item.names[0] if item.names else item.text}' {shown} (기록: {item.text})")
    return list(dict.fromkeys(out))


# Verbs of stopping: "끊지 않고" / "중단하지 마시고" keep the drug, they deny nothing.
STOP_VERBS = ("끊", "중단", "중지", "멈추", "멈춰", "그만", "빼")
# Times of taking a drug that exclude each other ("매일 아침 공복" against "저녁 식후에").
SCHEDULE_GROUPS = (("아침", "점심", "저녁", "자기 전", "취침 전", "밤"), ("공복", "식전", "식후"))


def _tail(answer: str, end: int, words: int = 3) -> list[str]:
    return re.split(r"[.,!?]", answer[end:], maxsplit=1)[0].split()[:words]


def denied_facts(answer: str, patient: str) -> list[str]:
    """Record items whose word the answer follows with a negation within two words (not the
    negation of a stopping verb: "와파린을 끊지 않고" keeps the drug)."""
    out: list[str] = []
    for item in record_items(patient):
        if item.absent:
            continue
        for name in item.names:
            for m in re.finditer(re.escape(name), answer):
                tail = _tail(answer, m.end())
                negated = [i for i, w in enumerate(tail) if w.startswith(NEGATION_STARTS) or w == "안"]
                if negated and not any(w.startswith(STOP_VERBS) for w in tail[: negated[0]]):
                    out.append(f"'{name}'을(를) 부정함 (기록: {item.text})")
                    break
    return list(dict.fromkeys(out))


def schedule_conflicts(answer: str, patient: str) -> list[str]:
    """A recorded item taken at one time (아침, 공복) that the answer, right after naming it,
    says is taken at another of the same group (저녁, 식후)."""
    out: list[str] = []
    for item in record_items(patient):
        recorded = [[t for t in group if t in item.text] for group in SCHEDULE_GROUPS]
        if item.absent or not any(recorded):
            continue
        for name in item.names:
            for m in re.finditer(re.escape(name), answer):
                said = " ".join(_tail(answer, m.end(), 4))
                for group, times in zip(SCHEDULE_GROUPS, recorded, strict=True):
                    other = [t for t in group if t in said and t not in times]
                    if times and other and not any(t in said for t in times):
                        out.append(f"'{name}' {other[0]} (기록: {item.text})")
    return list(dict.fromkeys(out))
