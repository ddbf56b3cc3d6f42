"""The offline jury's rag_answer verdicts on one answer, for the rule tests."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

RAG = get_prompt("rag_answer")


def verdicts(answer: str, reference: str, question: str) -> list[dict]:
    item = {"question": question, "generated_answer": answer, "reference_answer": reference}
    return [judge.verdict(RAG, item) for judge in offline_jury(fitted=False)]


def accuracies(answer: str, reference: str, question: str) -> list[float]:
    return [v["accuracy"] for v in verdicts(answer, reference, question)]
