"""Moved to ``assay.suites.rag_qa.embedding`` (only rag_qa's live replay embeds and searches
chunks); this path stays importable (``from assay.replay.embedding import load_model``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.rag_qa.embedding import (
        DEFAULT_MODEL,
        EmbeddingIndex,
        EmbeddingModelUnavailable,
        load_model,
        resolve_model_path,
    )

__all__ = ["DEFAULT_MODEL", "EmbeddingIndex", "EmbeddingModelUnavailable", "load_model", "resolve_model_path"]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.rag_qa.embedding", __all__)
