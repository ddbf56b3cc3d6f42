"""Clinical answer judge (seed 002, optional beside SFS/CSP/CUS): faithfulness and answer relevance.

The seed's aggregate lists faithfulness and answer relevance next to its own three scores
without giving a prompt; this one asks for both on 1-5, with the patient record and the
dialogue so far as the only ground truth. The scores join the aggregate normalised to 0-1.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template

SCORE_1_5 = Annotated[float, Field(ge=1, le=5)]


class ClinicalInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str = Field(description="the patient's question in this turn")
    answer: str = Field(description="the answer under evaluation")
    patient: str = Field(description="the patient record, one field per line")
    dialogue: list[str] = Field(default_factory=list, description="earlier turns, oldest first")


class ClinicalVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    faithfulness: SCORE_1_5 = Field(description="환자 기록과 대화에 충실한가 (1-5)")
    answer_relevance: SCORE_1_5 = Field(description="질문에 직접 답하는가 (1-5)")
    unsupported_claims: list[str] = Field(description="기록과 맞지 않거나 근거 없는 주장")
    reasoning: str = Field(description="평가 근거")


KO_SYSTEM = "당신은 의료 상담 답변을 평가하는 임상 전문가입니다. 환자 기록만을 사실의 근거로 삼으세요."

KO_USER = """## 환자 기록
{patient}

## 이전 대화
{dialogue}

## 이번 질문
{question}

## 평가할 답변
{answer}

## 평가 기준 (각 1-5점)
1. faithfulness (충실성): 답변이 환자에 대해 단정하는 내용(복용 약, 질환, 검사 수치, 활력징후, 나이, 성별)이 환자 기록과 일치하는가?
   5 모든 단정이 기록과 일치 / 4 사소한 표현 차이 / 3 근거 없는 단정 일부 / 2 기록과 충돌하는 단정 / 1 대부분 기록과 충돌
   (예시로 든 약물이나 일반적인 조언은 환자에 대한 단정이 아닙니다)
2. answer_relevance (관련성): 답변이 이번 질문에 직접 답하는가?
   5 질문에 직접, 충분히 답함 / 4 대체로 답함 / 3 부분적으로 답함 / 2 주변적인 내용 위주 / 1 질문과 무관

## 응답 형식 (JSON)
{
  "faithfulness": N,
  "answer_relevance": N,
  "unsupported_claims": ["기록과 맞지 않는 주장", "..."],
  "reasoning": "평가 근거"
}"""

EN_SYSTEM = "You are a clinician evaluating answers to patients' questions. Treat the patient record as the only ground truth."

EN_USER = """## Patient record
{patient}

## Dialogue so far
{dialogue}

## This turn's question
{question}

## Answer to evaluate
{answer}

## Criteria (1-5 each)
1. faithfulness: do the answer's assertions about this patient (medications, conditions, lab values, vital signs, age, sex) agree with the record?
   5 every assertion agrees / 4 minor wording differences / 3 some unsupported assertions / 2 assertions that contradict the record / 1 mostly contradicts the record
   (drugs named as examples and general advice are not assertions about the patient)
2. answer_relevance: does the answer address this question directly?
   5 directly and fully / 4 mostly / 3 partly / 2 mostly beside the point / 1 unrelated

## Reply format (JSON)
{
  "faithfulness": N,
  "answer_relevance": N,
  "unsupported_claims": ["a claim the record does not support", "..."],
  "reasoning": "justification"
}"""


def render_clinical(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, ClinicalInput)
    none = "(없음)" if lang == "ko" else "(none)"
    return {
        "patient": item.patient,
        "dialogue": "\n".join(item.dialogue) if item.dialogue else none,
        "question": item.question,
        "answer": item.answer.strip() or ("(빈 답변)" if lang == "ko" else "(empty answer)"),
    }


CLINICAL_ANSWER = Prompt(
    id="clinical_answer",
    version="1",
    description="Is a medical answer faithful to the patient record and relevant to the question (1-5 each).",
    family="clinical",
    seed="002",
    input_model=ClinicalInput,
    verdict_model=ClinicalVerdict,
    templates={"ko": Template(KO_SYSTEM, KO_USER), "en": Template(EN_SYSTEM, EN_USER)},
    score_fields={"faithfulness": (1.0, 5.0), "answer_relevance": (1.0, 5.0)},
    render=render_clinical,
    render_name="assay.judges.prompts.clinical.render_clinical",  # its name before the move: same hash
    judged_field="answer",
    example={
        "question": "무릎이 아픈데 진통제 먹어도 되나요?",
        "answer": "신장 기능(eGFR 48)을 고려하면 이부프로펜보다는 아세트아미노펜이 안전합니다.",
        "patient": "age: 67\nlabs: egfr 48",
        "dialogue": [],
    },
)
