"""Report judges (seed 000 §3.2): factual accuracy, logical coherence, relevance, hallucination.

The Korean user templates are the seed's prompts; the seed gives no system message, so a
short one states the judge's role. Verdict fields are the seed's JSON keys:

- factual accuracy: score 0-10, reasoning, issues
- coherence: score 0-10, reasoning, strengths, weaknesses
- relevance: score 0-10, reasoning, fulfilled_requirements, missing_requirements
- hallucination: hallucination_count, hallucinations[{type, location, description,
  severity 1-2}], citation_accuracy 0-1. The jury reduces the count by median and the
  citation accuracy by min (seed 000 §3.3.3); ``description`` is the claim text that
  ``merge_hallucination_cases`` de-duplicates on.

All four take the same input: the user's query, the report, and the numbered sources that
``[SOURCE:N]`` tags refer to.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template

SCORE_0_10 = Annotated[float, Field(ge=0, le=10)]


class ReportSource(BaseModel):
    model_config = ConfigDict(extra="ignore")

    number: int = Field(ge=1, description="N in [SOURCE:N]")
    title: str = ""
    content: str = ""


class ReportInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(description="the user's original request")
    report: str = Field(description="the generated report (markdown)")
    sources: list[ReportSource] = Field(default_factory=list)


class FactualAccuracyVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: SCORE_0_10
    reasoning: str = Field(description="상세한 평가 근거")
    issues: list[str] = Field(description="발견된 문제점들")


class CoherenceVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: SCORE_0_10
    reasoning: str = Field(description="상세한 평가 근거")
    strengths: list[str] = Field(description="강점들")
    weaknesses: list[str] = Field(description="약점들")


class RelevanceVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: SCORE_0_10
    reasoning: str = Field(description="상세한 평가 근거")
    fulfilled_requirements: list[str] = Field(description="충족된 요구사항들")
    missing_requirements: list[str] = Field(description="누락된 요구사항들")


HallucinationType = Literal["citation_inaccuracy", "unfounded_claims", "exaggeration"]


class HallucinationCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: HallucinationType
    location: str = Field(description="보고서 내 위치")
    description: str = Field(description="환각 내용")
    severity: int = Field(ge=1, le=2, description="2: 인용 부정확성, 근거 없는 주장; 1: 과장/왜곡")


class HallucinationVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hallucination_count: int = Field(ge=0)
    hallucinations: list[HallucinationCase]
    citation_accuracy: float = Field(ge=0, le=1)


KO_SYSTEM = (
    "당신은 Multi-Agent RAG 시스템이 생성한 보고서를 평가하는 전문 평가자입니다. "
    "주어진 평가 기준에 따라 독립적으로 평가하고, 지정된 JSON 형식으로만 응답하세요."
)
EN_SYSTEM = (
    "You are an expert evaluator of reports produced by a multi-agent RAG system. "
    "Evaluate independently against the given criteria and reply only with the requested JSON."
)

FACTUAL_KO = """다음 보고서의 사실 정확도를 0~10점으로 평가하세요.

평가 기준:
1. 데이터 정확성: 제시된 통계와 수치가 출처와 일치하는가?
2. 사실 검증: 모든 주장에 적절한 출처가 인용되었는가?
3. 인용 정확성: [SOURCE:N] 태그가 실제 출처와 일치하는가?

각 [SOURCE:N] 태그를 실제 출처 내용과 비교하여 검증하세요.

보고서:
{report}

출처 목록:
{sources}

평가 결과를 다음 JSON 형식으로 반환하세요:
{
  "score": 0-10,
  "reasoning": "상세한 평가 근거",
  "issues": ["발견된 문제점들"]
}"""

FACTUAL_EN = """Rate the factual accuracy of the following report from 0 to 10.

Criteria:
1. Data accuracy: do the statistics and figures match the sources?
2. Fact checking: is every claim backed by an appropriate cited source?
3. Citation accuracy: does each [SOURCE:N] tag match the actual source?

Check every [SOURCE:N] tag against the actual source content.

Report:
{report}

Sources:
{sources}

Return the evaluation in this JSON format:
{
  "score": 0-10,
  "reasoning": "detailed justification",
  "issues": ["problems found"]
}"""

COHERENCE_KO = """다음 보고서의 논리적 일관성을 0~10점으로 평가하세요.

평가 기준:
1. 논증 구조: 주장과 근거가 논리적으로 연결되는가?
2. 흐름과 전환: 섹션 간 연결이 자연스러운가?
3. 결론 타당성: 결론이 본문에서 자연스럽게 도출되는가?

보고서:
{report}

평가 결과를 다음 JSON 형식으로 반환하세요:
{
  "score": 0-10,
  "reasoning": "상세한 평가 근거",
  "strengths": ["강점들"],
  "weaknesses": ["약점들"]
}"""

COHERENCE_EN = """Rate the logical coherence of the following report from 0 to 10.

Criteria:
1. Argument structure: are claims and evidence logically connected?
2. Flow and transitions: do the sections connect naturally?
3. Soundness of the conclusion: does the conclusion follow naturally from the body?

Report:
{report}

Return the evaluation in this JSON format:
{
  "score": 0-10,
  "reasoning": "detailed justification",
  "strengths": ["strengths"],
  "weaknesses": ["weaknesses"]
}"""

RELEVANCE_KO = """다음 보고서가 원본 쿼리의 요구사항을 얼마나 잘 충족하는지 0~10점으로 평가하세요.

원본 쿼리:
{query}

보고서:
{report}

평가 기준:
1. 쿼리 의도 파악: 사용자가 요청한 주제를 정확히 다루는가?
2. 형식 준수: 요청한 형식(보고서/분석/전략 등)으로 작성되었는가?
3. 구체성: 구체적 사례와 실행 가능한 제언을 제공하는가?

평가 결과를 다음 JSON 형식으로 반환하세요:
{
  "score": 0-10,
  "reasoning": "상세한 평가 근거",
  "fulfilled_requirements": ["충족된 요구사항들"],
  "missing_requirements": ["누락된 요구사항들"]
}"""

RELEVANCE_EN = """Rate from 0 to 10 how well the following report meets the requirements of the original query.

Original query:
{query}

Report:
{report}

Criteria:
1. Understanding of intent: does it address exactly the topic the user asked for?
2. Format: is it written in the requested form (report/analysis/strategy, etc.)?
3. Specificity: does it give concrete examples and actionable recommendations?

Return the evaluation in this JSON format:
{
  "score": 0-10,
  "reasoning": "detailed justification",
  "fulfilled_requirements": ["requirements met"],
  "missing_requirements": ["requirements missing"]
}"""

HALLUCINATION_KO = """다음 보고서에서 환각(출처에 없는 정보, 과장, 왜곡)을 탐지하세요.

보고서:
{report}

전체 출처 내용:
{sources}

환각 유형:
1. 인용 부정확성: [SOURCE:N] 태그가 실제 출처와 불일치
2. 근거 없는 주장: 출처에 없는 정보를 사실처럼 제시
3. 과장/왜곡: 사실을 과장하거나 왜곡하여 표현

각 [SOURCE:N]을 실제 출처와 비교하여 검증하세요.

평가 결과를 다음 JSON 형식으로 반환하세요:
{
  "hallucination_count": 0,
  "hallucinations": [
    {
      "type": "citation_inaccuracy | unfounded_claims | exaggeration",
      "location": "보고서 내 위치",
      "description": "환각 내용",
      "severity": 1-2
    }
  ],
  "citation_accuracy": 0.0-1.0
}"""

HALLUCINATION_EN = """Detect hallucinations (information not in the sources, exaggeration, distortion) in the following report.

Report:
{report}

Full source content:
{sources}

Hallucination types:
1. Citation inaccuracy: a [SOURCE:N] tag does not match the actual source
2. Unfounded claims: information not in the sources presented as fact
3. Exaggeration/distortion: facts exaggerated or distorted

Check every [SOURCE:N] against the actual source.

Return the evaluation in this JSON format:
{
  "hallucination_count": 0,
  "hallucinations": [
    {
      "type": "citation_inaccuracy | unfounded_claims | exaggeration",
      "location": "where in the report",
      "description": "the hallucinated content",
      "severity": 1-2
    }
  ],
  "citation_accuracy": 0.0-1.0
}"""


def format_sources(sources: list[ReportSource], lang: str) -> str:
    if not sources:
        return "(출처 없음)" if lang == "ko" else "(no sources)"
    blocks = []
    for s in sources:
        head = f"[SOURCE:{s.number}] {s.title}".rstrip()
        blocks.append(f"{head}\n{s.content}".rstrip())
    return "\n\n".join(blocks)


def render_report(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, ReportInput)
    return {"query": item.query, "report": item.report, "sources": format_sources(item.sources, lang)}


EXAMPLE_INPUT = {
    "query": "2024년 대체육 시장 동향 보고서를 작성해주세요",
    "report": (
        "# 대체육 시장 동향\n\n## 현황\n2023년 국내 대체육 시장 규모는 약 2,280억 원이다 [SOURCE:1]. "
        "20~30대의 41%가 구매 경험이 있다 [SOURCE:2].\n\n## 결론\n따라서 성장세가 이어질 것으로 보인다."
    ),
    "sources": [
        {"number": 1, "title": "시장 보고서", "content": "2023년 국내 대체육 시장 규모는 약 2,280억 원이다."},
        {"number": 2, "title": "소비자 조사", "content": "20~30대의 41%가 구매 경험이 있다."},
    ],
}


def _report_prompt(pid: str, description: str, verdict: type[BaseModel], ko: str, en: str, **kw) -> Prompt:
    return Prompt(
        id=pid,
        version="1",
        description=description,
        family="report",
        seed="000 §3.2",
        input_model=ReportInput,
        verdict_model=verdict,
        templates={"ko": Template(KO_SYSTEM, ko), "en": Template(EN_SYSTEM, en)},
        render=render_report,
        render_name="assay.judges.prompts.report.render_report",  # its name before the move: same hash
        judged_field="report",
        example=EXAMPLE_INPUT,
        **kw,
    )


REPORT_FACTUAL_ACCURACY = _report_prompt(
    "report_factual_accuracy",
    "Report figures and [SOURCE:N] citations vs the sources, 0-10.",
    FactualAccuracyVerdict,
    FACTUAL_KO,
    FACTUAL_EN,
    score_fields={"score": (0.0, 10.0)},
)
REPORT_COHERENCE = _report_prompt(
    "report_coherence",
    "Argument structure, flow between sections, soundness of the conclusion, 0-10.",
    CoherenceVerdict,
    COHERENCE_KO,
    COHERENCE_EN,
    score_fields={"score": (0.0, 10.0)},
)
REPORT_RELEVANCE = _report_prompt(
    "report_relevance",
    "Does the report meet the query: topic, requested format, concrete recommendations, 0-10.",
    RelevanceVerdict,
    RELEVANCE_KO,
    RELEVANCE_EN,
    score_fields={"score": (0.0, 10.0)},
)
REPORT_HALLUCINATION = _report_prompt(
    "report_hallucination",
    "Hallucinations (citation inaccuracy, unfounded claims, exaggeration): count, cases, citation accuracy 0-1.",
    HallucinationVerdict,
    HALLUCINATION_KO,
    HALLUCINATION_EN,
    score_fields={"citation_accuracy": (0.0, 1.0)},
    count_fields=("hallucination_count",),
    reducers={"citation_accuracy": "min", "hallucination_count": "median"},
    lower_is_better=("hallucination_count",),
)
