"""The memory_usefulness fitted stage (``assay.judges.offline.fitted``): the features a judge's
forest reads, and where the forests are.

A memory's features (``memory_features``): its four rule scores, whether the rules took a
shortcut (an empty memory, entities alone), and otherwise the query's coverage, the share of
asked facets answered, on the topic only or undecided, the script, stale-value, other-target,
conflict and update findings, and the share of sentences off the query or small talk.
"""

from __future__ import annotations

from pathlib import Path

from assay.judges.offline.fitted import Stage, rule_scores
from assay.schemas import JsonObject

MEMORY_FIELDS = ("relevance", "completeness", "accuracy", "noise")
# The memory forests give these; accuracy stays the rules': its labels sit on a few conventions
# (9 a fact nothing contradicts, 8 superseded kept, 3 stale, 5 nothing to judge) that the rules
# encode exactly, and a forest ranked it worse on the dev sets (Spearman 0.69 against 0.80) and
# on v10, then blind (0.65 against 0.68), where it ranked the other three better.
MEMORY_FITTED = ("relevance", "completeness", "noise")


def memory_features(rule_verdict: JsonObject, signals: dict[str, float] | None) -> dict[str, float]:
    """One judge's features for one memory: its rule scores, whether the rules took a shortcut
    (``signals`` is None), and the signals the rules read (``rules._signals``)."""
    return rule_scores(rule_verdict, MEMORY_FIELDS, signals is None) | (signals or {})


STAGE = Stage(
    "memory_usefulness", "memory", MEMORY_FITTED, (0.0, 10.0), "memory_rule_verdict", memory_features,
    "relevance", "reasoning", Path(__file__).with_name("memory_forest.json"),
)
