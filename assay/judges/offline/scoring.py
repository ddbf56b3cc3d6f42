"""Small helpers the offline rules share: weighted units, score bands, percentages."""

from __future__ import annotations

Units = dict[str, float]


def band(value: float, cuts: tuple[tuple[float, float], ...], floor: float) -> float:
    """The score of the first cut-off ``value`` reaches, else ``floor``."""
    for threshold, score in cuts:
        if value >= threshold - 1e-12:
            return score
    return floor


def pct(x: float) -> str:
    return f"{round(100 * x)}%"
