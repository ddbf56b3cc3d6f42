"""Agent intent judge (seed 004, "의도 충족 (intent_verdict)").

Seed 004 gives the rubric but no prompt text; the templates state the rubric as given.
The verdict labels and their scores are the seed's six, not five:

    PERFECT 5, GOOD 4, PARTIAL 3, WEAK 2, RELATED_BUT_WRONG 1, FAILED 0

The verdict also carries ``intent_label`` (ADD, UPDATE, DELETE, VIEW, MOVE, CLARIFY,
ERROR, OTHER): the seed's consistency metric needs the intent label of each
assistantMessage (ratioA = mode share of intent labels over repeats), and the judge that
reads the message is the natural place to classify it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.judges.prompts.base import Prompt, Template

IntentVerdictLabel = Literal["PERFECT", "GOOD", "PARTIAL", "WEAK", "RELATED_BUT_WRONG", "FAILED"]
IntentLabel = Literal["ADD", "UPDATE", "DELETE", "VIEW", "MOVE", "CLARIFY", "ERROR", "OTHER"]

INTENT_SCORES: dict[str, float] = {
    "PERFECT": 5.0,
    "GOOD": 4.0,
    "PARTIAL": 3.0,
    "WEAK": 2.0,
    "RELATED_BUT_WRONG": 1.0,
    "FAILED": 0.0,
}
INTENT_LABELS: tuple[str, ...] = ("ADD", "UPDATE", "DELETE", "VIEW", "MOVE", "CLARIFY", "ERROR", "OTHER")


def verdict_for_score(score: float) -> str:
    """The label whose score is nearest (ties go to the lower label)."""
    return min(INTENT_SCORES, key=lambda label: (abs(INTENT_SCORES[label] - score), INTENT_SCORES[label]))


class AgentIntentInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(description="the user's request to the agent")
    assistant_message: str = Field(description="the agent's assistantMessage")
    expected_result: str = Field(default="", description="what the request should achieve, if known")


class AgentIntentVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: IntentVerdictLabel
    intent_label: IntentLabel = Field(description="intent of the assistantMessage")
    reasoning: str


KO_SYSTEM = (
    "당신은 채용 에이전트의 응답을 평가하는 평가자입니다. "
    "사용자 의도에 맞는 에이전트의 커뮤니케이션(답변 메시지) 품질을 평가하고, 지정된 JSON 형식으로만 응답하세요."
)

KO_USER = """사용자 요청:
{query}

에이전트 답변 메시지 (assistantMessage):
{assistant_message}
{expected_block}
의도 충족(intent_verdict)을 다음 기준으로 판정하세요:
- PERFECT (5): 동사/대상/범위 모두 일치, 메시지 즉시 이해
- GOOD (4): 핵심 일치, 표현이 다소 모호
- PARTIAL (3): 핵심은 인지되나 대상/범위가 애매
- WEAK (2): 핵심 의도 일부만 반영, 오해 가능성 큼
- RELATED_BUT_WRONG (1): 관련 도메인은 맞지만 목적 불일치
- FAILED (0): 무관/무응답/실패

또한 답변 메시지의 의도(intent_label)를 ADD, UPDATE, DELETE, VIEW, MOVE, CLARIFY, ERROR, OTHER 중 하나로 분류하세요.

평가 결과를 다음 JSON 형식으로 반환하세요:
{
  "verdict": "PERFECT | GOOD | PARTIAL | WEAK | RELATED_BUT_WRONG | FAILED",
  "intent_label": "ADD | UPDATE | DELETE | VIEW | MOVE | CLARIFY | ERROR | OTHER",
  "reasoning": "판정 근거"
}"""

EN_SYSTEM = (
    "You evaluate the responses of a recruiting agent. Judge how well the agent's message "
    "(assistantMessage) serves the user's intent, and reply only with the requested JSON."
)

EN_USER = """User request:
{query}

Agent message (assistantMessage):
{assistant_message}
{expected_block}
Judge intent fulfilment (intent_verdict) with these criteria:
- PERFECT (5): verb, target and scope all match; the message is understood at once
- GOOD (4): the core matches; the wording is somewhat vague
- PARTIAL (3): the core is recognised but the target/scope is unclear
- WEAK (2): only part of the core intent is reflected; likely to be misunderstood
- RELATED_BUT_WRONG (1): right domain, wrong purpose
- FAILED (0): unrelated / no response / failure

Also classify the message's intent (intent_label) as one of ADD, UPDATE, DELETE, VIEW, MOVE, CLARIFY, ERROR, OTHER.

Return the evaluation in this JSON format:
{
  "verdict": "PERFECT | GOOD | PARTIAL | WEAK | RELATED_BUT_WRONG | FAILED",
  "intent_label": "ADD | UPDATE | DELETE | VIEW | MOVE | CLARIFY | ERROR | OTHER",
  "reasoning": "justification"
}"""


def render_agent(item: BaseModel, lang: str) -> dict[str, str]:
    assert isinstance(item, AgentIntentInput)
    block = ""
    if item.expected_result.strip():
        header = "기대 결과:" if lang == "ko" else "Expected result:"
        block = f"\n{header}\n{item.expected_result}\n"
    message = (
        item.assistant_message
        if item.assistant_message.strip()
        else ("(응답 없음)" if lang == "ko" else "(no response)")
    )
    return {"query": item.query, "assistant_message": message, "expected_block": block}


AGENT_INTENT = Prompt(
    id="agent_intent",
    version="1",
    description="Intent fulfilment of an agent message: PERFECT 5 .. FAILED 0, plus the message's intent label.",
    family="agent",
    seed="004",
    input_model=AgentIntentInput,
    verdict_model=AgentIntentVerdict,
    templates={"ko": Template(KO_SYSTEM, KO_USER), "en": Template(EN_SYSTEM, EN_USER)},
    score_fields={"verdict": (0.0, 5.0)},
    label_maps={"verdict": INTENT_SCORES},
    render=render_agent,
    render_name="assay.judges.prompts.agent.render_agent",  # its name before the move: same hash
    judged_field="assistant_message",
    example={
        "query": "마케팅 직무 채용 플랜에 1차 면접 단계를 추가해줘",
        "assistant_message": "마케팅 직무 채용 플랜에 '1차 면접' 단계를 추가했습니다.",
        "expected_result": "마케팅 직무 채용 플랜에 1차 면접 단계가 추가됨",
    },
)
