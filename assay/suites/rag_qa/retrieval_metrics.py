"""Retrieval metrics of seed 003, document-id based, binary relevance.

``retrieved`` is the ranked list of normalised source ids of the retrieved chunks (best
first; the same document may appear several times, once per chunk). ``relevant`` is the
collection of source ids that hold the answer (the case's ``source_docs``). Every function
returns a value in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

# Seed 003's interpretation table (MRR, nDCG, keyword coverage share it).
EXCELLENT = 0.9
GOOD = 0.75


def reciprocal_rank(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """1 / rank of the first retrieved chunk from a relevant document; 0 when none is."""
    relevant_set = set(relevant)
    for rank, source in enumerate(retrieved, start=1):
        if source in relevant_set:
            return 1.0 / rank
    return 0.0


def _dcg(relevances: Sequence[int], k: int) -> float:
    return sum(rel / math.log2(i + 2) for i, rel in enumerate(relevances[:k]))


def ndcg_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """nDCG@k with binary relevance per retrieved chunk.

    As in seed 003, IDCG is the DCG of the *retrieved* relevances reordered ideally (all
    relevant chunks first), not of a hypothetical perfect ranking of the whole corpus. So
    [1, 1, 0, 1, 0] gives 0.968 and [0, 0, 0, 1, 1] gives 0.502. No relevant chunk → 0.
    """
    _check_k(k)
    relevant_set = set(relevant)
    relevances = [1 if source in relevant_set else 0 for source in retrieved[:k]]
    ideal = _dcg(sorted(relevances, reverse=True), k)
    return _dcg(relevances, k) / ideal if ideal > 0 else 0.0


def precision_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Relevant chunks among the top k, divided by k (seed 003 divides by k even if fewer were retrieved)."""
    _check_k(k)
    relevant_set = set(relevant)
    return sum(1 for source in retrieved[:k] if source in relevant_set) / k


def recall_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Distinct relevant documents found in the top k / number of relevant documents (1.0 when none)."""
    _check_k(k)
    relevant_set = set(relevant)
    if not relevant_set:
        return 1.0
    return len(relevant_set & set(retrieved[:k])) / len(relevant_set)


def keyword_coverage(texts: Sequence[str], keywords: Sequence[str]) -> float:
    """Share of keywords found (case-insensitive substring) in the concatenated texts; 0 with no keywords.

    Pass the top-k chunk texts. Seed 003 returns 0.0 for an empty keyword list; the
    validation gate rejects such cases, so the value only matters for direct callers.
    """
    if not keywords:
        return 0.0
    haystack = " ".join(text.lower() for text in texts)
    return sum(1 for keyword in keywords if keyword.lower() in haystack) / len(keywords)


def keywords_found(texts: Sequence[str], keywords: Sequence[str]) -> list[str]:
    """The keywords that occur in the texts (for reports: which ones were missing)."""
    haystack = " ".join(text.lower() for text in texts)
    return [keyword for keyword in keywords if keyword.lower() in haystack]


def quality_label(score: float) -> str:
    """Seed 003's reading of MRR / nDCG / coverage: excellent ≥ 0.9, good ≥ 0.75, else needs work."""
    if score >= EXCELLENT:
        return "excellent"
    if score >= GOOD:
        return "good"
    return "needs work"


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
