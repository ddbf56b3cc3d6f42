"""The agent suite's formulas moved into its folder: ``assay.suites.agent.formulas``.

This path stays importable (``from assay.metrics.agent import total_score``) as a thin lazy re-export:
each name is imported from the suite on first use, so importing this module imports no suite.
Code inside the project imports the suite's module.
"""

from __future__ import annotations

from typing import Any

# The names this module exported before the move (linters cannot see lazy names in __all__).
_MOVED = (
    "CheckResult",
    "EMPTY",
    "LATENCY_BANDS",
    "OPERATORS",
    "SIGNATURE_KEYS",
    "WEIGHTS",
    "accuracy_score",
    "consistency_score",
    "get_path",
    "latency_score",
    "mean",
    "mode_share",
    "parse_response",
    "pass_ratio",
    "run_check",
    "signature",
    "stability_score",
    "total_score",
)
__all__ = list(_MOVED)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from assay.suites.agent import formulas

        return getattr(formulas, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(_MOVED)
