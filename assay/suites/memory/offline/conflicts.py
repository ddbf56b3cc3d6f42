"""One subject with two different values in a memory ("보험료: 월 48,000원. 보험료: 월
36,000원."), told apart from values of other people, of numbered items and of other units."""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.metrics.figure_forms import canonical_figures
from assay.suites.memory.offline.cues import cues
from assay.suites.memory.offline.facets import SYNONYM_GROUPS, canonical

C = cues()
RE = C.regexes
FEE_SUFFIXES = ("료", "비")
_OWNER_RE = re.compile(
    r"(?<![가-힣A-Za-z])("
    + "|".join(sorted(map(re.escape, frozenset(C.other_people)), key=len, reverse=True))
    + r")(?:의|은|는|이|가|'s)?(?![가-힣A-Za-z])"
)
Entry = tuple[str, tx.Quantity]  # (item label, value)
Pool = dict[str, list[Entry]]  # subject -> its values
Shown = dict[str, str]  # subject -> how the memory first writes it (the feedback quotes that)


def _values(figures: list[tx.Quantity]) -> list[tx.Quantity]:
    """The values of a segment: not ordinals, nor a count the value is per ("1회 요금 28,000원",
    "1인 30,000원")."""
    return [
        f for n, f in enumerate(figures)
        if f.unit not in C.ordinal_units and not (f.value == 1 and f.counter and n + 1 < len(figures))
    ] or figures[:1]  # fmt: skip


def _subject_word(before: str, words: list[str]) -> str:
    """The word right before a value; a synonym as written ("판매가", not 판매 + 가) first."""
    raw = re.sub(r"[^\w]", "", before.split()[-1]) if before.split() else ""
    return raw if any(raw.lower() in g for g in SYNONYM_GROUPS) else words[-1]


def _segment_entries(seg: str, seen: Pool, later: Pool, shown: Shown) -> None:
    """Files a segment's values under their subjects: the first value in ``seen``, the later
    ones in ``later`` (compared only within their unit). The owner named before the first
    value ("딸 휴대폰") is part of every subject of the segment. A subject is its synonym
    group's one name ("deadline" for 마감); ``shown`` keeps the word the memory wrote."""
    plain = canonical_figures(seg).replace(",", "")  # "오백만 원" read as 5000000원
    start, owner = 0, ""
    for n, value in enumerate(_values(tx.quantities(seg))):
        written = value.text.replace(",", "")
        at = plain.find(written, start)
        if n and at < 0:
            continue
        before = plain[start:at] if at >= 0 else plain
        start = at + len(written) if at >= 0 else start
        words = [w for w in tx.stems(before) if w not in C.rate_words and not re.match(r"^\d", w)]
        if not n:
            found = _OWNER_RE.search(before)
            owner = found.group(1) if found else ""
        if not words:
            continue
        item = RE["item_label"].findall(plain[: at if at >= 0 else len(plain)])
        word = _subject_word(before, words)
        subject = f"{owner} {canonical(word)}".strip()
        shown.setdefault(subject, f"{owner} {word}".strip())
        (later if n else seen).setdefault(subject, []).append((item[-1].replace(" ", "") if item else "", value))


def _join_fee_stems(seen: Pool, later: Pool) -> None:
    """A fee word's values join its stem's in their unit ("대여: 30,000원", "대여료 35,000원")."""
    for subjects in (seen, later):
        for subject in list(subjects):
            stem = subject[:-1]
            if len(subject) >= 3 and subject.endswith(FEE_SUFFIXES) and stem in {*seen, *later}:
                units = {v.unit for _, v in subjects[subject]}
                for pool in (seen, later):
                    subjects[subject] += [(k, v) for k, v in pool.get(stem, []) if v.unit in units]


def distinct_per_item(entries: list[Entry]) -> list[list[tx.Quantity]]:
    """The distinct values of each numbered item (unlabelled values join every item)."""
    labels = {k for k, _ in entries if k} or {""}
    out = []
    for label in labels:
        distinct: list[tx.Quantity] = []
        for k, v in entries:
            if k in (label, "") and not any(tx.same_quantity(v, d) for d in distinct):
                distinct.append(v)
        out.append(distinct)
    return out


def value_conflicts(memory: str) -> list[str]:
    """For each subject with two different values: "subject: value / value", the subject as
    the memory writes it."""
    seen: Pool = {}
    later: Pool = {}
    shown: Shown = {}
    for seg in tx.segments(memory):
        if tx.quantities(seg):
            _segment_entries(seg, seen, later, shown)
    _join_fee_stems(seen, later)
    out = []
    for subject in dict.fromkeys([*seen, *later]):
        first, rest = seen.get(subject, []), later.get(subject, [])
        by_unit = [[e for e in (*first, *rest) if e[1].unit == u] for u in {v.unit for _, v in rest}]
        candidates = [first, *by_unit] if rest else [first]
        found = next((d for entries in candidates for d in distinct_per_item(entries) if len(d) > 1), None)
        if found:
            out.append(f"{shown.get(subject, subject)}: " + " / ".join(v.text for v in found))
    return out
