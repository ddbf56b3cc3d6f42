"""Moved to ``assay.suites.clinical.formulas.lexicon``; this path stays importable (``from assay.metrics.clinical_lexicon import build_index``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.lexicon import (
        ClinicalRules,
        Entry,
        Index,
        Kind,
        Mention,
        build_index,
    )

__all__ = [
    "build_index", "ClinicalRules", "Entry", "Index", "Kind", "Mention",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.formulas.lexicon", __all__)
