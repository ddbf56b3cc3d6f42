"""The offline jury: deterministic, documented judges that answer every assay prompt with
the same verdict schema as an LLM judge, without network or model downloads.

- ``LexicalJudge`` ("offline/lexical"): Korean morpheme overlap (kiwipiepy).
- ``NgramJudge`` ("offline/ngram"): character n-gram TF-IDF similarity.
- ``NumericJudge`` ("offline/numeric"): figures/dates/amounts with units and citation tags.

``offline_jury()`` returns the three with seed 000's default weights 0.34/0.33/0.33. Their
verdicts for a prompt whose suite declares a fitted stage (``fitted.py``: a random forest per
judge over the rules' scores and signals) end with it; ``offline_jury(fitted=False)`` gives the
rules alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.judges.offline.base import OfflineJudge
from assay.judges.offline.lexical import LexicalJudge
from assay.judges.offline.ngram import NgramJudge
from assay.judges.offline.numeric import NumericJudge
from assay.judges.offline_panel import DEFAULT_OFFLINE_WEIGHTS, offline_weights

OFFLINE_JUDGES: tuple[type[OfflineJudge], ...] = (LexicalJudge, NgramJudge, NumericJudge)


def offline_jury(
    weights: Sequence[float] | Mapping[str, float] | None = None, fitted: bool = True
) -> list[OfflineJudge]:
    """The default offline jury (lexical, ngram, numeric).

    ``weights`` is a sequence in that order, or a mapping from judge name ("offline-lexical")
    or model ("offline/lexical") to weight; missing names keep their default. ``fitted=False``
    leaves out the fitted stages (``offline/fitted.py``): the rules' verdicts alone.
    """
    chosen = offline_weights(weights)  # the panel the spec records (assay.judges.offline_panel)
    return [cls(weight=chosen[cls.name], fitted=fitted) for cls in OFFLINE_JUDGES]


__all__ = [
    "DEFAULT_OFFLINE_WEIGHTS",
    "OFFLINE_JUDGES",
    "LexicalJudge",
    "NgramJudge",
    "NumericJudge",
    "OfflineJudge",
    "offline_jury",
]
