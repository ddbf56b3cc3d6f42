"""The fitted stage of the offline rag_answer verdict: a random forest per judge that reads the
judge's rule scores and signals and gives the final 1-5 scores.

Why: each round of hand-written rules lifted the labelled set it was written on and barely
moved the next blind one; a forest fitted on the same signals, on every labelled set but the
blind ones, ranked the blind sets' answers better than the rules did (``docs/judges.md``, "The
fitted stage"). The rules still run first and their evidence stays in the feedback; the forest
only re-weighs what they found.

A judge's features (``rag_features``): its three rule scores; whether the rules took a shortcut
(an empty answer, a refusal, an answer where the reference has none, another script) instead of
reading signals; otherwise its coverages N, P and Q, figure-conflict level, the reference's
figures and entities said, the concepts said, agreement, an aside, and one feature per
claim-check finding. The forests live in ``models/rag_forest.json`` (data, never a pickle),
written by ``bench/fit_rag_forest.py`` and hashed into the judges' version like the rules.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from assay.judges.offline.forest import Forest
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.judges.offline.rules.rag import RagSignals

MODEL_PATH = Path(__file__).with_name("models") / "rag_forest.json"
FIELDS = ("accuracy", "completeness", "relevance")
# How many of the strongest moves the feedback names.
SHOWN_MOVES = 3


def rag_features(rule_verdict: JsonObject, signals: RagSignals | None) -> dict[str, float]:
    """One judge's features for one answer (``signals`` is None when the rules took a shortcut)."""
    out = {f"rule {f}": float(rule_verdict[f]) for f in FIELDS}
    out["shortcut"] = float(signals is None)
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


@cache
def model_file() -> JsonObject:
    return json.loads(MODEL_PATH.read_text(encoding="utf-8"))


@cache
def forest_for(signal: str) -> Forest:
    """The forest fitted for the judge whose signal is ``signal`` (lexical, ngram, numeric)."""
    judges = model_file()["judges"]
    if signal not in judges:
        raise KeyError(f"{MODEL_PATH.name} has no forest for the {signal!r} judge (has {sorted(judges)})")
    return Forest.from_json(judges[signal])


def refine(signal: str, rule_verdict: JsonObject, signals: RagSignals | None) -> JsonObject:
    """The rule verdict with the forest's scores, and the feedback saying what moved them."""
    forest = forest_for(signal)
    explained = forest.explain(rag_features(rule_verdict, signals), output=forest.outputs.index("accuracy"))
    scores = {f: round(min(5.0, max(1.0, explained.prediction[forest.outputs.index(f)])), 2) for f in FIELDS}
    strongest = sorted(explained.contributions.items(), key=lambda kv: -abs(kv[1]))[:SHOWN_MOVES]
    moves = ", ".join(f"{name} {value:+.2f}" for name, value in strongest if abs(value) >= 0.005)
    about = model_file().get("fitted_on", {})
    note = (
        f" 학습된 판정(랜덤 포레스트 {len(forest.trees)}그루, 사람이 매긴 답변 {about.get('rows', '?')}개로 학습): "
        f"규칙 점수 {_scores(rule_verdict)} → {_scores(scores)}"
        + (f"; 정확도를 가장 크게 움직인 신호: {moves}" if moves else "")
        + f" (평균 {explained.bias:.2f}에서 출발)."
    )
    return {**rule_verdict, **scores, "feedback": str(rule_verdict["feedback"]) + note}


def _scores(verdict: JsonObject) -> str:
    return "/".join(f"{float(verdict[f]):g}" for f in FIELDS)
