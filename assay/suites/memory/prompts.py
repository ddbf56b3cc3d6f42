"""Memory usefulness judge (seed 001, "평가 프롬프트 템플릿").

The Korean template is the seed's, with the seed's per-criterion score bands appended so
that every judge calibrates the same way. Two deliberate changes to the seed's reply format:

- the scores are flat (``relevance``, ``completeness``, ``accuracy``, ``noise``, 0-10)
  instead of ``scores.{name}.{score, reason}``; the per-criterion reasons go into
  ``reasoning``;
- ``overall_score`` is not asked for: assay computes it with the seed's formula
  (``assay.metrics.memory.overall_score``), so a judge cannot report an overall that
  disagrees with its own criteria.

``noise`` is lower-is-better, as in the seed.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template

SCORE_0_10 = Annotated[float, Field(ge=0, le=10)]


class MemoryInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(description="사용자 쿼리")
    memory: str = Field(description="저장된 메모리 (요약 텍스트); empty when nothing is stored")
    entities: list[str] = Field(default_factory=list, description="저장된 엔티티")


class MemoryVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    relevance: SCORE_0_10 = Field(description="관련성: 쿼리와 관련된 정보가 메모리에 있는가? (높을수록 좋음)")
    completeness: SCORE_0_10 = Field(
        description="완전성: 쿼리 응답에 필요한 맥락이 충분한가? (높을수록 좋음)"
    )
    accuracy: SCORE_0_10 = Field(description="정확성: 메모리 정보가 정확한가? (높을수록 좋음)")
    noise: SCORE_0_10 = Field(description="노이즈: 무관한 정보가 방해되는가? (낮을수록 좋음)")
    reasoning: str = Field(description="기준별 평가 근거")
    helpful_info: list[str] = Field(description="쿼리 처리에 도움되는 정보")
    missing_info: list[str] = Field(description="있었으면 좋았을 정보")
    summary: str = Field(description="한 줄 평가")


KO_SYSTEM = "당신은 AI 메모리 시스템 평가자입니다."

KO_USER = """## 평가 대상
- 사용자 쿼리: {query}
- 저장된 메모리: {memory}
- 저장된 엔티티: {entities}

## 평가 기준 (각 0-10점)
1. relevance (관련성): 쿼리와 관련된 정보가 메모리에 있는가? (높을수록 좋음)
   9-10 직접 관련된 정보가 명확히 존재 / 7-8 관련 정보가 있으나 간접적 / 4-6 부분적으로 관련 / 1-3 거의 관련 없음 / 0 전혀 관련 없음
2. completeness (완전성): 쿼리 응답에 필요한 맥락이 충분한가? (높을수록 좋음)
   9-10 필요한 모든 맥락 존재 / 7-8 대부분 존재, 일부 누락 / 4-6 기본 맥락만 존재 / 1-3 맥락이 거의 없음 / 0 맥락 전혀 없음
3. accuracy (정확성): 메모리 정보가 정확한가? (높을수록 좋음)
   9-10 정확하고 신뢰 가능 / 7-8 대체로 정확, 사소한 오차 / 4-6 일부 부정확한 정보 혼재 / 1-3 상당 부분 부정확 / 0 완전히 틀림
   (부정확 유형: 수치 오류, 시점 오류, 대상 오류, 상태 오류)
4. noise (노이즈): 무관한 정보가 방해되는가? (낮을수록 좋음)
   0-1 노이즈 거의 없음 / 2-3 약간의 무관 정보 / 4-6 노이즈가 있으나 핵심 식별 가능 / 7-8 노이즈가 많아 핵심 찾기 어려움 / 9-10 쿼리 처리 방해
   (노이즈 유형: 이전에 해결된 이슈, 무관한 주제, 일반적인 시스템 안내 문구, 오래된 정보)

## 응답 형식 (JSON)
{
    "relevance": N,
    "completeness": N,
    "accuracy": N,
    "noise": N,
    "reasoning": "기준별 평가 근거",
    "helpful_info": ["쿼리 처리에 도움되는 정보 1", "..."],
    "missing_info": ["있었으면 좋았을 정보 1", "..."],
    "summary": "한 줄 평가"
}"""

EN_SYSTEM = "You are an evaluator of an AI memory system."

EN_USER = """## What to evaluate
- User query: {query}
- Stored memory: {memory}
- Stored entities: {entities}

## Criteria (0-10 each)
1. relevance: is information related to the query present in the memory? (higher is better)
   9-10 directly relevant information clearly present / 7-8 relevant but indirect / 4-6 partly relevant / 1-3 barely relevant / 0 not relevant at all
2. completeness: is there enough context to answer the query? (higher is better)
   9-10 all needed context present / 7-8 most present, some missing / 4-6 only basic context / 1-3 almost no context / 0 no context
3. accuracy: is the memory's information accurate? (higher is better)
   9-10 accurate and reliable / 7-8 mostly accurate, minor errors / 4-6 some inaccurate information mixed in / 1-3 largely inaccurate / 0 completely wrong
   (error types: wrong figures, wrong time, wrong subject, wrong status)
4. noise: does unrelated information get in the way? (lower is better)
   0-1 almost no noise / 2-3 a little unrelated information / 4-6 noise present but the key information is identifiable / 7-8 so much noise the key information is hard to find / 9-10 noise obstructs the query
   (noise types: already resolved issues, unrelated topics, generic system messages, stale information)

## Reply format (JSON)
{
    "relevance": N,
    "completeness": N,
    "accuracy": N,
    "noise": N,
    "reasoning": "justification per criterion",
    "helpful_info": ["information that helps with the query 1", "..."],
    "missing_info": ["information that would have helped 1", "..."],
    "summary": "one-line assessment"
}"""


def render_memory(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, MemoryInput)
    none = "(없음)" if lang == "ko" else "(none)"
    memory = item.memory.strip() or ("(메모리 없음)" if lang == "ko" else "(no memory)")
    return {
        "query": item.query,
        "memory": memory,
        "entities": ", ".join(item.entities) if item.entities else none,
    }


MEMORY_USEFULNESS = Prompt(
    id="memory_usefulness",
    version="1",
    description="Is the stored memory useful for the query: relevance, completeness, accuracy, noise (0-10, noise lower is better).",
    family="memory",
    seed="001",
    input_model=MemoryInput,
    verdict_model=MemoryVerdict,
    templates={"ko": Template(KO_SYSTEM, KO_USER), "en": Template(EN_SYSTEM, EN_USER)},
    score_fields={
        "relevance": (0.0, 10.0),
        "completeness": (0.0, 10.0),
        "accuracy": (0.0, 10.0),
        "noise": (0.0, 10.0),
    },
    render=render_memory,
    render_name="assay.judges.prompts.memory.render_memory",  # its name before the move: same hash
    judged_field="memory",
    lower_is_better=("noise",),
    example={
        "query": "AWS 비용 얼마야?",
        "memory": "사용자는 AWS 주력, 월 1.2억 지출",
        "entities": ["AWS"],
    },
)
