"""The rag_answer fitted stage (``assay.judges.offline.fitted``): the features a judge's forest
reads, and where the forests are.

A judge's features (``rag_features``): its three rule scores; whether the rules took a shortcut
(an empty answer, a refusal, an answer where the reference has none, another script) instead of
reading signals; otherwise its coverages N, P and Q, figure-conflict level, the reference's
figures and entities said, the concepts said, agreement, an aside, and one feature per
claim-check finding.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.judges.offline.fitted import Stage, rule_scores
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.suites.rag_qa.offline.rules import RagSignals

FIELDS = ("accuracy", "completeness", "relevance")


def rag_features(rule_verdict: JsonObject, signals: RagSignals | None) -> dict[str, float]:
    """One judge's features for one answer (``signals`` is None when the rules took a shortcut)."""
    out = rule_scores(rule_verdict, FIELDS, signals is None)
    if signals is None:
        return out
    s = signals
    out |= {
        "N": s.n, "P": s.p, "Q": s.q,
        "conflict 1": float(s.level == 1), "conflict 2": float(s.level >= 2),
        "facts": s.facts_in / s.facts_total if s.facts_total else 1.0,
        "no facts": float(s.facts_total == 0),
        "meaning": s.meaning if s.meaning_size else 0.0,
        "agrees": float(s.agrees), "aside": float(bool(s.aside)),
    }
    out |= {f"finding {f.rule}": 1.0 for f in s.findings}
    return out


STAGE = Stage(
    "rag_answer", "rag_qa", FIELDS, (1.0, 5.0), "rag_rule_verdict", rag_features, "accuracy", "feedback",
    Path(__file__).with_name("rag_forest.json"),
)
