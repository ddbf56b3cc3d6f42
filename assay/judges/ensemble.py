"""Jury reducers (seed 000 §3.3): weighted mean, median on disagreement, hallucination merge.

Pure functions, no third-party imports beyond the standard library.

- ``aggregate_scores``: weighted mean of the judges' scores, the weights renormalised over
  the judges that answered (a dropped judge is passed as ``None`` or left out). If
  max − min ≥ threshold the median is used instead and the disagreement flag is set. The
  threshold is stated on a 0-10 scale (seed: 3.0) and scaled to the field's scale:
  ``threshold · (hi − lo) / 10`` — 1.2 on 1-5, 0.3 on 0-1.
- ``aggregate_hallucination``: median hallucination count, minimum citation accuracy.
- ``merge_hallucination_cases``: cases of all judges, first occurrence kept, de-duplicated
  on the normalised claim text, at most ``limit``.

Krippendorff's alpha for inter-judge agreement is ``assay.metrics.agreement.krippendorff_alpha``
(numpy, which checking a run before it starts never imports).

Empty input (or all judges dropped) raises ``ValueError``: the caller records the metric
as unscored, never as 0.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from assay.schemas import JsonObject

DEFAULT_WEIGHTS: tuple[float, float, float] = (0.34, 0.33, 0.33)
DISAGREEMENT_THRESHOLD = 3.0
_EPS = 1e-9


def _finite(value: Any, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return number


def scaled_threshold(disagreement_threshold: float, scale: tuple[float, float]) -> float:
    """The 0-10 threshold expressed on ``scale``."""
    lo, hi = scale
    if not hi > lo:
        raise ValueError(f"scale must be (lo, hi) with hi > lo, got {scale!r}")
    return disagreement_threshold * (hi - lo) / 10.0


def aggregate_scores(
    scores: Sequence[float | None],
    weights: Sequence[float] | None = None,
    disagreement_threshold: float = DISAGREEMENT_THRESHOLD,
    scale: tuple[float, float] = (0.0, 10.0),
) -> tuple[float, bool]:
    """Ensemble score and disagreement flag (seed 000 §3.3.1-3.3.2).

    ``weights`` default to equal weights; they are paired with ``scores`` by position and
    renormalised over the scores that are present (``None`` = judge dropped).
    """
    if weights is not None and len(weights) != len(scores):
        raise ValueError(f"{len(scores)} scores but {len(weights)} weights")
    pairs: list[tuple[float, float]] = []
    for i, score in enumerate(scores):
        if score is None:
            continue
        weight = 1.0 if weights is None else _finite(weights[i], "weight")
        if weight < 0:
            raise ValueError(f"weights must be non-negative, got {weight}")
        pairs.append((_finite(score, "score"), weight))
    if not pairs:
        raise ValueError("no scores to aggregate (every judge was dropped or none was given)")
    values = [s for s, _ in pairs]
    threshold = scaled_threshold(disagreement_threshold, scale)
    spread = max(values) - min(values)
    if len(values) > 1 and spread >= threshold - _EPS * max(1.0, abs(threshold)):
        return float(statistics.median(values)), True
    total = sum(w for _, w in pairs)
    if total <= 0:
        raise ValueError("the weights of the judges that answered sum to 0")
    mean = sum(s * w for s, w in pairs) / total
    # Guard against rounding pushing the mean a hair outside [min, max].
    return float(min(max(mean, min(values)), max(values))), False


def aggregate_hallucination(
    counts: Sequence[float | None], citation_accuracies: Sequence[float | None]
) -> tuple[float, float]:
    """(median hallucination count, minimum citation accuracy) over the judges that answered."""
    c = [_finite(x, "hallucination count") for x in counts if x is not None]
    a = [_finite(x, "citation accuracy") for x in citation_accuracies if x is not None]
    if not c or not a:
        raise ValueError("no hallucination verdicts to aggregate")
    return float(statistics.median(c)), float(min(a))


def normalize_claim(text: str) -> str:
    """Claim text for de-duplication: NFKC, lower case, no citation tags, punctuation or spaces."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"\[source:\s*\d+\]", " ", text)
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith(("P", "S", "Z", "C")))
    return text


def _case_dict(case: Any) -> JsonObject:
    if hasattr(case, "model_dump"):
        return case.model_dump()
    if isinstance(case, Mapping):
        return dict(case)
    return {"description": str(case)}


def _claim_text(case: Mapping[str, Any]) -> str:
    for key in ("description", "claim", "text"):
        value = case.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def merge_hallucination_cases(
    case_lists: Iterable[Iterable[Any] | None], limit: int = 10
) -> list[JsonObject]:
    """All judges' cases in order, the first of each normalised claim kept, at most ``limit``.

    A case is a dict or pydantic model; its claim is ``description`` (seed 000's key) or
    ``claim``. Cases without claim text are de-duplicated on their whole content.
    """
    if limit < 0:
        raise ValueError("limit must be >= 0")
    seen: set[str] = set()
    merged: list[JsonObject] = []
    for cases in case_lists:
        for case in cases or ():
            data = _case_dict(case)
            key = normalize_claim(_claim_text(data)) or repr(sorted(data.items(), key=lambda kv: kv[0]))
            if key in seen:
                continue
            seen.add(key)
            merged.append(data)
            if len(merged) >= limit:
                return merged
    return merged


def aggregate_verdict_scores(
    per_judge: Sequence[Mapping[str, float] | None],
    scales: Mapping[str, tuple[float, float]],
    weights: Sequence[float] | None = None,
    reducers: Mapping[str, str] | None = None,
    disagreement_threshold: float = DISAGREEMENT_THRESHOLD,
) -> dict[str, tuple[float, bool] | None]:
    """Reduce each field of several judges' numeric scores (``Prompt.scores`` output).

    ``reducers`` maps a field to "jury" (default, ``aggregate_scores``), "median" or
    "min"; fields missing from ``scales`` must use "median" or "min". A field no judge
    answered maps to ``None`` (unscored). Returns field -> (value, disagreement).
    """
    reducers = dict(reducers or {})
    fields = list(dict.fromkeys([*scales, *reducers]))
    out: dict[str, tuple[float, bool] | None] = {}
    for name in fields:
        values = [None if scores is None else scores.get(name) for scores in per_judge]
        present = [v for v in values if v is not None]
        if not present:
            out[name] = None
            continue
        how = reducers.get(name, "jury")
        if how == "median":
            out[name] = (float(statistics.median(present)), False)
        elif how == "min":
            out[name] = (float(min(present)), False)
        elif how == "jury":
            if name not in scales:
                raise ValueError(f"field {name!r} has no scale")
            out[name] = aggregate_scores(values, weights, disagreement_threshold, scales[name])
        else:
            raise ValueError(f"unknown reducer {how!r} for {name!r}")
    return out


# Krippendorff's alpha lives with the other agreement statistics (assay.metrics.agreement).


__all__ = [
    "DEFAULT_WEIGHTS",
    "DISAGREEMENT_THRESHOLD",
    "aggregate_hallucination",
    "aggregate_scores",
    "aggregate_verdict_scores",
    "merge_hallucination_cases",
    "normalize_claim",
    "scaled_threshold",
]
