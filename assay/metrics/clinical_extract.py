"""Moved to ``assay.suites.clinical.formulas.extract``; this path stays importable (``from assay.metrics.clinical_extract import as_list``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.extract import (
        WINDOW,
        ClinicalRules,
        Cues,
        Fact,
        Index,
        Mention,
        Reader,
        Reading,
        Record,
        as_list,
        build_index,
        extract_facts,
        fold,
        med_name,
        patient_flags,
        question_flags,
        read_record,
        reader_for,
        sentence_reading,
    )

__all__ = [
    "WINDOW", "as_list", "build_index", "ClinicalRules", "Cues", "extract_facts", "Fact", "fold",
    "Index", "med_name", "Mention", "patient_flags", "question_flags", "read_record", "Reader",
    "reader_for", "Reading", "Record", "sentence_reading",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.formulas.extract", __all__)
