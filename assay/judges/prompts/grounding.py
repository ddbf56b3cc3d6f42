"""Reference-free RAG judges: faithfulness (claims, then a verdict per claim), answer relevancy
and context relevance. None of them reads a reference answer.

- ``faithfulness_claims``: the answer's factual claims, each a short self-contained sentence.
- ``faithfulness_verdict``: one claim and the retrieved contexts: supported or not, with a reason.
  The metric is the supported share of the claims (``assay.metrics.grounding``).
- ``answer_relevancy``: does the answer address the question, 1-5 (the scale is in the template).
- ``context_relevance``: one retrieved chunk and the question: relevant or not, with a reason.
  The metric is the relevant share of the chunks (precision without a reference).

They need a language model: the offline jury has no rule for them (``llm_only``), and a run
without an LLM judge leaves these metrics unscored with the reason.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template, register

MAX_CLAIMS = 20  # claims judged per answer; a longer answer is judged on its first 20


class ClaimsInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str
    answer: str


class ClaimsVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claims: list[str] = Field(description="the answer's factual claims, one short self-contained sentence each")


class ClaimInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claim: str
    contexts: list[str] = Field(description="retrieved chunk texts, best first")


class ClaimVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(description="which context supports the claim, or why none does")
    supported: bool = Field(description="true only if the contexts state or directly imply the claim")


class RelevancyInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str
    answer: str


class RelevancyVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    answer_relevancy: Annotated[float, Field(ge=1, le=5)]


class ChunkInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str
    context: str = Field(description="one retrieved chunk")


class ChunkVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    relevant: bool = Field(description="true if the chunk holds information that helps answer the question")


def _contexts(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, ClaimInput)
    chunks = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(item.contexts, 1))
    return {"claim": item.claim, "contexts": chunks or ("(검색된 문맥 없음)" if lang == "ko" else "(no contexts)")}


CLAIMS_EN = Template(
    "You break an answer into the factual claims it makes, so each can be checked on its own.",
    """Question:
{question}

Answer:
{answer}

List every factual claim the answer makes about the world, each as one short sentence that can be
understood without the others (replace pronouns by what they refer to). Leave out greetings,
hedges, opinions, questions back to the user and statements that the answer does not know.
List at most """ + str(MAX_CLAIMS) + """ claims; an answer with no factual claim gets an empty list.

Return only JSON in this format:
{
  "claims": ["first claim", "second claim"]
}""",
)

CLAIMS_KO = Template(
    "당신은 답변을 하나씩 확인할 수 있는 사실 주장으로 나누는 평가자입니다.",
    """질문:
{question}

답변:
{answer}

답변이 세상에 대해 하는 모든 사실 주장을, 다른 문장 없이도 이해되는 짧은 한 문장씩으로 나열하세요
(대명사는 가리키는 대상으로 바꾸세요). 인사, 얼버무림, 의견, 되묻는 질문, 모른다는 말은 빼세요.
주장은 최대 """ + str(MAX_CLAIMS) + """개까지, 사실 주장이 없는 답변은 빈 목록입니다.

다음 JSON 형식으로만 반환하세요:
{
  "claims": ["첫 번째 주장", "두 번째 주장"]
}""",
)

VERDICT_EN = Template(
    "You check whether a claim is supported by the retrieved contexts, and by nothing else.",
    """Claim:
{claim}

Retrieved contexts:
{contexts}

Is the claim supported by the contexts? "supported" is true only if the contexts state the claim
or directly imply it. If the contexts say nothing about it, contradict it, or support only part of
it, "supported" is false. Do not use your own knowledge: a true claim the contexts do not hold is
not supported.

Return only JSON in this format:
{
  "reason": "which context supports the claim, or why none does",
  "supported": true
}""",
)

VERDICT_KO = Template(
    "당신은 주장이 검색된 문맥으로만 뒷받침되는지 확인하는 평가자입니다.",
    """주장:
{claim}

검색된 문맥:
{contexts}

이 주장이 문맥으로 뒷받침됩니까? 문맥이 주장을 직접 말하거나 바로 함축할 때만 "supported"가 true입니다.
문맥에 관련 내용이 없거나, 주장과 어긋나거나, 주장의 일부만 뒷받침하면 false입니다. 자신의 지식은 쓰지
마세요: 사실이더라도 문맥에 없는 주장은 뒷받침되지 않습니다.

다음 JSON 형식으로만 반환하세요:
{
  "reason": "어느 문맥이 뒷받침하는지, 또는 왜 없는지",
  "supported": true
}""",
)

# The scale, written down once: the docs (docs/suites/answers.md) quote it.
RELEVANCY_SCALE_EN = """5: answers the question directly and completely, nothing off the point
4: answers the question, with a minor gap or some text that is not needed
3: answers part of the question, or buries the answer in unrelated text
2: on the topic of the question but does not answer it (e.g. generic advice, a question back)
1: does not address the question at all, or declines to answer without giving anything useful"""

RELEVANCY_SCALE_KO = """5: 질문에 직접, 빠짐없이 답하며 벗어난 내용이 없음
4: 질문에 답하지만 작은 빈틈이나 불필요한 내용이 있음
3: 질문의 일부에만 답하거나, 답이 무관한 내용에 묻혀 있음
2: 질문의 주제에 대해 말하지만 답하지는 않음 (일반적인 조언, 되묻기 등)
1: 질문을 전혀 다루지 않거나, 쓸모 있는 내용 없이 답을 거절함"""

RELEVANCY_EN = Template(
    "You judge whether an answer addresses the question it was given. Correctness is judged elsewhere.",
    """Question:
{question}

Answer:
{answer}

How well does the answer address the question? Judge relevance only, not whether the facts are true.
""" + RELEVANCY_SCALE_EN + """

Return only JSON in this format:
{
  "reason": "what the question asks and what the answer gives",
  "answer_relevancy": 1-5
}""",
)

RELEVANCY_KO = Template(
    "당신은 답변이 주어진 질문을 다루는지 평가합니다. 사실 여부는 따로 평가합니다.",
    """질문:
{question}

답변:
{answer}

답변이 질문을 얼마나 잘 다룹니까? 사실 여부가 아니라 관련성만 평가하세요.
""" + RELEVANCY_SCALE_KO + """

다음 JSON 형식으로만 반환하세요:
{
  "reason": "질문이 묻는 것과 답변이 주는 것",
  "answer_relevancy": 1-5
}""",
)

CHUNK_EN = Template(
    "You judge whether a retrieved text chunk is relevant to a question.",
    """Question:
{question}

Retrieved chunk:
{context}

Is this chunk relevant: does it hold information that helps answer the question? A chunk on the
same broad topic that does not help answer it is not relevant.

Return only JSON in this format:
{
  "reason": "what in the chunk helps, or why nothing does",
  "relevant": true
}""",
)

CHUNK_KO = Template(
    "당신은 검색된 문맥 조각이 질문과 관련 있는지 평가합니다.",
    """질문:
{question}

검색된 문맥 조각:
{context}

이 조각이 질문에 답하는 데 도움이 되는 정보를 담고 있습니까? 넓은 주제만 같고 답에 도움이 되지 않으면
관련 없음입니다.

다음 JSON 형식으로만 반환하세요:
{
  "reason": "조각의 어떤 내용이 도움이 되는지, 또는 왜 없는지",
  "relevant": true
}""",
)

_EXAMPLE_QUESTION = "When was Northwind Travel founded, and by whom?"
_EXAMPLE_ANSWER = "Northwind Travel was founded in 2012 by Dana Kim. It has 40 offices."

FAITHFULNESS_CLAIMS = register(Prompt(
    id="faithfulness_claims", version="1", family="grounding", seed="assay",
    description="The answer's factual claims, one self-contained sentence each (faithfulness, step 1).",
    input_model=ClaimsInput, verdict_model=ClaimsVerdict,
    templates={"ko": CLAIMS_KO, "en": CLAIMS_EN}, score_fields={}, llm_only=True,
    example={"question": _EXAMPLE_QUESTION, "answer": _EXAMPLE_ANSWER},
))

FAITHFULNESS_VERDICT = register(Prompt(
    id="faithfulness_verdict", version="1", family="grounding", seed="assay",
    description="One claim: supported by the retrieved contexts or not (faithfulness, step 2).",
    input_model=ClaimInput, verdict_model=ClaimVerdict, render=_contexts,
    templates={"ko": VERDICT_KO, "en": VERDICT_EN}, score_fields={}, llm_only=True,
    example={"claim": "Northwind Travel was founded in 2012.",
             "contexts": ["Northwind Travel, founded by Dana Kim in 2012, runs 12 offices."]},
))

ANSWER_RELEVANCY = register(Prompt(
    id="answer_relevancy", version="1", family="grounding", seed="assay",
    description="Does the answer address the question, 1-5 (no reference read).",
    input_model=RelevancyInput, verdict_model=RelevancyVerdict,
    templates={"ko": RELEVANCY_KO, "en": RELEVANCY_EN}, score_fields={"answer_relevancy": (1.0, 5.0)}, llm_only=True,
    example={"question": _EXAMPLE_QUESTION, "answer": _EXAMPLE_ANSWER},
))

CONTEXT_RELEVANCE = register(Prompt(
    id="context_relevance", version="1", family="grounding", seed="assay",
    description="One retrieved chunk: relevant to the question or not (context relevance).",
    input_model=ChunkInput, verdict_model=ChunkVerdict,
    templates={"ko": CHUNK_KO, "en": CHUNK_EN}, score_fields={}, llm_only=True,
    example={"question": _EXAMPLE_QUESTION, "context": "Northwind Travel, founded by Dana Kim in 2012, runs 12 offices."},
))
