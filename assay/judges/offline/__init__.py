"""The offline jury: deterministic, documented judges that answer every assay prompt with
the same verdict schema as an LLM judge, without network or model downloads.

- ``LexicalJudge`` ("offline/lexical"): Korean morpheme overlap (kiwipiepy).
- ``NgramJudge`` ("offline/ngram"): character n-gram TF-IDF similarity.
- ``NumericJudge`` ("offline/numeric"): figures/dates/amounts with units and citation tags.

``offline_jury()`` returns the three with seed 000's default weights 0.34/0.33/0.33. Their
rag_answer and memory_usefulness verdicts end with a fitted stage (``fitted.py``: a random forest
per judge over the rules' scores and signals); ``offline_jury(fitted=False)`` gives the rules alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.judges.offline.base import OfflineJudge
from assay.judges.offline.lexical import LexicalJudge
from assay.judges.offline.ngram import NgramJudge
from assay.judges.offline.numeric import NumericJudge

DEFAULT_OFFLINE_WEIGHTS: tuple[float, float, float] = (0.34, 0.33, 0.33)
OFFLINE_JUDGES: tuple[type[OfflineJudge], ...] = (LexicalJudge, NgramJudge, NumericJudge)


def offline_jury(
    weights: Sequence[float] | Mapping[str, float] | None = None, fitted: bool = True
) -> list[OfflineJudge]:
    """The default offline jury (lexical, ngram, numeric).

    ``weights`` is a sequence in that order, or a mapping from judge name ("offline-lexical")
    or model ("offline/lexical") to weight; missing names keep their default. ``fitted=False``
    leaves out the fitted stages (``offline/fitted.py``): the rules' verdicts alone.
    """
    judges = [cls() for cls in OFFLINE_JUDGES]
    defaults = dict(zip((j.name for j in judges), DEFAULT_OFFLINE_WEIGHTS, strict=True))
    if weights is None:
        chosen = defaults
    elif isinstance(weights, Mapping):
        known = {j.name for j in judges} | {j.model for j in judges}
        unknown = set(weights) - known
        if unknown:
            raise ValueError(f"unknown offline judge(s) {sorted(unknown)}; known: {sorted(known)}")
        chosen = {j.name: float(weights.get(j.name, weights.get(j.model, defaults[j.name]))) for j in judges}
    else:
        if len(weights) != len(judges):
            raise ValueError(f"expected {len(judges)} weights, got {len(weights)}")
        chosen = {j.name: float(w) for j, w in zip(judges, weights, strict=True)}
    return [type(j)(weight=chosen[j.name], fitted=fitted) for j in judges]


__all__ = [
    "DEFAULT_OFFLINE_WEIGHTS",
    "OFFLINE_JUDGES",
    "LexicalJudge",
    "NgramJudge",
    "NumericJudge",
    "OfflineJudge",
    "offline_jury",
]
