"""Who sits on the offline jury (names, models, default weights), without its rules.

The spec records the panel when a run is checked, before any verdict is asked for; the rules
(``assay.judges.offline``) take half a second to import, which a refused run never pays.
``offline_jury`` builds its judges from the weights resolved here, and a unit test holds this
panel to the judges' own names and models.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

# (name, model) of each offline judge, in the jury's order, and seed 000's default weights
OFFLINE_PANEL: tuple[tuple[str, str], ...] = (
    ("offline-lexical", "offline/lexical"),
    ("offline-ngram", "offline/ngram"),
    ("offline-numeric", "offline/numeric"),
)
DEFAULT_OFFLINE_WEIGHTS: tuple[float, float, float] = (0.34, 0.33, 0.33)


def offline_weights(weights: Sequence[float] | Mapping[str, float] | None = None) -> dict[str, float]:
    """Each offline judge's weight by name: ``weights`` in the jury's order, or by judge name
    ("offline-lexical") or model ("offline/lexical") with the others at their default."""
    chosen = _resolved(weights)
    if any(w < 0 or not math.isfinite(w) for w in chosen.values()):
        raise ValueError("weight must be a finite non-negative number")
    return chosen


def _resolved(weights: Sequence[float] | Mapping[str, float] | None) -> dict[str, float]:
    defaults = {name: weight for (name, _), weight in zip(OFFLINE_PANEL, DEFAULT_OFFLINE_WEIGHTS, strict=True)}
    if weights is None:
        return defaults
    if isinstance(weights, Mapping):
        known = {name for name, _ in OFFLINE_PANEL} | {model for _, model in OFFLINE_PANEL}
        unknown = set(weights) - known
        if unknown:
            raise ValueError(f"unknown offline judge(s) {sorted(unknown)}; known: {sorted(known)}")
        return {name: float(weights.get(name, weights.get(model, defaults[name]))) for name, model in OFFLINE_PANEL}
    if len(weights) != len(OFFLINE_PANEL):
        raise ValueError(f"expected {len(OFFLINE_PANEL)} weights, got {len(weights)}")
    return {name: float(w) for (name, _), w in zip(OFFLINE_PANEL, weights, strict=True)}


def offline_panel(weights: Sequence[float] | Mapping[str, float] | None = None) -> list[dict[str, object]]:
    """The panel as the spec records it: each judge's name, model and weight."""
    chosen = offline_weights(weights)
    return [{"name": name, "model": model, "weight": chosen[name]} for name, model in OFFLINE_PANEL]
