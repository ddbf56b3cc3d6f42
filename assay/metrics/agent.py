"""Moved to ``assay.suites.agent.formulas``; this path stays importable (``from assay.metrics.agent import accuracy_score``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.agent.formulas import (
        EMPTY,
        LATENCY_BANDS,
        OPERATORS,
        SIGNATURE_KEYS,
        WEIGHTS,
        CheckResult,
        accuracy_score,
        consistency_score,
        get_path,
        latency_score,
        mean,
        mode_share,
        parse_response,
        pass_ratio,
        run_check,
        signature,
        stability_score,
        total_score,
    )

__all__ = [
    "EMPTY", "LATENCY_BANDS", "OPERATORS", "SIGNATURE_KEYS", "WEIGHTS", "accuracy_score", "CheckResult",
    "consistency_score", "get_path", "latency_score", "mean", "mode_share", "parse_response",
    "pass_ratio", "run_check", "signature", "stability_score", "total_score",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.agent.formulas", __all__)
