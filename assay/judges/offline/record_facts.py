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

- *an allergy denied*: the record names an allergy and the answer says there is none
  ("알레르기가 없으시니", "no known allergies") without naming it (``denied_allergy``);
- *contraindicated advice*: a drug on a line that says 금기/금지/contraindicated (not one the
  patient takes, named there as the reason) named in an answer clause with no warning in it
  (``contraindicated_advice``).

A record may also be one line of ``|`` fields ("환자 | 71세 남 | 탐스로신 0.4mg 1일 1회 취침 전");
an item's parenthesised range or target ("6.8 ng/mL(목표 5–8)", "(ref 0.9-1.7)") is not its value,
though an answer quoting it says nothing new; a digit inside a name (T4, B12) is no figure.

All are read on Hangul and Latin words as written; an answer in another language than the
record is not compared (no contradiction is claimed without evidence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assay.judges.offline import text as tx

# Units an item's figure can carry; 번 and 회 are the same count.
UNITS = (
    "ng/mL",
    "ng/dL",
    "pg/mL",
    "mIU/L",
    "mmol/L",
    "µg/dL",
    "g/dL",
    "mg/L",
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
FIGURE_RE = re.compile(r"(?<![\d.,A-Za-z])(\d+(?:,\d{3})*(?:\.\d+)?)(\s*)([^\s\d]*)")
# Clause breaks; a point or comma between digits (0.9, 6,200) is part of a figure.
CLAUSE_RE = re.compile(r"(?<!\d)[.,;!?](?!\d)|(?<=\d)[.,;!?](?!\d)|(?<!\d)[.,;!?](?=\d)|\n")
NEGATION_STARTS = ("없", "아니", "않", "아닌")
# Item words that say how or when, not what.
ITEM_STOP = frozenset("하루 매일 필요 필요시 없음 않음 복용 복용하지 이후 동안 자세 최근 기타 계획".split())
ABSENT_CUES = ("없음", "않음", "미검출", "음성", "안 함", "하지 않", "NKDA", "none", "None")
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


def _values(patient: str) -> list[tuple[str, str]]:
    """(label, value) of each ``label: value`` line; a line of ``|``-separated fields
    ("환자 | 71세 남 | 탐스로신 0.4mg 1일 1회 취침 전") gives each field as a value."""
    out = []
    for line in patient.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            out.append((label, value))
        elif "|" in line:
            out.extend(("", field) for field in line.split("|"))
    return out


@lru_cache(maxsize=512)
def record_items(patient: str) -> tuple[RecordItem, ...]:
    """Each value of each ``label: value`` line (or ``|`` field), split on ";" and ", " (not
    inside 6,200). An item's figures leave out its parenthesised range or target."""
    items = []
    for _, value in _values(patient):
        for part in re.split(r";|,\s+", value):
            part = part.strip()
            if not part:
                continue
            words = re.findall(r"[가-힣]{2,}|[A-Za-z][A-Za-z0-9]{1,}", re.sub(r"(?<![A-Za-z])\d\S*", " ", part))
            names = tuple(
                dict.fromkeys(
                    w for w in (tx.strip_suffix(word) for word in words)
                    if w not in ITEM_STOP and w not in UNITS and len(w) >= 2
                )
            )  # fmt: skip
            items.append(RecordItem(part, names, tuple(figures(PARENS_RE.sub(" ", part))), tx.has_any(part, ABSENT_CUES)))
    return tuple(items)


def _named(clause: str, item: RecordItem) -> bool:
    return any(name in clause for name in item.names)


def value_conflicts(answer: str, question: str, patient: str) -> list[str]:
    """Figures the answer gives for a recorded item that differ from the record's."""
    items = [i for i in record_items(patient) if i.figures and not i.absent]
    asked = [i for i in items if _named(question, i)]
    out: list[str] = []
    # every value the record writes, ranges and targets included
    written = {f.value for i in record_items(patient) for f in figures(i.text)}
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


ALLERGY_LABELS = ("알레르기", "알러지", "allerg")
# The answer says the patient has no allergy ("알레르기가 없으시니", "no known allergies").
NO_ALLERGY_RE = re.compile(
    r"(?:알레르기|알러지)\S{0,2}\s*(?:\S+\s+)?(?:없|아니)|\bno(?:\s+known)?\s+(?:drug\s+)?allerg|\bnot\s+allergic", re.I
)


def denied_allergy(answer: str, patient: str) -> list[str]:
    """The record names an allergy ("알레르기: 설파제(두드러기)") and the answer says there is
    none ("특별한 약물 알레르기가 없으시니")."""
    recorded = [
        value.strip()
        for label, value in _values(patient)
        if tx.has_any(label.lower(), ALLERGY_LABELS) and value.strip() and not tx.has_any(value, ABSENT_CUES)
    ]
    if recorded and NO_ALLERGY_RE.search(answer):
        return [f"알레르기가 없다고 함 (기록: {recorded[0]})"]
    return []


CONTRAINDICATION_CUES = ("금기", "금지", "피할 것", "피해야", "contraindicat", "avoid", "do not use")
# Words in the answer's clause that keep it from recommending a drug it names.
WARNING_CUES = ("안 되", "안되", "않", "마세요", "말고", "금기", "피하", "삼가", "위험", "없", "not", "avoid", "never", "don't")


def contraindicated_advice(answer: str, patient: str) -> list[str]:
    """A drug the record lists on a contraindication line ("주의사항: 플루오로퀴놀론 … 금기
    (… 시프로플록사신 …)") that the answer names in a clause with no warning in it ("남은
    시프로플록사신을 드시면 잘 듣습니다"): advice the record forbids."""
    out: list[str] = []
    values = _values(patient)
    for label, value in values:
        if not tx.has_any(f"{label} {value}".lower(), CONTRAINDICATION_CUES):
            continue
        # the patient's own drugs, named on the line as the reason, are not what is forbidden
        others = " ".join(v for _, v in values if v is not value)
        names = [n for n in re.findall(r"[가-힣]{4,}|[A-Za-z]{6,}", value) if n not in others]
        for clause in CLAUSE_RE.split(answer):
            said = [n for n in names if n in clause and not tx.has_any(n, CONTRAINDICATION_CUES)]
            if said and not tx.has_any(clause.lower(), WARNING_CUES):
                out.append(f"기록상 금기인 '{said[0]}'을(를) 권함 (기록: {value.strip()[:40]})")
                break
    return list(dict.fromkeys(out))
