"""The offline jury's verdicts on one agent message, clinical answer, stored memory or rag answer,
for the family rule tests (each returns one verdict per offline judge; the rules alone)."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

AGENT = get_prompt("agent_intent")
CLINICAL = get_prompt("clinical_answer")
MEMORY = get_prompt("memory_usefulness")
RAG = get_prompt("rag_answer")


def agent_verdicts(query: str, message: str, expected: str = "") -> list[dict]:
    item = {"query": query, "assistant_message": message, "expected_result": expected}
    return [judge.verdict(AGENT, item) for judge in offline_jury(fitted=False)]


def agent_labels(found: list[dict], key: str = "verdict") -> set[str]:
    return {v[key] for v in found}


def clinical_verdicts(patient: str, question: str, answer: str) -> list[dict]:
    item = {"patient": patient, "dialogue": [], "question": question, "answer": answer}
    return [judge.verdict(CLINICAL, item) for judge in offline_jury(fitted=False)]


def clinical_scores(found: list[dict], key: str = "faithfulness") -> set[float]:
    return {float(v[key]) for v in found}


def memory_verdicts(query: str, memory: str, entities: list[str]) -> list[dict]:
    item = {"query": query, "memory": memory, "entities": entities}
    return [judge.verdict(MEMORY, item) for judge in offline_jury(fitted=False)]


def rag_accuracies(answer: str, reference: str, question: str) -> list[float]:
    item = {"question": question, "generated_answer": answer, "reference_answer": reference}
    return [judge.verdict(RAG, item)["accuracy"] for judge in offline_jury(fitted=False)]
