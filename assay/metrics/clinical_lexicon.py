"""Moved to ``assay.suites.clinical.formulas.lexicon``: the names users import from here still work.

A lazy re-export: the suites sit above the metrics layer, so the suite's module is imported on
first use of one of these names, never when this module is (type checkers read the import below).
"""

from typing import TYPE_CHECKING

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
    "ClinicalRules", "Entry", "Index", "Kind", "Mention", "build_index",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        from assay.suites.clinical.formulas import lexicon

        return getattr(lexicon, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
