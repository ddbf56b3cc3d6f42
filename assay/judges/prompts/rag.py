"""rag_qa answer judge (seed 003 §4, ``AnswerEval``).

The English template is the seed's judge prompt word for word; the Korean one says the
same. Seed 003 passes the verdict schema as ``response_format``; the templates also spell
the JSON out for providers without structured output. Retrieved contexts are optional:
when given, they are shown after the reference answer (the seed compares to the reference
only, so they are context, not a criterion).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template, register

RAG_SCORE = Annotated[float, Field(ge=1, le=5)]


class RagAnswerInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str
    generated_answer: str
    reference_answer: str
    contexts: list[str] = Field(default_factory=list, description="retrieved chunk texts, best first")


class RagAnswerVerdict(BaseModel):
    """Seed 003 ``AnswerEval``."""

    model_config = ConfigDict(extra="forbid")

    feedback: str = Field(description="답변 품질에 대한 피드백")
    accuracy: RAG_SCORE = Field(description="사실적 정확도 (1~5점). 오답은 반드시 1점")
    completeness: RAG_SCORE = Field(description="답변의 완전성 (1~5점)")
    relevance: RAG_SCORE = Field(description="질문과의 관련성 (1~5점)")


KO_SYSTEM = (
    "당신은 답변의 품질을 평가하는 전문 평가자입니다.\n"
    "생성된 답변을 참조 답변과 비교하여 평가하세요.\n"
    "완벽한 답변에만 5/5점을 주세요."
)

KO_USER = """질문:
{question}

생성된 답변:
{generated_answer}

참조 답변:
{reference_answer}
{contexts_block}
세 가지 기준으로 평가하세요 (각 1~5점):
1. 정확도(accuracy): 참조 답변 대비 사실적 정확성
2. 완전성(completeness): 질문의 모든 측면을 다루는가
3. 관련성(relevance): 질문에 직접적으로 답변하는가
답변이 틀렸다면 accuracy는 반드시 1점이어야 합니다.

평가 결과를 다음 JSON 형식으로만 반환하세요:
{
  "feedback": "답변 품질에 대한 피드백",
  "accuracy": 1-5,
  "completeness": 1-5,
  "relevance": 1-5
}"""

EN_SYSTEM = (
    "You are an expert evaluator assessing the quality of answers.\n"
    "Evaluate the generated answer by comparing it to the reference answer.\n"
    "Only give 5/5 scores for perfect answers."
)

EN_USER = """Question:
{question}

Generated Answer:
{generated_answer}

Reference Answer:
{reference_answer}
{contexts_block}
Evaluate on three dimensions (1-5 each):
1. Accuracy: factual correctness vs reference
2. Completeness: covers all aspects of the question
3. Relevance: directly answers the question
If the answer is wrong, accuracy must be 1.

Return the evaluation only as JSON in this format:
{
  "feedback": "feedback on the answer's quality",
  "accuracy": 1-5,
  "completeness": 1-5,
  "relevance": 1-5
}"""


def render_rag_answer(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, RagAnswerInput)
    block = ""
    if item.contexts:
        header = "검색된 문맥:" if lang == "ko" else "Retrieved Context:"
        chunks = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(item.contexts, 1))
        block = f"\n{header}\n{chunks}\n"
    return {
        "question": item.question,
        "generated_answer": item.generated_answer,
        "reference_answer": item.reference_answer,
        "contexts_block": block,
    }


RAG_ANSWER = register(
    Prompt(
        id="rag_answer",
        version="1",
        description="Answer vs reference: accuracy, completeness, relevance 1-5; a wrong answer has accuracy 1.",
        family="rag",
        seed="003 §4",
        input_model=RagAnswerInput,
        verdict_model=RagAnswerVerdict,
        templates={"ko": Template(KO_SYSTEM, KO_USER), "en": Template(EN_SYSTEM, EN_USER)},
        score_fields={"accuracy": (1.0, 5.0), "completeness": (1.0, 5.0), "relevance": (1.0, 5.0)},
        render=render_rag_answer,
        example={
            "question": "하늘여행사 창립자는?",
            "generated_answer": "하늘여행사는 김하늘이 창립했습니다.",
            "reference_answer": "하늘여행사의 창립자는 김하늘입니다.",
            "contexts": ["[회사 개요] 하늘여행사는 2012년 김하늘이 창립한 여행사다."],
        },
    )
)
