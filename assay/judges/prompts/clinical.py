"""Moved to ``assay.suites.clinical.prompts`` (the clinical suite's own prompts); this path stays importable.

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.clinical.prompts import (
        CLINICAL_ANSWER,
        EN_SYSTEM,
        EN_USER,
        KO_SYSTEM,
        KO_USER,
        SCORE_1_5,
        ClinicalInput,
        ClinicalVerdict,
        render_clinical,
    )

__all__ = [
    "CLINICAL_ANSWER", "ClinicalInput", "ClinicalVerdict", "EN_SYSTEM", "EN_USER", "KO_SYSTEM",
    "KO_USER", "render_clinical", "SCORE_1_5",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.prompts", __all__)
