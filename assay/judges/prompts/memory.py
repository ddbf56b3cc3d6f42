"""Moved to ``assay.suites.memory.prompts`` (the memory suite's own prompts); this path stays importable.

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.memory.prompts import (
        EN_SYSTEM,
        EN_USER,
        KO_SYSTEM,
        KO_USER,
        MEMORY_USEFULNESS,
        SCORE_0_10,
        MemoryInput,
        MemoryVerdict,
        render_memory,
    )

__all__ = [
    "EN_SYSTEM", "EN_USER", "KO_SYSTEM", "KO_USER", "MEMORY_USEFULNESS", "MemoryInput",
    "MemoryVerdict", "render_memory", "SCORE_0_10",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.memory.prompts", __all__)
