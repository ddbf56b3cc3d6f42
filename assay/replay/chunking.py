"""Moved to ``assay.suites.rag_qa.chunking`` (only rag_qa's live replay chunks a knowledge base);
this path stays importable (``from assay.replay.chunking import chunk_documents``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.rag_qa.chunking import (
        DEFAULT_CHUNK_OVERLAP,
        DEFAULT_CHUNK_SIZE,
        SEPARATORS,
        Chunk,
        Span,
        chunk_documents,
        split_spans,
        split_text,
    )

__all__ = [
    "Chunk", "DEFAULT_CHUNK_OVERLAP", "DEFAULT_CHUNK_SIZE", "SEPARATORS", "Span", "chunk_documents", "split_spans",
    "split_text",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.rag_qa.chunking", __all__)
