"""Judge prompts: typed inputs and verdicts, Korean and English templates, a registry.

The prompts several suites share live here (``grounding``: faithfulness, answer relevancy, context
relevance; ``rag``: rag_answer, judged by rag_qa and answers) and register when this package is
imported. A suite's own prompts live in its folder (``assay/suites/<name>/prompts.py``) and the
suite declares them (``Suite.prompts``); ``get_prompt(id)`` and ``all_prompts()`` find them through
the suite registry. Their names stay importable from here and from the old modules
(``assay.judges.prompts.agent`` …) as lazy re-exports: importing this package imports no suite.
"""

from typing import TYPE_CHECKING

from assay.judges.prompts.base import (
    LANGS,
    Prompt,
    Template,
    UnknownPromptError,
    all_prompts,
    declare,
    fill,
    get_prompt,
    register,
)
from assay.judges.prompts.grounding import (
    ANSWER_RELEVANCY,
    CONTEXT_RELEVANCE,
    FAITHFULNESS_CLAIMS,
    FAITHFULNESS_VERDICT,
)
from assay.judges.prompts.rag import RAG_ANSWER, RagAnswerInput, RagAnswerVerdict
from assay.reexport import lazy_reexports

if TYPE_CHECKING:
    from assay.suites.agent.prompts import (
        AGENT_INTENT,
        INTENT_LABELS,
        INTENT_SCORES,
        AgentIntentInput,
        AgentIntentVerdict,
        verdict_for_score,
    )
    from assay.suites.clinical.prompts import CLINICAL_ANSWER, ClinicalInput, ClinicalVerdict
    from assay.suites.memory.prompts import MEMORY_USEFULNESS, MemoryInput, MemoryVerdict
    from assay.suites.report.prompts import (
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

    PROMPT_IDS: tuple[str, ...]

# The suites' own prompts, by the names this package exported before they moved into their folders.
MOVED = {
    "assay.suites.agent.prompts": (
        "AGENT_INTENT", "INTENT_LABELS", "INTENT_SCORES", "AgentIntentInput", "AgentIntentVerdict", "verdict_for_score",
    ),
    "assay.suites.clinical.prompts": ("CLINICAL_ANSWER", "ClinicalInput", "ClinicalVerdict"),
    "assay.suites.memory.prompts": ("MEMORY_USEFULNESS", "MemoryInput", "MemoryVerdict"),
    "assay.suites.report.prompts": (
        "REPORT_COHERENCE", "REPORT_FACTUAL_ACCURACY", "REPORT_HALLUCINATION", "REPORT_RELEVANCE", "CoherenceVerdict",
        "FactualAccuracyVerdict", "HallucinationCase", "HallucinationVerdict", "RelevanceVerdict", "ReportInput",
        "ReportSource",
    ),
}
_moved_getattr, _moved_dir = lazy_reexports(__name__, MOVED)


def __getattr__(name: str) -> object:
    if name == "PROMPT_IDS":  # every prompt's id, the suites' own included: known once asked for
        return tuple(p.id for p in all_prompts())
    return _moved_getattr(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_moved_dir(), "PROMPT_IDS"})


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
    "declare",
    "fill",
    "get_prompt",
    "register",
    "verdict_for_score",
]
