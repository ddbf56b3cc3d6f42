"""Moved to ``assay.suites.rag_qa.retrieval_metrics``; this path stays importable (``from assay.metrics.retrieval import ndcg_at_k``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.rag_qa.retrieval_metrics import (
        EXCELLENT,
        GOOD,
        keyword_coverage,
        keywords_found,
        ndcg_at_k,
        precision_at_k,
        quality_label,
        recall_at_k,
        reciprocal_rank,
    )

__all__ = [
    "EXCELLENT", "GOOD", "keyword_coverage", "keywords_found", "ndcg_at_k", "precision_at_k", "quality_label",
    "recall_at_k", "reciprocal_rank",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.rag_qa.retrieval_metrics", __all__)
