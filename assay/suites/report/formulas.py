"""Automatic metrics of the report suite (seed 000 §1 and §3.4), as pure functions.

Every score is on the seed's 0-10 scale unless a docstring says otherwise; rates are in
[0, 1] and percentages in [0, 100]. Nothing here imports torch, Prefect, litellm or Great
Expectations, so the formulas can be used and tested on their own. Schema matching (the
40 % of completeness that needs Korean morphology) lives in ``assay.suites.report.schema_match``.

Where the seed's table and its code disagree at a boundary, the code (§3.4) wins: a
penalty starts strictly *above* its threshold (exactly 120 s is "60~120 s", -1.5).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field

# §1.1 / §3.5: metric → weight of the overall score.
WEIGHTS: dict[str, float] = {
    "task_success": 0.25,
    "output_quality": 0.25,
    "completeness": 0.20,
    "hallucination": 0.15,
    "efficiency": 0.10,
    "source_quality": 0.05,
}

# §1.8: lower bound of each grade, best first.
GRADES: tuple[tuple[float, str], ...] = (
    (9.5, "A+"), (9.0, "A"), (8.5, "B+"), (8.0, "B"), (7.5, "C+"), (7.0, "C"), (6.0, "D"),
)

MIN_REPORT_CHARS = 100  # §1.2: a report shorter than this does not count as generated
MIN_SECTIONS, OPTIMAL_SECTIONS = 3, 6  # §1.4.1
MAX_SOURCE_TYPES = 8  # §1.7.2: source types the seed's system can produce
DEFAULT_SOURCE_SCORE = 0.5  # §3.4.4: `source.get('score', 0.5)`

SuccessLevel = Literal["COMPLETE_SUCCESS", "PARTIAL_SUCCESS", "FAILURE"]


# --------------------------------------------------------------------------- markdown

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADER = re.compile(r"^(#+)\s+(.+?)\s*#*\s*$")  # §3.4.2 counts r'^#+\s+.+$'


def markdown_headers(report_text: str) -> list[tuple[int, str]]:
    """(level, text) of every markdown header line, as §3.4.2's ``^#+\\s+.+$`` finds them.

    Lines inside fenced code blocks are skipped: a ``# comment`` in code is not a section.
    """
    headers: list[tuple[int, str]] = []
    in_fence = False
    for line in report_text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence and (m := _HEADER.match(line)):
            headers.append((len(m.group(1)), m.group(2)))
    return headers


def section_headers(report_text: str) -> list[str]:
    """Header texts that name sections: a lone leading H1 (the report's title) is dropped.

    The title repeats the query ("... 시장 동향 및 소비자 선호도 분석 보고서"), so counting
    it as a section would let it stand in for sections the report does not have.
    """
    headers = markdown_headers(report_text)
    if headers and headers[0][0] == 1 and sum(1 for level, _ in headers if level == 1) == 1:
        headers = headers[1:]
    return [text for _, text in headers]


def _squash(text: str) -> str:
    """Case- and space-insensitive form used for substring checks."""
    return re.sub(r"\s+", "", text).casefold()


# --------------------------------------------------------------------------- §1.2 task success

# §1.2's four required sections, with the spellings a Korean or English report uses.
_SECTION_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"서론", "개요", "소개", "배경", "들어가며", "머리말", "introduction", "overview", "background"}),
    frozenset({"결론", "요약", "맺음말", "마치며", "나가며", "결어", "총평", "conclusion", "summary"}),
    frozenset({"출처", "출처목록", "참고문헌", "참고자료", "레퍼런스", "references", "sources", "bibliography"}),
)
_BODY_WORDS = frozenset({"본문", "본론", "body"})
_REQ_STOP = frozenset({"및", "등", "대한", "위한", "관련", "통한", "분석", "정의", "조사", "방안", "방향", "주제", "기반"})
_PARTICLES = ("에대한", "으로", "에서", "에", "을", "를", "의", "은", "는", "과", "와", "로")


class TaskSuccess(BaseModel):
    """Result of §1.2. ``score`` is 0-10, ``completion_percentage`` 0-100."""

    score: float = Field(ge=0, le=10)
    completion_percentage: float = Field(ge=0, le=100)
    level: SuccessLevel
    generated: bool
    report_chars: int
    section_rate: float = Field(ge=0, le=1)
    requirement_rate: float = Field(ge=0, le=1)
    missing_sections: list[str]
    missing_requirements: list[str]


def _section_present(spec: str, headers: Sequence[str]) -> bool:
    alternatives = [a.strip() for a in spec.split("/") if a.strip()]
    if any(_squash(a) in _BODY_WORDS or a.split()[0] in _BODY_WORDS for a in alternatives):
        # "본문 분석": any header that is not introduction, conclusion or sources.
        return any(not _section_in_groups(h, _SECTION_GROUPS) for h in headers)
    words: set[str] = set()
    for alt in alternatives:
        group = next((g for g in _SECTION_GROUPS if _squash(alt) in g), frozenset())
        words |= {_squash(alt)} | set(group)
    return any(w in _squash(h) for h in headers for w in words)


def _section_in_groups(header: str, groups: Iterable[frozenset[str]]) -> bool:
    squashed = _squash(header)
    return any(w in squashed for g in groups for w in g)


def requirement_covered(requirement: str, report_text: str) -> bool:
    """Default check that the report addresses one requirement (§1.2 component 3).

    True when the requirement appears in the text (space- and case-insensitive, as §3.4.1
    does), or when each of its key words does: particles are stripped and form words
    ("분석", "방안", "정의", "및" ...) dropped, so "타겟 고객 정의" is met by a report that
    talks about 타겟 and 고객 without the literal phrase.
    """
    text = _squash(report_text)
    if _squash(requirement) in text:
        return True
    keys = []
    for word in re.split(r"[\s/·,()]+", requirement.casefold()):
        for particle in _PARTICLES:
            if word.endswith(particle) and len(word) > len(particle) + 1:
                word = word[: -len(particle)]
                break
        if word and word not in _REQ_STOP:
            keys.append(word)
    return bool(keys) and all(k in text for k in keys)


def task_success(
    report_text: str,
    required_sections: Sequence[str],
    requirements: Sequence[str],
    *,
    min_chars: int = MIN_REPORT_CHARS,
    requirement_matcher: Callable[[str, str], bool] | None = None,
    error: str | None = None,
) -> TaskSuccess:
    """Task success of §1.2: score 0-10, completion 0-100 %, level.

    Reading chosen where §1.2 and §3.4.1 disagree: §3.4.1's code only counts requirements
    found verbatim, but §1.2 names three weighted components, and a user reading the
    report's "성공률" expects all three. So

        completion % = 30 · generated + 40 · sections found / required + 30 · requirements met / total

    with generated = no error and at least ``min_chars`` characters; a required section is a
    "/"-separated list of alternatives matched against section headers (built-in spellings
    for 서론/결론/출처; "본문" means any other header); a requirement is met per
    ``requirement_matcher(requirement, report_text)``, by default ``requirement_covered``.
    An empty list of sections or requirements counts as fully met. Levels: ≥ 90 %
    COMPLETE_SUCCESS, ≥ 50 % PARTIAL_SUCCESS, else FAILURE; score = completion % / 10.
    """
    matcher = requirement_matcher or requirement_covered
    chars = len(report_text.strip())
    generated = error is None and chars >= min_chars
    headers = section_headers(report_text)
    missing_sections = [s for s in required_sections if not _section_present(s, headers)]
    missing_reqs = [r for r in requirements if not matcher(r, report_text)]
    section_rate = 1 - len(missing_sections) / len(required_sections) if required_sections else 1.0
    req_rate = 1 - len(missing_reqs) / len(requirements) if requirements else 1.0
    pct = round(30 * generated + 40 * section_rate + 30 * req_rate, 9)
    level: SuccessLevel = "COMPLETE_SUCCESS" if pct >= 90 else "PARTIAL_SUCCESS" if pct >= 50 else "FAILURE"
    return TaskSuccess(
        score=pct / 10, completion_percentage=pct, level=level, generated=generated, report_chars=chars,
        section_rate=section_rate, requirement_rate=req_rate,
        missing_sections=missing_sections, missing_requirements=missing_reqs,
    )


# --------------------------------------------------------------------------- §1.4 completeness


def section_completeness(report_text: str) -> float:
    """Section rate of §1.4.1 in [0, 1] from the number n of markdown headers.

    n ≥ 6 → 1.0; 3 ≤ n < 6 → n/6; n < 3 → n/3 · 0.5 (so 2 headers give 0.33, 3 give 0.5).
    Every header line counts, the title included, exactly as the seed's regex counts them.
    """
    n = len(markdown_headers(report_text))
    if n >= OPTIMAL_SECTIONS:
        return 1.0
    if n >= MIN_SECTIONS:
        return n / OPTIMAL_SECTIONS
    return n / MIN_SECTIONS * 0.5


def completeness_score(section_rate: float, schema_rate: float) -> float:
    """§1.4: (0.6 · section rate + 0.4 · schema rate) · 10, rates in [0, 1], result 0-10."""
    _check_range("section_rate", section_rate, 0, 1)
    _check_range("schema_rate", schema_rate, 0, 1)
    return (0.6 * section_rate + 0.4 * schema_rate) * 10


# --------------------------------------------------------------------------- §1.3, §1.5 judge formulas


def output_quality_score(factual: float, coherence: float, relevance: float) -> float:
    """§1.3: 0.4 · factual accuracy + 0.3 · logical coherence + 0.3 · relevance, each 0-10."""
    for name, value in (("factual", factual), ("coherence", coherence), ("relevance", relevance)):
        _check_range(name, value, 0, 10)
    return 0.4 * factual + 0.3 * coherence + 0.3 * relevance


def hallucination_score(citation_accuracy: float) -> float:
    """§1.5: (1 − (1 − citation accuracy)) · 10, i.e. accuracy (0-1, min over judges) · 10."""
    _check_range("citation_accuracy", citation_accuracy, 0, 1)
    return (1 - (1 - citation_accuracy)) * 10


# --------------------------------------------------------------------------- §1.6 efficiency


def efficiency_score(execution_time_s: float, redundant_steps: int, total_tokens: int, cost_usd: float) -> float:
    """§1.6 / §3.4.3: 10 minus penalties, clamped to 0-10.

    time > 120 s −3.0, > 60 s −1.5; redundant steps > 5 −2.0, > 2 −1.0;
    tokens > 100,000 −2.0, > 50,000 −1.0; cost > $1.00 −2.0, > $0.50 −1.0.
    """
    for name, value in (("execution_time_s", execution_time_s), ("redundant_steps", redundant_steps),
                        ("total_tokens", total_tokens), ("cost_usd", cost_usd)):
        _check_range(name, value, 0, math.inf)
    score = 10.0
    score -= 3.0 if execution_time_s > 120 else 1.5 if execution_time_s > 60 else 0.0
    score -= 2.0 if redundant_steps > 5 else 1.0 if redundant_steps > 2 else 0.0
    score -= 2.0 if total_tokens > 100_000 else 1.0 if total_tokens > 50_000 else 0.0
    score -= 2.0 if cost_usd > 1.0 else 1.0 if cost_usd > 0.5 else 0.0
    return max(0.0, min(10.0, score))


def _norm_step(text: str) -> str:
    # Timestamps differ between otherwise identical log lines; they are not part of the message.
    text = re.sub(r"^\s*\[?\d{4}-\d{2}-\d{2}[ T][\d:.,]+(?:Z|[+-]\d{2}:?\d{2})?\]?\s*", "", text)
    text = re.sub(r"^\s*\[?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\]?\s*", "", text)
    return " ".join(text.split()).casefold()


def redundant_steps(search_queries: Sequence[str], log_lines: Sequence[str]) -> int:
    """Redundant steps of §1.6.2: repeats of a search query plus repeats of a log message.

    Each occurrence after the first counts once; queries and messages are compared after
    trimming, collapsing whitespace and case-folding, and log lines without a leading
    timestamp. Blank lines are ignored. Result ≥ 0.
    """
    def repeats(items: Iterable[str]) -> int:
        counts = Counter(n for n in map(_norm_step, items) if n)
        return sum(c - 1 for c in counts.values())

    return repeats(search_queries) + repeats(log_lines)


# --------------------------------------------------------------------------- §1.7 sources


class SourceStats(NamedTuple):
    count: int
    avg_reliability: float  # 0-1
    types: tuple[str, ...]


def _field(source: Any, *names: str) -> Any:
    for name in names:
        value = source.get(name) if isinstance(source, Mapping) else getattr(source, name, None)
        if value is not None:
            return value
    return None


def source_stats(sources: Sequence[Any]) -> SourceStats:
    """Count, mean relevance score (0-1; a missing score counts 0.5 as in §3.4.4) and distinct types.

    A source is a mapping or an object with ``score`` and ``source_type`` (``source`` is
    read too, the seed's key). A score outside 0-1 raises: a retriever on another scale
    would otherwise inflate the credibility part.
    """
    scores = []
    for i, src in enumerate(sources):
        score = _field(src, "score")
        score = DEFAULT_SOURCE_SCORE if score is None else float(score)
        if not 0 <= score <= 1:
            raise ValueError(f"source {i}: score {score} is outside 0-1 (seed 000 §1.7.1)")
        scores.append(score)
    types = tuple(sorted({str(_field(s, "source_type", "source") or "unknown") for s in sources}))
    return SourceStats(len(scores), sum(scores) / len(scores) if scores else 0.0, types)


def source_quality(sources: Sequence[Any]) -> float:
    """§1.7: 0.5 · mean(source score) · 10 + 0.5 · min(distinct types / 8, 1) · 10, 0-10.

    Source scores are the retriever's relevance in 0-1. No sources → 0 (the seed would
    divide by zero; a report without sources has neither credibility nor diversity).
    """
    stats = source_stats(sources)
    if not stats.count:
        return 0.0
    diversity = min(len(stats.types) / MAX_SOURCE_TYPES, 1.0) * 10
    return stats.avg_reliability * 10 * 0.5 + diversity * 0.5


# --------------------------------------------------------------------------- citations


_TAG = re.compile(r"\[\s*SOURCE\s*:\s*([\d\s,]+?)\s*\]", re.IGNORECASE)


class CitationCheck(NamedTuple):
    """``[SOURCE:N]`` tags in order of appearance, split by whether source N exists."""

    valid: list[int]
    invalid: list[int]

    @property
    def total(self) -> int:
        return len(self.valid) + len(self.invalid)

    @property
    def accuracy(self) -> float | None:
        """Share of tags that point at an existing source (0-1); None without tags."""
        return len(self.valid) / self.total if self.total else None


def citation_check(report_text: str, n_sources: int | Iterable[int]) -> CitationCheck:
    """Find ``[SOURCE:N]`` tags (also ``[SOURCE: 1, 2]``) whose N is not a source (§1.5).

    ``n_sources`` is the number of sources, numbered 1..n as in the generation's list, or
    the collection of valid source numbers. Only existence is checked here; whether the
    cited source supports the sentence is the jury's job.
    """
    valid_numbers = set(range(1, n_sources + 1)) if isinstance(n_sources, int) else set(n_sources)
    valid: list[int] = []
    invalid: list[int] = []
    for match in _TAG.finditer(report_text):
        for part in match.group(1).split(","):
            if part.strip():
                number = int(part)
                (valid if number in valid_numbers else invalid).append(number)
    return CitationCheck(valid, invalid)


# --------------------------------------------------------------------------- §1.8 overall, grade


def overall_score(scores: Mapping[str, float | None]) -> float:
    """§3.5: Σ weight · score over the six metrics (each 0-10); result 0-10.

    Raises ValueError naming every missing or unscored (None) metric and any score outside
    0-10. Extra keys are ignored.
    """
    missing = [m for m in WEIGHTS if scores.get(m) is None]
    if missing:
        raise ValueError(f"overall_score needs all six metrics; missing or unscored: {', '.join(missing)}")
    for metric in WEIGHTS:
        _check_range(metric, float(scores[metric]), 0, 10)  # type: ignore[arg-type]
    return sum(weight * float(scores[m]) for m, weight in WEIGHTS.items())  # type: ignore[arg-type]


def grade(score: float) -> str:
    """§1.8 grade of a 0-10 score: A+ ≥ 9.5, A ≥ 9.0, B+ ≥ 8.5, B ≥ 8.0, C+ ≥ 7.5, C ≥ 7.0, D ≥ 6.0, else F.

    The score is rounded to 6 decimals first, so a weighted sum that lands on 8.4999999999
    for an exact 8.5 still gets B+.
    """
    _check_range("score", score, 0, 10)
    score = round(score, 6)
    return next((letter for bound, letter in GRADES if score >= bound), "F")


# --------------------------------------------------------------------------- §4.2 analysis


# Recommendations for judge-listed weaknesses, by a cue in the weakness (first match wins).
JUDGE_FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("상반", "방향"), "결론이 본문의 분석과 같은 방향을 가리키도록 고치세요"),
    (("결론 섹션이 없", "결론 없음", "결론이 없"), "결론 섹션을 추가하세요"),
    (("결론",), "결론이 본문의 분석에 근거하도록 정리하세요"),
    (("헤더", "구조", "섹션당"), "섹션 헤더로 보고서를 나누고 섹션마다 충분히 설명하세요"),
    (("접속",), "문장 사이에 논리 연결 표현(따라서, 반면, 그 결과 등)을 넣어 흐름을 이으세요"),
    (("연결", "흐름"), "인접 문장이 같은 주제를 이어가도록 문단을 다시 구성하세요"),
    (("출처", "인용", "수치", "뒷받침"), "인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요"),
    (("과장",), "과장 표현을 출처가 뒷받침하는 표현으로 바꾸세요"),
)
_SENTENCE_REF = re.compile(r"^문장\s*(\d+)\s*:\s*")


def item_kind(item: str) -> str:
    """What an item is about, figures and sentence numbers left out ("인접 문장 연결성 22%" and
    "… 24%" are one kind), for de-duplication across judges and sides."""
    text = _SENTENCE_REF.sub("", item.strip())
    text = re.split(r"\s[—(:]|\s-\s", text)[0]
    return re.sub(r"[\d.,%/]+|\s+", "", text)


def _grouped(items: Sequence[str]) -> list[str]:
    """Judge items, one per kind in first-seen order; per-sentence items of one kind become one
    line naming the finding and its sentences ("인용된 출처로 뒷받침되지 않음: 문장 6, 15, 16
    (3개 문장)", "출처와 다른 수치: 문장 4"), without the judge's per-sentence detail."""
    kinds: dict[str, list[str]] = {}
    for item in items:
        if item and item.strip():
            kinds.setdefault(item_kind(item), []).append(item.strip())
    out = []
    for group in kinds.values():
        sentences = list(dict.fromkeys(m.group(1) for g in group if (m := _SENTENCE_REF.match(g))))
        if sentences:
            # The finding and where it is; the judge's per-sentence detail ("답변 수치 {2024}가
            # 참조에 없음", a quoted source) stays in the judge's feedback, not in the summary.
            what = re.split(r"\s[—(:]|\s-\s", _SENTENCE_REF.sub("", group[0]))[0].strip()
            count = f" ({len(sentences)}개 문장)" if len(sentences) >= 2 else ""
            out.append(f"{what}: 문장 {', '.join(sentences)}{count}")
        else:
            out.append(group[0])
    return out


def item_topic(item: str) -> str:
    """The subject an item speaks to (conclusion, structure, flow, sources…) by the cues of
    ``JUDGE_FIXES``, else its kind: a strength and a weakness on one topic do not both stand."""
    for n, (cues, _) in enumerate(JUDGE_FIXES):
        if any(cue in item for cue in cues):
            return f"topic-{n}"
    return item_kind(item)


def fix_for(weakness: str) -> str:
    for cues, fix in JUDGE_FIXES:
        if any(cue in weakness for cue in cues):
            return fix
    return f"다음 문제를 보완하세요: {weakness}"


def strengths_weaknesses_recommendations(
    scores: Mapping[str, float | None],
    details: Mapping[str, Any],
    *,
    judge_strengths: Sequence[str] = (),
    judge_weaknesses: Sequence[str] = (),
    judge_recommendations: Sequence[str] = (),
    limit: int = 5,
) -> tuple[list[str], list[str], list[str]]:
    """Strengths, weaknesses and recommendations by §4.2's rules, at most ``limit`` (5) each.

    ``scores`` holds the six 0-10 metrics (a missing or None metric skips its rules).
    ``details`` may hold: ``task_success_percentage`` (0-100, else task_success · 10),
    ``completeness_percentage`` (0-100, else completeness · 10), ``hallucination_count``,
    ``source_diversity`` (distinct types), ``avg_source_reliability`` (0-1),
    ``missing_sections`` (list), ``redundant_steps``, ``unverified_claims`` (count or list),
    ``source_count``, ``citation_count``, ``has_conclusion`` (bool; else inferred from
    ``missing_sections``). A rule whose input is absent does not fire.

    What counts as a strength: an automatic rule's threshold met, or a judge's strength on a
    topic no judge lists as a weakness (``item_topic``: a topic never sits on both sides). Judge items are grouped by kind
    (figures and sentence numbers ignored), so three judges' "연결성 22% / 24% / 30%" are one
    item and per-sentence issues become one line naming the sentences; up to 3 per list.
    Every weakness comes with a recommendation: the automatic ones in the seed's words, the
    judges' by their subject (``JUDGE_FIXES``); then the seed's other recommendations, then the
    judges' own, de-duplicated, cut at ``limit``.
    """

    def num(key: str, fallback_metric: str | None = None, scale: float = 1.0) -> float | None:
        value = details.get(key)
        if value is None and fallback_metric and scores.get(fallback_metric) is not None:
            value = float(scores[fallback_metric]) * scale  # type: ignore[arg-type]
        if isinstance(value, (list, tuple, set)):
            value = len(value)
        return None if value is None else float(value)

    task_pct = num("task_success_percentage", "task_success", 10)
    complete_pct = num("completeness_percentage", "completeness", 10)
    halluc = num("hallucination_count")
    diversity = num("source_diversity")
    efficiency = scores.get("efficiency")
    quality = scores.get("output_quality")
    reliability = num("avg_source_reliability")
    redundant = num("redundant_steps")
    unverified = num("unverified_claims")
    n_sources = num("source_count")
    n_citations = num("citation_count")
    missing = list(details.get("missing_sections") or [])
    has_conclusion = details.get("has_conclusion")
    if has_conclusion is None and "missing_sections" in details:
        has_conclusion = not any("결론" in s or "conclusion" in s.casefold() for s in missing)

    strengths = [msg for cond, msg in (
        (task_pct is not None and task_pct >= 90, "작업을 성공적으로 완료했습니다"),
        (complete_pct is not None and complete_pct >= 90, "보고서가 완성도 높게 작성되었습니다"),
        (halluc is not None and halluc == 0, "환각 현상이 감지되지 않았습니다"),
        (diversity is not None and diversity >= 3, "다양한 출처를 활용했습니다"),
        (efficiency is not None and efficiency >= 8.0, "효율적으로 작업을 수행했습니다"),
    ) if cond]
    # (fires?, weakness, its recommendation)
    automatic = [(msg(), fix) for cond, msg, fix in (
        (task_pct is not None and task_pct < 70, lambda: "작업 완료율이 낮습니다", "요청에서 빠진 요구사항을 채우세요"),
        (bool(missing), lambda: f"필수 섹션 누락: {', '.join(missing)}", "누락된 섹션을 추가하세요"),
        (quality is not None and quality < 6.0, lambda: "보고서 품질이 기대에 미치지 못합니다",
         "사실 정확도, 논리적 흐름, 요청 관련성 중 낮은 항목을 먼저 보완하세요"),
        (halluc is not None and halluc > 0, lambda: f"환각 현상 감지: {halluc:g}건",
         "검증되지 않은 주장에 출처를 추가하세요" if unverified else "인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요"),
        (reliability is not None and reliability < 0.6, lambda: "출처 신뢰도가 낮습니다",
         "공공기관, 학술지, 공식 통계처럼 신뢰도 높은 출처를 활용하세요"),
        (redundant is not None and redundant > 3, lambda: f"불필요한 중복 단계: {redundant:g}개", "워크플로우 최적화를 고려하세요"),
    ) if cond]
    seed_recommendations = [msg for cond, msg in (
        (bool(missing), "누락된 섹션을 추가하세요"),
        (unverified is not None and unverified > 0, "검증되지 않은 주장에 출처를 추가하세요"),
        (n_sources is not None and n_sources < 5, "더 많은 출처를 활용하세요"),
        (efficiency is not None and efficiency < 7.0, "워크플로우 최적화를 고려하세요"),
        (n_citations is not None and n_citations == 0, "출처 인용을 추가하세요"),
        (has_conclusion is False, "결론 섹션을 추가하세요"),
    ) if cond]

    auto_kinds = {item_kind(w) for w, _ in automatic}
    judged_weak = [w for w in _grouped(judge_weaknesses) if item_kind(w) not in auto_kinds][:3]
    weak_topics = {item_topic(w) for w, _ in automatic} | {item_topic(w) for w in _grouped(judge_weaknesses)}
    judged_strong = [s for s in _grouped(judge_strengths) if item_topic(s) not in weak_topics][:3]

    weaknesses = [w for w, _ in automatic] + judged_weak
    recommendations = [fix for _, fix in automatic] + [fix_for(w) for w in judged_weak]
    recommendations += seed_recommendations + [r.strip() for r in list(judge_recommendations)[:3] if r and r.strip()]

    def cut(items: list[str]) -> list[str]:
        return list(dict.fromkeys(items))[:limit]

    # Keep each shown weakness's recommendation: the paired ones come first and are kept in order.
    return cut(strengths + judged_strong), cut(weaknesses), cut(recommendations)


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is outside {low}..{high}")
