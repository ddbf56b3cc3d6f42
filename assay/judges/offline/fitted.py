"""The fitted stage of the offline rag_answer and memory_usefulness verdicts: a random forest per
judge that reads the judge's rule scores and signals and gives the final scores.

Why: each round of hand-written rules lifted the labelled set it was written on and barely
moved the next blind one; a forest fitted on the same signals, on every labelled set but the
blind ones, ranked the blind sets' answers better than the rules did (``docs/judges.md``, "The
fitted stage"). The rules still run first and their evidence stays in the feedback; the forest
only re-weighs what they found.

A judge's features (``rag_features``): its three rule scores; whether the rules took a shortcut
(an empty answer, a refusal, an answer where the reference has none, another script) instead of
reading signals; otherwise its coverages N, P and Q, figure-conflict level, the reference's
figures and entities said, the concepts said, agreement, an aside, and one feature per
claim-check finding. For a memory (``memory_features``): its four rule scores, whether the rules
took a shortcut (an empty memory, entities alone), and otherwise the query's coverage, the share
of asked facets answered, on the topic only or undecided, the script, stale-value, other-target,
conflict and update findings, and the share of sentences off the query or small talk.

The forests live in ``models/<family>_forest.json`` (data, never a pickle), written by
``bench/fit_forest.py`` and hashed into the judges' version like the rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.judges.offline.forest import Forest
from assay.judges.offline.messages import joined, say
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.suites.memory.offline.rules import MemorySignals
    from assay.suites.rag_qa.offline.rules import RagSignals

MODELS = Path(__file__).with_name("models")
FIELDS = ("accuracy", "completeness", "relevance")
# How many of the strongest moves the feedback names.
SHOWN_MOVES = 3


def rag_features(rule_verdict: JsonObject, signals: RagSignals | None) -> dict[str, float]:
    """One judge's features for one answer (``signals`` is None when the rules took a shortcut)."""
    out = _rule_scores(rule_verdict, FIELDS, signals is None)
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


def _rule_scores(rule_verdict: JsonObject, fields: tuple[str, ...], shortcut: bool) -> dict[str, float]:
    """The rules' scores, and whether they took a shortcut instead of reading signals."""
    return {**{f"rule {f}": float(rule_verdict[f]) for f in fields}, "shortcut": float(shortcut)}


MEMORY_FIELDS = ("relevance", "completeness", "accuracy", "noise")
# The memory forests give these; accuracy stays the rules': its labels sit on a few conventions
# (9 a fact nothing contradicts, 8 superseded kept, 3 stale, 5 nothing to judge) that the rules
# encode exactly, and a forest ranked it worse on the dev sets (Spearman 0.69 against 0.80) and
# on v10, then blind (0.65 against 0.68), where it ranked the other three better.
MEMORY_FITTED = ("relevance", "completeness", "noise")


def memory_features(rule_verdict: JsonObject, signals: MemorySignals | None) -> dict[str, float]:
    """One judge's features for one memory (``signals`` is None when the rules took a shortcut)."""
    out = _rule_scores(rule_verdict, MEMORY_FIELDS, signals is None)
    if signals is None:
        return out
    s = signals
    facets = max(s.facets, 1)
    others = max(s.sentences - s.flagged, 1)
    out |= {
        "Q": s.q, "facets": float(s.facets),
        "answered": s.answered / facets, "topic only": s.topic_only / facets, "undecided": s.undecided / facets,
        "other script": float(s.other_script), "bridged": float(s.bridged), "unrelated": float(s.unrelated),
        "mention only": float(s.vague), "stale": float(s.stale), "update unknown": float(s.unknown_update),
        "other target": float(s.confused), "conflicts": float(s.conflicts > 0), "updated": float(s.updated),
        "superseded": float(s.superseded), "sentences": float(s.sentences), "notices": float(s.flagged),
        "off query": s.off_topic / others, "small talk": s.chatter / others,
    }  # fmt: skip
    return out


@dataclass(frozen=True)
class Stage:
    """One prompt family's fitted stage: what it reads and where its forests are."""

    prompt_id: str
    suite: str  # the held-out sets' folder for this family
    fields: tuple[str, ...]  # the scores the forests give, in their output order (others stay the rules')
    scale: tuple[float, float]
    rule_verdict: str  # the rules' method that returns (verdict, signals)
    features: Callable[[JsonObject, Any], dict[str, float]]
    explained: str  # the field whose strongest moves the feedback names
    text_key: str  # the verdict's free-text field the stage's note is appended to

    @property
    def model_path(self) -> Path:
        return MODELS / f"{self.suite.removesuffix('_qa')}_forest.json"


STAGES: dict[str, Stage] = {
    "rag_answer": Stage("rag_answer", "rag_qa", FIELDS, (1.0, 5.0), "rag_rule_verdict", rag_features, "accuracy", "feedback"),
    "memory_usefulness": Stage(
        "memory_usefulness", "memory", MEMORY_FITTED, (0.0, 10.0), "memory_rule_verdict", memory_features,
        "relevance", "reasoning",
    ),
}  # fmt: skip
MODEL_PATHS = tuple(stage.model_path for stage in STAGES.values())


@cache
def model_file(prompt_id: str = "rag_answer") -> JsonObject:
    return json.loads(STAGES[prompt_id].model_path.read_text(encoding="utf-8"))


@cache
def forest_for(signal: str, prompt_id: str = "rag_answer") -> Forest:
    """The forest fitted for ``prompt_id`` and the judge whose signal is ``signal`` (lexical,
    ngram, numeric)."""
    judges = model_file(prompt_id)["judges"]
    if signal not in judges:
        path = STAGES[prompt_id].model_path
        raise KeyError(f"{path.name} has no forest for the {signal!r} judge (has {sorted(judges)})")
    return Forest.from_json(judges[signal])


def refine(signal: str, rule_verdict: JsonObject, signals: Any, prompt_id: str = "rag_answer") -> JsonObject:
    """The rule verdict with the forest's scores, and the feedback saying what moved them."""
    stage = STAGES[prompt_id]
    forest = forest_for(signal, prompt_id)
    explained = forest.explain(stage.features(rule_verdict, signals), output=forest.outputs.index(stage.explained))
    lo, hi = stage.scale
    scores = {
        f: round(min(hi, max(lo, explained.prediction[forest.outputs.index(f)])), 2) for f in stage.fields
    }
    strongest = sorted(explained.contributions.items(), key=lambda kv: -abs(kv[1]))[:SHOWN_MOVES]
    moves = ", ".join(f"{name} {value:+.2f}" for name, value in strongest if abs(value) >= 0.005)
    about = model_file(prompt_id).get("fitted_on", {})
    note = say(
        "fitted.stage", trees=len(forest.trees), rows=about.get("rows", "?"),
        fields=joined((say(f"fitted.field_{f}") for f in stage.fields), "/"),
        before=_scores(rule_verdict, stage.fields), after=_scores(scores, stage.fields),
        moves=say(f"fitted.moved_{stage.explained}", moves=moves) if moves else "", bias=explained.bias,
    )  # fmt: skip
    return {**rule_verdict, **scores, stage.text_key: joined((rule_verdict[stage.text_key], note), " ")}


def _scores(verdict: JsonObject, fields: tuple[str, ...]) -> str:
    return "/".join(f"{float(verdict[f]):g}" for f in fields)
