"""Moved to ``assay.suites.clinical.formulas.extract``: the names users import from here still work.

A lazy re-export: the suites sit above the metrics layer, so the suite's module is imported on
first use of one of these names, never when this module is (type checkers read the import below).
"""

from typing import TYPE_CHECKING

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
    "ClinicalRules", "Cues", "Fact", "Index", "Mention", "Reader", "Reading", "Record", "WINDOW",
    "as_list", "build_index", "extract_facts", "fold", "med_name", "patient_flags", "question_flags",
    "read_record", "reader_for", "sentence_reading",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        from assay.suites.clinical.formulas import extract

        return getattr(extract, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
