"""Judge prompts: typed inputs and verdicts, Korean and English templates, a registry.

One module per prompt family (``rag``, ``grounding``, ``report``, ``memory``, ``agent``, ``clinical``); importing this
package registers all of them. Use ``get_prompt(id)`` and ``all_prompts()``.
"""

from assay.judges.prompts.agent import (
    AGENT_INTENT,
    INTENT_LABELS,
    INTENT_SCORES,
    AgentIntentInput,
    AgentIntentVerdict,
    verdict_for_score,
)
from assay.judges.prompts.base import (
    LANGS,
    Prompt,
    Template,
    UnknownPromptError,
    all_prompts,
    fill,
    get_prompt,
    register,
)
from assay.judges.prompts.clinical import CLINICAL_ANSWER, ClinicalInput, ClinicalVerdict
from assay.judges.prompts.grounding import (
    ANSWER_RELEVANCY,
    CONTEXT_RELEVANCE,
    FAITHFULNESS_CLAIMS,
    FAITHFULNESS_VERDICT,
)
from assay.judges.prompts.memory import MEMORY_USEFULNESS, MemoryInput, MemoryVerdict
from assay.judges.prompts.rag import RAG_ANSWER, RagAnswerInput, RagAnswerVerdict
from assay.judges.prompts.report import (
    REPORT_COHERENCE,
    REPORT_FACTUAL_ACCURACY,
    REPORT_HALLUCINATION,
    REPORT_RELEVANCE,
    CoherenceVerdict,
    FactualAccuracyVerdict,
    HallucinationCase,
    HallucinationVerdict,
    RelevanceVerdict,
    ReportInput,
    ReportSource,
)

PROMPT_IDS: tuple[str, ...] = tuple(p.id for p in all_prompts())

__all__ = [
    "AGENT_INTENT",
    "ANSWER_RELEVANCY",
    "CONTEXT_RELEVANCE",
    "FAITHFULNESS_CLAIMS",
    "FAITHFULNESS_VERDICT",
    "CLINICAL_ANSWER",
    "INTENT_LABELS",
    "INTENT_SCORES",
    "LANGS",
    "MEMORY_USEFULNESS",
    "PROMPT_IDS",
    "RAG_ANSWER",
    "REPORT_COHERENCE",
    "REPORT_FACTUAL_ACCURACY",
    "REPORT_HALLUCINATION",
    "REPORT_RELEVANCE",
    "AgentIntentInput",
    "AgentIntentVerdict",
    "ClinicalInput",
    "ClinicalVerdict",
    "CoherenceVerdict",
    "FactualAccuracyVerdict",
    "HallucinationCase",
    "HallucinationVerdict",
    "MemoryInput",
    "MemoryVerdict",
    "Prompt",
    "RagAnswerInput",
    "RagAnswerVerdict",
    "RelevanceVerdict",
    "ReportInput",
    "ReportSource",
    "Template",
    "UnknownPromptError",
    "all_prompts",
    "fill",
    "get_prompt",
    "register",
    "verdict_for_score",
]
