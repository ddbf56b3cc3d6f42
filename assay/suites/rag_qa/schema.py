"""rag_qa case and generation schemas (seed 003's TestQuestion, plus the recorded run)."""

from __future__ import annotations

from pydantic import BaseModel, Field

# Seed 003 lists these seven categories in its dataset summary; a dataset may use any label.
CATEGORIES: tuple[str, ...] = (
    "direct_fact",
    "temporal",
    "spanning",
    "numerical",
    "comparative",
    "holistic",
    "relationship",
)
DEFAULT_CATEGORY = "general"


class RagCase(BaseModel):
    id: str = Field(description="unique case id")
    question: str = Field(description="question put to the RAG system")
    keywords: list[str] = Field(
        default_factory=list, description="keywords the retrieved text should contain (none: coverage unscored)"
    )
    reference_answer: str | None = Field(
        default=None,
        description="ground-truth answer; none: the answer is judged reference-free (faithfulness, answer relevancy, "
        "context relevance)",
    )
    category: str = Field(default=DEFAULT_CATEGORY, description="any label; results are grouped by it")
    source_docs: list[str] = Field(
        default_factory=list,
        description="ids of the documents holding the answer (KB-relative paths with a kb/ tree); "
        "none: the retrieval metrics are unscored",
    )


class RetrievedChunk(BaseModel):
    source: str = Field(default="", description="document id, e.g. 'company/overview.md'; empty when unknown")
    text: str
    score: float | None = Field(default=None, description="retriever similarity, higher is closer")


class RagGeneration(BaseModel):
    case_id: str
    answer: str
    retrieved: list[RetrievedChunk] = Field(description="ranked retrieval results, best first")
    latency_s: float | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    model: str | None = None
    error: str | None = Field(default=None, description="why no answer was produced (live replay)")


def normalize_source(source_path: str) -> str:
    """Seed 003: '../x/knowledge_base/company/overview.md' -> 'company/overview.md'."""
    source_path = source_path.replace("\\", "/")
    if "knowledge_base/" in source_path:
        return source_path.split("knowledge_base/")[-1]
    if "kb/" in source_path:
        return source_path.split("kb/")[-1]
    return source_path.lstrip("./")
